"""Undo and redo of review changes (decisions, fixes, edits): porter.project.undo's stack of
snapshots, and what an undo took back kept to be done again (ctrl+r).  A new change drops what
is left to redo, as editors do."""

from __future__ import annotations

from porter.project.undo import UndoStack, restore, snapshot


class UndoRedo(UndoStack):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._redo: list[list[tuple[object, object]]] = []

    @property
    def can_redo(self) -> int:
        return len(self._redo)

    def record_all(self, files) -> None:
        super().record_all(files)
        self._redo.clear()

    def undo_all(self) -> list:
        if not self._items:
            return []
        now = [(fr, snapshot(fr)) for fr, _ in self._items[-1]]  # what redo puts back
        files = super().undo_all()
        self._redo.append(now)
        return files

    def undo(self):
        """Take back the last snapshot with nothing to redo (a change that failed half-way)."""
        files = UndoStack.undo_all(self)
        return files[0] if files else None

    def redo_all(self) -> list:
        """Do the last undone change again; returns the files it changed (none: nothing to redo)."""
        if not self._redo:
            return []
        entry = self._redo.pop()
        self._items.append([(fr, snapshot(fr)) for fr, _ in entry])  # undo takes it back again
        if len(self._items) > self.limit:
            del self._items[0]
        for fr, snap in entry:
            restore(fr, snap)
        return [fr for fr, _ in entry]
