"""Syntax highlighting for the diff: tree-sitter captures of the composed CUDA
query (grammars/highlights-cuda.scm) turned into per-line character spans."""

from __future__ import annotations

import functools

from rich.style import Style

# capture name (first part decides when the full name is unknown) -> style; the built-in palette:
# the app draws in the active theme's colours (porter.tui.colours.palette_for)
STYLES: dict[str, Style] = {
    "comment": Style(color="#7f8c8d", italic=True),
    "keyword": Style(color="#c678dd", bold=True),
    "string": Style(color="#98c379"),
    "number": Style(color="#d19a66"),
    "function": Style(color="#61afef"),
    "type": Style(color="#e5c07b"),
    "operator": Style(color="#56b6c2"),
    "constant.builtin": Style(color="#d19a66", bold=True),
    "constant": Style(color="#d19a66"),
    "variable.builtin": Style(color="#e06c75"),
    "punctuation.bracket": Style(color="#abb2bf"),
}

Spans = list[tuple[int, int, str]]  # (start char, end char, capture) within one line


def style_for(capture: str) -> Style | None:
    if capture in STYLES:
        return STYLES[capture]
    return STYLES.get(capture.split(".")[0])


@functools.cache
def _query():
    from porter.parse import load_query

    return load_query("highlights-cuda")


def highlight_lines(text: str) -> list[Spans]:
    """Per-line spans for ``text`` (inner nodes painted after outer ones)."""
    from porter.parse import captures, parse

    data = text.encode("utf-8", "surrogatepass")
    lines = text.split("\n")
    out: list[Spans] = [[] for _ in lines]
    try:
        caps = captures(_query(), parse(data).root_node)
    except Exception:
        return out
    items = []
    for name, nodes in caps.items():
        if style_for(name) is None:
            continue
        for node in nodes:
            items.append((node.end_byte - node.start_byte, node.start_point, node.end_point, name))
    items.sort(key=lambda t: -t[0])  # outer first, inner later (wins)
    ascii_lines: dict[int, bool] = {}

    def col(row: int, byte_col: int) -> int:
        if row >= len(lines):
            return 0
        ok = ascii_lines.get(row)
        if ok is None:
            ok = ascii_lines[row] = lines[row].isascii()
        if ok:
            return byte_col
        return len(lines[row].encode("utf-8", "surrogatepass")[:byte_col].decode("utf-8", "ignore"))

    for _, (r0, c0), (r1, c1), name in items:
        if r1 >= len(lines):
            r1 = len(lines) - 1
            c1 = len(lines[r1].encode("utf-8", "surrogatepass"))
        for r in range(r0, r1 + 1):
            s = col(r, c0) if r == r0 else 0
            e = col(r, c1) if r == r1 else len(lines[r])
            if e > s:
                out[r].append((s, e, name))
    return out


def highlight_pair(left: str, right: str) -> tuple[list[Spans], list[Spans]]:
    """Spans of both sides of a diff (one call, so it can run in a worker process)."""
    return highlight_lines(left), highlight_lines(right)
