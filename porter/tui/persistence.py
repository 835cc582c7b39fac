"""Saving the review session from the app: soon after each change (changes
within 0.2 s are saved together), at once on quit; a failure is reported once."""

from __future__ import annotations

from textual.app import App

from porter.project.review import ReviewProject
from porter.project.session import SessionStore

SAVE_DELAY_S = 0.2


class SessionSaver:
    def __init__(self, app: App, project: ReviewProject, store: SessionStore) -> None:
        self.app = app
        self.project = project
        self.store = store
        self.pending = False
        self._warned = False

    def save_soon(self) -> None:
        if not self.pending:
            self.pending = True
            self.app.set_timer(SAVE_DELAY_S, self.save_now)

    def save_now(self) -> None:
        if not self.pending:
            return
        self.pending = False
        try:
            self.store.save(self.project.to_session())
        except OSError as exc:
            if not self._warned:
                self._warned = True
                self.app.notify(f"session not saved: {exc.strerror or exc} ({self.store.path.parent})",
                                severity="error")
