"""The key bar at the bottom of the main screen: each key with its word, the review loop's
keys first (``keymap.FOOTER``).  Where one line is too narrow it wraps onto a second line, so
that 80 columns still show every key of the loop; what fits on neither is left out (help and
the palette have every key).  The keys are written as the user's keymap has them; a click on
one presses it.  Textual's Footer keeps one line and cuts its end."""

from __future__ import annotations

from rich.text import Text
from textual.widget import Widget

from porter.tui.keymap import FOOTER, KEYS

MAX_LINES = 2
PALETTE = ("ctrl+p", "^p", "palette")  # Textual's command palette: last, where there is room


class KeyBar(Widget):
    DEFAULT_CSS = """
    KeyBar { height: auto; background: $footer-background; color: $footer-foreground; }
    KeyBar > .key-bar--key { color: $footer-key-foreground; text-style: bold; }
    KeyBar > .key-bar--word { color: $footer-description-foreground; }
    """
    COMPONENT_CLASSES = {"key-bar--key", "key-bar--word"}

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._spans: list[list[tuple[int, int, str]]] = []  # per line: (x from, x to, key to press)

    def items(self) -> list[tuple[str, str, str]]:
        """(key to press, key as shown, word), most needed first."""
        by_id = {k.id: k for k in KEYS}
        label = getattr(self.app, "key_label", None)
        out = []
        for kid in FOOTER:
            k = by_id[kid]
            shown = label(k) if label is not None else k.key
            press = getattr(self.app, "user_keys", {}).get(k.id, k.key).split(",")[0]
            out.append((press, shown, k.short))
        return [*out, PALETTE]

    def lines(self, width: int) -> list[list[tuple[str, str, str]]]:
        """The items laid out on at most two lines of ``width`` cells, in order."""
        lines: list[list[tuple[str, str, str]]] = [[]]
        used = 0
        for item in self.items():
            cells = len(item[1]) + 1 + len(item[2])
            gap = 1 if lines[-1] else 0
            if used + gap + cells > width and lines[-1]:
                if len(lines) == MAX_LINES or item is PALETTE:  # no line of its own for the palette's key
                    break
                lines.append([])
                used, gap = 0, 0
            if cells > width:
                break
            lines[-1].append(item)
            used += gap + cells
        return lines

    def get_content_height(self, container, viewport, width: int) -> int:
        return len(self.lines(width))

    def render(self) -> Text:
        key_style = self.get_component_rich_style("key-bar--key")
        word_style = self.get_component_rich_style("key-bar--word")
        text = Text(no_wrap=True, overflow="crop", end="")
        self._spans = []
        for n, line in enumerate(self.lines(self.size.width or 80)):
            if n:
                text.append("\n")
            x, spans = 0, []
            for i, (press, shown, word) in enumerate(line):
                if i:
                    text.append(" ")
                    x += 1
                text.append(shown, key_style)
                text.append(" " + word, word_style)
                spans.append((x, x + len(shown) + 1 + len(word), press))
                x += len(shown) + 1 + len(word)
            self._spans.append(spans)
        return text

    def on_resize(self) -> None:
        self.refresh(layout=True)

    def on_click(self, event) -> None:
        if 0 <= event.y < len(self._spans):
            for start, end, press in self._spans[event.y]:
                if start <= event.x < end:
                    self.app.simulate_key(press)
                    return
