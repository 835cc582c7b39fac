"""Text as the terminal shows it.

A source line may hold a byte that is not UTF-8 (the review keeps it as a lone surrogate, see
porter.project.file_conversion.source_text, so the port writes it back unchanged); a terminal
cannot show that, and writing it would shift the line.  Drawn as U+FFFD, one cell, as editors do."""

from __future__ import annotations

_TABLE = {c: 0xFFFD for c in range(0xD800, 0xE000)}


def shown(text: str) -> str:
    """``text`` with every lone surrogate drawn as U+FFFD (the same length, cell for cell)."""
    return text.translate(_TABLE) if not text.isascii() else text


def not_utf8_line(text: str) -> int:
    """The 1-based line of the first byte that is not UTF-8 in ``text`` (0: none)."""
    if text.isascii():
        return 0
    for i, line in enumerate(text.split("\n"), 1):
        if any(0xD800 <= ord(c) < 0xE000 for c in line):
            return i
    return 0
