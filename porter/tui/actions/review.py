"""Actions on hunks and files: move, decide, accept, edit, next file, write."""

from __future__ import annotations

from textual import work

from porter.project.review import FileReview
from porter.tui.screens.editor import EditorScreen


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
        if fr is None or fr.edited is not None:
            if fr is not None:
                self.notify("this file is edited: its HIP text is written as edited", timeout=2)
            return
        h = self.diff.current_hunk()
        if h is None:
            self.notify("no hunk here", timeout=1.5)
            return
        fr.decide(h, decision)
        self.changed(fr)
        nxt = next((x for x in fr.hunks[h + 1:] if x.key not in fr.decisions), None)
        nxt = nxt or next((x for x in fr.hunks if x.key not in fr.decisions), None)
        if nxt is not None:
            self.diff.move_to_row(nxt.start)
        self.update_file_info()

    def action_accept_file(self) -> None:
        fr = self._ready_file()
        if fr is None:
            return
        fr.accept_all()
        self.changed(fr)
        self.notify(f"accepted every hunk of {fr.rel}", timeout=1.5)

    # ---- editing -------------------------------------------------------------------
    def action_edit(self) -> None:
        fr = self._ready_file()
        if fr is None:
            return

        def done(text: str | None) -> None:
            if text is not None:
                self._apply_edit(fr, text)

        self.push_screen(EditorScreen(fr.rel, fr.output_text()), done)

    @work(thread=True, group="edit", exit_on_error=False, description="apply an edit")
    def _apply_edit(self, fr: FileReview, text: str) -> None:
        fr.set_edited(text if text != fr.output_text() or fr.edited is not None else None)
        if fr.edited is None and text != fr.hip:
            fr.set_edited(text)
        self.call_from_thread(self._edited, fr)

    def _edited(self, fr: FileReview) -> None:
        self.changed(fr, rows_changed=True)
        self._highlight_worker(fr)

    # ---- files ---------------------------------------------------------------------
    def action_next_file(self, step: int) -> None:
        nxt = self.project.next_needing_review(self.current.rel if self.current else None, step)
        if nxt is None:
            self.notify("every file is reviewed: w writes them", timeout=2)
            return
        self.open_file(nxt.rel)
        self.file_tree.select_file(nxt.rel)

    def action_write(self) -> None:
        self._write_worker()

    @work(thread=True, exclusive=True, group="write", exit_on_error=False)
    def _write_worker(self) -> None:
        rep = self.project.write()
        self.call_from_thread(self._written, rep)

    def _written(self, rep) -> None:
        if not rep.errors:
            self.unwritten = False
        self.notify(rep.summary() + f" → {self.project.output}", severity="error" if rep.errors else "information",
                    timeout=6)
        self.save_session()
