"""Edit the HIP side of one file in a TextArea.

ctrl+s saves the text into the review (the file becomes "edited"), escape
leaves.  Highlighting is switched off for big files: TextArea re-highlights the
whole document on every keystroke (~0.4 s at 10,000 lines)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer, Static, TextArea

HIGHLIGHT_LIMIT = 3000  # lines


def _register(area: TextArea) -> bool:
    try:
        import tree_sitter as ts
        import tree_sitter_cuda

        from porter.parse import query_text

        area.register_language("cuda", ts.Language(tree_sitter_cuda.language()), query_text("highlights-cuda"))
        return True
    except Exception:
        return False


class EditorScreen(Screen[str | None]):
    """Dismisses with the saved text (None when nothing was saved)."""

    BINDINGS = [
        Binding("ctrl+s", "save", "Save", priority=True),
        Binding("escape", "leave", "Leave", priority=True),
    ]

    def __init__(self, rel: str, text: str) -> None:
        super().__init__()
        self.rel = rel
        self.text = text
        self.saved: str | None = None

    def compose(self) -> ComposeResult:
        lines = self.text.count("\n") + 1
        note = "" if lines <= HIGHLIGHT_LIMIT else f"  (highlighting off above {HIGHLIGHT_LIMIT} lines)"
        yield Static(Text(f"editing HIP: {self.rel}{note}   ctrl+s save · escape leave"), id="editor-title")
        area = TextArea(self.text, id="editor", show_line_numbers=True, soft_wrap=False, tab_behavior="indent")
        if lines <= HIGHLIGHT_LIMIT and _register(area):
            area.language = "cuda"
        yield area
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(TextArea).focus()

    def action_save(self) -> None:
        self.saved = self.query_one(TextArea).text
        self.notify(f"saved the HIP edit of {self.rel}", timeout=2)

    def action_leave(self) -> None:
        current = self.query_one(TextArea).text
        if self.saved is None and current != self.text:
            self.notify("edit left without saving (ctrl+s saves)", severity="warning", timeout=3)
        self.dismiss(self.saved)
