"""Actions on the current file's findings: move through them, preview, apply a fix, explain."""

from __future__ import annotations

from rich.text import Text
from textual import work

from porter.project.file_conversion import finding_key
from porter.project.file_review import FileReview
from porter.tui.finding_text import finding_page, fix_lines
from porter.tui.screens.dialogs import ConfirmScreen, TextScreen

BAR_BELOW = 30  # the bar under the diff shows the chosen finding while the fix preview is narrower (columns)

FIX_UNDER_EDIT = "fix"  # an edit_base no source hash equals: the edit predates a fix


class FindingActions:
    def current_finding(self):
        fr = self.current
        idx = self.findings_list.highlighted
        if fr is None or fr.status != "ready" or idx is None or idx >= len(fr.findings):
            return None
        return fr.findings[idx]

    def action_finding(self, step: int) -> None:
        fr = self._ready_file()
        if fr is None:
            return
        if not fr.findings:
            self.notify("no findings in this file", timeout=1.5)
            return
        ol = self.findings_list
        idx = ol.highlighted
        if idx is None:  # from the diff cursor: the first finding after it (before it, going back)
            row = self.diff.current_row() or 0
            line = next((r.left + 1 for r in fr.rows[row::-1] if r.left is not None), 1) if fr.rows else 1
            if step > 0:
                idx = next((i for i, f in enumerate(fr.findings) if f.line >= line), 0)
            else:
                idx = next((i for i in range(len(fr.findings) - 1, -1, -1) if fr.findings[i].line <= line),
                           len(fr.findings) - 1)
        else:  # through the file's findings and then the ones its fixes introduced
            idx = (idx + step) % (len(fr.findings) + len(fr.introduced))
        ol.highlighted = idx

    def finding_highlighted(self, index: int) -> None:
        """The findings cursor moved: show the finding in the diff and its fix preview."""
        fr = self.current
        if fr is None or fr.status != "ready":
            return
        self.update_finding_bar()
        if index >= len(fr.findings):
            new = self.current_introduced()
            if new is not None:
                self.diff.move_to_row(fr.row_of_left_line(new.line))
                self.main.query_one("#fix-preview").update(Text.assemble(
                    (f"{new.rule} {new.severity} line {new.line} (new after the fixes)\n", "bold"), new.message + "\n",
                    ("\nfound in the CUDA as the applied fixes made it; u undoes a fix, i explains\n", "dim")))
            return
        f = fr.findings[index]
        self.diff.move_to_row(fr.row_of_left_line(f.line))
        self.main.query_one("#fix-preview").update(self.fix_preview(fr, f))

    def fix_preview(self, fr: FileReview, f) -> Text:
        t = Text()
        sev = fr.severity_of(f)
        t.append(f"{f.rule} {sev} line {f.line}" + (f" (was {f.severity})" if sev != f.severity else "") + "\n",
                 style="bold")
        t.append(f.message + "\n")
        if f.fix is None:
            t.append("\nno automatic fix (i explains)\n", style="dim")
            return t
        t.append(f"\nfix ({'safe' if f.fix.safe else 'review it'}): {f.fix.description}\n", style="italic")
        t.append_text(fix_lines(fr.cuda, f.fix))
        if finding_key(f) in fr.applied_fixes:
            t.append("(applied)\n", style="green")
        else:
            t.append("f applies it\n", style="dim")
        return t

    def action_apply_fix(self) -> None:
        fr = self._ready_file()
        if fr is None:
            return
        f = self.current_finding()
        if f is None and self.current_introduced() is not None:
            self.notify("this finding is in the CUDA as your fixes made it: edit the HIP (e), or undo the fix (u)",
                        timeout=4)
            return
        if f is None:
            self.notify("select a finding first (] / [)", timeout=2)
            return
        if f.fix is None or not f.fix.edits:
            self.notify(f"{f.rule} has no automatic fix", timeout=2)
            return
        idx = self.findings_list.highlighted
        if finding_key(f) in fr.applied_fixes:
            self.notify("this fix is already applied", timeout=2)
            return
        self.record_undo(fr)
        base = fr.effective_cuda() if fr.edited is not None and not fr.edit_base_cuda else fr.edit_base_cuda
        try:
            applied = fr.apply_fix(f)
        except Exception as exc:
            self.undo_stack.undo()  # nothing changed: drop the snapshot again
            self.notify(f"the fix failed: {type(exc).__name__}: {exc}", severity="error")
            return
        if not applied:
            return
        if fr.edited is not None:  # the fix changed the CUDA under the edit: the user chooses, as for a source change
            fr.edit_base, fr.edit_base_cuda = FIX_UNDER_EDIT, base  # base: for the three-way view
        self.changed(fr, rows_changed=True)
        self._highlight_worker(fr)
        self.update_findings()
        if idx is not None and idx < len(fr.findings):
            self.findings_list.highlighted = idx
        self.notify(f"applied the fix for {f.rule}; the file was re-translated", timeout=2)
        if fr.edit_stale:
            self.ask_stale_edit(fr)

    def action_apply_safe_fixes(self) -> None:
        """F: every safe fix of this file, after a preview of what each one does."""
        fr = self._ready_file()
        if fr is None:
            return
        fixes = fr.safe_fixes()
        if not fixes:
            self.notify("no safe fixes left in this file", timeout=2)
            return
        lines = [f"Apply {len(fixes)} safe fix{'es' if len(fixes) != 1 else ''} in {fr.rel}?", ""]
        for f in fixes[:12]:
            lines.append(f"  {f.rule} line {f.line}: {f.fix.description}")
        if len(fixes) > 12:
            lines.append(f"  … and {len(fixes) - 12} more")
        lines += ["", "(u undoes them together)"]

        def answer(yes: bool | None) -> None:
            if yes:
                self._apply_fixes_worker(fr, fixes)

        self.push_screen(ConfirmScreen("\n".join(lines)), answer)

    def action_apply_project_safe_fixes(self) -> None:
        """The palette: every safe fix of every converted file, after a count."""
        files = [(fr, fr.safe_fixes()) for fr in self.project.files if fr.status == "ready"]
        files = [(fr, fx) for fr, fx in files if fx]
        if not files:
            self.notify("no safe fixes left in the converted files", timeout=2)
            return
        n = sum(len(fx) for _, fx in files)
        waiting = sum(1 for fr in self.project.files if fr.status == "converting")
        note = f" ({waiting} file(s) still converting are not included)" if waiting else ""
        per_file = "\n".join(f"  {fr.rel}: {len(fx)}" for fr, fx in files[:12])

        def answer(yes: bool | None) -> None:
            if yes:
                self.undo_stack.record_all([fr for fr, _ in files])  # one `u` takes them all back
                for fr, fx in files:
                    self._apply_fixes_worker(fr, fx, record=False)

        more = f"\n  … and {len(files) - 12} more files" if len(files) > 12 else ""
        self.push_screen(ConfirmScreen(f"Apply {n} safe fixes in {len(files)} file(s){note}?\n{per_file}{more}\n\n"
                                       "(u takes them all back)"), answer)

    @work(thread=True, group="fixes", exit_on_error=False, description="apply fixes")
    def _apply_fixes_worker(self, fr: FileReview, fixes: list, record: bool = True) -> None:
        if record:
            self.call_from_thread(self.record_undo, fr)
        base = fr.effective_cuda() if fr.edited is not None and not fr.edit_base_cuda else fr.edit_base_cuda
        try:
            n = fr.apply_fixes(fixes)
        except Exception as exc:
            self.call_from_thread(self.notify, f"{fr.rel}: the fixes failed: {type(exc).__name__}: {exc}",
                                  severity="error")
            return
        self.call_from_thread(self._fixes_applied, fr, n, base)

    def _fixes_applied(self, fr: FileReview, n: int, base: str = "") -> None:
        if fr.edited is not None:
            fr.edit_base, fr.edit_base_cuda = FIX_UNDER_EDIT, base
        self.changed(fr, rows_changed=True)
        if fr is self.current:
            self._highlight_worker(fr)
            self.update_findings()
        self.notify(f"applied {n} safe fix{'es' if n != 1 else ''} in {fr.rel}", timeout=2)
        if fr.edit_stale and fr is self.current:
            self.ask_stale_edit(fr)

    def current_introduced(self):
        """The highlighted entry when it is a finding the fixes introduced (after the file's own)."""
        fr = self.current
        idx = self.findings_list.highlighted
        if fr is None or fr.status != "ready" or idx is None or idx < len(fr.findings):
            return None
        new = fr.introduced
        return new[idx - len(fr.findings)] if idx - len(fr.findings) < len(new) else None

    def action_explain(self) -> None:
        """i (or enter in the findings): the finding in full, full width: its whole message, its
        fix as before / after lines, then its rule's page."""
        f = self.current_finding() or self.current_introduced()
        if f is None:
            self.notify("select a finding first (] / [)", timeout=2)
            return
        page = None
        try:
            from porter.findings import catalogue

            rules = catalogue()
            rule = rules.get(f.rule) if isinstance(rules, dict) else None
            if rule is not None:
                page = rule.page_text() if hasattr(rule, "page_text") else str(rule)
        except Exception:
            pass
        fr = self.current
        severity = fr.severity_of(f) if self.current_finding() is f else f.severity
        self.push_screen(TextScreen(f"{f.rule} line {f.line}: the finding in full", finding_page(fr, f, severity, page)))

    def update_finding_bar(self) -> None:
        """The bar under the diff: the chosen finding's whole message while the findings pane is
        hidden (z) or too narrow to read it; with none chosen, while hidden, how to choose one."""
        from textual.widgets import Static

        bar = self.main.query_one("#finding-bar", Static)
        side = self.main.query_one("#side")
        hidden = not side.display
        narrow = hidden or self.main.query_one("#fix-preview").content_region.width < BAR_BELOW
        fr = self.current
        f = self.current_finding() or self.current_introduced()
        if not narrow or fr is None or fr.status != "ready" or not (fr.findings or fr.introduced) or \
                (f is None and not hidden):
            bar.set_class(False, "-shown")
            return
        if f is None:
            n = len(fr.findings) + len(fr.introduced)
            text = Text(f"{n} finding{'s' if n != 1 else ''} here: ] shows the next one", style="dim")
        else:
            sev = fr.severity_of(f) if self.current_finding() is f else f.severity
            keys = "i: in full" + (", with its fix; f applies it" if getattr(f, "fix", None) is not None else "")
            text = Text.assemble((f"{f.rule} {sev} line {f.line}", "bold"), (f" ({keys}): ", "dim"), f.message)
        bar.update(text)
        bar.set_class(True, "-shown")
