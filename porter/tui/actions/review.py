"""Actions on hunks and files: move, decide, accept, edit, next file, write."""

from __future__ import annotations

from textual import work

from porter.project.file_conversion import source_bytes, source_text
from porter.project.file_review import FileReview
from porter.tui.screens.dialogs import ChoiceScreen, InputScreen
from porter.tui.screens.editor import EditorScreen
from porter.tui.screens.three_way import ThreeWayScreen
from porter.tui.shown_text import not_utf8_line


EXTERNAL_EDIT_TIMEOUT_S = 600.0  # only where the terminal cannot be handed over


class ReviewActions:
    # ---- hunks -------------------------------------------------------------------
    def action_next_hunk(self) -> None:
        if self._search_on:  # while a search is on, n goes to its next match (as in lazygit, vim)
            self.search_diff(self._search_on)
            return
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
    _search_on = ""  # the search that n / N step through; "": none (n is the next hunk)
    _matches_cache: tuple = ((), [])

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

    def search_diff(self, text: str, step: int = 1) -> bool:
        """Move to the next (``step`` -1: the previous) row, wrapping, whose CUDA or HIP side has
        ``text``; the search stays on (n / N, the count in the file's line) until escape."""
        fr = self.current
        if not text or fr is None or fr.status != "ready" or not fr.rows:
            return False
        self._last_search = text
        rows = self.search_matches(fr, text)
        if not rows:
            self._search_on = ""
            self.update_file_info()
            self.notify(f"{text!r} is not in {fr.rel}", timeout=2)
            return False
        self._search_on = text
        here = self.diff.current_row() or 0
        if step > 0:
            target = next((r for r in rows if r > here), rows[0])
        else:
            target = next((r for r in reversed(rows) if r < here), rows[-1])
        self.diff.move_to_row(target)
        self.update_file_info()
        return True

    def search_matches(self, fr, text: str) -> list[int]:
        """The rows whose CUDA or HIP side has ``text`` (any case), in order."""
        key = (fr.rel, id(fr.rows), len(fr.rows), id(fr.right), text)
        if self._matches_cache[0] == key:
            return self._matches_cache[1]
        needle = text.casefold()
        rows = [i for i in range(len(fr.rows))
                if needle in (fr.left_text(i) or "").casefold() or needle in (fr.right_text(i) or "").casefold()]
        self._matches_cache = (key, rows)
        return rows

    def search_status(self) -> str:
        """The file line's account of the search: which match the cursor is on, of how many."""
        fr = self.current
        if not self._search_on or fr is None or fr.status != "ready" or self.diff.file is not fr:
            return ""
        rows = self.search_matches(fr, self._search_on)
        here = self.diff.current_row()
        at = f"match {rows.index(here) + 1} of {len(rows)}" if here in rows else \
            f"{len(rows)} match{'es' if len(rows) != 1 else ''}"
        return f"/{self._search_on}: {at} (n N, escape ends)"

    def action_prev_match(self) -> None:
        text = self._search_on or self._last_search
        if not text:
            self.notify("no search yet: / searches the diff, then n / N go through the matches", timeout=2)
            return
        self.search_diff(text, -1)

    def action_end_search(self) -> None:
        if self._search_on:
            self._search_on = ""
            self.update_file_info()

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
        n = len(fr.right) if hip else len(fr.left)
        if not 1 <= line <= n:
            side = "HIP" if hip else "CUDA"
            self.notify(f"{fr.rel} has {n} {side} line{'s' if n != 1 else ''}: there is no line {line}"
                        + (f" (:{'h' if hip else ''}{n} goes to the last)" if n else ""), severity="warning", timeout=3)
            return False
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
        fr, files = self._put_back(self.undo_stack.undo_all())
        more = f" (and {len(files) - 1} other file{'s' if len(files) > 2 else ''})" if len(files) > 1 else ""
        from porter.tui.keymap import by_id

        self.notify(f"undone: {fr.rel} is {fr.state} again{more} ({self.key_label(by_id('redo'))} redoes)", timeout=2)

    def action_redo(self) -> None:
        if not self.undo_stack.can_redo:
            self.notify("nothing to redo", timeout=1.5)
            return
        fr, files = self._put_back(self.undo_stack.redo_all())
        more = f" (and {len(files) - 1} other file{'s' if len(files) > 2 else ''})" if len(files) > 1 else ""
        self.notify(f"redone: {fr.rel} is {fr.state}{more}", timeout=2)

    def _put_back(self, files: list) -> tuple:
        """Show what an undo or redo changed: the file on screen if it is one of them, else the first."""
        row = self.diff.current_row()
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
        return fr, files

    # ---- editing -------------------------------------------------------------------
    def action_edit(self) -> None:
        """Edit the HIP text as it would be written, the cursor on the current hunk."""
        fr = self._ready_file()
        if fr is None:
            return
        text = fr.output_text()
        odd = not_utf8_line(text)
        if odd:  # the editor would show it as U+FFFD and save that: the byte would be lost
            self.notify(f"{fr.rel} line {odd} has a byte that is not UTF-8: e would change it; "
                        "E edits it in $EDITOR, which keeps it", severity="warning", timeout=5)
            return
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
            path.write_bytes(source_bytes(text))  # a byte that is not UTF-8 goes to the editor as it is
            cmd = [*argv, f"+{line}", str(path)]
            try:
                try:
                    with self.suspend():  # the terminal is the editor's until it exits
                        rc = subprocess.run(cmd).returncode
                except SuspendNotSupported:  # no terminal to hand over (tests, web): run it as it is
                    rc = subprocess.run(cmd, stdin=subprocess.DEVNULL, timeout=EXTERNAL_EDIT_TIMEOUT_S).returncode
                new = source_text(path.read_bytes())
            except (OSError, subprocess.SubprocessError) as exc:
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
            elif choice == "merge":
                self.merge_stale_edit(fr)

        if look_first:
            answer("threeway")
            return
        self.push_screen(ChoiceScreen(
            f"{fr.rel}: the CUDA source changed after you edited the HIP. Your edit may miss the new lines.",
            [("k", "keep my edit", "keep"), ("r", "re-convert", "reconvert"), ("m", "merge both", "merge"),
             ("3", "three-way view", "threeway")]),
            answer)

    def merge_stale_edit(self, fr: FileReview) -> None:
        """The edit re-applied onto the conversion of the CUDA now; overlapping changes are marked
        as conflicts in the edit, and the file stays pending until an edit (e) resolves them."""
        if fr.edited is None or not fr.edit_base_cuda:  # (an edit from a session saved before porter kept it)
            self.notify("no merge: the CUDA your edit was made against is not known (keep or re-convert)",
                        severity="warning", timeout=4)
            self.ask_stale_edit(fr)
            return
        self.record_undo(fr)
        merged = fr.merge_edit()
        if merged is None:  # the old conversion could not be made again: nothing changed
            self.undo_stack.undo()
            self.notify(f"no merge: {fr.rel}'s old conversion could not be made again", severity="error")
            return
        self.changed(fr, rows_changed=True)
        self._highlight_worker(fr)
        if merged.conflicts:
            n = merged.conflicts
            self.notify(f"merged {fr.rel}: {n} conflict{'s' if n != 1 else ''} marked <<<<<<< in your edit; "
                        "e to resolve (the file is not written until they are gone)", severity="warning", timeout=6)
        else:
            self.notify(f"merged {fr.rel}: your edit on the new conversion; review its new hunks", timeout=4)

    # ---- files ---------------------------------------------------------------------
    def action_next_file(self, step: int) -> None:
        nxt = self.project.next_needing_review(self.current.rel if self.current else None, step)
        if nxt is None:
            cur = self.current
            if cur is not None and cur.needs_review:  # the open file is the last one to review
                why = (f"{cur.pending_hunks} hunk{'s' if cur.pending_hunks != 1 else ''} to decide (a, x; A: all)"
                       if cur.pending_hunks else "its CUDA changed after your edit (keep it or re-convert: palette)"
                       if cur.edit_stale else "still converting")
                self.notify(f"no other file needs review; this one, {cur.rel}, is still {cur.state}: {why}",
                            timeout=3)
                return
            self.notify("every file is reviewed: w writes them", timeout=2)
            return
        self.open_file(nxt.rel)
        self.file_tree.select_file(nxt.rel)

    def action_write(self) -> None:
        self.read_changed_before_writing()
        self._write_worker()

    @work(thread=True, exclusive=True, group="write", exit_on_error=False)
    def _write_worker(self, then_quit: bool = False) -> None:
        rep = self.project.write()
        self.call_from_thread(self._written, rep, then_quit)

    def _written(self, rep, then_quit: bool = False) -> None:
        self.notify(rep.summary() + f" → {self.project.output}", severity="error" if rep.errors else "information",
                    timeout=6)
        self.save_session()
        if then_quit:  # "write and quit": quits once written; a failed write stays, and says why
            if rep.errors:
                self.notify(f"not quitting: the write failed ({self.saver.kept_words()})", severity="error")
            else:
                self.exit(0)
