"""One parsed source file: its tree, the spans that must not be rewritten, and
line/column lookup.  Shared by the translator and the findings rules."""

from __future__ import annotations

import bisect
import itertools
import re
from dataclasses import dataclass, field

import tree_sitter as ts

from porter import parse

# a string or char literal or a comment inside an unparsed #define body
_MACRO_LITERAL = re.compile(rb'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'|//[^\n]*|/\*.*?\*/', re.S)


@dataclass(frozen=True, slots=True)
class IncludePath:
    """The path of an ``#include`` (with its <> or "" delimiters) and where its directive starts."""

    start_byte: int
    end_byte: int
    directive_byte: int


# found by text, not by the tree, so that includes next to a syntax error are still seen
_INCLUDE = re.compile(rb'#[ \t]*include[ \t]*(<[^>\n]*>|"[^"\n]*")')


@dataclass
class SourceIndex:
    source: bytes
    tree: ts.Tree
    protected: list[tuple[int, int]]  # sorted, non-overlapping (comments, literals)
    includes: list[IncludePath]  # every #include line, in order
    macro_bodies: list[ts.Node]  # preproc_arg nodes (unparsed #define bodies)
    _starts: list[int] = field(default_factory=list, repr=False)
    _lines: list[int] | None = field(default=None, repr=False)
    _ascii: bool | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        self._starts = [s for s, _ in self.protected]

    def is_protected(self, pos: int) -> bool:
        i = bisect.bisect_right(self._starts, pos) - 1
        return i >= 0 and pos < self.protected[i][1]

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

    def parse_errors(self) -> list[tuple[int, int]]:
        return parse.error_regions(self.tree)


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


def index_source(source: bytes, tree: ts.Tree | None = None) -> SourceIndex:
    tree = tree or parse.parse(source)
    caps = parse.captures(parse.load_query("protected"), tree.root_node)
    spans = [(n.start_byte, n.end_byte) for n in caps.get("protected", [])]
    bodies = caps.get("macro", [])
    spans = _merge(spans)
    if tree.root_node.has_error:
        spans = _merge(spans + _comments_missed(source, spans))
    starts = [s for s, _ in spans]
    includes = []
    ends = {e: s for s, e in spans}
    for m in _INCLUDE.finditer(source):
        i = bisect.bisect_right(starts, m.start()) - 1
        if i >= 0 and m.start() < spans[i][1]:
            continue  # inside a comment or a literal
        if _starts_directive(source, m.start(), ends):
            includes.append(IncludePath(m.start(1), m.end(1), m.start()))
    # include paths are protected from identifier renaming; the translator maps them as headers
    spans.extend((inc.start_byte, inc.end_byte) for inc in includes)
    for body in bodies:
        text = source[body.start_byte:body.end_byte]
        if b'"' in text or b"'" in text or b"/" in text:
            spans.extend((body.start_byte + m.start(), body.start_byte + m.end()) for m in _MACRO_LITERAL.finditer(text))
    return SourceIndex(source, tree, _merge(spans), includes, bodies)


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


_COMMENT_START = re.compile(rb"/[*/]")


def _comments_missed(source: bytes, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Comments the parser did not see because of a syntax error (an unterminated
    ``/*`` runs to the end of the file)."""
    starts = [s for s, _ in spans]
    extra = []
    pos = 0
    while (m := _COMMENT_START.search(source, pos)) is not None:
        at = m.start()
        i = bisect.bisect_right(starts, at) - 1
        if i >= 0 and at < spans[i][1]:
            pos = spans[i][1]
            continue
        if m.group() == b"//":
            end = source.find(b"\n", at)
        else:
            end = source.find(b"*/", at + 2)
            end = -1 if end < 0 else end + 2
        end = len(source) if end < 0 else end
        extra.append((at, end))
        pos = end
    return extra
