"""Which wave each function of a translation unit is written for, decided per kernel and what it calls.

CUDA code meets a 64-lane MI300X wave in one of two ways:

* **logical 32-lane warps**: explicit 32s (``threadIdx.x & 31``, ``/ 32``, shuffles of width 32,
  loops from 16).  Ported with every warp primitive kept 32 lanes wide (HIP's shuffles take a
  width; porter's ballot fix takes the 32-lane half of the wave's ballot), it computes what it
  computed on NVIDIA;
* **the native wave**: widths from the built-in ``warpSize`` (and, in HIP code, ``__lane_id()``
  or 64-bit ballots).  Ported with the shuffles at their default width it works on 64 lanes.

A kernel whose code (with every function it calls) holds both breaks on MI300X whatever the port
keeps: lanes numbered with ``% warpSize`` meet a 32-bit mask, a loop from ``warpSize / 2`` meets
``if (lane == 31)``.  This module finds, for a place in the scanned file, the evidence of each
kind that reaches it: in its own function, in the functions it calls (transitively), and in the
functions that call it together with everything those call.  The predicates use it to report a
32-lane place that native evidence reaches as an error, and to decide when a fix is safe.
"""

from __future__ import annotations

import array
import bisect
import re
from collections import deque

from porter.findings import values
from porter.findings.wave.evidence import Evidence, patterns
from porter.findings.wave.functions import Function, FunctionIndex, link_calls, read_functions
from porter.findings.wave.name_regex import name_at

_WARPISH_WORDS = (b"warpSize", b"__lane_id", b"__AMDGCN_WAVEFRONT_SIZE", b"__ballot", b"__shfl", b"__any", b"__all",
                  b"__activemask", b"__match_", b"lane", b"Lane", b"LANE", b"warp", b"Warp", b"WARP")


class WaveModel:
    """The unit's functions with the wave evidence that reaches each."""

    def __init__(self, index: FunctionIndex, own: dict[int, list[Evidence]], path: str):
        self.index = index
        self.path = path
        n = len(index.functions)
        # most functions of a big file call none of the unit's and none calls them: they share one
        # empty tuple (a list each costs 56 bytes or more, twice per function)
        callees = [tuple(sorted(set(index.callees(i)))) if index.functions[i].calls else () for i in range(n)]
        callers: dict[int, list[int]] = {}
        for i, cs in enumerate(callees):
            for c in cs:
                callers.setdefault(c, []).append(i)
        self._reach: dict[str, list[Evidence | None]] = {}
        for kind in ("native", "logical32"):
            first = {i: ev[0] for i, ev in own.items() if ev and ev[0].kind == kind}
            for i, ev in own.items():
                for e in ev:
                    if e.kind == kind and i not in first:
                        first[i] = e
            # down: the evidence in a function or in what it calls (spread to callers)
            down: list[Evidence | None] = [None] * n
            queue = deque()
            for i, e in first.items():
                down[i] = e
                queue.append(i)
            while queue:
                i = queue.popleft()
                for c in callers.get(i, ()):
                    if down[c] is None:
                        down[c] = down[i]
                        queue.append(c)
            # up: what a device caller's down holds reaches everything it calls (not a host function's:
            # the kernels one host function launches do not share their lanes)
            device = [f.device or f.macro for f in index.functions]
            up: list[Evidence | None] = [None] * n
            queue = deque(i for i in range(n) if down[i] is not None and device[i])
            for i in queue:
                up[i] = down[i]
            while queue:
                i = queue.popleft()
                for c in callees[i]:
                    if up[c] is None and device[c]:
                        up[c] = up[i]
                        queue.append(c)
            self._reach[kind] = [down[i] or up[i] for i in range(n)]
            self._reach["down:" + kind] = down

    def function_at(self, pos: int) -> Function | None:
        i = self.index.at(pos)
        return None if i is None else self.index.functions[i]

    def _at(self, kind: str, pos: int) -> Evidence | None:
        i = self.index.at(pos)
        return None if i is None else self._reach[kind][i]

    def native_at(self, pos: int) -> Evidence | None:
        """Native-wave evidence that reaches the function holding ``pos`` (None outside functions)."""
        return self._at("native", pos)

    def logical_at(self, pos: int) -> Evidence | None:
        return self._at("logical32", pos)

    def kernel_native(self, name: str) -> Evidence | None:
        """Native-wave evidence in a kernel (or function) named ``name`` or in what it calls."""
        for i in self.index.by_name.get(name, ()):
            e = self._reach["down:native"][i]
            if e is not None:
                return e
        return None

    def kernel_logical(self, name: str) -> Evidence | None:
        for i in self.index.by_name.get(name, ()):
            e = self._reach["down:logical32"][i]
            if e is not None:
                return e
        return None

    def launches_in(self, pos: int) -> list[tuple[int, str]]:
        """(position, kernel) of the launches ``k<<<`` in the function holding ``pos``."""
        i = self.index.at(pos)
        if i is None:
            return []
        return [(p, name) for p, name, kind in self.index.functions[i].calls if kind == b"<<<"]


# ------------------------------------------------------------------------ building it
def header_code(path: str) -> bytes | None:
    """A project header's code text (comments and literals blanked): read once, with its facts."""
    return values.header_code(path)


_QUOTED_INCLUDE = re.compile(rb'#[ \t]*include[ \t]*"([^"\n]+)"')


def unit_headers(ctx) -> tuple:
    """(shown, path, facts) of each project header of the scanned file's unit, in include order: the
    headers ``values.unit_of`` reads (the same quoted ``#include`` lines of the blanked code, at the
    start of their line, resolved by ``values.header_files``), found without reading the file's own
    constants, which costs a few times more (cached in the context, for the unit too)."""
    found = ctx.cache.get("values.header_files")
    if found is None:
        includes, files = [], ()
        code = code_of(ctx) if ctx.file else b""
        if b"include" in code:
            for m in _QUOTED_INCLUDE.finditer(code):
                line = code.rfind(b"\n", 0, m.start()) + 1
                if line == m.start() or not code[line:m.start()].strip(b" \t"):
                    includes.append(m.group(1).decode("utf-8", "replace"))
            if includes:
                files = tuple(values.header_files(ctx.file, includes, ctx.path))
        # (kept where values.unit_of finds it: the unit reads these headers, not again, when its
        # file's includes are these)
        found = ctx.cache["values.header_files"] = (includes, files)
    return found[1]


def header_paths(ctx) -> tuple:
    """(shown, path) of each project header of the scanned file's unit: ``values.unit_of(ctx).header_paths``,
    without building the unit where it is not built yet."""
    unit = ctx.cache.get("values.unit")
    if unit is not None:
        return unit.header_paths
    return tuple((shown, path) for shown, path, _facts in unit_headers(ctx))


def code_of(ctx) -> bytearray:
    """The scanned file's text with comments and literals blanked: the buffer ``values`` reads its
    constants from, shared rather than copied (read it, never change it)."""
    return values.blanked_code(ctx)


def _name_patterns(unit) -> tuple[re.Pattern | None, dict[str, str], re.Pattern | None]:
    """Names that stand for the hardware wave (defined from warpSize) and names of 32-lane warp
    constants (values' warp roots), as patterns over code."""
    native = sorted({n for n, defs in unit.consts.items() for c in defs if re.search(r"(?<![\w.>])warpSize\b", c.expr)
                     and n != "warpSize"}, key=len, reverse=True)
    logical = {n: v.root.name for n, v in unit.warp_names.items() if v.value is not None and n not in unit.counts}
    nat = re.compile(name_at(native, r"[\w.>]").encode() + rb"\b") if native else None
    names = sorted(logical, key=len, reverse=True)
    log = re.compile(name_at(names, r"[\w.>]").encode() + rb"\b") if names else None
    return nat, logical, log


def model_of(ctx) -> WaveModel:
    """The wave model of the scanned file's unit (cached in the context)."""
    model = ctx.cache.get("wave.model")
    if model is not None:
        return model
    code = code_of(ctx)
    codes = {"": code}
    functions: list[Function] = []
    relevant = any(w in ctx.source for w in _WARPISH_WORDS)
    if relevant:
        functions = read_functions(code, "")
        if ctx.file and ctx.index.includes:
            for shown, path in header_paths(ctx):
                hcode = header_code(path)
                if hcode is None:
                    continue
                codes[shown] = hcode
                functions.extend(read_functions(hcode, shown))
        link_calls(functions, codes)
    index = FunctionIndex(functions)
    own: dict[int, list[Evidence]] = {}
    if functions:
        unit = values.unit_of(ctx)
        nat_names, _logical_names, log_names = _name_patterns(unit)
        # the scanned file's lines are the index's (its blanked code keeps every newline where it is): a
        # list of a big file's line starts would cost 40 bytes a line
        lines = {shown: _Lines(c) for shown, c in codes.items() if shown}
        lines[""] = ctx.index
        searches = [(p.kind, p.regex, lambda m, w=p.what: w) for p in patterns()]
        if nat_names is not None:
            searches.append(("native", nat_names, lambda m: f"`{m.group().decode()}` (defined from `warpSize`)"))
        if log_names is not None:
            searches.append(("logical32", log_names, lambda m: f"`{m.group().decode()}` (32 lanes)"))
        # each pattern runs once over each file's code, and its first match in each function counts
        # (a search per function and pattern costs a regex call per pair)
        by_file: dict[str, list[tuple[int, int, int]]] = {}
        for i, f in enumerate(functions):
            if f.device or f.macro:
                by_file.setdefault(f.file, []).append((f.body_start, f.body_end, i))
        for shown, spans in by_file.items():
            spans.sort()
            starts = [s for s, _e, _i in spans]
            c = codes[shown]
            lo, hi = spans[0][0], max(e for _s, e, _i in spans)
            for kind, regex, what in searches:
                seen: set[int] = set()
                for m in regex.finditer(c, lo, hi):
                    k = bisect.bisect_right(starts, m.start()) - 1  # bodies do not nest (lambdas are the body's)
                    if k < 0 or m.start() >= spans[k][1]:
                        continue  # between functions
                    i = spans[k][2]
                    if i not in seen:
                        seen.add(i)
                        own.setdefault(i, []).append(_evidence(kind, what(m), functions[i], m.start(), lines, ctx.path))
    model = WaveModel(index, own, ctx.path)
    ctx.cache["wave.model"] = model
    return model


class _Lines:
    """A header's lines: the 1-based line of a byte position (the line starts found on first use)."""

    def __init__(self, code: bytes):
        self.code = code
        self.starts: array.array | None = None

    def line_of(self, pos: int) -> int:
        if self.starts is None:
            self.starts = array.array("q", (m.end() for m in re.finditer(rb"\n", self.code)))  # 8 bytes a line
        return bisect.bisect_right(self.starts, pos) + 1


def _evidence(kind, what, f: Function, pos: int, lines: dict, path: str) -> Evidence:
    return Evidence(kind, what, f.file or path, lines[f.file].line_of(pos), f.name)
