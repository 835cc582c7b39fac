"""The current file's findings, one per line (rule, severity, line, message).

Line API like the file tree: a file with hundreds of findings opens at once
(an OptionList measured 476 options in ~0.45 s)."""

from __future__ import annotations

from rich.text import Text
from textual.binding import Binding
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from porter.tui.colours import DEFAULT, Palette


class FindingsList(ScrollView, can_focus=True):
    palette: Palette = DEFAULT  # the theme's colours (set_palette)

    def set_palette(self, palette: Palette) -> None:
        self.palette = palette
        self._cache.clear()
        self.refresh()

    BINDINGS = [
        Binding("up", "move(-1)", "Up", show=False),
        Binding("down", "move(1)", "Down", show=False),
        Binding("pagedown", "page(1)", "Scroll the fix preview", show=False),
        Binding("pageup", "page(-1)", "Scroll the fix preview", show=False),
        Binding("enter", "open", "The finding in full", show=False),
    ]

    class Opened(Message):
        """enter on a finding: show it in full (the app's `i`)."""

    class PageKey(Message):
        """pgup / pgdn in the findings: scroll the fix preview by a page (``step`` -1 / 1)."""

        def __init__(self, step: int) -> None:
            super().__init__()
            self.step = step

    class Highlighted(Message):
        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.items: list[Text] = []
        self._highlighted: int | None = None
        self._cache: dict[tuple, Strip] = {}

    @property
    def option_count(self) -> int:
        return len(self.items)

    def set_items(self, items: list[Text]) -> None:
        self.items = items
        self._highlighted = None
        self._cache.clear()
        self.virtual_size = Size(self.size.width, len(items))
        self.scroll_to(0, 0, animate=False)
        self.refresh()

    def restyle(self, items: list[Text]) -> None:
        """The same findings drawn anew (a fix resolved some, or added some after them): the
        selection and the scroll stay, and no Highlighted message moves the diff."""
        if len(items) != len(self.items):
            self.virtual_size = Size(self.size.width, len(items))
            if self._highlighted is not None and self._highlighted >= len(items):
                self._highlighted = None
        self.items = items
        self._cache.clear()
        self.refresh()

    @property
    def highlighted(self) -> int | None:
        return self._highlighted

    @highlighted.setter
    def highlighted(self, index: int | None) -> None:
        if index is None or not self.items:
            self._highlighted = None
            self.refresh()
            return
        index = max(0, min(index, len(self.items) - 1))
        self._highlighted = index
        h = max(1, self.scrollable_content_region.height)
        if index < self.scroll_offset.y or index >= self.scroll_offset.y + h:
            self.scroll_to(y=max(0, index - h // 3), animate=False)
        self.refresh()
        self.post_message(self.Highlighted(index))

    def action_open(self) -> None:
        if self._highlighted is not None:
            self.post_message(self.Opened())

    def action_page(self, step: int) -> None:
        self.post_message(self.PageKey(step))

    def action_move(self, step: int) -> None:
        self.highlighted = 0 if self._highlighted is None else self._highlighted + step

    def on_click(self, event) -> None:
        i = self.scroll_offset.y + event.y
        if i < len(self.items):
            self.highlighted = i

    def render_line(self, y: int) -> Strip:
        i = self.scroll_offset.y + y
        width = self.scrollable_content_region.width or self.size.width
        key = (i, width, i == self._highlighted, id(self.items))
        strip = self._cache.get(key)
        if strip is None:
            if i >= len(self.items):
                strip = Strip.blank(width)
            else:
                text = self.items[i].copy()
                text.no_wrap = True
                text.truncate(width, overflow="ellipsis", pad=True)
                strip = Strip(list(text.render(self.app.console))).adjust_cell_length(width)
                if i == self._highlighted:
                    strip = strip.apply_style(self.palette.cursor)
            if len(self._cache) > 2000:
                self._cache.clear()
            self._cache[key] = strip
        return strip

    def on_resize(self) -> None:
        self._cache.clear()
        self.virtual_size = Size(self.size.width, len(self.items))
