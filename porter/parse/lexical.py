"""The lexical layer of C/C++/CUDA: comments and literals, found without a parse.

What is a comment or a string literal is decided by the first phases of
translation (C++ [lex.phases] 1-3), before any grammar: ``//`` and ``/* */``
comments (a backslash-newline continues a ``//`` comment), string literals with
their encoding prefixes (``u8"" u"" U"" L""``), raw strings (``R"delim(...)delim"``),
character literals, and the digit separators of C++14 numbers (``1'000``),
which are not character literals.  One C-speed regular-expression search finds
each candidate; only the candidates are looked at in Python.

This is what the translator protects from renaming, and it is the same for a
file tree-sitter parses cleanly and for one it does not (a syntax error far
away does not change what a comment is).  ``tests/translate/test_lexical.py``
checks it against tree-sitter's comment and literal nodes on every sample.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# one search finds the next comment or literal whole; Python only looks at what precedes a quote
# Each body is written "unrolled" (a run of plain characters, then escape-and-run pairs): the same
# language as ``(?:plain|escape)*`` with one branch per escape instead of one per character, which
# halves the time of a scan's lexing (a block comment likewise: runs up to each '*', not a lazy .*?).
_TOKEN = re.compile(rb"""
    //[^\\\n]*(?:\\(?:\r\n|.)[^\\\n]*)*           # a line comment; a backslash-newline continues it
  | /\*[^*]*\*+(?:[^/*][^*]*\*+)*/                   # a block comment (to the first */)
  | /\*                                            # ... left open
  | "[^"\\\n]*(?:\\(?:\r\n|.)[^"\\\n]*)*"         # a string literal
  | "                                              # ... left open at the end of its line
  | '[^'\\\n]*(?:\\(?:\r\n|.)[^'\\\n]*)*'         # a character literal
  | '                                              # a lone quote (an apostrophe in #error text)
""", re.S | re.X)
_RAW_OPEN = re.compile(rb'"([^()\\ \t\r\n"]{0,16})\(')
IDENT_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
JOINS_BEFORE = IDENT_BYTES | {ord("$")}  # a name does not start right after these (GNU C allows $ in names)
_DIGITS = frozenset(b"0123456789")
_ENCODING_PREFIXES = frozenset({b"u8", b"u", b"U", b"L"})
_RAW_PREFIXES = frozenset({b"R", b"u8R", b"uR", b"UR", b"LR"})


@dataclass
class Lexed:
    """Comment and literal spans (sorted, non-overlapping, end exclusive) and what was left open."""

    spans: list[tuple[int, int]] = field(default_factory=list)
    # (byte, what): an unterminated block comment, string or raw string
    unterminated: list[tuple[int, str]] = field(default_factory=list)


def whole_identifier(source: bytes, start: int, end: int) -> bool:
    """``source[start:end]`` is a whole identifier, not part of a longer name or number."""
    return (start == 0 or source[start - 1] not in JOINS_BEFORE) and (end == len(source) or source[end] not in IDENT_BYTES)


def _word_before(source: bytes, pos: int) -> int:
    """Start of the run of identifier characters that ends at ``pos``."""
    j = pos
    while j > 0 and source[j - 1] in IDENT_BYTES:
        j -= 1
    return j


def lex(source: bytes) -> Lexed:
    out = Lexed()
    spans = out.spans
    n = len(source)
    pos = 0
    match, find = _TOKEN.match, source.find
    # the next '/', '"' and "'" at or after ``pos``, each found by a byte search (memchr) and kept until
    # passed: the token is tried only where one stands, as the regex's own search would try it, but
    # without testing every byte of the text against the three (a third of a big file's convert)
    slash = quote = apostrophe = -1
    while True:
        if slash < pos:
            slash = find(b"/", pos)
            if slash < 0:
                slash = n
        if quote < pos:
            quote = find(b'"', pos)
            if quote < 0:
                quote = n
        if apostrophe < pos:
            apostrophe = find(b"'", pos)
            if apostrophe < 0:
                apostrophe = n
        at = min(slash, quote, apostrophe)
        if at >= n:
            break
        m = match(source, at)
        if m is None:  # a '/' that starts no comment
            pos = at + 1
            continue
        s, end = m.span()
        c = source[s]
        if c == 47:  # '/'
            if end - s == 2 and source[s + 1] == 42:  # "/*" with no "*/" after it
                out.unterminated.append((s, "block comment"))
                end = n
            spans.append((s, end))
            pos = end
            continue
        j = s
        if s and source[s - 1] in IDENT_BYTES:  # a prefix (u8"", L'', R"") or a number (1'000)
            j = _word_before(source, s)
        prefix = source[j:s]
        if c == 39:  # "'"
            if end - s == 1 or (prefix and prefix[0] in _DIGITS):
                pos = s + 1  # a lone quote, or a digit separator inside a number (1'000'000)
                continue
            spans.append((j if prefix in _ENCODING_PREFIXES else s, end))
            pos = end
            continue
        # '"'
        if prefix in _RAW_PREFIXES and (opened := _RAW_OPEN.match(source, s)) is not None:
            close = b")" + opened.group(1) + b'"'
            end = source.find(close, opened.end())
            if end < 0:
                out.unterminated.append((j, "raw string"))
                end = n
            else:
                end += len(close)
            spans.append((j, end))
            pos = end
            continue
        start = j if prefix in _ENCODING_PREFIXES else s
        if end - s == 1:  # the line ends first: the literal stops there
            end = source.find(b"\n", s)
            end = n if end < 0 else end
            out.unterminated.append((start, "string"))
        spans.append((start, end))
        pos = end
    return out


# every byte but brackets: ``text.translate(None, NOT_BRACKETS)`` keeps a text's brackets alone, to count them in
# one pass over the text (bytes.count is a byte-by-byte loop: six of them over a big file cost more than the rest)
NOT_BRACKETS = bytes(c for c in range(256) if c not in b"()[]{}")
# what may stand before a directive's '#' on its line (``directives``' ``before``)
BLANKS_BEFORE_HASH = re.compile(rb"[ \t]*\Z")


def directives(pattern: re.Pattern, before: re.Pattern, text, start: int = 0, end: int | None = None):
    """(line start, match) of each match of ``pattern`` in ``text[start:end]`` (bytes or bytearray)
    whose line holds only what ``before`` fully matches ahead of it: the matches of the pattern
    ``^`` + ``before`` + ``pattern`` (re.M) there, each found by its first byte (a directive's '#', a
    closing '}': a literal the regex engine skips to, where the anchored pattern is tried at every
    line start, 3-8x slower), in order and with the same ends.  A match whose line has something
    else before it is passed by one byte, so nothing it would have covered is missed."""
    end = len(text) if end is None else end
    search, full = pattern.search, before.match
    m = search(text, start, end)
    while m is not None:
        pos = m.start()
        line = text.rfind(b"\n", 0, pos) + 1
        if line >= start and full(text, line, pos):
            yield line, m
            m = search(text, m.end(), end)
        else:
            m = search(text, pos + 1, end)
