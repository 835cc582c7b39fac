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
    (cancel).  ``choices``: (key, label, value), e.g. ("s", "save", "save")."""

    def __init__(self, question: str, choices: list[tuple[str, str, str]]) -> None:
        super().__init__()
        self.question = question
        self.choices = choices

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(Text(self.question), id="question")
            hint = "    ".join(f"{key}: {what}" for key, what, _ in self.choices)
            yield Static(Text(hint + "    escape: cancel"), id="answers")

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
    """A page of plain text (help, porter explain); escape or q closes it."""

    BINDINGS = [Binding("escape,q,question_mark", "close", "Close")]

    def __init__(self, title: str, body: str) -> None:
        super().__init__()
        self.title_text = title
        self.body = body

    def compose(self) -> ComposeResult:
        with Vertical(id="page"):
            yield Static(Text(self.title_text, style="bold"), id="page-title")
            with VerticalScroll(id="page-body"):
                yield Static(Text(self.body))
            yield Static(Text("escape closes"), id="page-hint")

    def action_close(self) -> None:
        self.dismiss(None)
