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

from porter.findings.engine import Hit
from porter.findings.predicates import node_check
from porter.findings.predicates.cg_shuffles import is_group
from porter.findings.predicates.common import args_of, compact, target_before
from porter.findings.predicates.cooperative_groups import tile_sizes

# the release whose cooperative-groups header declares the votes without HIP_ENABLE_WARP_SYNC_BUILTINS
DEFAULT_SINCE = "7.0"
# a tile of {n} lanes is {n} consecutive lanes of the wavefront, the first at __lane_id() & {low}: its vote is
# the wave's ballot shifted there and masked to {n} bits ({mask}); {p} is the call's predicate
_TILE_BALLOT = "((__ballot({p}) >> (__lane_id() & {low})) & {mask})"
_ADVICE = {
    "ballot": "{size}`(unsigned)" + _TILE_BALLOT + "`",
    "any": "`" + _TILE_BALLOT + " != 0`{for_n} (not `__any(p)`: that is the whole 64-lane wavefront)",
    "all": "`" + _TILE_BALLOT + " == {mask}`{for_n} (not `__all(p)`: that is the whole 64-lane wavefront)",
    "match_any": "a loop over the tile's shuffles comparing each lane's value (HIP's __match_any_sync needs the same "
                 "ROCm 6.2 and HIP_ENABLE_WARP_SYNC_BUILTINS)",
    "match_all": "a loop over the tile's shuffles comparing each lane's value (HIP's __match_all_sync needs the same "
                 "ROCm 6.2 and HIP_ENABLE_WARP_SYNC_BUILTINS)",
}
# a size porter cannot read: the expressions in N
_ANY_SIZE = {"size": "a tile of N lanes (N < 64) is N consecutive lanes of the wavefront: ", "for_n": " for a tile of N lanes",
             "low": "~(N - 1)", "mask": "((1ull << N) - 1)", "p": "p"}

# a coalesced group's threads are whichever lanes were active where it was formed: its votes count by rank
_COALESCED_ADVICE = ("the wavefront's `__ballot(p)` with the bits of the group's lanes (the `__ballot(1)` of where "
                     "the group was formed) packed by rank, bit r for the thread of rank r (`__popcll` of the group's "
                     "lanes below a lane gives its rank)")


def _advice(method: str, n: int | None, predicate: str | None) -> str:
    """What to write for ``method`` on a tile of ``n`` lanes (a power of two below 64; None: not read), with the
    call's predicate where it has one argument."""
    fields = dict(_ANY_SIZE)
    if n is not None:
        fields.update(size=f"the tile's {n} lanes are {n} consecutive lanes of the wavefront: ", for_n="",
                      low=f"~{n - 1}", mask=f"{hex((1 << n) - 1)}ull")
        if predicate is not None:
            fields["p"] = compact(predicate, 40)
    return _ADVICE[method].format(**fields)


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
    coalesced = (is_group(before, name, types="coalesced_group", calls="coalesced_threads")
                 or is_group(ctx.source, name, node.start_byte, types="coalesced_group", calls="coalesced_threads"))
    if coalesced and method in ("ballot", "any", "all"):
        advice = _COALESCED_ADVICE
    else:
        sizes = None if coalesced else tile_sizes(ctx, node, name)
        n = next(iter(sizes)) if sizes and len(sizes) == 1 else None
        n = n if isinstance(n, int) and 0 < n < 64 and not n & (n - 1) else None
        args = args_of(node)
        advice = _advice(method, n, ctx.text(args[0]) if len(args) == 1 else None)
    return Hit(node.start_byte, node.end_byte, {"call": compact(ctx.text(node), 50), "method": method,
                                                 "advice": advice})
