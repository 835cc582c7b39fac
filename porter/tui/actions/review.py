"""Actions on hunks and files: move, decide, accept, edit, next file, write."""

from __future__ import annotations

from textual import work

from porter.project.review import FileReview
from porter.tui.screens.dialogs import ChoiceScreen, InputScreen
from porter.tui.screens.editor import EditorScreen
from porter.tui.screens.three_way import ThreeWayScreen


EXTERNAL_EDIT_TIMEOUT_S = 600.0  # only where the terminal cannot be handed over


class ReviewActions:
    # ---- hunks -------------------------------------------------------------------
    def action_next_hunk(self) -> None:
        self._step_hunk(1)

    def action_prev_hunk(self) -> None:
        self._step_hunk(-1)

    def _step_hunk(self, step: int) -> None:
        fr = self._ready_file()
        if fr is None:
            return
        row = self.diff.current_row() or 0
        hunks = fr.hunks if step > 0 else list(reversed(fr.hunks))
        cur = fr.row_hunk.get(row)
        for h in hunks:
            if h.index == cur:
                continue
            if (step > 0 and h.start > row) or (step < 0 and h.start < row):
                self.diff.move_to_row(h.start)
                self.update_file_info()
                return
        self.notify("no more hunks in this file" if fr.hunks else "this file has no changes", timeout=1.5)

    def action_decide(self, decision: str) -> None:
        fr = self._ready_file()
        if fr is None:
            return
        h = self.diff.current_hunk()
        if h is None:
            self.notify("no hunk here", timeout=1.5)
            return
        between = self.diff.current_hunk_at_cursor() is None  # the cursor is on an unchanged line
        self.record_undo(fr)
        fr.decide(h, decision)
        self.changed(fr)
        if between:  # it decided the next hunk down: say which, since the cursor was not on it
            hunk = fr.hunks[h]
            line = next((fr.rows[r].left + 1 for r in range(hunk.start, hunk.end) if fr.rows[r].left is not None), None)
            where = f" (CUDA line {line})" if line is not None else ""
            self.notify(f"{decision} hunk {h + 1} of {len(fr.hunks)}{where}, the next one below the cursor", timeout=2.5)
        nxt = next((x for x in fr.hunks[h + 1:] if not fr.is_decided(x)), None)
        nxt = nxt or next((x for x in fr.hunks if not fr.is_decided(x)), None)
        if nxt is not None:
            self.diff.move_to_row(nxt.start)
        self.update_file_info()

    def action_accept_file(self) -> None:
        fr = self._ready_file()
        if fr is None:
            return
        self.record_undo(fr)
        fr.accept_all()
        self.changed(fr)
        errors = fr.severity_counts().get("error", 0)
        if fr.findings_pending:
            self.notify(f"accepted every hunk of {fr.rel}; its findings are still being checked",
                        severity="warning", timeout=4)
        elif errors:
            self.notify(f"accepted every hunk of {fr.rel}, but {errors} error finding{'s are' if errors != 1 else ' is'} "
                        "still open (] shows them, f fixes)", severity="warning", timeout=4)
        else:
            self.notify(f"accepted every hunk of {fr.rel}", timeout=1.5)

    # ---- search, go to line ----------------------------------------------------------
    _last_search = ""

    def action_search(self) -> None:
        fr = self._ready_file()
        if fr is None:
            return

        def answer(text: str | None) -> None:
            if text is None:
                return
            self.search_diff(text or self._last_search)

        self.push_screen(InputScreen("Search the diff (CUDA and HIP sides; empty: the last search)",
                                     self._last_search), answer)

    def search_diff(self, text: str) -> bool:
        """Move to the next row (after the cursor, wrapping) whose CUDA or HIP side has ``text``."""
        fr = self.current
        if not text or fr is None or fr.status != "ready" or not fr.rows:
            return False
        self._last_search = text
        needle = text.casefold()
        start = (self.diff.current_row() or 0) + 1
        n = len(fr.rows)
        for k in range(n):
            i = (start + k) % n
            left, right = fr.left_text(i) or "", fr.right_text(i) or ""
            if needle in left.casefold() or needle in right.casefold():
                self.diff.move_to_row(i)
                self.update_file_info()
                return True
        self.notify(f"{text!r} is not in {fr.rel}", timeout=2)
        return False

    def action_goto_line(self) -> None:
        fr = self._ready_file()
        if fr is None:
            return

        def answer(text: str | None) -> None:
            if text:
                self.goto_line(text)

        self.push_screen(InputScreen("Go to line: 123 (CUDA) or h123 (HIP)"), answer)

    def goto_line(self, text: str) -> bool:
        fr = self.current
        text = text.strip().lower()
        hip = text.startswith("h")
        digits = text[1:] if hip else text
        if fr is None or fr.status != "ready" or not digits.isdigit():
            self.notify(f"not a line number: {text!r} (123 or h123)", severity="warning", timeout=2)
            return False
        line = int(digits)
        self.diff.move_to_row(fr.row_of_right_line(line) if hip else fr.row_of_left_line(line))
        self.update_file_info()
        return True

    # ---- undo ----------------------------------------------------------------------
    def record_undo(self, fr: FileReview) -> None:
        """Call before a decision, fix or edit changes ``fr``."""
        self.undo_stack.record(fr)

    def action_undo(self) -> None:
        if not len(self.undo_stack):
            self.notify("nothing to undo", timeout=1.5)
            return
        row = self.diff.current_row()
        files = self.undo_stack.undo_all()
        fr = self.current if self.current in files else files[0]
        for other in files:
            if other is not fr:
                self.changed(other, rows_changed=True)
        if fr is not self.current:
            self.open_file(fr.rel)
            self.file_tree.select_file(fr.rel)
        self.changed(fr, rows_changed=True)
        if row is not None and fr is self.current:
            self.diff.move_to_row(min(row, max(0, len(fr.rows) - 1)))
        self._highlight_worker(fr)
        self.update_findings()
        more = f" (and {len(files) - 1} other file{'s' if len(files) > 2 else ''})" if len(files) > 1 else ""
        self.notify(f"undone: {fr.rel} is {fr.state} again{more}", timeout=2)

    # ---- editing -------------------------------------------------------------------
    def action_edit(self) -> None:
        """Edit the HIP text as it would be written, the cursor on the current hunk."""
        fr = self._ready_file()
        if fr is None:
            return
        text = fr.output_text()
        self.push_screen(EditorScreen(fr.rel, text, line=self._output_line_at_cursor(fr)))

    def _output_line_at_cursor(self, fr: FileReview) -> int:
        """0-based line of the written text at the diff cursor (the start of the current hunk)."""
        row = self.diff.current_row() or 0
        h = fr.row_hunk.get(row)
        if h is not None:
            row = fr.hunks[h].start
        line = 0
        for i, r in enumerate(fr.rows[:row]):
            k = fr.row_hunk.get(i)
            rejected = k is not None and fr.decisions.get(fr.hunks[k].key) == "rejected"
            if (r.left if rejected else r.right) is not None:
                line += 1
        return line

    def action_external_edit(self) -> None:
        """E: $VISUAL / $EDITOR on a temporary copy of the HIP text, opened at the current
        hunk's line (+N); what it saves comes back as an edit (the source tree and the
        output are not touched)."""
        import os
        import shlex
        import subprocess
        import tempfile
        from pathlib import Path

        from textual.app import SuspendNotSupported

        fr = self._ready_file()
        if fr is None:
            return
        editor = os.environ.get("VISUAL") or os.environ.get("EDITOR")
        if not editor:
            self.notify("set $EDITOR (or $VISUAL) to edit outside; e edits here", severity="warning", timeout=3)
            return
        try:
            argv = shlex.split(editor)
        except ValueError as exc:
            self.notify(f"$EDITOR cannot be split: {exc}", severity="error")
            return
        text = fr.output_text()
        line = self._output_line_at_cursor(fr) + 1
        with tempfile.TemporaryDirectory(prefix="porter-edit-") as tmp:
            path = Path(tmp) / Path(fr.rel).name
            path.write_text(text, encoding="utf-8")
            cmd = [*argv, f"+{line}", str(path)]
            try:
                try:
                    with self.suspend():  # the terminal is the editor's until it exits
                        rc = subprocess.run(cmd).returncode
                except SuspendNotSupported:  # no terminal to hand over (tests, web): run it as it is
                    rc = subprocess.run(cmd, stdin=subprocess.DEVNULL, timeout=EXTERNAL_EDIT_TIMEOUT_S).returncode
                new = path.read_text(encoding="utf-8")
            except (OSError, subprocess.SubprocessError, UnicodeDecodeError) as exc:
                self.notify(f"{argv[0]} failed: {exc}", severity="error")
                return
        if rc != 0:
            self.notify(f"{argv[0]} exited {rc}: the edit is not taken", severity="warning", timeout=3)
            return
        if new == text:
            self.notify("no change from the editor", timeout=1.5)
            return
        self.edit_saved(fr.rel, new)
        self.notify(f"took the edit of {fr.rel} from {argv[0]}", timeout=2)

    def edit_saved(self, rel: str, text: str) -> None:
        fr = self.project.by_rel.get(rel)
        if fr is not None and fr.status == "ready" and text != fr.output_text():
            self.record_undo(fr)
            self._apply_edit(fr, text)

    def edit_saved_now(self, rel: str, text: str) -> None:
        """The same, here and now (quitting: the edit must be in the session before exit)."""
        fr = self.project.by_rel.get(rel)
        if fr is not None and fr.status == "ready" and text != fr.output_text():
            self.record_undo(fr)
            fr.set_edited(text)
            self.changed(fr, rows_changed=True)

    @work(thread=True, group="edit", exit_on_error=False, description="apply an edit")
    def _apply_edit(self, fr: FileReview, text: str) -> None:
        fr.set_edited(text)
        self.call_from_thread(self._edited, fr)

    def _edited(self, fr: FileReview) -> None:
        self.changed(fr, rows_changed=True)
        self._highlight_worker(fr)

    # ---- an edit whose CUDA source changed -------------------------------------------
    def three_way(self, fr: FileReview) -> None:
        """The three-way view of a stale edit (the palette; the question offers it too)."""
        self.ask_stale_edit(fr, look_first=True)

    def ask_stale_edit(self, fr: FileReview, look_first: bool = False) -> None:
        """The CUDA source changed after ``fr`` was edited: keep the edit or re-convert."""

        def answer(choice: str | None) -> None:
            if choice == "keep":
                self.record_undo(fr)
                fr.keep_edit()
                self.changed(fr, rows_changed=True)
                self.notify(f"kept your edit of {fr.rel}; review the hunks against the new CUDA", timeout=3)
            elif choice == "threeway":  # look first; escape there comes back to this question
                self.push_screen(ThreeWayScreen(fr), lambda c: answer(c) if c else self.ask_stale_edit(fr))
            elif choice == "reconvert":
                self.record_undo(fr)
                fr.set_edited(None)
                self.changed(fr, rows_changed=True)
                self._highlight_worker(fr)
                self.notify(f"{fr.rel} re-converted from the new CUDA source; your edit is undone (u brings it back)",
                            timeout=4)

        if look_first:
            answer("threeway")
            return
        self.push_screen(ChoiceScreen(
            f"{fr.rel}: the CUDA source changed after you edited the HIP. Your edit may miss the new lines.",
            [("k", "keep my edit", "keep"), ("r", "re-convert", "reconvert"), ("3", "three-way view", "threeway")]),
            answer)

    # ---- files ---------------------------------------------------------------------
    def action_next_file(self, step: int) -> None:
        nxt = self.project.next_needing_review(self.current.rel if self.current else None, step)
        if nxt is None:
            self.notify("every file is reviewed: w writes them", timeout=2)
            return
        self.open_file(nxt.rel)
        self.file_tree.select_file(nxt.rel)

    def action_write(self) -> None:
        self.read_changed_before_writing()
        self._write_worker()

    @work(thread=True, exclusive=True, group="write", exit_on_error=False)
    def _write_worker(self) -> None:
        rep = self.project.write()
        self.call_from_thread(self._written, rep)

    def _written(self, rep) -> None:
        self.notify(rep.summary() + f" → {self.project.output}", severity="error" if rep.errors else "information",
                    timeout=6)
        self.save_session()
