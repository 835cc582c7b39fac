"""The largest value an index expression of a function can take, with ``warpSize`` = 32 and = 64.

Enough to see a shared array sized for 32 lanes (``__shared__ int4 sh[32 * F]``) written past its
end by code whose lanes or loops follow ``warpSize`` (``for (i = lane; i < warpSize * F; i += warpSize)``):
an out-of-bounds write on gfx942 that CUDA never makes.  A variable's largest value comes from its
definition in the function: ``x % E`` and ``x & (E - 1)`` give E - 1, ``__lane_id()`` gives
warpSize - 1, a loop variable tested ``i < B`` gives B - 1, and an expression of non-negative terms
joined by ``+`` and ``*`` gives the expression of the largest values.  Anything else is unknown.
"""

from __future__ import annotations

import re

from porter.findings import values
from porter.findings.wave.offsets import lookup_for

_MONOTONE = re.compile(r"[\w\s+*()]*")
_DECL = r"(?:(?:const|unsigned|signed|int|long|short|size_t|uint32_t|int32_t|uint64_t|int64_t|auto|uint)\s+)+{name}\s*=\s*([^;,]+)[;,]"
_ASSIGN = r"(?<![\w.]){name}\s*=\s*([^;=][^;]*);"
_FOR = r"for\s*\(\s*(?:[\w\s]+\s)?{name}\s*=\s*[^;]*;\s*{name}\s*(<=?)\s*([^;]+);"
_MOD = re.compile(r"^(.+?)\s*%\s*(.+)$", re.S)
_AND = re.compile(r"^(.+?)\s*&\s*\(?\s*(.+?)\s*-\s*1\s*\)?$", re.S)


def index_max(body: str, expr: str, unit, warp: int, depth: int = 0) -> int | None:
    """The largest value of ``expr`` in a function whose text is ``body``, or None."""
    expr = expr.strip()
    if depth > 6 or not _MONOTONE.fullmatch(expr):
        return _special(body, expr, unit, warp, depth)
    const = lookup_for(unit, warp)
    cache: dict[str, int | None] = {}

    def lookup(name: str) -> int | None:
        v = const(name)
        if v is not None:
            return v
        if name not in cache:
            cache[name] = _variable_max(body, name, unit, warp, depth + 1)
        return cache[name]

    return values.evaluate(expr, lookup)


def _special(body: str, expr: str, unit, warp: int, depth: int) -> int | None:
    while expr.startswith("(") and expr.endswith(")"):
        expr = expr[1:-1].strip()
    if re.fullmatch(r"__lane_id\s*\(\s*\)", expr):
        return warp - 1
    m = _AND.match(expr)
    if m is not None:
        v = values.evaluate(m.group(2), lookup_for(unit, warp))
        return v - 1 if v is not None and v > 0 else None
    m = _MOD.match(expr)
    if m is not None and "%" not in m.group(2):
        v = values.evaluate(m.group(2), lookup_for(unit, warp))
        return v - 1 if v is not None and v > 0 else None
    return None


def _variable_max(body: str, name: str, unit, warp: int, depth: int) -> int | None:
    n = re.escape(name)
    loop = re.search(_FOR.format(name=n), body)
    if loop is not None:
        bound = index_max(body, loop.group(2), unit, warp, depth)
        if bound is None:
            return None
        return bound - 1 if loop.group(1) == "<" else bound
    defs = re.findall(_DECL.format(name=n), body) or re.findall(_ASSIGN.format(name=n), body)
    if len(defs) != 1:
        return None
    return index_max(body, defs[0], unit, warp, depth)
