"""The main screen: files (left), CUDA | HIP diff (centre), findings (right),
log and diagnostics (bottom, toggled).  Layout only: the app does the work."""

from __future__ import annotations

from dataclasses import replace

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Footer, OptionList, RichLog, Static

from porter.project.review import ReviewProject
from porter.tui.keymap import KEYS, bindings, footer_tier

KEYS_BY_ID = {k.id: k for k in KEYS}
from porter.tui.widgets.diff_view import DiffView
from porter.tui.widgets.file_tree import FileTree
from porter.tui.widgets.findings_list import FindingsList
from porter.tui.widgets.info_bar import InfoBar
from porter.tui.widgets.text_pane import TextPane


class MainScreen(Screen):
    BINDINGS = bindings()

    def __init__(self, project: ReviewProject) -> None:
        super().__init__()
        self.project = project

    def compose(self) -> ComposeResult:
        yield InfoBar(id="summary")
        with Horizontal(id="body"):
            yield FileTree(self.project.files, id="files")
            with Vertical(id="centre"):
                yield InfoBar(id="file-info")
                yield DiffView(id="diff")
            with Vertical(id="side"):
                yield Static(Text("Findings", style="bold"), id="findings-title")
                yield FindingsList(id="findings")
                yield TextPane(id="fix-preview")
        with Horizontal(id="log-panel"):
            yield RichLog(id="log", max_lines=200_000, wrap=True, min_width=20, markup=False, highlight=False)
            with Vertical(id="diag-pane"):
                yield InfoBar(id="diag-title")
                yield OptionList(id="diagnostics")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.call_after_refresh(self.app.start, self)

    def on_resize(self, event) -> None:
        self.fit_footer(event.size.width)

    def fit_footer(self, width: int) -> None:
        """Narrow terminals keep the loop keys in the footer: less used keys leave it
        (they still work, and are in help and the palette)."""
        tier = footer_tier(width)
        for key, found in list(self._bindings.key_to_bindings.items()):
            self._bindings.key_to_bindings[key] = [
                replace(b, show=bool(by_key.short) and by_key.tier <= tier)
                if (by_key := KEYS_BY_ID.get(b.id or "")) is not None else b for b in found]
        footer = self.query(Footer)
        if footer:
            footer.first().show_command_palette = width >= 120
        self.refresh_bindings()
