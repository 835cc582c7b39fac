"""PORT194: a cooperative-groups tile's (or coalesced group's) vote: ``any``, ``all``, ``ballot``, ``match_any``,
``match_all``.

CUDA's thread_block_tile and coalesced_group have them (CUDA Programming Guide, "Warp Vote/Match Functions"
of cooperative groups).  HIP's groups do not before ROCm 6.2 (HIP 5.2's amd_hip_cooperative_groups.h: checked,
none of the five); from 6.2 its header declares them only where HIP_ENABLE_WARP_SYNC_BUILTINS is defined, and
a later header declares them unless HIP_DISABLE_WARP_SYNC_BUILTINS is (ROCm 7.0: porter's PORT020 page).  The
port of NVIDIA's cdpQuadtree (``tile32.ballot(...)``, ``tile32.any(...)``) and cdpAdvancedQuicksort (a coalesced
group's ballot) stopped there with "no member named 'ballot'", on lines no finding flagged.  The group is read as
PORT188 reads it: a variable declared thread_block_tile<N>, coalesced_group or thread_group, or set from
tiled_partition / coalesced_threads."""

from __future__ import annotations

import re

from porter.findings.engine import Hit
from porter.findings.predicates import node_check
from porter.findings.predicates.cg_shuffles import is_group
from porter.findings.predicates.common import args_of, compact, target_before
from porter.findings.predicates.cooperative_groups import tile_sizes
from porter.findings.predicates.expr_types import pattern_for

# the release whose cooperative-groups header declares the votes without HIP_ENABLE_WARP_SYNC_BUILTINS
DEFAULT_SINCE = "7.0"
_ADVICE = {
    "ballot": "a tile of N lanes (N < 64) is N consecutive lanes of the wavefront: "
              "`(unsigned)((__ballot(p) >> (__lane_id() & ~(N - 1))) & ((1ull << N) - 1))`",
    "any": "`((__ballot(p) >> (__lane_id() & ~(N - 1))) & ((1ull << N) - 1)) != 0` for a tile of N lanes "
           "(not `__any(p)`: that is the whole 64-lane wavefront)",
    "all": "`((__ballot(p) >> (__lane_id() & ~(N - 1))) & ((1ull << N) - 1)) == ((1ull << N) - 1)` for a tile of "
           "N lanes (not `__all(p)`: that is the whole 64-lane wavefront)",
    "match_any": "a loop over the tile's shuffles comparing each lane's value (HIP's __match_any_sync needs the same "
                 "ROCm 6.2 and HIP_ENABLE_WARP_SYNC_BUILTINS)",
    "match_all": "a loop over the tile's shuffles comparing each lane's value (HIP's __match_all_sync needs the same "
                 "ROCm 6.2 and HIP_ENABLE_WARP_SYNC_BUILTINS)",
}

# a coalesced group's threads are whichever lanes were active where it was formed: its votes count by rank
_COALESCED_ADVICE = ("the wavefront's `__ballot(p)` with the bits of the group's lanes (the `__ballot(1)` of where "
                     "the group was formed) packed by rank, bit r for the thread of rank r (`__popcll` of the group's "
                     "lanes below a lane gives its rank)")


def _for_tile(advice: str, n: int, predicate: str | None) -> str:
    """The tile advice written for a tile of ``n`` lanes (a power of two below 64), with the call's predicate
    where it has one argument."""
    advice = (advice.replace("a tile of N lanes (N < 64) is N consecutive lanes of the wavefront: ",
                             f"the tile's {n} lanes are {n} consecutive lanes of the wavefront: ")
              .replace(" for a tile of N lanes", "")
              .replace("~(N - 1)", f"~{n - 1}").replace("((1ull << N) - 1)", f"{hex((1 << n) - 1)}ull"))
    if predicate is not None:
        advice = advice.replace("__ballot(p)", f"__ballot({compact(predicate, 40)})")
    return advice


def _coalesced(text: str | bytes, name: str, endpos: int | None = None) -> bool:
    """``name`` is declared a coalesced_group, or set from coalesced_threads() (in ``text[:endpos]``)."""
    as_bytes, end = isinstance(text, bytes), len(text) if endpos is None else endpos
    n = re.escape(name)
    rx = pattern_for(r"\bcoalesced_group\s*&?\s*" + n + r"\b|\bauto\s*&?\s*" + n + r"\s*=[^;]*\bcoalesced_threads\b",
                     as_bytes)
    return bool(rx.search(text, 0, end))


@node_check("PORT194")
def tile_vote(ctx, node, caps):
    if not target_before(ctx, DEFAULT_SINCE):
        return None
    fn = node.child_by_field_name("function")
    group = fn.child_by_field_name("argument") if fn is not None else None
    if group is None or group.type != "identifier":
        return None
    function = ctx.function_of(node)
    before = ctx.text(function)[:node.start_byte - function.start_byte] if function is not None else ""
    if not (is_group(before, ctx.text(group)) or is_group(ctx.source, ctx.text(group), node.start_byte)):
        return None
    method = ctx.text(caps["method"][0])
    name = ctx.text(group)
    coalesced = _coalesced(before, name) or _coalesced(ctx.source, name, node.start_byte)
    advice = _COALESCED_ADVICE if coalesced and method in ("ballot", "any", "all") else _ADVICE[method]
    sizes = None if coalesced else tile_sizes(ctx, node, name)
    if sizes and len(sizes) == 1 and isinstance(n := next(iter(sizes)), int) and 0 < n < 64 and not n & (n - 1):
        args = args_of(node)
        advice = _for_tile(advice, n, ctx.text(args[0]) if len(args) == 1 else None)
    return Hit(node.start_byte, node.end_byte, {"call": compact(ctx.text(node), 50), "method": method,
                                                 "advice": advice})
