"""A three-way merge of lines: the user's edit of a conversion re-applied onto a new
conversion of a changed CUDA source.  Pure Python, no UI.

The three texts are the *base* (the conversion the edit was made on), *mine* (the edit)
and *theirs* (the conversion of the CUDA now).  Lines of the base that both others keep,
in order, are stable; between two stable runs each side either left the base's lines as
they were or changed them.  Where only one side changed them, its lines are taken; where
both changed them alike, once; where both changed them differently, that is a conflict,
written with markers a person (or ``count_conflicts``) finds: a line ``<<<<<<< your edit``,
the edit's lines, ``||||||| old conversion``, the base's lines, ``=======``, the new
conversion's lines, and ``>>>>>>> new conversion``.

    >>> m = merge3(["a\\n", "b\\n", "c\\n"], ["a\\n", "B\\n", "c\\n"], ["a\\n", "b\\n", "c\\n", "d\\n"])
    >>> m.text(), m.conflicts
    ('a\\nB\\nc\\nd\\n', 0)
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field

from porter.project.alignment import Row3, align_three, strip_eol

MINE_MARK, BASE_MARK, SPLIT_MARK, THEIRS_MARK = ("<<<<<<< your edit", "||||||| old conversion", "=======",
                                                 ">>>>>>> new conversion")

# what happened to a chunk of lines
SAME = "same"  # no side changed it
MINE = "mine"  # only the edit changed it: the edit's lines are taken
THEIRS = "theirs"  # only the new conversion changed it: its lines are taken
BOTH = "both"  # both changed it to the same lines
CONFLICT = "conflict"  # both changed it, differently: marked


@dataclass(frozen=True, slots=True)
class Chunk:
    kind: str  # SAME, MINE, THEIRS, BOTH or CONFLICT
    base: tuple[int, int]  # [first, end) lines of each text
    mine: tuple[int, int]
    theirs: tuple[int, int]


@dataclass
class Merge:
    base: list[str]  # lines with their endings
    mine: list[str]
    theirs: list[str]
    chunks: list[Chunk] = field(default_factory=list)

    @property
    def conflicts(self) -> int:
        return sum(1 for c in self.chunks if c.kind == CONFLICT)

    def lines(self) -> list[str]:
        """The merged lines: conflicts between markers."""
        out: list[str] = []
        eol = _eol(self.mine or self.theirs or self.base)
        for c in self.chunks:
            if c.kind == CONFLICT:
                for mark, lines in ((MINE_MARK, _slice(self.mine, c.mine)), (BASE_MARK, _slice(self.base, c.base)),
                                    (SPLIT_MARK, _slice(self.theirs, c.theirs))):
                    out.append(mark + eol)
                    out.extend(_ended(lines, eol))
                out.append(THEIRS_MARK + eol)
            elif c.kind == THEIRS:
                out.extend(_slice(self.theirs, c.theirs))
            else:  # (the edit's own lines where both sides have the same: its whitespace, its line ends)
                out.extend(_slice(self.mine, c.mine))
        for i in range(len(out) - 1):  # a last line without its end, moved up by the merge
            if not out[i].endswith(("\n", "\r")):
                out[i] += eol
        return out

    def text(self) -> str:
        return "".join(self.lines())

    def rows(self) -> list[tuple[Row3, int]]:
        """The three texts side by side, (mine, base, theirs) lines aligned by lines, each row with
        the index of its chunk: rows never cross chunks, so a changed or conflicting chunk is one band."""
        out: list[tuple[Row3, int]] = []
        texts = [[strip_eol(x) for x in t] for t in (self.mine, self.base, self.theirs)]
        for n, c in enumerate(self.chunks):
            (m0, m1), (b0, b1), (t0, t1) = c.mine, c.base, c.theirs
            if c.kind == SAME:
                out.extend(((m0 + k, b0 + k, t0 + k), n) for k in range(b1 - b0))
                continue
            for m, b, t in align_three((texts[0][m0:m1], texts[1][b0:b1], texts[2][t0:t1]), hub=1):
                out.append(((None if m is None else m0 + m, None if b is None else b0 + b,
                             None if t is None else t0 + t), n))
        return out


def merge3(base: list[str], mine: list[str], theirs: list[str]) -> Merge:
    """Merge the changes of ``mine`` and of ``theirs`` to ``base`` (lines with their endings;
    compared without them)."""
    kb, km, kt = ([strip_eol(x) for x in t] for t in (base, mine, theirs))
    to_mine, to_theirs = _matched(kb, km), _matched(kb, kt)
    chunks: list[Chunk] = []
    i = j = k = 0  # the next line of base, mine, theirs
    nb = len(base)
    while True:
        b = i  # the next base line both sides keep
        while b < nb and not (b in to_mine and b in to_theirs):
            b += 1
        if b < nb and b == i and to_mine[b] == j and to_theirs[b] == k:  # a stable run
            e = b + 1
            while e < nb and to_mine.get(e) == j + e - b and to_theirs.get(e) == k + e - b:
                e += 1
            chunks.append(Chunk(SAME, (i, e), (j, j + e - i), (k, k + e - i)))
            i, j, k = e, j + e - i, k + e - i
            continue
        ends = (b, to_mine[b], to_theirs[b]) if b < nb else (nb, len(mine), len(theirs))
        if (i, j, k) != ends:
            cb, cm, ct = (i, ends[0]), (j, ends[1]), (k, ends[2])
            chunks.append(Chunk(_kind(kb[i:ends[0]], km[j:ends[1]], kt[k:ends[2]]), cb, cm, ct))
        if b >= nb:
            return Merge(base, mine, theirs, chunks)
        i, j, k = ends


def count_conflicts(text: str) -> int:
    """How many merge conflicts ``text`` still has marked (a marked block: from a line
    ``<<<<<<< your edit`` to a line ``>>>>>>> new conversion``)."""
    if MINE_MARK not in text:
        return 0
    n, open_ = 0, False
    for line in text.splitlines():
        if line == MINE_MARK:
            open_ = True
        elif line == THEIRS_MARK and open_:
            n, open_ = n + 1, False
    return n


def _matched(a: list[str], b: list[str]) -> dict[int, int]:
    """Line of ``a`` -> its line in ``b``, for the lines a line diff keeps."""
    out: dict[int, int] = {}
    for i, j, size in difflib.SequenceMatcher(None, a, b, autojunk=False).get_matching_blocks():
        out.update(zip(range(i, i + size), range(j, j + size)))
    return out


def _kind(base: list[str], mine: list[str], theirs: list[str]) -> str:
    if mine == base:
        return THEIRS if theirs != base else SAME
    if theirs == base:
        return MINE
    return BOTH if mine == theirs else CONFLICT


def _slice(lines: list[str], span: tuple[int, int]) -> list[str]:
    return lines[span[0]:span[1]]


def _ended(lines: list[str], eol: str) -> list[str]:
    return [x if x.endswith(("\n", "\r")) else x + eol for x in lines]


def _eol(lines: list[str]) -> str:
    first = lines[0] if lines else ""
    return "\r\n" if first.endswith("\r\n") else "\n"
