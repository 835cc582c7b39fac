"""Translating a small change to a file already translated, without translating the whole file.

The review app applies a fix to one place of a file and shows the new HIP at once.  Translating
the whole of a 50,000-line file again takes most of a second.  Nearly all of the translator's
work is local: a name is renamed where it stands, and a launch or a call is rewritten inside its
own statement.  So ``retranslate`` cuts the changed text out at top-level declaration
boundaries (a line that is only ``}``, outside any ``#if``), translates that region before and
after the change on its own, and splices the new region's HIP into the old HIP.

It does this only when the splice provably gives what a whole translation would give:
- the region's old text, translated alone, must give exactly the old HIP of those lines;
- the change touches no ``#include``, and the region's conditional groups close inside it;
- the region names no cuBLAS function (the file's includes decide whether it is the legacy API,
  kept as written);
- the region holds no line the translator inserted, and every inserted line is before it;
- neither translation warns;
- the region's code decides the runtime include the same way before and after (device code,
  runtime names);
- line endings are plain (``\\n`` or ``\\r\\n``), so lines are counted the same way everywhere.

Otherwise it returns None, and the caller translates the whole file.  The tests check the
splice against whole translations of every fixture's fixes.
"""

from __future__ import annotations

import dataclasses
import itertools
import re
from typing import NamedTuple

from porter.translate.engine import TranslateOptions, whole_file_names, translate
from porter.translate.source_index import CONDITIONAL_LINE, TOP_CLOSE, SourceIndex, index_source

_INCLUDE = re.compile(rb"^[ \t]*#[ \t]*(?:include|import)\b", re.M)
_SEARCH_BACK = 1 << 16  # bytes before the change looked at for a cut (none there: the whole file is translated)
_MOVES = 16  # times the cuts move outward, further each time, to balance the region


class Retranslation(NamedTuple):
    hip_lines: list[str]  # the new HIP, lines with their endings
    inserted_lines: list[tuple[int, int]]  # as ``Translation.inserted_lines``: unchanged by the splice


def _common_prefix(a: bytes, b: bytes) -> int:
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:  # the longest equal prefix, by halves (each comparison runs in C)
        mid = (lo + hi + 1) // 2
        if a[lo:mid] == b[lo:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _common_suffix(a: bytes, b: bytes, limit: int) -> int:
    lo, hi = 0, min(len(a), len(b), limit)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[len(a) - mid:len(a) - lo] == b[len(b) - mid:len(b) - lo]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _deltas(source: bytes, start: int, end: int) -> list[tuple[int, int]]:
    """(position, +1 / -1 / 0) of each conditional directive line in [start, end)."""
    out = []
    for m in CONDITIONAL_LINE.finditer(source, start, end):
        kw = m.group(1)
        out.append((m.start(), 1 if kw in (b"if", b"ifdef", b"ifndef") else -1 if kw == b"endif" else 0))
    return out


def _cuts_before(source: bytes, pos: int):
    """Ends of top-level closing lines at or before ``pos`` outside any conditional group, nearest
    first, then 0 (the file's start) if it is outside one too."""
    lo = max(0, pos - _SEARCH_BACK)
    deltas = _deltas(source, lo, pos)
    depth = sum(d for _, d in _deltas(source, 0, lo)) + sum(d for _, d in deltas)  # at pos
    cuts = [m.end() for m in TOP_CLOSE.finditer(source, lo, pos) if m.end() <= pos]
    k = len(deltas)
    for cut in reversed(cuts):
        while k and deltas[k - 1][0] >= cut:  # the directives between this cut and pos
            k -= 1
            depth -= deltas[k][1]
        if depth == 0:
            yield cut
    if lo == 0:
        yield 0


def _cuts_after(source: bytes, pos: int):
    """Ends of top-level closing lines from ``pos`` on outside any conditional group, nearest
    first, then the file's end."""
    depth = sum(d for _, d in _deltas(source, 0, pos))
    last = pos
    for m in TOP_CLOSE.finditer(source, pos):
        depth += sum(d for _, d in _deltas(source, last, m.start()))
        last = m.start()
        if depth == 0:
            yield m.end()
    yield len(source)


def _balanced_region(source: bytes, start: int, end: int) -> tuple[int, int, SourceIndex] | None:
    """The nearest cuts around [start, end) that hold whole declarations: the region's braces
    balance (a cut inside a namespace or an ``extern "C"`` block moves outward) and it lexes
    cleanly.  None when a few moves do not find one."""
    before, after = _cuts_before(source, start), _cuts_after(source, end)
    cut_s, cut_e = next(before, None), next(after)
    for move in range(_MOVES):
        if cut_s is None:
            return None
        index = index_source(source[cut_s:cut_e])
        if not index.looks_broken:
            return cut_s, cut_e, index
        code = index.blanked()
        braces = code.count(b"{") - code.count(b"}")
        if index.unterminated or not braces:
            return None  # a comment or literal left open, or brackets other than braces
        skip = 1 << (move // 2)  # moves grow, so a long namespace costs a few lexes, not one per function
        if braces < 0:
            cut_s = next(itertools.islice(before, skip - 1, None), None)
        else:
            cut_e = next(itertools.islice(after, skip - 1, None), None)
            if cut_e is None:
                return None
    return None


def _plain_breaks(text: bytes) -> bool:
    """Every line ends in \\n or \\r\\n: str.splitlines and a count of newlines agree."""
    if any(c in text for c in (b"\x0b", b"\x0c", b"\x1c", b"\x1d", b"\x1e")):
        return False
    if b"\r" in text and re.search(rb"\r(?!\n)", text):
        return False
    return text.isascii() or not any(c in text for c in ("\x85".encode(), "\u2028".encode(), "\u2029".encode()))


def retranslate(old: bytes, old_hip: list[str], old_inserted: list[tuple[int, int]], new: bytes,
                path: str | None, options: TranslateOptions = TranslateOptions()) -> Retranslation | None:
    """The translation of ``new`` made from that of ``old`` (``old_hip``: its lines, with their
    endings; ``old_inserted``: its inserted lines; it had no warning), or None where only a whole
    translation can tell."""
    if old == new:
        return Retranslation(list(old_hip), list(old_inserted))
    if not (_plain_breaks(old) and _plain_breaks(new)):
        return None
    n_old_lines = old.count(b"\n") + (0 if old.endswith(b"\n") or not old else 1)
    if len(old_hip) != n_old_lines + sum(c for _, c in old_inserted):
        return None  # the old HIP is not the old CUDA line for line (plus inserted lines)
    p = _common_prefix(old, new)
    q = _common_suffix(old, new, min(len(old), len(new)) - p)
    start = old.rfind(b"\n", 0, p) + 1  # the changed lines, whole
    old_end, new_end = old.find(b"\n", len(old) - q), new.find(b"\n", len(new) - q)
    old_end = len(old) if old_end < 0 else old_end + 1
    new_end = len(new) if new_end < 0 else new_end + 1
    if _INCLUDE.search(old, start, old_end) or _INCLUDE.search(new, start, new_end):
        return None  # an include changed: whether the port needs the runtime include may change
    region = _balanced_region(new, start, new_end)
    if region is None:
        return None
    cut_s, cut_e, new_index = region
    if new.find(b"cublas", cut_s, cut_e) >= 0 or old.find(b"cublas", cut_s, cut_e - (len(new) - len(old))) >= 0:
        return None  # a cuBLAS call's meaning depends on the file's includes (cublas.h: the legacy API)
    if any(new.find(w, cut_s, cut_e) >= 0 or old.find(w, cut_s, cut_e - (len(new) - len(old))) >= 0
           for w in whole_file_names(options.roc)):
        return None  # their port depends on the whole file (engine.whole_file_names)
    if cut_s > p or cut_e < len(new) - q:
        return None  # (a cut is always in the text both share)
    cut_e_old = cut_e - (len(new) - len(old))
    if sum(d for _, d in _deltas(old, cut_s, cut_e_old)):
        return None  # the old region's conditionals do not close in it (the new one's do)
    line_s = old.count(b"\n", 0, cut_s)
    line_e = line_s + old.count(b"\n", cut_s, cut_e_old) + (1 if cut_e_old == len(old) and old and not old.endswith(b"\n") else 0)
    if any(after > line_s for after, _ in old_inserted):
        return None  # an inserted line in or after the region: its place may move
    before = sum(c for _, c in old_inserted)  # every inserted line comes before the region
    hip_s, hip_e = line_s + before, line_e + before
    quiet = dataclasses.replace(options, add_runtime_include=False)
    t_old = translate(old[cut_s:cut_e_old], path, quiet)
    if t_old.warnings or t_old.output.decode("utf-8", "replace") != "".join(old_hip[hip_s:hip_e]):
        return None  # the region translates differently alone: it depends on the rest of the file
    t_new = translate(new[cut_s:cut_e], path, quiet, index=new_index)
    if t_new.warnings or t_new.inserted_lines or t_new.relies_on_runtime != t_old.relies_on_runtime:
        return None
    region = t_new.output.decode("utf-8", "replace").splitlines(keepends=True)
    if len(region) != new.count(b"\n", cut_s, cut_e) + (1 if cut_e == len(new) and new and not new.endswith(b"\n") else 0):
        return None
    return Retranslation(old_hip[:hip_s] + region + old_hip[hip_e:], list(old_inserted))
