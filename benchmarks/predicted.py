"""When a compile error counts as *predicted* by a finding: the one rule both unflagged_compile_errors.py
(AMD's test files, compiled one by one) and project_builds.py (whole projects through their own build
files) measure with, so that their figures mean the same thing.

A finding over at most SPAN_LINES lines (a call written over several: the compiler may point at an
argument's line) predicts an error on any of them; a longer one (a whole function, a loop) only at its
first line.
"""

from __future__ import annotations

SPAN_LINES = 5


def lines_of(line: int, end_line: int) -> range:
    """The lines on which a finding from ``line`` to ``end_line`` predicts a compile error."""
    end = end_line if end_line - line < SPAN_LINES else line
    return range(line, end + 1)
