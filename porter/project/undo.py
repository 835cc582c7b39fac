"""Undo for review decisions, fixes and edits: a bounded stack of per-file
snapshots taken before each change.  Pure Python, no UI.

    >>> from porter.project.file_review import ACCEPTED, FileReview
    >>> fr = FileReview.from_text("a.cu", "cudaFree(p);\\n")
    >>> undo = UndoStack(); undo.record(fr); fr.decide(0, ACCEPTED)
    >>> undo.undo() is fr, fr.decision(0)
    (True, 'pending')
"""

from __future__ import annotations

from dataclasses import dataclass

LIMIT = 200


@dataclass(frozen=True, slots=True)
class Snapshot:
    decisions: dict
    applied_fixes: tuple
    edited: str | None
    edit_base: str
    edit_base_cuda: str = ""


def snapshot(fr) -> Snapshot:
    return Snapshot(dict(fr.decisions), tuple(fr.applied_fixes), fr.edited, fr.edit_base, fr.edit_base_cuda)


def restore(fr, snap: Snapshot) -> None:
    """Put ``fr`` back as it was (re-translates when the applied fixes differ)."""
    if tuple(fr.applied_fixes) != snap.applied_fixes:
        fr.applied_fixes = list(snap.applied_fixes)
        fr.edited = None
        fr._translate()
    if fr.edited != snap.edited:
        fr.set_edited(snap.edited, prune=False)
    fr.decisions = dict(snap.decisions)
    fr.edit_base = snap.edit_base
    fr.edit_base_cuda = snap.edit_base_cuda
    fr._decisions_version += 1
    fr._hunks()  # stale counts and edited marks against the restored decisions


class UndoStack:
    def __init__(self, limit: int = LIMIT) -> None:
        self.limit = limit
        self._items: list[list[tuple[object, Snapshot]]] = []  # each change: the files it changes

    def __len__(self) -> int:
        return len(self._items)

    def record(self, fr) -> None:
        """Call before changing ``fr``."""
        self.record_all([fr])

    def record_all(self, files) -> None:
        """Call before one change of several files (every safe fix of the project): one undo."""
        self._items.append([(fr, snapshot(fr)) for fr in files])
        if len(self._items) > self.limit:
            del self._items[0]

    def undo(self):
        """Undo the last change; returns its (first) file, or None when there is nothing to undo."""
        files = self.undo_all()
        return files[0] if files else None

    def undo_all(self) -> list:
        """Undo the last change; returns every file it put back (none: nothing to undo)."""
        if not self._items:
            return []
        entry = self._items.pop()
        for fr, snap in reversed(entry):
            restore(fr, snap)
        return [fr for fr, _ in entry]
