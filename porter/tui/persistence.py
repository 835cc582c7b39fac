"""Saving the review session from the app: soon after each change (changes
within 0.2 s are saved together), at once on quit; a failure is reported once."""

from __future__ import annotations

from textual.app import App

from porter.project.review_project import ReviewProject
from porter.project.session import SessionStore

SAVE_DELAY_S = 0.2
DEFAULT_THEME = "textual-dark"


def saved_theme(store: SessionStore, project: ReviewProject, available) -> str | None:
    """The theme kept in the session, when it is one this Textual knows."""
    data, _ = store.load(str(project.root))
    theme = (data or {}).get("theme")
    return theme if isinstance(theme, str) and theme in available else None


def saved_diff_layout(store: SessionStore, project: ReviewProject) -> str:
    """The diff layout kept in the session: "unified" or "side-by-side" (the default;
    sessions saved before the setting existed have none)."""
    data, _ = store.load(str(project.root))
    return "unified" if (data or {}).get("diff_layout") == "unified" else "side-by-side"


class SessionSaver:
    def __init__(self, app: App, project: ReviewProject, store: SessionStore) -> None:
        self.app = app
        self.project = project
        self.store = store
        self.pending = False
        self._warned = False
        self.failed = False  # the last save failed (read-only or full disk): the session does not hold the work

    def kept_words(self) -> str:
        """How the quit question and a failed write speak of the session: it keeps the work only
        while saving it works (saved now, when a save is due)."""
        if self.pending:
            self.save_now()
        if self.failed:
            return f"the session could not be saved either ({self.store.path.parent}): quitting loses it"
        return "it is kept in the session either way"

    def save_soon(self) -> None:
        if not self.pending:
            self.pending = True
            self.app.set_timer(SAVE_DELAY_S, self.save_now)

    def save_now(self) -> None:
        if not self.pending:
            return
        self.pending = False
        data = self.project.to_session()
        theme = getattr(self.app, "theme", None)
        if theme and theme != DEFAULT_THEME:
            data["theme"] = theme  # the palette's "Change theme", kept for the next start
        if getattr(self.app, "diff_layout", "side-by-side") == "unified":
            data["diff_layout"] = "unified"  # v, kept for the next start
        if getattr(self.app, "stale_build", None) in ("write", "disk"):
            data["stale_build"] = self.app.stale_build  # c/T with unwritten work: write first or build the disk's
        trusted = getattr(self.app, "trusted", None)
        if trusted:
            data["trusted"] = sorted(trusted)  # the project code allowed to run (porter.tui.trust)
        try:
            self.store.save(data)
            self.failed = False
        except OSError as exc:
            self.failed = True
            if not self._warned:
                self._warned = True
                self.app.notify(f"session not saved: {exc.strerror or exc} ({self.store.path.parent})",
                                severity="error")
