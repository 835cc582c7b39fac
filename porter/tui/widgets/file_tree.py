"""The project's files as an indented tree, each file labelled with its review state.

Drawn with the Line API from a flat list of rows (folders, then files): with a
thousand files, Textual's Tree widget re-measures every line on each label
change (~0.1 s), while here a label change redraws one line.

``/`` in the list filters it (as in lazygit's lists): the files whose path holds
the text, with their folders; enter keeps the filter, escape clears it.
"""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual.binding import Binding
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widgets import Input

from porter.project.file_review import (REJECTED, S_ACCEPTED, S_EDITED, S_ERROR, S_PENDING, S_UNCHANGED, S_WAITING,
                                        FileReview)
from porter.tui.colours import DEFAULT, Palette

STATE_MARK = {S_WAITING: "…", S_PENDING: "•", S_ACCEPTED: "✓", S_EDITED: "✎", S_UNCHANGED: "=", S_ERROR: "!"}


def _state_style(state: str, p: Palette) -> Style:
    return {S_PENDING: p.warning + Style(bold=True), S_ACCEPTED: p.ok, S_EDITED: p.info + Style(bold=True),
            S_ERROR: p.error}.get(state, p.muted)


def rejected_hunks(fr: FileReview) -> int:
    return sum(1 for v in fr.decisions.values() if v == REJECTED) if fr.hunks else 0


def shown_state(fr: FileReview) -> str:
    """The state as the list and the file's header line say it: a file whose hunks are all decided,
    some of them rejected (CUDA lines kept), is "reviewed", not "accepted"."""
    state = fr.state
    return "reviewed" if state == S_ACCEPTED and rejected_hunks(fr) else state


def file_label(fr: FileReview, build_errors: int = 0, palette: Palette = DEFAULT) -> Text:
    """The file's line in the list, in the colours of ``palette`` (the theme's)."""
    p = palette
    state = fr.state
    mark, style = STATE_MARK[state], _state_style(state, p)
    name = fr.rel.rsplit("/", 1)[-1]
    label = Text.assemble((mark + " ", style), (name, ""))
    if state == S_WAITING:
        return label
    rejected = rejected_hunks(fr)
    extra = [(f" {shown_state(fr)}", p.muted)]
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
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home", "edge(0)", "First file", show=False),
        Binding("end", "edge(1)", "Last file", show=False),
        Binding("enter", "select", "Open", show=False),
        Binding("slash", "filter", "Filter the files", show=False),
        Binding("escape", "clear_filter", "Clear the filter", show=False),
    ]

    class Selected(Message):
        def __init__(self, rel: str) -> None:
            super().__init__()
            self.rel = rel

    class FilterAsked(Message):
        """``/`` in the list: the screen shows the filter line."""

    def __init__(self, files: list[FileReview], **kwargs) -> None:
        super().__init__(**kwargs)
        self.all_files = list(files)
        self.files = {f.rel: f for f in files}
        self.filter = ""
        self.cursor = 0
        self.build_errors: dict[str, int] = {}  # rel -> errors of the last job in that file
        self.palette: Palette = DEFAULT
        self._cache: dict[tuple, Strip] = {}
        self._build_rows()

    def _build_rows(self) -> None:
        """The rows of the files the filter keeps (all without one), each after its folders."""
        needle = self.filter.casefold()
        self.rows: list[tuple[int, str, str | None]] = []  # (depth, folder name or file name, rel or None)
        seen: set[str] = set()
        for fr in self.all_files:
            if needle and needle not in fr.rel.casefold():
                continue
            parts = fr.rel.split("/")
            for i in range(len(parts) - 1):
                key = "/".join(parts[: i + 1])
                if key not in seen:
                    seen.add(key)
                    self.rows.append((i, parts[i] + "/", None))
            self.rows.append((len(parts) - 1, parts[-1], fr.rel))
        self.index = {rel: i for i, (_, _, rel) in enumerate(self.rows) if rel is not None}
        self.virtual_size = Size(self.size.width or 1, len(self.rows))

    @property
    def shown_files(self) -> int:
        return len(self.index)

    def set_filter(self, text: str) -> None:
        """Show only the files whose path holds ``text`` (any case); the cursor stays on its file
        while the filter keeps it, else it goes to the first file shown."""
        if text == self.filter:
            return
        here = self.rows[self.cursor][2] if self.rows and self.cursor < len(self.rows) else None
        self.filter = text
        self._build_rows()
        self._cache.clear()
        self.cursor = self.index.get(here, next(iter(self.index.values()), 0)) if here is not None else 0
        self.cursor = min(self.cursor, max(0, len(self.rows) - 1))
        self.scroll_to(y=0, animate=False)
        self._set_cursor(self.cursor)
        self.refresh()

    def action_filter(self) -> None:
        self.post_message(self.FilterAsked())

    def check_action(self, action: str, parameters) -> bool | None:
        if action == "clear_filter" and not self.filter:
            return False  # escape goes on to the screen (it ends a search there)
        return True

    def action_clear_filter(self) -> None:
        if self.filter:
            self.post_message(FilterInput.Cleared())

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

    def action_page(self, step: int) -> None:
        self._set_cursor(self.cursor + step * max(1, self.scrollable_content_region.height - 1))

    def action_edge(self, end: int) -> None:
        self._set_cursor(len(self.rows) - 1 if end else 0)

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
            if i == 0 and self.filter:  # nothing left: say why, not an empty pane
                text = Text(f"no file matches {self.filter!r}", style=self.palette.muted, no_wrap=True, end="")
                text.truncate(width, overflow="ellipsis", pad=True)
                return Strip(list(text.render(self.app.console))).adjust_cell_length(width)
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


class FilterInput(Input):
    """The file list's filter line: what is typed filters the list as it is typed; enter keeps
    it and goes back to the list, escape clears it."""

    BINDINGS = [Binding("escape", "clear", "Clear the filter", show=False)]

    class Cleared(Message):
        """Escape: the filter is cleared and the line hidden."""

    def __init__(self, **kwargs) -> None:
        super().__init__(placeholder="filter files: enter keeps, escape clears", **kwargs)

    def action_clear(self) -> None:
        self.post_message(self.Cleared())
