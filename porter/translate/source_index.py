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
"""

from __future__ import annotations

import bisect
import itertools
import re
from dataclasses import dataclass, field

import tree_sitter as ts

from porter import parse
from porter.parse.lexical import lex


@dataclass(frozen=True, slots=True)
class IncludePath:
    """The path of an ``#include`` (with its <> or "" delimiters) and where its directive starts."""

    start_byte: int
    end_byte: int
    directive_byte: int


@dataclass(frozen=True, slots=True)
class Conditional:
    """A preprocessor conditional directive (``#if``, ``#ifdef``, ``#elif``, ``#else``, ``#endif``...)."""

    start_byte: int
    keyword: str
    head: bytes  # the directive's first line


IDENTIFIER = re.compile(rb"(?<![A-Za-z0-9_$])[A-Za-z_][A-Za-z0-9_]*")
# found by text, not by the tree, so that includes next to a syntax error are still seen
_INCLUDE = re.compile(rb'#[ \t]*include[ \t]*(<[^>\n]*>|"[^"\n]*")')
_CONDITIONAL = re.compile(rb"^[ \t]*#[ \t]*(if|ifdef|ifndef|elif|elifdef|elifndef|else|endif)\b[^\n]*", re.M)
# an identifier between two string literals: a macro pasted into a concatenation ("%" PRIu64 "\n")
_PASTED = re.compile(rb"[ \t]*[A-Za-z_][A-Za-z0-9_]*[ \t]*\Z")
_BRACKETS = ((b"(", b")"), (b"[", b"]"), (b"{", b"}"))


@dataclass
class SourceIndex:
    source: bytes
    protected: list[tuple[int, int]]  # sorted, non-overlapping (comments, literals, include paths)
    includes: list[IncludePath]  # every #include line, in order
    unterminated: list[tuple[int, str]] = field(default_factory=list)  # (byte, what) left open by the lexer
    _tree: ts.Tree | None = field(default=None, repr=False)
    _starts: list[int] = field(default_factory=list, repr=False)
    _lines: list[int] | None = field(default=None, repr=False)
    _ascii: bool | None = field(default=None, repr=False)
    _macro_bodies: list[ts.Node] | None = field(default=None, repr=False)
    _conditionals: list[Conditional] | None = field(default=None, repr=False)
    _words: frozenset[bytes] | None = field(default=None, repr=False)
    # results other layers computed from this exact text (the translation, by options), kept for reuse
    memo: dict = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self._starts = [s for s, _ in self.protected]

    # ------------------------------------------------------------ the tree
    @property
    def tree(self) -> ts.Tree:
        """The tree-sitter tree (parsed now if nobody has yet)."""
        if self._tree is None:
            self._tree = parse.parse(self.source)
        return self._tree

    @property
    def parsed(self) -> bool:
        return self._tree is not None

    @property
    def macro_bodies(self) -> list[ts.Node]:
        """The unparsed bodies of ``#define`` lines (preproc_arg nodes)."""
        if self._macro_bodies is None:
            caps = parse.captures(parse.load_query("macro_bodies"), self.tree.root_node)
            self._macro_bodies = caps.get("macro", [])
        return self._macro_bodies

    def parse_errors(self) -> list[tuple[int, int]]:
        return parse.error_regions(self.tree)

    # ------------------------------------------------------------ the text
    def is_protected(self, pos: int) -> bool:
        i = bisect.bisect_right(self._starts, pos) - 1
        return i >= 0 and pos < self.protected[i][1]

    @property
    def words(self) -> frozenset[bytes]:
        """Every distinct identifier of the file (comments and literals included)."""
        if self._words is None:
            self._words = frozenset(IDENTIFIER.findall(self.source))
        return self._words

    @property
    def looks_broken(self) -> bool:
        """A comment or literal left open, or brackets that do not balance outside comments
        and literals: the file may be cut off or mangled (a cheap test, before any parse)."""
        if self.unterminated:
            return True
        code = self.code_only()
        return any(code.count(a) != code.count(b) for a, b in _BRACKETS)

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
            self._conditionals = [Conditional(m.start(), m.group(1).decode(), m.group(0))
                                  for m in _CONDITIONAL.finditer(self.source) if not self.is_protected(m.start(1))]
        return self._conditionals

    def open_conditionals(self, positions: list[int]) -> list[list[bytes]]:
        """For each of the sorted ``positions``: the heads (``#if`` line and the ``#elif`` lines
        before it) of every conditional group that encloses it, outermost first."""
        out: list[list[bytes]] = []
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
            out.append([h for group in stack for h in group])
        return out

    @property
    def line_starts(self) -> list[int]:
        if self._lines is None:
            # each line's length plus its newline, summed (C loops only)
            lengths = map((1).__add__, map(len, self.source.split(b"\n")[:-1]))
            self._lines = list(itertools.accumulate(lengths, initial=0))
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

    def line_of(self, pos: int) -> int:
        return bisect.bisect_right(self.line_starts, pos)


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


def _is_string(source: bytes, span: tuple[int, int]) -> bool:
    return source[span[1] - 1] == 34 and source[span[0]] != 47  # ends with '"', not a comment


def index_source(source: bytes, tree: ts.Tree | None = None) -> SourceIndex:
    """Index ``source`` (bytes).  ``tree``: its tree-sitter tree when the caller has one; else
    the tree is parsed when first asked for."""
    if source.startswith(parse.BOM):
        lexed = lex(b"   " + source[3:])
    else:
        lexed = lex(source)
    spans = lexed.spans
    extra: list[tuple[int, int]] = []
    for a, b in zip(spans, spans[1:]):
        if _is_string(source, a) and _is_string(source, b) and _PASTED.match(source, a[1], b[0]):
            extra.append((a[1], b[0]))  # "%" PRIu64 "\n": one concatenated literal
    starts = [s for s, _ in spans]
    ends = {e: s for s, e in spans}
    includes = []
    if b"include" in source:
        for m in _INCLUDE.finditer(source):
            i = bisect.bisect_right(starts, m.start()) - 1
            if i >= 0 and m.start() < spans[i][1]:
                continue  # inside a comment or a literal
            if _starts_directive(source, m.start(), ends):
                includes.append(IncludePath(m.start(1), m.end(1), m.start()))
    if includes or extra:
        # include paths are protected from identifier renaming; the translator maps them as headers
        spans = _merge(spans + extra + [(inc.start_byte, inc.end_byte) for inc in includes])
    return SourceIndex(source, spans, includes, lexed.unterminated, tree)


def _starts_directive(source: bytes, pos: int, span_ends: dict[int, int]) -> bool:
    """``#`` at ``pos`` begins a preprocessor directive: only blanks and comments
    (which the preprocessor turns into a space) stand before it on its line."""
    while True:
        while pos > 0 and source[pos - 1] in b" \t":
            pos -= 1
        if pos == 0 or source[pos - 1] == 10 or source[max(0, pos - 3):pos] == b"\xef\xbb\xbf":
            return True
        if source[pos - 2:pos] == b"*/" and pos in span_ends:
            pos = span_ends[pos]
            continue
        return False
