"""Row alignment for the review: which CUDA line each HIP line is shown beside, and the
lines of three texts side by side.  Pure Python, no UI.

The translator never changes the number of lines except where it inserts lines (the
runtime include), so the rows come from ``Translation.inserted_lines`` without a diff
(``align_by_insertions``); after fixes, from the fixes' own edits (``align_fixed``).
Both go through one walk (``_RowsThrough``): lines of a middle text, each one HIP line,
with the inserted HIP lines placed before the middle line they were inserted before.
difflib is the fallback (``align_by_diff``: edits, files that do not fit).

    >>> [tuple(r) for r in align_by_insertions(2, 3, [(1, 1)])]
    [(0, 0), (None, 1), (1, 2)]
"""

from __future__ import annotations

import bisect
import difflib
import itertools
from typing import NamedTuple

DIFFLIB_LIMIT = 20000  # lines; above this the fallback pairs lines by position


class Row(NamedTuple):
    left: int | None  # 0-based CUDA line index, None for an inserted HIP line
    right: int | None  # 0-based HIP line index, None for a removed CUDA line


def strip_eol(line: str) -> str:
    return line.rstrip("\r\n")


_new_row = tuple.__new__  # (Row(a, b) without the keyword handling: half the time for 50k rows)


class _RowsThrough:
    """Rows of CUDA lines beside HIP lines, built through the text the HIP was translated
    from (the *middle*: the CUDA itself, or the CUDA with fixes applied): each middle line is
    one HIP line, in order, and the translator's ``inserted`` lines ((after, count): after
    that many middle lines) come just before the middle line they were inserted before."""

    __slots__ = ("rows", "r", "ins", "points", "k")

    def __init__(self, inserted: list[tuple[int, int]]) -> None:
        ins: dict[int, int] = {}
        for after, count in inserted:
            ins[after] = ins.get(after, 0) + count
        self.ins = ins
        self.points = sorted(ins)  # middle lines with inserted HIP lines before them
        self.k = 0  # the first of ``points`` whose lines are not placed yet
        self.rows: list[Row] = []
        self.r = 0  # the next HIP line

    @property
    def n_inserted(self) -> int:
        return sum(self.ins.values())

    def _inserted_before(self, j: int) -> None:
        points, k = self.points, self.k
        while k < len(points) and points[k] <= j:
            count = self.ins[points[k]]
            self.rows.extend(map(_new_row, itertools.repeat(Row),
                                 zip(itertools.repeat(None, count), range(self.r, self.r + count))))
            self.r += count
            k += 1
        self.k = k

    def run(self, i: int, j: int, count: int) -> None:
        """CUDA lines ``i``... beside middle lines ``j``... (``count`` of them), one HIP line each."""
        points = self.points
        while count > 0:
            self._inserted_before(j)
            take = min(count, points[self.k] - j) if self.k < len(points) else count
            self.rows.extend(map(_new_row, itertools.repeat(Row),
                                 zip(range(i, i + take), range(self.r, self.r + take))))
            self.r += take
            i, j, count = i + take, j + take, count - take

    def one(self, a: int | None, b: int | None) -> None:
        """CUDA line ``a`` (None: none) beside middle line ``b`` (None: a CUDA line with no HIP line)."""
        if b is None:
            self.rows.append(_new_row(Row, (a, None)))
        elif a is None:
            self._inserted_before(b)
            self.rows.append(_new_row(Row, (None, self.r)))
            self.r += 1
        else:
            self.run(a, b, 1)

    def end(self, n_middle: int) -> list[Row]:
        """The rows, with what was inserted after the last middle line."""
        self._inserted_before(n_middle)
        return self.rows


def align_by_insertions(n_left: int, n_right: int, inserted: list[tuple[int, int]]) -> list[Row] | None:
    """Rows from the translator's inserted lines; None when the counts do not add up."""
    walk = _RowsThrough(inserted)
    if n_left + walk.n_inserted != n_right or any(a < 0 or a > n_left for a in walk.ins):
        return None
    walk.run(0, 0, n_left)  # the CUDA is the middle text: each of its lines is one HIP line
    return walk.end(n_left)


def align_by_diff(left: list[str], right: list[str]) -> list[Row]:
    """Rows from difflib (default autojunk: fast on repetitive code)."""
    if len(left) > DIFFLIB_LIMIT or len(right) > DIFFLIB_LIMIT:
        n = max(len(left), len(right))
        return [Row(i if i < len(left) else None, i if i < len(right) else None) for i in range(n)]
    rows: list[Row] = []
    sm = difflib.SequenceMatcher(None, left, right)
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag == "equal":
            rows.extend(Row(i1 + k, j1 + k) for k in range(i2 - i1))
        elif tag == "delete":
            rows.extend(Row(i, None) for i in range(i1, i2))
        elif tag == "insert":
            rows.extend(Row(None, j) for j in range(j1, j2))
        else:
            n = max(i2 - i1, j2 - j1)
            for k in range(n):
                rows.append(Row(i1 + k if i1 + k < i2 else None, j1 + k if j1 + k < j2 else None))
    return rows


def _byte_starts(lines: list[str], ascii: bool) -> list[int]:
    """The byte offset where each line starts, and the total length last."""
    lengths = map(len, lines) if ascii else (len(line.encode("utf-8", "surrogatepass")) for line in lines)
    return [0, *itertools.accumulate(lengths)]


def align_fixed(left: list[str], fixed: list[str], spans: list[tuple[int, int, int]], n_right: int,
                inserted: list[tuple[int, int]], ascii: bool = False) -> list[Row] | None:
    """Rows for a HIP translated from the CUDA with fixes applied, with no diff of the whole
    file: CUDA line to fixed line from the fixes' edits (``spans``: start, end, replacement
    length in the CUDA's bytes; every other line is the same text, shifted), fixed line to HIP
    line from the translator's ``inserted`` lines.  Only the lines a fix changed are paired by
    difflib.  None when the pieces do not fit (the caller falls back to a diff).  ``ascii``:
    both texts are ASCII (a line's length is its byte count)."""
    n, m = len(left), len(fixed)
    ls, fs = _byte_starts(left, ascii), _byte_starts(fixed, ascii)
    groups: list[list[int]] = []  # [first line, end line, byte shift before, byte change] of the CUDA
    shift = 0
    for s, e, k in spans:
        lo = bisect.bisect_right(ls, s) - 1 if s < ls[-1] else n
        hi = (bisect.bisect_right(ls, e - 1) if e > s else lo + 1) if lo < n else n
        if groups and lo < groups[-1][1]:  # on a line of the previous fix: one block
            groups[-1][1] = max(groups[-1][1], hi)
            groups[-1][3] += k - (e - s)
        else:
            groups.append([lo, hi, shift, k - (e - s)])
        shift += k - (e - s)

    def fixed_line(offset: int) -> int | None:
        i = bisect.bisect_left(fs, offset)
        return i if i < len(fs) and fs[i] == offset else None

    walk = _RowsThrough(inserted)  # the fixed CUDA is the middle text
    if m + walk.n_inserted != n_right:
        return None
    i = j = 0
    for lo, hi, before, change in groups:
        lo2, hi2 = fixed_line(ls[lo] + before), fixed_line(ls[hi] + before + change)
        if lo2 is None or hi2 is None or lo - i != lo2 - j or left[i:lo] != fixed[j:lo2]:
            return None
        walk.run(i, j, lo - i)  # the same lines, shifted
        for a, b in align_by_diff([strip_eol(x) for x in left[lo:hi]], [strip_eol(x) for x in fixed[lo2:hi2]]):
            walk.one(None if a is None else lo + a, None if b is None else lo2 + b)
        i, j = hi, hi2
    if n - i != m - j or left[i:] != fixed[j:]:
        return None
    walk.run(i, j, n - i)
    rows = walk.end(m)
    return rows if walk.r == n_right else None


def changed_lines(old: list[str], new: list[str]) -> set[int]:
    """0-based lines of ``new`` that a line diff from ``old`` does not keep; where lines were only
    deleted, the lines of ``new`` on both sides of the cut.  Above ``DIFFLIB_LIMIT`` lines, by position."""
    if len(old) > DIFFLIB_LIMIT or len(new) > DIFFLIB_LIMIT:
        return {i for i in range(len(new)) if i >= len(old) or old[i] != new[i]}
    touched: set[int] = set()
    for tag, _i1, _i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        if j2 > j1:
            touched.update(range(j1, j2))
        else:  # lines deleted: the lines on both sides of the cut
            touched.update(x for x in (j1 - 1, j1) if 0 <= x < len(new))
    return touched


Row3 = tuple[int | None, int | None, int | None]  # a line of each of three texts (None: none), one row


def align_three(texts: tuple[list[str], list[str], list[str]], hub: int = 1) -> list[Row3]:
    """The lines of three texts side by side: each of the two others is aligned by lines with
    ``hub`` (``align_by_diff``; pass the lines without their endings), and the rows meet at the hub's
    lines.  Lines that are in one other text and not in the hub share a row with those of the
    third text at the same place (two insertions at one place face each other).  Each row:
    a 0-based line of each text, in the order of ``texts``, or None where that text has none."""
    others = [x for x in range(3) if x != hub]
    # for each other text: the rows before each hub line (its own lines there) and its partner of each hub line
    gaps: list[list[list[int]]] = []
    partner: list[list[int | None]] = []
    n_hub = len(texts[hub])
    for o in others:
        before: list[list[int]] = [[] for _ in range(n_hub + 1)]
        mate: list[int | None] = [None] * n_hub
        at = 0  # the next hub line
        for a, b in align_by_diff(texts[hub], texts[o]):
            if a is None:
                before[at].append(b)
            else:
                mate[a] = b
                at = a + 1
        gaps.append(before)
        partner.append(mate)
    rows: list[Row3] = []

    def row(h: int | None, first: int | None, second: int | None) -> Row3:
        out: list[int | None] = [None, None, None]
        out[hub], out[others[0]], out[others[1]] = h, first, second
        return tuple(out)

    for h in range(n_hub + 1):
        for first, second in itertools.zip_longest(gaps[0][h], gaps[1][h]):
            rows.append(row(None, first, second))
        if h < n_hub:
            rows.append(row(h, partner[0][h], partner[1][h]))
    return rows
