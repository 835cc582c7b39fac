"""Edit the HIP side of one file in a TextArea.

ctrl+s saves the text into the review at once (``EditorScreen.Saved``; the
edited hunks become decided), escape leaves; with unsaved text, escape asks
save / discard / cancel.  Highlighting is switched off for big files: TextArea
re-highlights the whole document on every keystroke (~0.4 s at 10,000 lines)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Static, TextArea

from porter.tui.screens.dialogs import ChoiceScreen

HIGHLIGHT_LIMIT = 3000  # lines
SAVE_CHOICES = [("s", "save", "save"), ("d", "discard", "discard")]


def _register(area: TextArea) -> bool:
    try:
        import tree_sitter as ts
        import tree_sitter_cuda

        from porter.parse import query_text

        area.register_language("cuda", ts.Language(tree_sitter_cuda.language()), query_text("highlights-cuda"))
        return True
    except Exception:
        return False


class EditorScreen(Screen[None]):
    BINDINGS = [
        Binding("ctrl+s", "save", "Save", priority=True),
        Binding("escape", "leave", "Leave", priority=True),
    ]

    class Saved(Message):
        """The user saved ``text`` as the HIP of ``rel``."""

        def __init__(self, rel: str, text: str) -> None:
            super().__init__()
            self.rel = rel
            self.text = text

    def __init__(self, rel: str, text: str, line: int = 0) -> None:
        super().__init__()
        self.rel = rel
        self.text = text
        self.line = line  # 0-based line the cursor starts on
        self.saved_text = text  # the text as last saved (or as opened)

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
        area = next(iter(self.query(TextArea)), None)
        if area is None:  # (torn down before its widgets were composed: the app is quitting)
            return
        area.focus()
        if self.line:
            area.move_cursor((self.line, 0), center=True)

    @property
    def dirty(self) -> bool:
        """Text typed since the last save."""
        area = next(iter(self.query(TextArea)), None)
        return area is not None and area.text != self.saved_text

    def action_save(self) -> None:
        text = self.query_one(TextArea).text
        if text != self.saved_text:
            self.saved_text = text
            self.app.post_message(self.Saved(self.rel, text))  # to the app: this screen may close next
        self.notify(f"saved the HIP edit of {self.rel}", timeout=2)

    def action_leave(self) -> None:
        if not self.dirty:
            self.dismiss(None)
            return
        self.ask_unsaved(lambda: self.dismiss(None))

    def ask_unsaved(self, then) -> None:
        """Ask save / discard / cancel about unsaved text; ``then()`` runs unless cancelled."""

        def answer(choice: str | None) -> None:
            if choice is None:
                return
            if choice == "save":
                self.action_save()
            then()

        self.app.push_screen(ChoiceScreen(f"{self.rel}: the edit has unsaved changes.", SAVE_CHOICES), answer)
