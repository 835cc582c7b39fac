"""One source file as the translator and the findings rules see it: the spans
that must not be rewritten (comments and literals, from the lexical layer), the
``#include`` paths, the preprocessor conditionals, line/column look-up, and the
tree-sitter tree, parsed on first use.

The translator asks for the tree only where a rewrite depends on the syntax
(an argument to wrap, a call's argument count, a launch to rewrite) or where
the text looks broken (an unterminated comment or literal, unbalanced
brackets), to say where; most files are converted without a parse.  The
findings rules always use the tree.  A caller that has parsed already passes
the tree in.

A big file (over ``BIG_BYTES``) is not parsed whole: ``tree_at(pos)`` parses the
region around ``pos``, a run of whole top-level declarations of at least
``REGION_BYTES`` (cut after a ``}`` line in column 0 where brackets and
preprocessor conditionals balance), and keeps only the last one (a scan keeps
them all when the file is small enough: ``keep_bytes``).  A tree-sitter tree
takes about 25 bytes per source byte, so a whole 40 MB file's tree is a
gigabyte.  Regions are small (a few declarations), so a look-up at one place
parses a few kilobytes, and what no rewrite or rule looks at is never parsed.
"""

from __future__ import annotations

import array
import bisect
import itertools
import operator
import re
from dataclasses import dataclass, field
from typing import NamedTuple, Sequence

import tree_sitter as ts

from porter import parse
from porter.parse import mend
from porter.parse.lexical import BLANKS_BEFORE_HASH, NOT_BRACKETS, directives, lex


# IncludePath, Conditional and MacroBody are NamedTuples (immutable, no __dict__, fields by name), not
# frozen dataclasses: making those classes is a third of this module's import, paid by every `porter` run


class IncludePath(NamedTuple):
    """The path of an ``#include`` (with its <> or "" delimiters) and where its directive starts."""

    start_byte: int
    end_byte: int
    directive_byte: int


class Conditional(NamedTuple):
    """A preprocessor conditional directive (``#if``, ``#ifdef``, ``#elif``, ``#else``, ``#endif``...)."""

    start_byte: int
    keyword: str
    head: bytes  # the directive's first line


class MacroBody(NamedTuple):
    """The unparsed body of a directive (a ``preproc_arg``): where it stands, the kind of directive
    holding it, and for a ``#define`` the span of the macro's name.  Plain positions, not tree
    nodes: a node keeps its whole tree alive, and a big file's regions are parsed one at a time."""

    start_byte: int
    end_byte: int
    directive: str  # the holding node's type: preproc_def, preproc_function_def, preproc_call...
    name: tuple[int, int] | None  # the defined name's span (None for other directives)


IDENTIFIER = re.compile(rb"(?<![A-Za-z0-9_$])[A-Za-z_][A-Za-z0-9_]*")
# found by text, not by the tree, so that includes next to a syntax error are still seen
_INCLUDE = re.compile(rb'#[ \t]*include[ \t]*(<[^>\n]*>|"[^"\n]*")')
# (a UTF-8 byte order mark may stand before a directive on the first line)
CONDITIONAL_LINE = re.compile(rb"^(?:\xef\xbb\xbf)?[ \t]*#[ \t]*(if|ifdef|ifndef|elif|elifdef|elifndef|else|endif)\b[^\n]*",
                              re.M)
# the same directive from its '#' on (``directives``: found by the '#', a literal the regex engine skips to, and
# the line's start checked after; 8x faster than the anchored pattern, tried at every line start)
_CONDITIONAL_FROM_HASH = re.compile(rb"#[ \t]*(if|ifdef|ifndef|elif|elifdef|elifndef|else|endif)\b[^\n]*")
# what may stand before a directive's '#' on its line (a byte order mark: the anchored patterns' own choice)
_BEFORE_HASH = re.compile(rb"(?:\xef\xbb\xbf)?[ \t]*\Z")
# an identifier between two string literals: a macro pasted into a concatenation ("%" PRIu64 "\n")
_PASTED = re.compile(rb"[ \t]*[A-Za-z_][A-Za-z0-9_]*[ \t]*\Z")
_NOT_NEWLINE = re.compile(rb"[^\n]")
_BRACKETS = ((b"(", b")"), (b"[", b"]"), (b"{", b"}"))
# a line that closes a top-level definition: where a region of a big file may end (and a re-translated change, incremental.py)
TOP_CLOSE = re.compile(rb"^\}[ \t]*;?[ \t]*(?://[^\n\\]*)?\r?\n", re.M)
# the same from its '}', which must start its line (``directives``: 3x faster than the anchored pattern)
_TOP_CLOSE_FROM_BRACE = re.compile(rb"\}[ \t]*;?[ \t]*(?://[^\n\\]*)?\r?\n")
_NOTHING_BEFORE = re.compile(rb"\Z")
# a file over this is parsed a region at a time, where something looks (the 40k-line benchmark
# file, 1.6 MB: 383 ms to translate parsed whole, 214 ms by regions, the same port); a smaller one
# is parsed whole on first use, one call instead of many
BIG_BYTES = 64 << 10
# a region's least size: small, so that a look-up parses little (the 1M-line benchmark file: 1 MB
# regions 11.0 s to translate, 16 kB 7.3 s, 4 kB 5.8 s, 1 kB 5.75 s, the same port)
REGION_BYTES = 4 << 10
# a #define line with its continuations, from its '#' (``directives`` checks that only blanks precede it)
_DEFINE_FROM_HASH = re.compile(rb"#[ \t]*define\b(?:[^\n]*\\\r?\n)*[^\n]*")
# an object-like #define (a '(' right after the name makes it function-like)
_DEFINE_HEAD = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_][A-Za-z0-9_]*)(?![A-Za-z0-9_(])[ \t]*", re.M)


_FIRST, _SECOND = operator.itemgetter(0), operator.itemgetter(1)


class Spans(Sequence):
    """Sorted, non-overlapping (start, end) byte spans, kept as two arrays of integers: 8 bytes a
    span below 4 GB (16 above) instead of about 120 for a list of tuples (a 41 MB file has a quarter
    million comments and literals).  Reads as a sequence of (start, end) tuples."""

    __slots__ = ("starts", "ends")

    def __init__(self, spans=()) -> None:
        try:
            self.starts = array.array("I", map(_FIRST, spans))  # (C loops, no generator)
            self.ends = array.array("I", map(_SECOND, spans))
        except OverflowError:  # (a file of 4 GB or more)
            self.starts = array.array("q", map(_FIRST, spans))
            self.ends = array.array("q", map(_SECOND, spans))

    def __len__(self) -> int:
        return len(self.starts)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return list(zip(self.starts[i], self.ends[i]))
        return self.starts[i], self.ends[i]

    def __iter__(self):
        return zip(self.starts, self.ends)

    def __eq__(self, other) -> bool:
        return isinstance(other, Sequence) and len(self) == len(other) and all(a == tuple(b) for a, b in zip(self, other))

    def __repr__(self) -> str:
        return f"Spans({list(self)!r})"


@dataclass
class SourceIndex:
    source: bytes
    protected: Spans  # sorted, non-overlapping (comments, literals, include paths)
    includes: list[IncludePath]  # every #include line, in order
    unterminated: list[tuple[int, str]] = field(default_factory=list)  # (byte, what) left open by the lexer
    _tree: ts.Tree | None = field(default=None, repr=False)
    _starts: Sequence[int] = field(default_factory=list, repr=False)
    _lines: Sequence[int] | None = field(default=None, repr=False)
    _ascii: bool | None = field(default=None, repr=False)
    _unbalanced: bool | None = field(default=None, repr=False)
    _macro_bodies: list[MacroBody] | None = field(default=None, repr=False)
    _conditionals: list[Conditional] | None = field(default=None, repr=False)
    _words: frozenset[bytes] | None = field(default=None, repr=False)
    _regions: list[tuple[int, int]] | None = field(default=None, repr=False)
    _region_trees: dict[int, ts.Tree] = field(default_factory=dict, repr=False)
    # ``tree_at`` keeps every region's tree when the file is at most this big (a scan, whose file
    # checks each walk the file), else only the last one (0: always only the last)
    keep_bytes: int = field(default=0, repr=False)
    # in a file bigger than that: the regions whose trees ``tree_at`` keeps anyway (those a scan's file
    # checks will ask for again after its query pass), until ``forget_trees``
    keep_regions: frozenset[int] = field(default=frozenset(), repr=False)
    _last_region: int = field(default=-1, repr=False)
    _region_errors: dict[int, list[tuple[int, int]]] = field(default_factory=dict, repr=False)
    _mends: list[mend.Mend] | None = field(default=None, repr=False)
    _mend_starts: list[int] = field(default_factory=list, repr=False)
    _device_heads: list[int] = field(default_factory=list, repr=False)
    # results other layers computed from this exact text (the translation, by options), kept for reuse
    memo: dict = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.protected, Spans):
            self.protected = Spans(self.protected)
        self._starts = self.protected.starts

    # ------------------------------------------------------------ the tree
    @property
    def tree(self) -> ts.Tree:
        """The tree-sitter tree (parsed now if nobody has yet)."""
        if self._tree is None:
            if self._mends is None:  # (most files parse cleanly as written: their mends are not looked for)
                tree = parse.parse(self.source)
                if tree.root_node.has_error and self.mends:
                    tree = parse.parse(self.source, self.mends)
                self._tree = tree
            else:
                self._tree = parse.parse(self.source, self._mends)
        return self._tree

    @property
    def mends(self) -> list[mend.Mend]:
        """What tree-sitter reads instead of the text where the file's own macros and conditionals
        make valid code it cannot read (``porter.parse.mend``): the same length, so offsets hold."""
        if self._mends is None:
            self._set_mends(self.blanked())
        return self._mends

    def _set_mends(self, code: bytearray) -> None:
        self._device_heads = []
        self._mends = mend.mends(self.source, code, self.conditionals, self._device_heads) \
            if b"#" in self.source or b"__attribute__" in self.source else []
        self._mend_starts = [m[0] for m in self._mends]

    def device_head_in(self, start: int, end: int) -> bool:
        """Whether [start, end) (a function's head) holds an invocation of a macro that opens a
        ``__global__``/``__device__`` function (``KERNEL_BEGIN(name)``): device code once expanded."""
        heads = self._device_heads
        if not heads:
            return False
        i = bisect.bisect_left(heads, start)
        return i < len(heads) and heads[i] < end

    @property
    def parsed(self) -> bool:
        return self._tree is not None

    @property
    def macro_bodies(self) -> list[MacroBody]:
        """The unparsed bodies of directives (``preproc_arg`` nodes: ``#define`` bodies, pragmas),
        in file order, from the whole tree (a big file is parsed whole for this: a caller that
        must not parse it reads the text, as ``object_macros`` does)."""
        if self._macro_bodies is None:
            self._macro_bodies = _bodies_in(self.tree.root_node, self._hash_lines())
        return self._macro_bodies

    def _hash_lines(self) -> list[tuple[int, int]]:
        """Merged spans of the lines that hold a '#' outside comments and literals (a directive),
        with the lines that continue them (a backslash at the end)."""
        source = self.source
        spans: list[tuple[int, int]] = []
        pos = source.find(b"#")
        while pos >= 0:
            if self.is_protected(pos):
                pos = source.find(b"#", pos + 1)
                continue
            end = source.find(b"\n", pos)
            while end > 0 and (source[end - 1:end] == b"\\" or source[end - 2:end] == b"\\\r"):
                end = source.find(b"\n", end + 1)  # a continued line: the body may start on the next one
            end = len(source) if end < 0 else end
            if spans and pos <= spans[-1][1]:
                spans[-1] = (spans[-1][0], max(end, spans[-1][1]))
            else:
                spans.append((pos, end))
            pos = source.find(b"#", end)
        return spans

    def parse_errors(self) -> list[tuple[int, int]]:
        """Where parsing failed, in the whole file (a big file: every region, parsed in turn)."""
        if self._tree is not None or not self.big:
            return parse.error_regions(self.tree)
        spans: list[tuple[int, int]] = []
        for k in range(len(self.regions)):
            if k not in self._region_errors:
                self.tree_at(self.regions[k][0])
            spans += self._region_errors[k]
        return spans

    def known_parse_errors(self) -> list[tuple[int, int]]:
        """Where parsing failed in what has been parsed so far: the whole tree when there is one, or
        the regions of a big file that something asked for; nothing is parsed for this."""
        if self._tree is not None:
            return parse.error_regions(self._tree)
        return [span for k in sorted(self._region_errors) for span in self._region_errors[k]]

    @property
    def big(self) -> bool:
        """Parsed a region at a time where the caller asks for the tree at a place (``tree_at``)."""
        return len(self.source) > BIG_BYTES

    def tree_at(self, pos: int) -> ts.Tree:
        """A tree whose nodes around ``pos`` are those of the whole file's tree: the whole tree when
        it is parsed already or the file is small, else the tree of ``pos``'s region."""
        k = self.region_index(pos)
        if k < 0:
            return self.tree
        tree = self._region_trees.get(k)
        if tree is None:
            if len(self.source) > self.keep_bytes and self._last_region not in self.keep_regions:
                # the previous region's tree goes before the next one is made (the only one held
                # besides those of ``keep_regions``)
                self._region_trees.pop(self._last_region, None)
            tree = self._region_trees[k] = self._parse_region(k)
            self._last_region = k
        return tree

    def region_index(self, pos: int) -> int:
        """The region of a big file that holds ``pos``; -1 where the file is one tree (small, or parsed
        whole)."""
        if self._tree is not None or not self.big:
            return -1
        return bisect.bisect_right(self.regions, (pos, float("inf"))) - 1

    def region_tree(self, k: int) -> ts.Tree:
        """Region ``k``'s tree (the whole file's for -1), without changing which region trees are kept: a
        kept one, else one made for this caller alone (a lookup elsewhere in the file must not drop the
        tree the scan is reading)."""
        if k < 0:
            return self.tree
        tree = self._region_trees.get(k)
        return tree if tree is not None else self._parse_region(k)

    def node_at(self, start: int, end: int) -> ts.Node | None:
        """The smallest node that spans [start, end), from ``tree_at(start)``: the whole tree's node,
        or in a big file the same node of its region's tree."""
        return self.tree_at(start).root_node.descendant_for_byte_range(start, end)

    def roots(self, where=None):
        """The root node of the whole tree, or in a big file (not parsed whole) of each region's
        tree in file order, one region's tree at a time: the top-level declarations of the file are
        their children.  ``where(text)``: in a big file, a test of a region's text that must hold
        for its tree to be made; it must hold wherever the caller could find something (a
        top-level declaration never spans two regions)."""
        if self._tree is not None or not self.big:
            yield self.tree.root_node
            return
        for start, end in self.regions:
            if where is None or where(self.source[start:end]):
                yield self.tree_at(start).root_node

    def _parse_region(self, k: int) -> ts.Tree:
        start, end = self.regions[k]
        mends = mend.within(self.mends, self._mend_starts, start, end) if self.mends else ()
        tree = parse.parse_range(self.source, start, end, self._point(start), self._point(end), mends)
        self._region_errors[k] = parse.error_regions(tree)
        return tree

    def _point(self, pos: int) -> tuple[int, int]:
        starts = self.line_starts
        i = bisect.bisect_right(starts, pos) - 1
        return i, pos - starts[i]

    @property
    def regions(self) -> list[tuple[int, int]]:
        """The file cut into runs of whole top-level declarations of at least REGION_BYTES each
        (one region, the whole file, when it cannot be cut)."""
        if self._regions is None:
            self._regions = self._cut_regions()
        return self._regions

    def _cut_regions(self) -> list[tuple[int, int]]:
        source, n = self.source, len(self.source)
        code = self.blanked()
        if self._unbalanced is None:  # (looks_broken's, while the blanked copy is at hand)
            self._unbalanced = _unbalanced(code)
        if self._mends is None:
            self._set_mends(code)
        if self._mends:
            # brackets counted as tree-sitter reads them: a macro that opens a function opens it where it
            # is invoked, not in its #define (directive lines hold no code), a branch blanked is not there
            for start, m in directives(_DEFINE_FROM_HASH, BLANKS_BEFORE_HASH, code):
                code[start:m.end()] = _NOT_NEWLINE.sub(b" ", code[start:m.end()])
            for a, b, text in self._mends:
                code[a:b] = text
        # brackets are counted as the preprocessor would see one configuration: the first branch of
        # each conditional (`#ifdef X` / `void f() {` / `#else` / `void f(int) {` / `#endif` opens one
        # brace, not two); counting every branch would leave the file unbalanced, and uncut, from there on
        for a, b in _alternative_branches(self.conditionals):
            code[a:b] = b" " * (b - a)
        depth_at: list[tuple[int, int]] = []  # (directive start, conditional depth after it)
        depth = 0
        for c in self.conditionals:
            depth += 1 if c.keyword in ("if", "ifdef", "ifndef") else -1 if c.keyword == "endif" else 0
            depth = max(depth, 0)  # an #endif with no #if (the rest of a file cut elsewhere) closes nothing
            depth_at.append((c.start_byte, depth))
        cond_starts = [p for p, _ in depth_at]
        regions: list[tuple[int, int]] = []
        start = 0
        counts = [0] * 6
        last = 0  # counted up to here
        for _line, m in directives(_TOP_CLOSE_FROM_BRACE, _NOTHING_BEFORE, source):  # (TOP_CLOSE's matches)
            cut = m.end()
            if cut - start < REGION_BYTES or cut >= n or self.is_protected(m.start()):
                continue
            j = bisect.bisect_left(cond_starts, cut) - 1  # the last directive before the cut
            if j >= 0 and depth_at[j][1] != 0:
                continue
            brackets = code[last:cut].translate(None, NOT_BRACKETS)  # (one pass, then six over a few bytes)
            for i, (a, b) in enumerate(_BRACKETS):
                counts[2 * i] += brackets.count(a)
                counts[2 * i + 1] += brackets.count(b)
            last = cut
            if counts[0::2] == counts[1::2]:
                regions.append((start, cut))
                start = cut
        regions.append((start, n))
        return regions

    # ------------------------------------------------------------ the text
    def is_protected(self, pos: int) -> bool:
        i = bisect.bisect_right(self._starts, pos) - 1
        return i >= 0 and pos < self.protected.ends[i]

    def protected_test(self):
        """``is_protected`` as a function of the position alone, for a loop that asks it many times (the
        spans' arrays looked up once)."""
        starts, ends = self._starts, self.protected.ends
        find = bisect.bisect_right

        def is_protected(pos: int) -> bool:
            i = find(starts, pos)
            return i > 0 and pos < ends[i - 1]
        return is_protected

    @property
    def words(self) -> frozenset[bytes]:
        """Every distinct identifier of the file (comments and literals included)."""
        if self._words is None:
            self._words = distinct_identifiers(self.source)
        return self._words

    @property
    def looks_broken(self) -> bool:
        """A comment or literal left open, or brackets that do not balance outside comments
        and literals: the file may be cut off or mangled (a cheap test, before any parse)."""
        if self.unterminated:
            return True
        if self._unbalanced is None:
            self._unbalanced = _unbalanced(self.blanked())
        return self._unbalanced

    def blanked(self, *, keep_includes: bool = False, keep_newlines: bool = False) -> bytearray:
        """The source with every protected span blanked with spaces, in one copy (offsets kept, no
        pieces joined: a big file's pieces and their join would hold the text three times over).
        ``keep_includes`` leaves the paths of ``#include`` lines as they are; ``keep_newlines``
        keeps the line breaks inside a span (a block comment), so lines keep their numbers."""
        code = bytearray(self.source)
        if not self.protected:
            return code
        source = self.source
        includes = {inc.start_byte for inc in self.includes} if keep_includes else ()
        blank = memoryview(b" " * max(e - s for s, e in self.protected))
        for s, e in self.protected:
            if s in includes:
                continue
            if keep_newlines and source.find(b"\n", s, e) >= 0:
                code[s:e] = _NOT_NEWLINE.sub(b" ", source[s:e])
            else:
                code[s:e] = blank[:e - s]
        return code

    def object_macros(self) -> list[tuple[int, int, int, int]]:
        """(name start, name end, body start, body end) of every object-like ``#define`` with a
        body, in file order, found in the text (no tree: a big file's regions are not parsed for
        it).  The body runs to the end of the directive's last line: backslash continuations and
        comments that go on past a line end are part of it, as in the preprocessor."""
        source = self.source
        if b"define" not in source:
            return []
        starts, ends, n = self._starts, self.protected.ends, len(source)
        out = []
        for m in _DEFINE_HEAD.finditer(source):
            if self.is_protected(m.start(1)):
                continue  # (a line of a comment)
            end = m.end()
            while True:
                nl = source.find(b"\n", end)
                if nl < 0:
                    end = n
                    break
                i = bisect.bisect_right(starts, nl) - 1
                if i >= 0 and nl < ends[i]:
                    end = ends[i]  # a block comment goes on to another line
                    continue
                if source.endswith(b"\\", 0, nl) or source.endswith(b"\\\r", 0, nl):
                    end = nl + 1
                    continue
                end = nl
                break
            if end > m.end():
                out.append((m.start(1), m.end(1), m.end(), end))
        return out

    def forget_trees(self) -> None:
        """Drop the region trees kept by ``tree_at`` (the whole tree, if any, stays), unless the
        caller that set ``keep_bytes`` or ``keep_regions`` (a scan) still keeps them; it clears
        those first."""
        if len(self.source) > self.keep_bytes:
            if self.keep_regions:  # (a scan's, until it empties ``keep_regions``)
                for k in [k for k in self._region_trees if k not in self.keep_regions]:
                    del self._region_trees[k]
            else:
                self._region_trees.clear()

    def code_only(self) -> bytes:
        """The source with every protected span left out."""
        source, pos, parts = self.source, 0, []
        for s, e in self.protected:
            parts.append(source[pos:s])
            pos = e
        parts.append(source[pos:])
        return b"".join(parts)

    @property
    def conditionals(self) -> list[Conditional]:
        """The conditional directives outside comments, in order."""
        if self._conditionals is None:
            source = self.source
            self._conditionals = [Conditional(start, m.group(1).decode(), source[start:m.end()])
                                  for start, m in directives(_CONDITIONAL_FROM_HASH, _BEFORE_HASH, source)
                                  if not self.is_protected(m.start(1))]  # (CONDITIONAL_LINE's matches)
        return self._conditionals

    def open_conditionals(self, positions: list[int]) -> list[list[bytes]]:
        """For each of the sorted ``positions``: the heads (``#if`` line and the ``#elif`` lines
        before it) of every conditional group that encloses it, outermost first."""
        return list(self.iter_open_conditionals(positions))

    def iter_open_conditionals(self, positions):
        """``open_conditionals``, one position's heads at a time (``positions`` may be an iterator)."""
        stack: list[list[bytes]] = []
        conds = self.conditionals
        k = 0
        for pos in positions:
            while k < len(conds) and conds[k].start_byte < pos:
                c = conds[k]
                if c.keyword in ("if", "ifdef", "ifndef"):
                    stack.append([c.head])
                elif c.keyword in ("elif", "elifdef", "elifndef") and stack:
                    stack[-1].append(c.head)
                elif c.keyword == "endif" and stack:
                    stack.pop()
                k += 1
            yield [h for group in stack for h in group]

    @property
    def line_starts(self) -> Sequence[int]:
        """The byte where each line starts (an array of machine integers: 4 bytes a line below 4 GB, not 36)."""
        if self._lines is None:
            starts = array.array("I" if len(self.source) < 1 << 32 else "q", [0])
            source, n, pos = self.source, len(self.source), 0
            while pos < n:  # a piece at a time, so that the split lines of a big file never exist all at once
                stop = source.find(b"\n", min(pos + _PIECE, n))
                stop = n if stop < 0 else stop + 1
                # each line's length plus its newline, summed (C loops only)
                lengths = map((1).__add__, map(len, source[pos:stop].split(b"\n")[:-1]))
                following = itertools.accumulate(lengths, initial=pos)
                next(following)  # ``pos`` itself is in already
                starts.extend(following)
                pos = stop
            self._lines = starts
        return self._lines

    def line_col(self, pos: int) -> tuple[int, int]:
        """1-based line and 1-based column (in characters of the line, UTF-8 aware)."""
        starts = self._lines or self.line_starts
        i = bisect.bisect_right(starts, pos) - 1
        if self._ascii is None:
            self._ascii = self.source.isascii()
        if self._ascii:
            return i + 1, pos - starts[i] + 1
        prefix = self.source[starts[i]:pos]
        col = (len(prefix) if prefix.isascii() else len(prefix.decode("utf-8", "replace"))) + 1
        return i + 1, col

    def line_col_function(self):
        """``line_col`` as a function of the position alone, for a loop that asks it many times (the
        starts and the text's kind looked up once)."""
        starts = self._lines or self.line_starts
        source = self.source
        find = bisect.bisect_right
        if self._ascii is None:
            self._ascii = source.isascii()
        if self._ascii:
            def line_col(pos: int) -> tuple[int, int]:
                i = find(starts, pos)
                return i, pos - starts[i - 1] + 1
        else:
            def line_col(pos: int) -> tuple[int, int]:
                i = find(starts, pos)
                prefix = source[starts[i - 1]:pos]
                return i, (len(prefix) if prefix.isascii() else len(prefix.decode("utf-8", "replace"))) + 1
        return line_col

    def line_of(self, pos: int) -> int:
        return bisect.bisect_right(self.line_starts, pos)


_PIECE = 1 << 20


# the bytes an identifier is made of (and '$', which joins to one, as IDENTIFIER's look-behind reads it),
# kept; every other byte a space
_WORD_BYTES = bytes(c if (48 <= c <= 57 or 65 <= c <= 90 or 97 <= c <= 122 or c in b"_$") else 32 for c in range(256))


def distinct_identifiers(source: bytes) -> frozenset[bytes]:
    """Every distinct identifier of ``source`` (those ``IDENTIFIER`` finds), found a megabyte at a time
    (cut at a newline, which no identifier spans): a list of every identifier token of a 40 MB file
    would take 250 MB.  The text's runs of identifier bytes (split in C, 4x faster than the regex)
    are each an identifier, but one led by a digit or '$' (a number: none) or holding a '$' (the
    identifier stops there; what follows the '$' is none)."""
    tokens: set[bytes] = set()
    n, pos = len(source), 0
    while pos < n:
        stop = source.find(b"\n", min(pos + _PIECE, n))
        stop = n if stop < 0 else stop + 1
        tokens.update(source[pos:stop].translate(_WORD_BYTES).split())
        pos = stop
    words = set()
    for w in tokens:
        if w[0] in _NOT_FIRST:
            continue
        if 36 in w:  # (b"$")
            w = w[:w.index(b"$")]
        words.add(w)
    return frozenset(words)


_NOT_FIRST = frozenset(b"0123456789$")


def _alternative_branches(conditionals: list[Conditional]) -> list[tuple[int, int]]:
    """The byte spans of the branches after the first of each conditional (``#elif`` / ``#else`` up to
    its ``#endif``), outermost only, in order; an unterminated conditional's alternatives run to the end."""
    spans: list[tuple[int, int]] = []
    stack: list[int | None] = []  # per open conditional: where its first alternative starts (None: none yet)
    for c in conditionals:
        if c.keyword in ("if", "ifdef", "ifndef"):
            stack.append(None)
        elif c.keyword == "endif":
            if not stack:
                continue
            alt = stack.pop()
            if alt is not None and not any(a is not None for a in stack):
                spans.append((alt, c.start_byte))  # (an alternative inside an alternative is in this one)
        elif stack and stack[-1] is None:  # elif / else: the first alternative of the innermost conditional
            stack[-1] = c.start_byte
    if stack and stack[0] is not None:
        spans.append((stack[0], 1 << 62))
    else:
        for alt in stack:
            if alt is not None:
                spans.append((alt, 1 << 62))
                break
    return spans


def _merge(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    spans.sort()
    out: list[tuple[int, int]] = []
    for s, e in spans:
        if out and s < out[-1][1]:
            if e > out[-1][1]:
                out[-1] = (out[-1][0], e)
        else:
            out.append((s, e))
    return out


def _unbalanced(code: bytes | bytearray) -> bool:
    """Brackets that do not balance in ``code`` (the source with comments and literals blanked)."""
    # (one pass over the text, then six over its brackets, a megabyte at a time: no copy of a big text)
    net = [0, 0, 0]
    for i in range(0, len(code), _PIECE):
        brackets = code[i:i + _PIECE].translate(None, NOT_BRACKETS)
        for k, (a, b) in enumerate(_BRACKETS):
            net[k] += brackets.count(a) - brackets.count(b)
    return any(net)


def index_source(source: bytes, tree: ts.Tree | None = None) -> SourceIndex:
    """Index ``source`` (bytes).  ``tree``: its tree-sitter tree when the caller has one; else
    the tree is parsed when first asked for."""
    if source.startswith(parse.BOM):
        lexed = lex(b"   " + source[3:])
    else:
        lexed = lex(source)
    spans = lexed.spans
    extra: list[tuple[int, int]] = []
    pasted = _PASTED.match
    previous = None  # the span before, when it is a string (it ends with '"' and is no comment)
    for b in spans:
        if source[b[1] - 1] == 34 and source[b[0]] != 47:
            if previous is not None and pasted(source, previous[1], b[0]):
                extra.append((previous[1], b[0]))  # "%" PRIu64 "\n": one concatenated literal
            previous = b
        else:
            previous = None
    starts = list(map(_FIRST, spans))
    includes = []
    if b"include" in source:
        for m in _INCLUDE.finditer(source):
            i = bisect.bisect_right(starts, m.start()) - 1
            if i >= 0 and m.start() < spans[i][1]:
                continue  # inside a comment or a literal
            if _starts_directive(source, m.start(), spans, starts):
                includes.append(IncludePath(m.start(1), m.end(1), m.start()))
    if includes or extra:
        # include paths are protected from identifier renaming; the translator maps them as headers
        spans = _merge(spans + extra + [(inc.start_byte, inc.end_byte) for inc in includes])
    unterminated = lexed.unterminated
    protected = Spans(spans)
    del lexed, spans, starts  # (the lists of tuples are gone before anything else is built)
    return SourceIndex(source, protected, includes, unterminated, tree)


def _starts_directive(source: bytes, pos: int, spans: list[tuple[int, int]], starts: list[int]) -> bool:
    """``#`` at ``pos`` begins a preprocessor directive: only blanks and comments
    (which the preprocessor turns into a space) stand before it on its line."""
    while True:
        while pos > 0 and source[pos - 1] in b" \t":
            pos -= 1
        if pos == 0 or source[pos - 1] == 10 or source[max(0, pos - 3):pos] == b"\xef\xbb\xbf":
            return True
        if source[pos - 2:pos] == b"*/":
            i = bisect.bisect_left(starts, pos) - 1  # the span that ends here, if one does
            if i >= 0 and spans[i][1] == pos:
                pos = spans[i][0]
                continue
        return False


def _bodies_in(root: ts.Node, spans: list[tuple[int, int]]) -> list[MacroBody]:
    """The directive bodies (``macro_bodies`` query) of the tree under ``root`` within ``spans``,
    in file order."""
    bodies: list[MacroBody] = []
    if not spans:
        return bodies
    cursor = ts.QueryCursor(parse.load_query("macro_bodies"))
    seen: set[tuple[int, int]] = set()
    for start, end in spans:
        cursor.set_byte_range(start, end)
        for node in cursor.captures(root).get("macro", []):
            key = (node.start_byte, node.end_byte)
            if key in seen:
                continue
            seen.add(key)
            parent = node.parent
            name = parent.child_by_field_name("name") if parent is not None else None
            bodies.append(MacroBody(node.start_byte, node.end_byte, parent.type if parent is not None else "",
                                    (name.start_byte, name.end_byte) if name is not None else None))
    bodies.sort(key=lambda b: b.start_byte)
    return bodies
