"""Cooperative groups, per platform: ``this_thread_block()``, ``tiled_partition<N>(block)``, the
members of ``thread_block`` and ``thread_block_tile<N>``, and CUDA's ``cg::reduce`` with its six
operators.  Each handler takes (warp, evaluated args, active mask, call node) and returns (type,
per-lane values); the shuffles go to ``lanes.py``.

Sources.  CUDA: CUDA C++ Programming Guide (CUDA 12), "Cooperative Groups": ``thread_block``
(``thread_rank()``, ``num_threads()``/``size()``: ``unsigned long long``; ``sync()`` = a block
barrier), ``tiled_partition<N>(parent)`` (N a power of two up to 1024, the parent a ``thread_block`` or a
larger tile: "a one-dimensional, row-major tiling"; tiles of more than 32 threads are native from
compute capability 8.0, the model's ``__CUDA_ARCH__``, and their shuffles are not modelled),
``thread_block_tile<N>`` (``thread_rank()`` = the block rank
modulo N, ``size()`` = N, ``T shfl(T var, unsigned src_rank)``, ``shfl_down``/``shfl_up``/
``shfl_xor`` = the warp shuffles ``__shfl*_sync`` with the tile's lanes as the mask and N as the
width; ``unsigned long long meta_group_rank()``: "linear rank of the group within the set of tiles
partitioned from a parent group", ``unsigned long long meta_group_size()``: "the number of groups
created when the parent group was partitioned", so for ``tiled_partition<N>(p)`` the rank is
p.thread_rank() / N and the size (p.size() + N - 1) / N, a last partial tile counted: each tile
holds the two as its own state, set when it is made); "cooperative_groups::reduce": ``reduce(group, val, op)`` gives every thread of the group op
folded over the group's values, of the operator's type T (val converted to T); ``cg::plus<T>``
adds, ``cg::less<T>`` keeps the lesser (operator<), ``cg::greater<T>`` the greater (operator<),
``cg::bit_and/bit_or/bit_xor<T>`` combine bitwise.  The guide leaves the order of a floating-point
fold unspecified; the model folds as a butterfly (offsets N/2 .. 1, each step combining the lower
rank's value with the higher rank's: less(a, b) = b < a ? b : a, greater(a, b) = a < b ? b : a), so
an integer result is exact whatever the order and a float result is the butterfly's.  Every thread
of the tile must call it (a collective): a tile with an inactive lane is undefined.
HIP: ``/usr/include/hip/amd_detail/amd_hip_cooperative_groups.h`` (HIP 5.2): ``thread_block``
(``thread_rank()``, ``size()``: 32-bit), ``tiled_partition<size>(parent)`` with
``static_assert(is_valid_tile_size<size>)`` (a power of two up to the wavefront, 64), and
``thread_block_tile_base<N>``: ``thread_rank() = workgroup rank & (N - 1)``, ``size() = N``
(``unsigned int``), ``shfl(var, srcRank) = __shfl(var, srcRank, N)``, ``shfl_down/shfl_up(var,
unsigned delta)`` and ``shfl_xor(var, unsigned laneMask) = __shfl_*(var, ..., N)``; no
``meta_group_rank``/``meta_group_size`` (they came after ROCm 5.2: hipcc 5.2 says "no member
named"), and ``tiled_partition<N>`` is defined for a ``thread_block`` parent only
(``impl::tiled_partition_internal`` has no specialisation for a tile: "implicit instantiation of
undefined template"), so partitioning a tile is a ``CompileError``.  HIP declares
no ``reduce`` and none of the operators (no ROCm release through 6.3): calling them is a
``CompileError``.
"""

from __future__ import annotations

from . import lanes as LN
from .cxx import (CompileError, CType, INT, UINT, ULLONG, VOID, conv, line_of, SHFL_TYPES, Unsupported)
from .lanes import UNDEFINED, lanes_of

BLOCK = CType("group", name="thread_block")
OPERATORS = ("plus", "less", "greater", "bit_and", "bit_or", "bit_xor")


def tile(n: int) -> CType:
    return CType("group", name=f"thread_block_tile<{n}>", n=n)


def operator(name: str, t: CType) -> CType:
    return CType("cgop", name=f"{name}<{t}>", elem=t)


def _linear(w, i):
    x, y, z = w.tids[i]
    bx, by = w.r.block[0], w.r.block[1]
    return x + y * bx + z * bx * by


def _rank_type(w):
    return ULLONG if w.p.platform == "cuda" else UINT


def _nargs(name, args, n, node):
    if len(args) != n:
        raise CompileError(f"{name} takes {n} arguments, not {len(args)}", line_of(node))


# ------------------------------------------------------------------------------ free functions

def this_thread_block(w, targs, args, mask, node):
    _nargs("this_thread_block", args, 0, node)  # CUDA's this_thread_block(scratch) is not modelled
    return BLOCK, [0] * w.W


def tiled_partition(w, targs, args, mask, node):
    """A tile's per-lane value is its (meta_group_rank, meta_group_size), fixed when it is made."""
    if not targs or len(args) != 1:
        raise Unsupported("tiled_partition without a constant size (the dynamic thread_group form)", line_of(node))
    pt, pvals = args[0]
    if pt != BLOCK and not (pt.kind == "group" and pt.n):
        raise Unsupported(f"tiled_partition of {pt}", line_of(node))
    n = targs[0]
    limit = 1024 if w.p.platform == "cuda" else 64
    if n < 1 or n & (n - 1):
        raise CompileError(f"tiled_partition<{n}>: the tile size must be a power of two", line_of(node))
    if n > limit:
        if w.p.platform == "hip":  # static_assert(is_valid_tile_size<size>::value, ...)
            raise CompileError(f"tiled_partition<{n}>: Tiled partition with size > wavefront size", line_of(node))
        raise Unsupported(f"a {n}-thread CUDA tile", line_of(node))
    if pt != BLOCK:
        if w.p.platform == "hip":
            raise CompileError(f"implicit instantiation of undefined template 'cooperative_groups::impl::"
                               f"tiled_partition_internal<{n}, cooperative_groups::{pt}>' (HIP 5.2 partitions "
                               f"a thread_block only)", line_of(node))
        if n > pt.n:
            raise Unsupported(f"tiled_partition<{n}> of {pt}", line_of(node))
        # the parent tile's rank is the block rank modulo its size (its tiles are consecutive)
        parent_rank, parent_size = (lambda i: _linear(w, i) % pt.n), pt.n
    else:
        parent_rank, parent_size = (lambda i: _linear(w, i)), w.r.block[0] * w.r.block[1] * w.r.block[2]
    out = [0] * w.W
    for i in lanes_of(mask):
        out[i] = (parent_rank(i) // n, (parent_size + n - 1) // n)
    return tile(n), out


def sync(w, targs, args, mask, node):
    _nargs("sync", args, 1, node)
    return (yield from _sync(w, args[0][0], mask, node))


def operator_value(w, name, t, node):
    """``cg::plus<T>()`` / ``cg::plus<T>{}``: a stateless functor (CUDA only)."""
    if w.p.platform != "cuda":
        raise CompileError(f"no template named '{name}' in namespace 'cooperative_groups'", line_of(node))
    return operator(name, t), [0] * w.W


def _combine(name, t, a, b):
    if a is UNDEFINED or b is UNDEFINED:
        return UNDEFINED
    if name == "plus":
        return conv(a + b, t)
    if name == "less":
        return b if b < a else a
    if name == "greater":
        return b if a < b else a
    if t.kind != "int":
        raise CompileError(f"cg::{name}<{t}>: bitwise operator on {t}")
    return conv({"bit_and": a & b, "bit_or": a | b, "bit_xor": a ^ b}[name], t)


def reduce(w, targs, args, mask, node):
    if w.p.platform != "cuda":
        raise CompileError("no member named 'reduce' in namespace 'cooperative_groups'", line_of(node))
    _nargs("reduce", args, 3, node)
    (gt, _), (vt, vals), (ot, _) = args
    if gt.kind != "group" or not gt.n:
        raise Unsupported(f"cg::reduce over {gt} (only thread_block_tile is modelled)", line_of(node))
    if ot.kind != "cgop":
        raise Unsupported(f"cg::reduce with operator {ot}", line_of(node))
    name, t, n = ot.name.split("<")[0], ot.elem, gt.n
    if n > w.W:
        raise Unsupported(f"cg::reduce over a {n}-thread CUDA tile", line_of(node))
    vals = w.cv((vt, vals), t, mask)
    out = [None] * w.W
    for base in range(0, w.W, n):
        lanes = range(base, base + n)
        live = [i for i in lanes if mask >> i & 1]
        if not live:
            continue
        if len(live) != n:
            w.note(node, f"cg::reduce called by {len(live)} of the {n} threads of a tile (a collective)")
            for i in live:
                out[i] = UNDEFINED
            continue
        cur = [vals[i] for i in lanes]
        m = n // 2
        while m:
            cur = [_combine(name, t, cur[min(k, k ^ m)], cur[max(k, k ^ m)]) for k in range(n)]
            m //= 2
        for k, i in enumerate(lanes):
            out[i] = cur[k]
    return t, out


FUNCTIONS = {"this_thread_block": this_thread_block, "tiled_partition": tiled_partition, "sync": sync,
             "reduce": reduce}
NAMES = frozenset(FUNCTIONS) | frozenset(OPERATORS)  # what an unqualified call may name under a using-directive


# ------------------------------------------------------------------------------ members

def _sync(w, gt, mask, node):
    if gt == BLOCK:  # a block barrier, like __syncthreads()
        if mask:
            if mask != w.exist & ~w.exited:
                w.note(node, "thread_block::sync() reached by only part of the warp's live lanes (divergent barrier)")
            yield ("barrier", line_of(node))
        return VOID, w.NONE
    # a tile's sync orders memory among its threads (CUDA: __syncwarp with the tile's mask; HIP 5.2: a
    # wave barrier): no data effect here
    return VOID, w.NONE


def _tile_masks(w, n):
    return [((1 << n) - 1) << (i // n * n) for i in range(w.W)]


def _shfl_type(t, node):
    if t in SHFL_TYPES:
        return t
    if t.kind == "int" and t.rank < INT.rank:
        return INT
    raise CompileError(f"no shuffle for {t}", line_of(node))


def method(w, gt, obj, name, args, mask, node):
    """``g.name(args)`` on a group ``g`` of type ``gt`` (a generator: ``sync`` may be a barrier)."""
    rt = _rank_type(w)
    if name in ("thread_rank", "size", "num_threads", "sync") and args:
        raise CompileError(f"{gt}::{name} takes no arguments", line_of(node))
    if name == "sync":
        return (yield from _sync(w, gt, mask, node))
    if name == "num_threads" and w.p.platform == "hip" and gt != BLOCK:
        raise CompileError(f"no member named 'num_threads' in {gt} (HIP 5.2)", line_of(node))
    if gt == BLOCK:
        if name == "thread_rank":
            return rt, [conv(_linear(w, i), rt) if mask >> i & 1 else None for i in range(w.W)]
        if name in ("size", "num_threads"):
            return rt, [conv(w.r.block[0] * w.r.block[1] * w.r.block[2], rt)] * w.W
        raise Unsupported(f"thread_block::{name}", line_of(node))
    n = gt.n
    if name == "thread_rank":
        return rt, [conv(_linear(w, i) % n, rt) if mask >> i & 1 else None for i in range(w.W)]
    if name in ("size", "num_threads"):
        return rt, [conv(n, rt)] * w.W
    if name in ("meta_group_rank", "meta_group_size"):
        if w.p.platform == "hip":  # HIP 5.2's thread_block_tile has neither (hipcc: "no member named")
            raise CompileError(f"no member named '{name}' in 'cooperative_groups::{gt}' (HIP 5.2)", line_of(node))
        if args:
            raise CompileError(f"{gt}::{name} takes no arguments", line_of(node))
        k = 0 if name == "meta_group_rank" else 1
        out = [None] * w.W
        for i in lanes_of(mask):
            if not isinstance(obj[i], tuple):
                raise Unsupported(f"{name} of a tile not made by tiled_partition<N>", line_of(node))
            out[i] = conv(obj[i][k], ULLONG)
        return ULLONG, out
    if name in ("shfl", "shfl_down", "shfl_up", "shfl_xor") and n > w.W:
        raise Unsupported(f"{name} on a {n}-thread CUDA tile (across warps)", line_of(node))
    if name in ("shfl", "shfl_down", "shfl_up", "shfl_xor"):
        if len(args) != 2:
            raise CompileError(f"{name} takes 2 arguments", line_of(node))
        st = _shfl_type(args[0][0], node)
        var = w.cv(args[0], st, mask)
        if w.p.platform == "cuda":
            fn = {"shfl": LN.shfl_sync, "shfl_down": LN.shfl_down_sync, "shfl_up": LN.shfl_up_sync,
                  "shfl_xor": LN.shfl_xor_sync}[name]
            arg = w.cv(args[1], UINT if name == "shfl" else INT if name == "shfl_xor" else UINT, mask)
            exited = (w.exited | ~w.exist) & LN.M32
            out = fn(_tile_masks(w, n), var, arg, n, mask, exited)
        else:
            fn = {"shfl": LN.hip_shfl, "shfl_down": LN.hip_shfl_down, "shfl_up": LN.hip_shfl_up,
                  "shfl_xor": LN.hip_shfl_xor}[name]
            arg = w.cv(args[1], INT if name == "shfl" else UINT, mask)
            out = fn(var, arg, n, mask)
        t = args[0][0]
        return t, [x if x is None or x is UNDEFINED else conv(x, t) for x in out]
    raise Unsupported(f"{gt}::{name}", line_of(node))
