"""Actions on the app as a whole: the log pane, help, the messages, quit."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text

from porter.project.session import unwritten
from porter.tui.keymap import KEYS, user_keymap_path
from porter.tui.screens.dialogs import ChoiceScreen, ConfirmScreen, TextScreen
from porter.tui.screens.editor import SAVE_CHOICES

QUIT_CHOICES = [("w", "write and quit", "write"), ("y", "quit without writing", "quit"), ("n", "stay", None)]


class PaneActions:
    def action_toggle_log(self) -> None:
        panel = self.main.query_one("#log-panel")
        panel.display = not panel.display

    def action_zoom(self) -> None:
        """z: the diff alone (the file list and findings hidden), or all panes again."""
        files, side = self.main.query_one("#files-pane"), self.main.query_one("#side")
        show = not (files.display and side.display)
        files.display = side.display = show
        if not show and self.focused is not None and self.focused in (self.file_tree, self.findings_list,
                                                                      self.main.query_one("#file-filter")):
            self.diff.focus()
        self.call_after_refresh(self.update_finding_bar)  # the chosen finding under the diff while zoomed

    def action_toggle_unified(self) -> None:
        """v: the diff in one column (- CUDA / + HIP) or side by side; kept in the session."""
        self.diff_layout = "side-by-side" if self.diff_layout == "unified" else "unified"
        self.diff.set_unified(self.diff_layout == "unified")
        self.update_file_info()
        self.save_session()

    def action_focus_pane(self, pane: str) -> None:
        """1-5: the file list, the diff, the findings, the diagnostics, the log (shown if hidden)."""
        if pane in ("diagnostics", "log"):
            self.main.query_one("#log-panel").display = True
        if pane in ("files", "findings"):
            self.main.query_one("#files-pane").display = self.main.query_one("#side").display = True
            self.call_after_refresh(self.update_finding_bar)
        self.main.query_one(f"#{pane}").focus()

    def help_table(self) -> Table:
        """The keys, one per row: the key as pressed here, what it does, its binding id (the name a
        keymap file remaps it by).  The middle column wraps; the others never do."""
        table = Table(box=None, show_header=True, header_style="bold", pad_edge=False, expand=True,
                      padding=(0, 1))
        table.add_column("key", no_wrap=True)
        table.add_column("what it does", ratio=1, overflow="fold")
        table.add_column("id (keymap)", no_wrap=True, style="dim")
        for k in KEYS:
            table.add_row(self.key_label(k), Text.assemble((k.description, "bold"), (f": {k.help}" if k.help else "")),
                          k.id)
        return table

    def action_help(self) -> None:
        from rich.console import Group

        lines = ["", "  up/down, pgup/pgdn, home/end  move in the diff; enter unfolds unchanged lines",
                  "  in the file list: up/down, pgup/pgdn, home/end; enter opens a file (accepted ones too);",
                  "    / filters the list (enter keeps the filter, escape clears it)",
                  "  in the findings: up/down, enter shows the finding in full (as i)",
                  "", "File badges: 5h = 5 hunks; 4E 8W 1I = findings by severity (error, warning, info);",
                  "  1✗ = rejected hunks (the file is 'reviewed', not 'accepted');",
                  "  ✖3 = 3 errors of the last compile or test in this file (gone after a passing build);",
                  "  stale = the CUDA source changed since the decisions (or the edit) were made.",
                  "States: pending (hunks to decide), accepted, reviewed (all decided, some rejected), edited, unchanged, error.",
                  "An edit decides the hunks it changes; the other hunks stay to decide.",
                  "An edit whose CUDA changed asks: k keep it, r re-convert, 3 a three-way view (base, now, edit).",
                  "w writes accepted, edited and unchanged files; pending files are skipped.",
                  "Header: 'N error findings' are the findings; 'build ARCH: ok / failed, N errors' the last build.",
                  f"Session: {self.store.path}",
                  f"Keys are remapped in {user_keymap_path()}: [keys] then id = \"key\" (the ids are in the "
                  "table above)"]
        self.push_screen(TextScreen("porter review: keys (all also in the command palette, ctrl+p)",
                                    Group(self.help_table(), Text("\n".join(lines)))))

    def action_messages(self) -> None:
        """m: every message shown since the start (toasts go in seconds), newest last."""
        if not self.messages:
            self.notify("no messages yet", timeout=1.5)
            return
        styles = {"warning": "#ffaf00", "error": "bold #ff5f5f"}
        text = Text()
        for when, severity, message in self.messages:
            text.append(f"{when} ", style="dim")
            text.append(message + "\n", style=styles.get(severity, ""))
        self.push_screen(TextScreen(f"messages ({len(self.messages)}, newest last)", text, at_end=True))

    async def action_quit(self) -> None:
        """Quit, asking first about anything that would be lost or stopped: unsaved
        text in the editor, a running compile or smoke test, reviewed work not
        written to the output folder (it stays in the session either way)."""
        from porter.tui.screens.editor import EditorScreen

        screen = self.screen
        if isinstance(screen, EditorScreen) and screen.dirty:
            def answer(choice: str | None) -> None:
                if choice is None:
                    return
                if choice == "save":
                    screen.saved_text = screen.query_one("#editor").text
                    self.edit_saved_now(screen.rel, screen.saved_text)
                else:
                    screen.saved_text = screen.query_one("#editor").text  # discarded: do not ask again
                self.call_later(self.action_quit)

            self.push_screen(ChoiceScreen(f"{screen.rel}: the edit has unsaved changes. Quit:", SAVE_CHOICES),
                             answer)
            return
        for w in list(self.workers):  # an edit being applied lands in the session first
            if w.group == "edit" and w.is_running:
                await w.wait()
        job = getattr(self, "_job_worker", None)
        if job is not None and job.is_running:
            self.push_screen(ConfirmScreen("A compile or smoke test is still running; quitting stops it. "
                                           "Quit anyway?"), lambda yes: yes and self.call_later(self._quit_unwritten))
            return
        self._quit_unwritten()

    def _quit_unwritten(self) -> None:
        files = unwritten(self.project)
        if not files:
            self.exit(0)
            return

        def answer(choice: str | None) -> None:
            if choice == "quit":
                self.exit(0)
            elif choice == "write":
                self.read_changed_before_writing()
                self._write_worker(then_quit=True)

        more = f" and {len(files) - 1} more" if len(files) > 1 else ""
        self.push_screen(ChoiceScreen(f"Reviewed work is not written to the output folder yet ({files[0]}{more}; "
                                      f"{self.saver.kept_words()}).", QUIT_CHOICES), answer)
