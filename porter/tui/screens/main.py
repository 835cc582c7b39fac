"""The main screen: files (left), CUDA | HIP diff (centre), findings (right),
log and diagnostics (bottom, toggled).  Layout only: the app does the work."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import OptionList, RichLog, Static

from porter.project.review_project import ReviewProject
from porter.tui.keymap import bindings
from porter.tui.widgets.diff_view import DiffView
from porter.tui.widgets.file_tree import FileTree, FilterInput
from porter.tui.widgets.findings_list import FindingsList
from porter.tui.widgets.info_bar import InfoBar
from porter.tui.widgets.key_bar import KeyBar
from porter.tui.widgets.text_pane import TextPane


class MainScreen(Screen):
    BINDINGS = bindings()

    def __init__(self, project: ReviewProject) -> None:
        super().__init__()
        self.project = project

    def compose(self) -> ComposeResult:
        yield InfoBar(id="summary")
        with Horizontal(id="body"):
            with Vertical(id="files-pane"):
                yield FileTree(self.project.files, id="files")
                yield FilterInput(id="file-filter")
            with Vertical(id="centre"):
                yield InfoBar(id="file-info")
                yield DiffView(id="diff")
                yield Static(id="finding-bar")  # the chosen finding in full while the findings pane is hidden
            with Vertical(id="side"):
                yield Static(Text("Findings", style="bold"), id="findings-title")
                yield FindingsList(id="findings")
                yield TextPane(id="fix-preview")
        with Horizontal(id="log-panel"):
            yield RichLog(id="log", max_lines=200_000, wrap=True, min_width=20, markup=False, highlight=False)
            with Vertical(id="diag-pane"):
                yield InfoBar(id="diag-title")
                yield OptionList(id="diagnostics")
        yield KeyBar(id="keys")

    def on_mount(self) -> None:
        self.call_after_refresh(self.app.start, self)
