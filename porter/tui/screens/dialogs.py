"""Small modal dialogs: yes/no confirmation, a choice of a few answers, a scrollable text page."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, Static


class ConfirmScreen(ModalScreen[bool]):
    """Ask a yes/no question; y / enter answers yes, n / escape answers no."""

    BINDINGS = [Binding("y,enter", "answer(True)", "Yes"), Binding("n,escape", "answer(False)", "No")]

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(Text(self.question), id="question")
            yield Static(Text("y: yes    n / escape: no"), id="answers")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


class ChoiceScreen(ModalScreen[str | None]):
    """Ask a question with a few answers, each on its own key; escape answers None
    (cancel).  ``choices``: (key, label, value), e.g. ("s", "save", "save"); a value None
    answers as escape does (its label then replaces "cancel")."""

    def __init__(self, question: str, choices: list[tuple[str, str, str | None]]) -> None:
        super().__init__()
        self.question = question
        self.choices = choices

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(Text(self.question), id="question")
            hint = "    ".join(f"{key}{' / escape' if value is None else ''}: {what}"
                               for key, what, value in self.choices)
            if all(value is not None for _, _, value in self.choices):
                hint += "    escape: cancel"
            yield Static(Text(hint), id="answers")

    def on_key(self, event) -> None:
        event.stop()
        if event.key == "escape":
            self.dismiss(None)
            return
        for key, _, value in self.choices:
            if event.key == key or event.character == key:
                self.dismiss(value)
                return


class InputScreen(ModalScreen[str | None]):
    """Ask for one line of text; enter answers it, escape answers None."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, prompt: str, value: str = "") -> None:
        super().__init__()
        self.prompt = prompt
        self.value = value

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(Text(self.prompt), id="question")
            yield Input(value=self.value, id="answer-input")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)


class TextScreen(ModalScreen[None]):
    """A page of text (help, a finding in full, the messages): plain text, or any Rich renderable
    (a Text, a Table); escape or q closes it.  ``at_end``: opened scrolled to its end."""

    BINDINGS = [Binding("escape,q,question_mark", "close", "Close")]

    def __init__(self, title: str, body, at_end: bool = False) -> None:
        super().__init__()
        self.title_text = title
        self.body = body
        self.at_end = at_end

    def compose(self) -> ComposeResult:
        with Vertical(id="page"):
            yield Static(Text(self.title_text, style="bold"), id="page-title")
            with VerticalScroll(id="page-body"):
                yield Static(Text(self.body) if isinstance(self.body, str) else self.body, id="page-text")
            yield Static(Text("escape closes · up/down, pgup/pgdn scroll"), id="page-hint")

    def on_mount(self) -> None:
        body = self.query_one("#page-body", VerticalScroll)
        body.focus()
        if self.at_end:
            self.call_after_refresh(body.scroll_end, animate=False)

    def action_close(self) -> None:
        self.dismiss(None)
