"""Lane-level semantics of warp intrinsics, as plain functions over per-lane lists.

Conventions for every function here:

* A per-lane argument is a list indexed by lane id (length: the warp size) or one
  value that every lane passes.  ``active`` is an int bitmask: bit *i* set when lane
  *i* executes the call.  ``exited`` (CUDA only) is the bitmask of lanes that have
  returned from the kernel or do not exist (the tail of a partial warp).
* Results are lists with ``None`` in the lanes that are not active.
* ``UNDEFINED`` is the poison value: what a lane reads where the source says the
  value is undefined or unspecified.  It may also arrive as an input, and then
  poisons what depends on it.

CUDA sources: CUDA C++ Programming Guide, "Warp Vote Functions", "Warp Match
Functions", "Warp Shuffle Functions", "__syncwarp()", and the PTX ISA's
``shfl.sync`` pseudo-code that the guide's shuffles compile to (sm_30_intrinsics.hpp
passes ``c = ((warpSize - width) << 8) | 0x1f`` for idx/down/xor, ``(warpSize -
width) << 8`` for up).  HIP sources: ``amd_warp_functions.h`` and
``amd_device_functions.h`` of the installed HIP (5.2, /usr/include/hip/amd_detail),
and ROCm 6.2's ``amd_warp_sync_functions.h`` for the ``_sync`` forms.
"""

from __future__ import annotations

import functools
import math
import struct

CUDA_WARP = 32
HIP_WAVE = 64
M32 = (1 << 32) - 1
M64 = (1 << 64) - 1


class _Undefined:
    """The poison singleton.  ``bool(UNDEFINED)`` raises, so no code branches on it by accident."""

    _it = None

    def __new__(cls):
        if cls._it is None:
            cls._it = super().__new__(cls)
        return cls._it

    def __repr__(self):
        return "UNDEFINED"

    def __bool__(self):
        raise TypeError("branch on UNDEFINED")


UNDEFINED = _Undefined()


class Trap(Exception):
    """A device trap: ROCm's ``__hip_assert`` failing in a ``_sync`` intrinsic's mask check."""


@functools.cache
def lanes_of(mask: int) -> tuple[int, ...]:
    """The lane ids whose bits are set in ``mask``, ascending."""
    return tuple(i for i in range(mask.bit_length()) if mask >> i & 1)


def _pl(x, n):
    return x if isinstance(x, list) else [x] * n


def _s32(v):
    v &= M32
    return v - (1 << 32) if v >> 31 else v


def same_value(a, b) -> bool:
    """Bit-pattern equality, as the match instructions compare (so -0.0 != 0.0, NaN == NaN)."""
    if isinstance(a, float) or isinstance(b, float):
        return isinstance(a, float) and isinstance(b, float) and struct.pack("d", a) == struct.pack("d", b)
    return a == b


# ----------------------------------------------------------------------------- CUDA (warpSize 32)

def _cuda_ok(mask, active, exited):
    """Per lane: is the ``_sync`` call well defined for it?  Guide: "Each calling thread must
    have its own bit set in the mask and all non-exited threads named in mask must execute the
    same intrinsic with the same mask, or the result is undefined." """
    ok = [False] * CUDA_WARP
    for i in lanes_of(active):
        m = mask[i]
        if m is UNDEFINED:
            continue
        m &= M32
        ok[i] = bool(m >> i & 1) and not (m & ~active & ~exited & M32) and all(
            mask[j] is not UNDEFINED and mask[j] & M32 == m for j in lanes_of(m & active))
    return ok


def _cuda_shfl(mode, mask, var, b, width, active, exited):
    """Source lane per PTX ``shfl.sync`` (the guide's rules for width 1..32):
    idx: ``(lane & ~(w-1)) | (srcLane & (w-1))`` ("srcLane modulo width" in the lane's segment);
    up: ``lane - delta`` unless below the segment start; down: ``lane + delta`` unless past the
    segment end; bfly: ``lane ^ laneMask`` unless past the segment end (earlier segments may be
    read).  An out-of-range source gives the caller's own ``var``.  PTX uses only bits [4:0] of
    the lane/delta operand.  Undefined: a width that is not a power of two in [1, 32] ("results
    are unspecified"), a source lane that is not active or not named in mask ("If the target
    thread is inactive, the retrieved value is undefined"), a mask violation (``_cuda_ok``)."""
    n = CUDA_WARP
    mask, var, b, width = (_pl(x, n) for x in (mask, var, b, width))
    ok = _cuda_ok(mask, active, exited)
    out = [None] * n
    for i in lanes_of(active):
        w, d = width[i], b[i]
        if not ok[i] or d is UNDEFINED or w not in (1, 2, 4, 8, 16, 32):
            out[i] = UNDEFINED
            continue
        d &= 31
        lo = i & ~(w - 1)
        hi = lo | (w - 1)
        if mode == "idx":
            j = lo | (d & (w - 1))
        elif mode == "up":
            j = i - d if i - d >= lo else i
        elif mode == "down":
            j = i + d if i + d <= hi else i
        else:
            j = i ^ d if i ^ d <= hi else i
        out[i] = var[j] if j == i or (active >> j & 1 and mask[i] >> j & 1) else UNDEFINED
    return out


def shfl_sync(mask, var, src_lane, width, active, exited=0):
    """CUDA ``T __shfl_sync(unsigned mask, T var, int srcLane, int width=warpSize)``."""
    return _cuda_shfl("idx", mask, var, src_lane, width, active, exited)


def shfl_up_sync(mask, var, delta, width, active, exited=0):
    """CUDA ``__shfl_up_sync``: "the lower delta lanes will be unchanged" (per segment)."""
    return _cuda_shfl("up", mask, var, delta, width, active, exited)


def shfl_down_sync(mask, var, delta, width, active, exited=0):
    """CUDA ``__shfl_down_sync``: "the upper delta lanes will remain unchanged" (per segment)."""
    return _cuda_shfl("down", mask, var, delta, width, active, exited)


def shfl_xor_sync(mask, var, lane_mask, width, active, exited=0):
    """CUDA ``__shfl_xor_sync``: butterfly; reading a later segment returns the own value."""
    return _cuda_shfl("bfly", mask, var, lane_mask, width, active, exited)


def _cuda_vote(mask, pred, active, exited, combine):
    n = CUDA_WARP
    mask, pred = _pl(mask, n), _pl(pred, n)
    ok = _cuda_ok(mask, active, exited)
    out = [None] * n
    for i in lanes_of(active):
        voters = lanes_of(mask[i] & active & M32) if ok[i] else ()
        if not ok[i] or any(pred[j] is UNDEFINED for j in voters):
            out[i] = UNDEFINED
        else:
            out[i] = combine(i, voters)
    return out


def ballot_sync(mask, pred, active, exited=0):
    """CUDA ``unsigned __ballot_sync(unsigned mask, int predicate)``: "Evaluate predicate for all
    non-exited threads in mask and return an integer whose Nth bit is set if and only if
    predicate evaluates to non-zero for the Nth thread of the warp and the Nth thread is active."
    """
    pred = _pl(pred, CUDA_WARP)
    return _cuda_vote(mask, pred, active, exited, lambda i, v: sum(1 << j for j in v if pred[j] != 0))


def any_sync(mask, pred, active, exited=0):
    """CUDA ``int __any_sync(unsigned mask, int predicate)``: non-zero iff predicate is non-zero
    for any non-exited thread in mask."""
    pred = _pl(pred, CUDA_WARP)
    return _cuda_vote(mask, pred, active, exited, lambda i, v: int(any(pred[j] != 0 for j in v)))


def all_sync(mask, pred, active, exited=0):
    """CUDA ``int __all_sync(unsigned mask, int predicate)``: non-zero iff predicate is non-zero
    for all non-exited threads in mask."""
    pred = _pl(pred, CUDA_WARP)
    return _cuda_vote(mask, pred, active, exited, lambda i, v: int(all(pred[j] != 0 for j in v)))


def activemask(active):
    """CUDA ``unsigned __activemask()``: "The Nth bit is set if the Nth lane in the warp is active
    when __activemask() is called."  Not a synchronising call: in lock-step, the active mask."""
    return [active & M32 if active >> i & 1 else None for i in range(CUDA_WARP)]


def match_any_sync(mask, value, active, exited=0):
    """CUDA ``unsigned __match_any_sync(unsigned mask, T value)``: "Returns mask of threads that
    have same value of value in mask"."""
    value = _pl(value, CUDA_WARP)
    return _cuda_vote(mask, value, active, exited,
                      lambda i, v: sum(1 << j for j in v if same_value(value[j], value[i])))


def match_all_sync(mask, value, active, exited=0):
    """CUDA ``unsigned __match_all_sync(unsigned mask, T value, int *pred)``: "Returns mask if all
    threads in mask have the same value for value; otherwise 0 is returned.  Predicate pred is
    set to true if all threads in mask have the same value of value; otherwise the predicate is
    set to false."  Returns ``(results, preds)``."""
    mask, value = _pl(mask, CUDA_WARP), _pl(value, CUDA_WARP)
    res = _cuda_vote(mask, value, active, exited,
                     lambda i, v: int(all(same_value(value[j], value[v[0]]) for j in v)))
    out = [None if r is None else UNDEFINED if r is UNDEFINED else (mask[i] & M32) * r for i, r in enumerate(res)]
    return out, [None if r is None else r for r in res]


def syncwarp(mask, active, exited=0) -> bool:
    """CUDA ``void __syncwarp(unsigned mask=0xffffffff)``: "Each calling thread must have its own
    bit set in the mask and all non-exited threads named in mask must execute a corresponding
    __syncwarp() with the same mask, or the result is undefined."  Returns whether it is defined;
    in lock-step it has no data effect."""
    return all(_cuda_ok(_pl(mask, CUDA_WARP), active, exited)[i] for i in lanes_of(active))


# ----------------------------------------------------------------------------- HIP (warpSize 64)

def ds_bpermute(index, var, active, n=HIP_WAVE):
    """``__builtin_amdgcn_ds_bpermute(index << 2, var)`` as HIP's shuffles call it: lane *i*
    reads ``var`` of lane ``index & (n-1)`` (the byte address's bits [7:2]).  Reading a lane
    that is not active is UNDEFINED here: the ISA pseudo-code reads 0, but HIP documents no
    value and a port must not rely on it."""
    index, var = _pl(index, n), _pl(var, n)
    out = [None] * n
    for i in lanes_of(active):
        j = UNDEFINED if index[i] is UNDEFINED else index[i] & (n - 1)
        out[i] = var[j] if j is not UNDEFINED and active >> j & 1 else UNDEFINED
    return out


def _hip_shfl(index_of, var, arg, width, active, n):
    arg, width = _pl(arg, n), _pl(width, n)
    index = [None] * n
    for i in lanes_of(active):
        a, w = arg[i], width[i]
        index[i] = UNDEFINED if UNDEFINED in (a, w) else index_of(i, a, _s32(w))
    return ds_bpermute(index, var, active, n)


def hip_shfl(var, src_lane, width, active, n=HIP_WAVE):
    """HIP ``__shfl(var, src_lane, width=warpSize)``:
    ``index = src_lane + (self & ~(width-1))`` (no modulo: a src_lane >= width reads a later
    segment)."""
    return _hip_shfl(lambda i, s, w: _s32(_s32(s) + (i & ~(w - 1))), var, src_lane, width, active, n)


def hip_shfl_up(var, delta, width, active, n=HIP_WAVE):
    """HIP ``__shfl_up``: ``index = self - lane_delta; index = (index < (self & ~(width-1))) ?
    self : index``."""
    def index(i, d, w):
        j = _s32(i - (d & M32))
        return i if j < (i & ~(w - 1)) else j
    return _hip_shfl(index, var, delta, width, active, n)


def hip_shfl_down(var, delta, width, active, n=HIP_WAVE):
    """HIP ``__shfl_down``: ``index = self + lane_delta; index = (int)((self&(width-1)) +
    lane_delta) >= width ? self : index``."""
    def index(i, d, w):
        d &= M32
        return i if _s32((i & (w - 1)) + d) >= w else _s32(i + d)
    return _hip_shfl(index, var, delta, width, active, n)


def hip_shfl_xor(var, lane_mask, width, active, n=HIP_WAVE):
    """HIP ``__shfl_xor``: ``index = self ^ lane_mask; index = index >= ((self+width) &
    ~(width-1)) ? self : index``."""
    def index(i, m, w):
        j = i ^ _s32(m)
        return i if j >= ((i + w) & ~(w - 1)) else j
    return _hip_shfl(index, var, lane_mask, width, active, n)


def hip_ballot(pred, active, n=HIP_WAVE):
    """HIP ``unsigned long long __ballot(int predicate)`` =
    ``__builtin_amdgcn_uicmp(predicate, 0, ICMP_NE)``: a 64-bit mask of the active lanes whose
    predicate is non-zero (inactive lanes give 0 bits).  Same value in every active lane."""
    pred = _pl(pred, n)
    ls = lanes_of(active)
    v = UNDEFINED if any(pred[j] is UNDEFINED for j in ls) else sum(1 << j for j in ls if pred[j] != 0)
    return [v if active >> i & 1 else None for i in range(n)]


def hip_any(pred, active, n=HIP_WAVE):
    """HIP ``int __any(int)`` = ``__ockl_wfany_i32``: non-zero iff any active lane's is."""
    return [b if b is None or b is UNDEFINED else int(b != 0) for b in hip_ballot(pred, active, n)]


def hip_all(pred, active, n=HIP_WAVE):
    """HIP ``int __all(int)`` = ``__ockl_wfall_i32``: non-zero iff every active lane's is."""
    return [b if b is None or b is UNDEFINED else int(b == active) for b in hip_ballot(pred, active, n)]


def hip_activemask(active, n=HIP_WAVE):
    """HIP (ROCm 6.2+) ``unsigned long long __activemask()`` = ``__ballot(true)``."""
    return hip_ballot(1, active, n)


def hip_lane_id(active, n=HIP_WAVE):
    """HIP ``unsigned __lane_id()`` = ``mbcnt_hi(-1, mbcnt_lo(-1, 0))``: the lane's index."""
    return [i if active >> i & 1 else None for i in range(n)]


def hip_mask_groups(mask, active, n=HIP_WAVE):
    """ROCm 6.2 ``__hip_check_mask`` / ``__hip_do_sync``: the active lanes are split by mask value
    (a waterfall); each group must name exactly its own lanes (``MASK == __ballot(true)``) and
    no mask may be 0, else ``__hip_assert`` traps.  Returns {mask: lanes}, or None when a mask
    is UNDEFINED."""
    mask = _pl(mask, n)
    groups: dict[int, int] = {}
    for i in lanes_of(active):
        m = mask[i]
        if m is UNDEFINED:
            return None
        if m == 0:
            raise Trap("mask must be non-zero")
        groups[m] = groups.get(m, 0) | 1 << i
    for m, g in groups.items():
        if m != g:
            raise Trap(f"mask {m:#x} != __ballot(true) {g:#x}: all threads specified in the mask "
                       "must execute the same operation with the same mask")
    return groups


def _hip_sync(fn, mask, active, n=HIP_WAVE, post=lambda m, v: v):
    groups = hip_mask_groups(mask, active, n)
    out = [None] * n
    if groups is None:
        return [UNDEFINED if active >> i & 1 else None for i in range(n)]
    for m, g in groups.items():
        for i, v in enumerate(fn(g)):
            if g >> i & 1:
                out[i] = v if v is UNDEFINED else post(m, v)
    return out


def hip_shfl_sync(kind, mask, var, arg, width, active, n=HIP_WAVE):
    """ROCm 6.2 ``__shfl{,_up,_down,_xor}_sync(MaskT mask, ...)``: ``__hip_check_mask(mask)`` then
    the mask-less shuffle.  ``kind`` is "", "up", "down" or "xor"."""
    fn = {"": hip_shfl, "up": hip_shfl_up, "down": hip_shfl_down, "xor": hip_shfl_xor}[kind]
    return _hip_sync(lambda g: fn(var, arg, width, g, n), mask, active, n)


def hip_ballot_sync(mask, pred, active, n=HIP_WAVE):
    """ROCm 6.2 ``__ballot_sync``: ``__hip_check_mask(mask); return __ballot(predicate) & mask``."""
    return _hip_sync(lambda g: hip_ballot(pred, g, n), mask, active, n, lambda m, v: v & m)


def hip_any_sync(mask, pred, active, n=HIP_WAVE):
    """ROCm 6.2 ``__any_sync``: ``__ballot_sync(mask, predicate) != 0``."""
    return [v if v is None or v is UNDEFINED else int(v != 0) for v in hip_ballot_sync(mask, pred, active, n)]


def hip_all_sync(mask, pred, active, n=HIP_WAVE):
    """ROCm 6.2 ``__all_sync``: ``__ballot_sync(mask, predicate) == mask``."""
    mask = _pl(mask, n)
    return [v if v is None or v is UNDEFINED else int(v == mask[i])
            for i, v in enumerate(hip_ballot_sync(mask, pred, active, n))]


def hip_match_any_sync(mask, value, active, n=HIP_WAVE):
    """ROCm 6.2 ``__match_any_sync``: ``__match_any(value) & mask``; ``__match_any`` gives each
    lane the active lanes holding the same value."""
    value = _pl(value, n)

    def match_any(g):
        return [sum(1 << j for j in lanes_of(g) if same_value(value[j], value[i])) if g >> i & 1 else None
                for i in range(n)]
    return _hip_sync(match_any, mask, active, n, lambda m, v: v & m)


def hip_match_all_sync(mask, value, active, n=HIP_WAVE):
    """ROCm 6.2 ``__match_all_sync`` (``__hip_do_sync`` of ``__match_all``): if every lane of the
    group equals the group's first lane, ``*pred = true`` and the result is ``__activemask()``,
    else ``*pred = false`` and 0.  Returns ``(results, preds)``."""
    value = _pl(value, n)

    def match_all(g):
        first = value[lanes_of(g)[0]]
        r = g if all(same_value(value[j], first) for j in lanes_of(g)) else 0
        return [r if g >> i & 1 else None for i in range(n)]
    res = _hip_sync(match_all, mask, active, n)
    return res, [None if r is None else UNDEFINED if r is UNDEFINED else int(r != 0) for r in res]


def hip_syncwarp(mask, active, n=HIP_WAVE):
    """ROCm 6.2 ``__syncwarp(MaskT mask)``: ``__hip_check_mask(mask)`` then fences around
    ``__builtin_amdgcn_wave_barrier()``: ordering only, no data effect in lock-step."""
    hip_mask_groups(mask, active, n)


# ----------------------------------------------------------------------------- integer intrinsics

def popc(x):
    """``__popc(unsigned int)``: bits set in the low 32 bits (a wider argument converts to
    unsigned int first, as C++ does).  CUDA returns int, HIP unsigned int."""
    return bin(x & M32).count("1")


def popcll(x):
    """``__popcll(unsigned long long)``: bits set in 64 bits."""
    return bin(x & M64).count("1")


def ffs(x, bits=32):
    """``__ffs``: 1 + index of the least significant set bit, 0 for 0 (HIP: ``ctz + 1``)."""
    x &= (1 << bits) - 1
    return (x & -x).bit_length()


def ffsll(x):
    """``__ffsll``: ``__ffs`` over 64 bits."""
    return ffs(x, 64)


def clz(x, bits=32):
    """``__clz(int)``: leading zero bits of the 32-bit pattern; 32 for 0 (``__ockl_clz_u32``)."""
    return bits - (x & ((1 << bits) - 1)).bit_length()


def clzll(x):
    """``__clzll(long long)``: ``__clz`` over 64 bits."""
    return clz(x, 64)


def brev(x, bits=32):
    """``__brev(unsigned)``: the 32-bit pattern reversed (``__builtin_bitreverse32``)."""
    return int(format(x & ((1 << bits) - 1), f"0{bits}b")[::-1], 2)


def brevll(x):
    """``__brevll(unsigned long long)``: ``__brev`` over 64 bits."""
    return brev(x, 64)


ATOMIC_OPS = {
    "atomicAdd": lambda old, v: old + v, "atomicSub": lambda old, v: old - v,
    "atomicMax": max, "atomicMin": min, "atomicExch": lambda old, v: v,
    "atomicOr": lambda old, v: old | v, "atomicAnd": lambda old, v: old & v,
    "atomicXor": lambda old, v: old ^ v,
}


def atomic(op, cells, vals, active, wrap=lambda v: v, compare=None):
    """CUDA/HIP ``atomicAdd``/``Sub``/``Max``/``Min``/``Exch``/``Or``/``And``/``Xor``/``CAS``:
    each lane's read-modify-write of ``cells[i] = (list, index)`` is applied in lane order (the
    order between lanes is unspecified on hardware; the final value is not for these ops, bar
    Exch/CAS).  ``wrap`` converts the result to the pointee type.  Returns the old values."""
    vals = _pl(vals, len(cells))
    out = [None] * len(cells)
    for i in lanes_of(active):
        data, k = cells[i]
        old = data[k]
        out[i] = old
        v = vals[i]
        if old is UNDEFINED or v is UNDEFINED or (compare is not None and compare[i] is UNDEFINED):
            data[k] = UNDEFINED
        elif op == "atomicCAS":
            data[k] = v if old == compare[i] else old
        else:
            data[k] = wrap(ATOMIC_OPS[op](old, v))
    return out


def fence(*_args):
    """``__threadfence*``, ``__builtin_amdgcn_fence``, ``__builtin_amdgcn_wave_barrier``,
    ``__syncwarp()`` on HIP: memory ordering only.  In a lock-step model every store is visible
    at once, so they have no data effect."""
    return None


def f32(x: float) -> float:
    """Round a Python float to IEEE single precision (float arithmetic is done in double and
    rounded after each operation)."""
    try:
        return struct.unpack("f", struct.pack("f", x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)
