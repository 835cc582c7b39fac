"""Applying the suggested fixes of findings to the scanned source."""

from __future__ import annotations

from collections.abc import Iterable

from porter.findings.model import Finding, FixEdit


def select_fixes(findings: Iterable[Finding], safe_only: bool = True) -> list[Finding]:
    """The findings whose fixes would be applied: in source order, skipping one that
    overlaps an earlier accepted fix (the next scan offers it again)."""
    accepted: list[Finding] = []
    taken: list[tuple[int, int]] = []
    same: set[FixEdit] = set()  # an edit two fixes share (a helper both insert) is made once
    ordered = sorted((f for f in findings if f.fix and f.fix.edits and (f.fix.safe or not safe_only)),
                     key=lambda f: (min(e.start_byte for e in f.fix.edits), f.start_byte, f.rule))
    for f in ordered:
        spans = [(e.start_byte, e.end_byte) for e in f.fix.edits if e not in same]
        if any(_overlaps(s, t) for s in spans for t in taken):
            continue
        accepted.append(f)
        taken.extend(spans)
        same.update(f.fix.edits)
    return accepted


def _overlaps(a: tuple[int, int], b: tuple[int, int]) -> bool:
    if a[0] == a[1] or b[0] == b[1]:  # an insertion touches a span only strictly inside it
        p, (s, e) = (a[0], b) if a[0] == a[1] else (b[0], a)
        if a[0] == a[1] and b[0] == b[1]:
            return a[0] == b[0]
        return s < p < e
    return a[0] < b[1] and b[0] < a[1]


def apply_fixes(source: bytes, findings: Iterable[Finding], safe_only: bool = True) -> bytes:
    """``source`` with the fixes of ``findings`` applied (only safe ones unless ``safe_only`` is False)."""
    return apply_fixes_spans(source, findings, safe_only)[0]


def apply_fixes_spans(source: bytes, findings: Iterable[Finding],
                      safe_only: bool = True) -> tuple[bytes, list[tuple[int, int, int]]]:
    """``apply_fixes``, and the edits it made as (start, end, length of the replacement) in
    ``source``'s bytes, in order: outside them the result is ``source`` shifted, so a caller can
    pair the lines of the two texts without a diff."""
    edits: list[FixEdit] = []
    for f in select_fixes(findings, safe_only):
        # an edit another fix made already (a helper both insert) is made once; equal insertions of one
        # fix (two closing parentheses at one place) are each made
        before = set(edits)
        edits.extend(e for e in f.fix.edits if e not in before)
    edits.sort(key=lambda e: (e.start_byte, e.end_byte))
    out = []
    made: list[tuple[int, int, int]] = []
    pos = 0
    for e in edits:
        if e.start_byte < pos or e.end_byte > len(source):
            continue
        out.append(source[pos:e.start_byte])
        text = e.replacement.encode("utf-8")
        out.append(text)
        made.append((e.start_byte, e.end_byte, len(text)))
        pos = e.end_byte
    out.append(source[pos:])
    return b"".join(out), made
