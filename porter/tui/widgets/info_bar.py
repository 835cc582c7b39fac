"""A one-line bar whose text changes often (header, file info) without a layout pass:
Static.update re-lays out the screen, which costs a full repaint per key."""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget


class InfoBar(Widget):
    DEFAULT_CSS = "InfoBar { height: 1; width: 1fr; }"
    text: reactive[Text] = reactive(Text(""), layout=False)

    def update(self, text: Text | str) -> None:
        self.text = text if isinstance(text, Text) else Text(text)

    def render(self) -> Text:
        return self.text
