"""Brackets in C/C++ text, read without a parse: the top-level pieces of a comma-separated list, the
arguments of a call.  For the rules that read text around a node (a template's argument list, a macro's
parameters, a call tree-sitter could not parse inside a macro body), on ``str`` and on ``bytes`` alike.

Angle brackets count as brackets where a list can hold template arguments (``f<a, b>(x, y)``); a ``>`` that
closes nothing (``a > b``) leaves the depth at 0 rather than below it, so the commas after it still split.
Comments and literals are not skipped: callers pass code whose commas in literals do not matter to them.
"""

from __future__ import annotations

import re
from functools import lru_cache


def _chars(text, chars: str):
    """``chars`` as ``text`` yields them: characters of a str, byte values of bytes."""
    return set(chars.encode()) if isinstance(text, (bytes, bytearray)) else set(chars)


def top_level_pieces(text, opens: str = "([<", closes: str = ")]>") -> list[tuple[int, int]]:
    """(start, end) of each piece of ``text`` between its top-level commas, the last one included even when
    empty (``"a, f(b, c), d<e, g>"`` -> three pieces)."""
    o, c, comma = _chars(text, opens), _chars(text, closes), next(iter(_chars(text, ",")))
    out, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in o:
            depth += 1
        elif ch in c:
            depth = max(0, depth - 1)
        elif ch == comma and depth == 0:
            out.append((start, i))
            start = i + 1
    out.append((start, len(text)))
    return out


def call_arguments(text, pos: int, limit: int | None = None) -> tuple[list[tuple[int, int]], int]:
    """(start, end) of each top-level argument of the call whose '(' ends at ``pos``, and the offset after
    its ')'.  A call that does not close within ``limit`` characters (or the text) gives the arguments read
    so far and that bound.  Braces count as brackets here (an initializer list is one argument)."""
    o, c, comma = _chars(text, "([{"), _chars(text, ")]}"), next(iter(_chars(text, ",")))
    depth, start, out = 1, pos, []
    end = len(text) if limit is None else min(len(text), pos + limit)
    for i in range(pos, end):
        ch = text[i]
        if ch in o:
            depth += 1
        elif ch in c:
            depth -= 1
            if depth == 0:
                if text[start:i].strip():
                    out.append((start, i))
                return out, i + 1
        elif ch == comma and depth == 1:
            out.append((start, i))
            start = i + 1
    return out, end


@lru_cache(maxsize=16)
def _marks(open_: str, close: str, stop: str, binary: bool) -> re.Pattern:
    pattern = "[" + re.escape(open_ + close + stop) + "]"
    return re.compile(pattern.encode() if binary else pattern)


def closing(text, at: int, open_: str, close: str, limit: int | None = None, stop: str = "") -> int | None:
    """The offset of the ``close`` that closes the ``open_`` at ``at`` (one character each), looking at most
    ``limit`` characters on; None when it does not close there, or when one of ``stop`` comes first at any
    depth (``;{}`` ends the search for a template argument list's '>').  ``text``: str or bytes."""
    end = len(text) if limit is None else min(len(text), at + limit)
    depth = 0
    binary = isinstance(text, (bytes, bytearray))
    opens, closes = (open_.encode(), close.encode()) if binary else (open_, close)
    for m in _marks(open_, close, stop, binary).finditer(text, at, end):
        ch = m.group()
        if ch == opens:
            depth += 1
        elif ch == closes:
            depth -= 1
            if depth == 0:
                return m.start()
        else:
            return None
    return None
