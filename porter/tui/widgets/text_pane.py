"""A page of rich text that wraps to its width and scrolls (the fix preview): any
message length, the before/after lines always reachable.  Line API, so an update
redraws this pane only (no layout pass of the screen)."""

from __future__ import annotations

from rich.text import Text
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip


class TextPane(ScrollView):
    DEFAULT_CSS = "TextPane { height: 1fr; }"

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.text = Text("")
        self._strips: list[Strip] = []
        self._width = 0

    def update(self, text: Text | str) -> None:
        self.text = text if isinstance(text, Text) else Text(text)
        self._layout()
        self.scroll_to(0, 0, animate=False)
        self.refresh()

    def _layout(self) -> None:
        width = max(1, self.scrollable_content_region.width or self.size.width or 40)
        self._width = width
        if not self.is_mounted:
            self._strips = []
            return
        console = self.app.console
        lines = self.text.wrap(console, width)
        self._strips = [Strip(list(line.render(console))).adjust_cell_length(width) for line in lines]
        self.virtual_size = Size(width, len(self._strips))

    def scroll_page(self, step: int) -> None:
        self.scroll_relative(y=step * max(1, self.scrollable_content_region.height - 1), animate=False)

    def render_line(self, y: int) -> Strip:
        i = self.scroll_offset.y + y
        if i < len(self._strips):
            return self._strips[i]
        return Strip.blank(self._width or self.size.width)

    def on_resize(self) -> None:
        self._layout()
        self.refresh()
