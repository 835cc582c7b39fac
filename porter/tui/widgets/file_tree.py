"""The project's files as an indented tree, each file labelled with its review state.

Drawn with the Line API from a flat list of rows (folders, then files): with a
thousand files, Textual's Tree widget re-measures every line on each label
change (~0.1 s), while here a label change redraws one line.
"""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual.binding import Binding
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from porter.project.review import (REJECTED, S_ACCEPTED, S_EDITED, S_ERROR, S_PENDING, S_UNCHANGED, S_WAITING,
                                   FileReview)
from porter.tui.colours import DEFAULT, Palette

STATE_MARK = {S_WAITING: "…", S_PENDING: "•", S_ACCEPTED: "✓", S_EDITED: "✎", S_UNCHANGED: "=", S_ERROR: "!"}


def _state_style(state: str, p: Palette) -> Style:
    return {S_PENDING: p.warning + Style(bold=True), S_ACCEPTED: p.ok, S_EDITED: p.info + Style(bold=True),
            S_ERROR: p.error}.get(state, p.muted)


def file_label(fr: FileReview, build_errors: int = 0, palette: Palette = DEFAULT) -> Text:
    """The file's line in the list, in the colours of ``palette`` (the theme's)."""
    p = palette
    state = fr.state
    mark, style = STATE_MARK[state], _state_style(state, p)
    name = fr.rel.rsplit("/", 1)[-1]
    label = Text.assemble((mark + " ", style), (name, ""))
    if state == S_WAITING:
        return label
    rejected = sum(1 for v in fr.decisions.values() if v == REJECTED) if fr.hunks else 0
    shown = "reviewed" if state == S_ACCEPTED and rejected else state  # not "accepted" with CUDA lines kept
    extra = [(f" {shown}", p.muted)]
    if build_errors:  # errors the last compile or test reported in this file: first, the list cuts the end
        extra.insert(0, (f" ✖{build_errors}", p.error))
    if fr.hunks:
        extra.append((f" {len(fr.hunks)}h", p.hunks))
    if fr.findings_pending:
        extra.append((" …", p.muted))  # findings still being checked
    sev = fr.severity_counts()
    for key, letter, st in (("error", "E", p.error), ("warning", "W", p.warning), ("info", "I", p.info)):
        if sev.get(key):
            extra.append((f" {sev[key]}{letter}", st))
    if rejected:
        extra.append((f" {rejected}✗", p.error))
    if fr.edit_stale or any(h.stale for h in fr.hunks) or fr.stale_decisions:
        extra.append((" stale", p.warning + Style(italic=True)))
    label.append_text(Text.assemble(*extra))
    return label


class FileTree(ScrollView, can_focus=True):
    """Folders and files; enter or a click opens a file (``FileTree.Selected``)."""

    BINDINGS = [
        Binding("up", "move(-1)", "Up", show=False),
        Binding("down", "move(1)", "Down", show=False),
        Binding("pageup", "move(-20)", "Page up", show=False),
        Binding("pagedown", "move(20)", "Page down", show=False),
        Binding("enter", "select", "Open", show=False),
    ]

    class Selected(Message):
        def __init__(self, rel: str) -> None:
            super().__init__()
            self.rel = rel

    def __init__(self, files: list[FileReview], **kwargs) -> None:
        super().__init__(**kwargs)
        self.files = {f.rel: f for f in files}
        self.rows: list[tuple[int, str, str | None]] = []  # (depth, folder name or file name, rel or None)
        seen: set[str] = set()
        for fr in files:
            parts = fr.rel.split("/")
            for i in range(len(parts) - 1):
                key = "/".join(parts[: i + 1])
                if key not in seen:
                    seen.add(key)
                    self.rows.append((i, parts[i] + "/", None))
            self.rows.append((len(parts) - 1, parts[-1], fr.rel))
        self.index = {rel: i for i, (_, _, rel) in enumerate(self.rows) if rel is not None}
        self.cursor = 0
        self.build_errors: dict[str, int] = {}  # rel -> errors of the last job in that file
        self.palette: Palette = DEFAULT
        self._cache: dict[tuple, Strip] = {}
        self.virtual_size = Size(1, len(self.rows))

    def label_of(self, rel: str) -> Text:
        return file_label(self.files[rel], self.build_errors.get(rel, 0), self.palette)

    def set_palette(self, palette: Palette) -> None:
        """The theme changed: draw in its colours."""
        self.palette = palette
        self._cache.clear()
        self.refresh()

    def set_build_errors(self, counts: dict[str, int]) -> None:
        """The errors of the last compile or test, by file (empty: none, e.g. after a pass)."""
        changed = set(counts) ^ set(self.build_errors) | {r for r in counts if counts[r] != self.build_errors.get(r)}
        self.build_errors = dict(counts)
        for rel in changed:
            i = self.index.get(rel)
            if i is not None:
                self._drop(i)

    def update_file(self, fr: FileReview) -> None:
        i = self.index.get(fr.rel)
        if i is not None:
            self._drop(i)

    def _drop(self, i: int) -> None:
        for key in [k for k in self._cache if k[0] == i]:
            del self._cache[key]
        y = i - self.scroll_offset.y
        if 0 <= y < self.size.height:
            self.refresh_line(y)

    def select_file(self, rel: str) -> None:
        i = self.index.get(rel)
        if i is not None:
            self._set_cursor(i)

    def _set_cursor(self, i: int) -> None:
        i = max(0, min(i, len(self.rows) - 1))
        old, self.cursor = self.cursor, i
        self._drop(old)
        self._drop(i)
        h = max(1, self.scrollable_content_region.height)
        if i < self.scroll_offset.y or i >= self.scroll_offset.y + h:
            self.scroll_to(y=max(0, i - h // 3), animate=False)

    def action_move(self, step: int) -> None:
        self._set_cursor(self.cursor + step)

    def action_select(self) -> None:
        if self.rows and self.rows[self.cursor][2] is not None:
            self.post_message(self.Selected(self.rows[self.cursor][2]))

    def on_click(self, event) -> None:
        self._set_cursor(self.scroll_offset.y + event.y)
        self.action_select()

    def render_line(self, y: int) -> Strip:
        i = self.scroll_offset.y + y
        width = self.scrollable_content_region.width or self.size.width
        key = (i, width, i == self.cursor)
        strip = self._cache.get(key)
        if strip is not None:
            return strip
        if i >= len(self.rows):
            return Strip.blank(width)
        depth, name, rel = self.rows[i]
        text = Text("  " * depth, no_wrap=True, end="")
        if rel is None:
            text.append("▾ " + name, self.palette.folder)
        else:
            text.append_text(file_label(self.files[rel], self.build_errors.get(rel, 0), self.palette))
        text.truncate(width, overflow="ellipsis", pad=True)
        segs = list(text.render(self.app.console))
        strip = Strip(segs).adjust_cell_length(width)
        if i == self.cursor:
            strip = strip.apply_style(self.palette.cursor)
        self._cache[key] = strip
        return strip

    def on_resize(self) -> None:
        self._cache.clear()
        self.virtual_size = Size(self.size.width, len(self.rows))
