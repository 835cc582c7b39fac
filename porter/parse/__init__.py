"""Parsing: tree-sitter-cuda parser and the query files kept in ``grammars/``.

Everything that needs a syntax tree goes through this module, so the grammar
and the query loading live in one place.
"""

from __future__ import annotations

import atexit
import codecs
import functools
import os
import sys
from pathlib import Path

import tree_sitter as ts
import tree_sitter_cuda

from porter.parse import mend

BOM = b"\xef\xbb\xbf"

# Observers of every parse: each is called with (start, end), the byte span parsed (the whole text
# of ``parse``, the region of ``parse_range``).  For tests and measurements (how many times a scan
# parses each region); empty in normal runs.
PARSE_OBSERVERS: list = []


class ParseStats:
    """Bytes and parses counted while ``PORTER_PARSE_STATS`` is set in the environment, printed to
    stderr when the process exits (``porter: parsed B bytes in N parses``): a debug hook."""

    def __init__(self):
        self.bytes = self.parses = 0

    def __call__(self, start: int, end: int) -> None:
        self.bytes += end - start
        self.parses += 1

    def report(self) -> None:
        print(f"porter: parsed {self.bytes} bytes in {self.parses} parses", file=sys.stderr)


if os.environ.get("PORTER_PARSE_STATS"):
    _stats = ParseStats()
    PARSE_OBSERVERS.append(_stats)
    atexit.register(_stats.report)


@functools.cache
def language() -> ts.Language:
    return ts.Language(tree_sitter_cuda.language())


def parser() -> ts.Parser:
    return ts.Parser(language())


codecs.register_error("porter-same-length", lambda exc: ("?" * (exc.end - exc.start), exc.end))


def _valid_utf8(text: bytes) -> bytes:
    """``text``, or where it is not UTF-8 (a Latin-1 comment, a stray byte) a copy with each
    bad byte read as ``?``: the same length, so offsets stay.  Tree-sitter decodes the text of
    the nodes a query predicate (#match?, #eq?) tests as strict UTF-8 and raised there."""
    if text.isascii():
        return text
    try:
        text.decode("utf-8")
        return text
    except UnicodeDecodeError:
        return text.decode("utf-8", "porter-same-length").encode("utf-8")


def parse(source: bytes, mends=()) -> ts.Tree:
    """Parse CUDA/C++ source bytes.

    A UTF-8 byte-order mark is blanked with spaces of the same length before
    parsing so that byte offsets in the tree equal offsets in ``source``; bytes
    that are not UTF-8 are read as ``?`` (``_valid_utf8``).  ``mends``: same-length
    replacements tree-sitter reads instead of the text (``porter.parse.mend``).
    """
    if source.startswith(BOM):
        source = b"   " + source[3:]
    for observe in PARSE_OBSERVERS:
        observe(0, len(source))
    if mends:
        source = mend.apply(source, mends)
    return parser().parse(_valid_utf8(source))


_CHUNK = 1 << 16


def parse_range(source: bytes, start: int, end: int, start_point: tuple[int, int], end_point: tuple[int, int],
                mends=()) -> ts.Tree:
    """Parse only ``source[start:end]`` (a run of whole top-level declarations), as if the rest
    were not there; the nodes keep their byte offsets and points in ``source``.  What a big file
    is parsed by, one region at a time, so that no tree of the whole file is ever held.  A
    UTF-8 byte-order mark at the start is left out of the region rather than copied away.
    ``mends``: same-length replacements tree-sitter reads instead of the region's text (those
    inside the region count)."""
    if start == 0 and source.startswith(BOM):
        start, start_point = 3, (0, 3)
    end = max(start, end)
    for observe in PARSE_OBSERVERS:
        observe(start, end)
    p = parser()
    p.included_ranges = [ts.Range(start_point, end_point, start, end)]
    region = source[start:end]
    text = _valid_utf8(mend.apply(region, mends, start) if mends else region)
    if text is region:
        return p.parse(source)

    # only the region is read (and only it is mended): tree-sitter is given it in pieces at its offsets,
    # each ending after a line break (never inside a character), without a copy of the whole file
    def read(byte: int, _point) -> bytes:
        if byte < start or byte >= end:
            return b""
        at = byte - start
        stop = text.find(b"\n", at + _CHUNK)
        return text[at:] if stop < 0 else text[at:stop + 1]

    return p.parse(read)


@functools.cache
def grammars_dir() -> Path:
    """The ``grammars/`` folder: beside the package in a checkout or an editable
    install, or installed as the ``porter.grammars`` package by a wheel."""
    checkout = Path(__file__).resolve().parents[2] / "grammars"
    if checkout.is_dir():
        return checkout
    from importlib import resources  # here: a checkout's run does not load importlib.resources

    return Path(str(resources.files("porter.grammars")))


def query_text(name: str) -> str:
    """Text of ``grammars/<name>.scm`` (``name`` may contain a sub-folder, e.g. ``rules/asm``)."""
    return (grammars_dir() / f"{name}.scm").read_text(encoding="utf-8")


@functools.cache
def load_query(name: str) -> ts.Query:
    return ts.Query(language(), query_text(name))


def captures(query: ts.Query, node: ts.Node) -> dict[str, list[ts.Node]]:
    return ts.QueryCursor(query).captures(node)


def matches(query: ts.Query, node: ts.Node) -> list[tuple[int, dict[str, list[ts.Node]]]]:
    return ts.QueryCursor(query).matches(node)


def error_regions(tree: ts.Tree) -> list[tuple[int, int]]:
    """Byte spans of ERROR and MISSING nodes (outermost only), in source order."""
    spans: list[tuple[int, int]] = []
    if not tree.root_node.has_error:
        return spans
    cursor = tree.walk()
    stack_done = False
    while not stack_done:
        node = cursor.node
        if node.is_error or node.is_missing:
            spans.append((node.start_byte, max(node.end_byte, node.start_byte + 1)))
            descend = False
        else:
            descend = node.has_error
        if descend and cursor.goto_first_child():
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                stack_done = True
                break
    return spans
