"""The lexer's token expression is written for speed (each comment and literal body "unrolled": a run
of plain characters, then escape-and-run pairs; a block comment as runs up to each '*').  This checks
it against the forms that read as the C++ lexical rules say ([lex.phases] 1-3, [lex.comment],
[lex.string], [lex.ccon]): a // comment runs to the end of its line and a backslash-newline continues
it; a /* comment ends at the first */; a string or character literal ends at its first unescaped
quote and may not run past its line; whatever a backslash escapes (a quote, a backslash, CR LF) is part
of the literal.  Same match, at every position, on texts built from the characters that matter."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from porter.parse import lexical

READABLE = re.compile(rb"""
    //(?:\\\r\n|\\.|[^\\\n])*
  | /\*.*?\*/
  | /\*
  | "(?:[^"\\\n]|\\\r\n|\\.)*"
  | "
  | '(?:[^'\\\n]|\\\r\n|\\.)*'
  | '
""", re.S | re.X)

PIECES = [b"/", b"*", b'"', b"'", b"\\", b"\r", b"\n", b"a", b"R", b"(", b")", b"8", b"u", b" ", b"*/", b"/*",
          b"//", b"\\\r\n", b"\\\n", b"1'0", b'R"x(', b')x"', b"\xc3\xa9"]


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=40))
def test_the_token_expression_matches_the_readable_one_everywhere(pieces):
    text = b"".join(pieces)
    for pos in range(len(text) + 1):
        want, got = READABLE.search(text, pos), lexical._TOKEN.search(text, pos)
        assert (want and want.span()) == (got and got.span()), (text, pos)


def test_long_bodies():
    """Bodies far longer than the generated ones (a 100 kB comment or literal) end where they should."""
    body = b"x" * 100_000
    for text, span in [(b"//" + body + b"\\\n" + body + b"\nint", (0, 200_004)),
                       (b"/*" + body + b"*" + body + b"*/", (0, 200_005)),
                       (b'"' + body + b'\\"' + body + b'"', (0, 200_004)),
                       (b'"' + body + b"\n", (0, 1))]:
        assert lexical._TOKEN.search(text).span() == span
