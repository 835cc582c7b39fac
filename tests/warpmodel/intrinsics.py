"""The intrinsic and library calls the interpreter knows, per platform: C parameter and return
types (overloads, conversions of the arguments, CUDA's 32-bit and ROCm's 64-bit masks) around the
lane semantics of ``lanes.py``.  Each handler takes (warp, name, evaluated args, active mask,
call node) and returns (type, per-lane values)."""

from __future__ import annotations

import math

from . import lanes as LN
from .cxx import (DOUBLE, FLOAT, INT, LLONG, SHFL_TYPES, UINT, ULLONG, VOID, common, CompileError, conv,
                  line_of, promote, UndefinedBehaviour, Unsupported)
from .lanes import UNDEFINED, lanes_of


def _nargs(name, args, lo, hi=None):
    if not lo <= len(args) <= (hi if hi is not None else lo):
        raise CompileError(f"{name} takes {lo}..{hi or lo} arguments, not {len(args)}")


def _shfl_type(t):
    if t in SHFL_TYPES:
        return t
    if t.kind == "int" and t.rank < INT.rank:
        return INT
    raise CompileError(f"no shuffle overload for {t}")


def _overload(t, cands, name):
    """C++ overload choice among one-parameter integer candidates: exact, then promotion, then a
    single candidate by conversion; several candidates needing conversions are ambiguous."""
    if t in cands:
        return t
    if promote(t) in cands:
        return promote(t)
    if len(cands) == 1:
        return cands[0]
    raise CompileError(f"call of overloaded {name}({t}) is ambiguous among {', '.join(map(str, cands))}")


def _cuda_exited(w):
    return (w.exited | ~w.exist) & LN.M32


def _b_cuda_shfl(w, name, args, mask, node):
    _nargs(name, args, 3, 4)
    T = _shfl_type(args[1][0])
    delta_t = UINT if name in ("__shfl_up_sync", "__shfl_down_sync") else INT
    width = w.cv(args[3], INT, mask) if len(args) == 4 else 32
    fn = {"__shfl_sync": LN.shfl_sync, "__shfl_up_sync": LN.shfl_up_sync,
          "__shfl_down_sync": LN.shfl_down_sync, "__shfl_xor_sync": LN.shfl_xor_sync}[name]
    mask_vals, var, arg = w.cv(args[0], UINT, mask), w.cv(args[1], T, mask), w.cv(args[2], delta_t, mask)
    return T, fn(mask_vals, var, arg, width, mask, _cuda_exited(w))


def _b_cuda_vote(w, name, args, mask, node):
    _nargs(name, args, 2)
    fn, t = {"__ballot_sync": (LN.ballot_sync, UINT), "__any_sync": (LN.any_sync, INT),
             "__all_sync": (LN.all_sync, INT)}[name]
    return t, fn(w.cv(args[0], UINT, mask), w.cv(args[1], INT, mask), mask, _cuda_exited(w))


def _b_cuda_match(w, name, args, mask, node):
    _nargs(name, args, 2, 3)
    T = _shfl_type(args[1][0])
    m, v = w.cv(args[0], UINT, mask), w.cv(args[1], T, mask)
    if name == "__match_any_sync":
        _nargs(name, args, 2)
        return UINT, LN.match_any_sync(m, v, mask, _cuda_exited(w))
    _nargs(name, args, 3)
    res, preds = LN.match_all_sync(m, v, mask, _cuda_exited(w))
    _store_through(w, args[2], INT, preds, mask, node)
    return UINT, res


def _store_through(w, parg, t, vals, mask, node):
    pt, pv = parg
    if pt.kind != "ptr" or pt.elem != t:
        raise CompileError(f"expected {t}*, got {pt}", line_of(node))
    w.store(t, w.offset(pv, [0] * w.W, t, mask, node), vals, mask, node)


def _b_cuda_activemask(w, name, args, mask, node):
    _nargs(name, args, 0)
    return UINT, LN.activemask(mask)


def _b_cuda_syncwarp(w, name, args, mask, node):
    _nargs(name, args, 0, 1)
    m = w.cv(args[0], UINT, mask) if args else LN.M32
    if not LN.syncwarp(m, mask, _cuda_exited(w)):
        w.note(node, "__syncwarp mask names lanes that do not execute it, or omits the caller")
    return VOID, w.NONE


def _hip_mask(w, name, arg, mask):
    """ROCm 6.2+ ``_sync`` forms: ``static_assert(is_integral<MaskT> && sizeof(MaskT) == 8)``; the
    mask is then compared with ``__ballot`` (unsigned long long)."""
    if arg[0].kind != "int" or arg[0].bits != 64:
        raise CompileError(f"{name}: The mask must be a 64-bit integer, not {arg[0]} (static_assert in ROCm 6.2+)")
    return w.cv(arg, ULLONG, mask)


def _b_hip_shfl(w, name, args, mask, node):
    sync = name.endswith("_sync")
    kind = name[2:].removesuffix("_sync").removeprefix("shfl").lstrip("_")
    m = _hip_mask(w, name, args[0], mask) if sync else None
    args = args[1:] if sync else args
    _nargs(name, args, 2, 3)
    T = _shfl_type(args[0][0])
    var = w.cv(args[0], T, mask)
    arg = w.cv(args[1], UINT if kind in ("up", "down") else INT, mask)
    width = w.cv(args[2], INT, mask) if len(args) == 3 else 64
    if sync:
        return T, LN.hip_shfl_sync(kind, m, var, arg, width, mask)
    fn = {"": LN.hip_shfl, "up": LN.hip_shfl_up, "down": LN.hip_shfl_down, "xor": LN.hip_shfl_xor}[kind]
    return T, fn(var, arg, width, mask)


def _b_hip_vote(w, name, args, mask, node):
    if name.endswith("_sync"):
        _nargs(name, args, 2)
        fn, t = {"__ballot_sync": (LN.hip_ballot_sync, ULLONG), "__any_sync": (LN.hip_any_sync, INT),
                 "__all_sync": (LN.hip_all_sync, INT)}[name]
        return t, fn(_hip_mask(w, name, args[0], mask), w.cv(args[1], INT, mask), mask)
    _nargs(name, args, 1)
    fn, t = {"__ballot": (LN.hip_ballot, ULLONG), "__ballot64": (LN.hip_ballot, ULLONG),
             "__any": (LN.hip_any, INT), "__all": (LN.hip_all, INT)}[name]
    return t, fn(w.cv(args[0], INT, mask), mask)


def _b_hip_match(w, name, args, mask, node):
    _nargs(name, args, 2, 3)
    T = _shfl_type(args[1][0])
    m, v = _hip_mask(w, name, args[0], mask), w.cv(args[1], T, mask)
    if name == "__match_any_sync":
        _nargs(name, args, 2)
        return ULLONG, LN.hip_match_any_sync(m, v, mask)
    _nargs(name, args, 3)
    res, preds = LN.hip_match_all_sync(m, v, mask)
    _store_through(w, args[2], INT, preds, mask, node)
    return ULLONG, res


def _b_hip_misc(w, name, args, mask, node):
    if name == "__lane_id":
        _nargs(name, args, 0)
        return UINT, LN.hip_lane_id(mask)
    if name == "__activemask":
        _nargs(name, args, 0)
        return ULLONG, LN.hip_activemask(mask)
    if name == "__syncwarp":
        _nargs(name, args, 0, 1)
        if args:
            LN.hip_syncwarp(_hip_mask(w, name, args[0], mask), mask)
        return VOID, w.NONE
    if name == "__builtin_amdgcn_ds_bpermute":
        _nargs(name, args, 2)
        addr = w.cv(args[0], INT, mask)
        index = [a if a is None or a is UNDEFINED else a >> 2 for a in addr]  # a byte address
        return INT, LN.ds_bpermute(index, w.cv(args[1], INT, mask), mask)
    raise Unsupported(name)


def _b_fence(w, name, args, mask, node):
    LN.fence(*args)
    return VOID, w.NONE


def _int_intrinsic(table):
    def b(w, name, args, mask, node):
        _nargs(name, args, 1)
        cands, rt, f = table[name]
        pt = _overload(args[0][0], cands, name)
        return rt, [None if v is None else UNDEFINED if v is UNDEFINED else f(v) for v in w.cv(args[0], pt, mask)]
    return b


_CUDA_INT = {"__popc": ([UINT], INT, LN.popc), "__popcll": ([ULLONG], INT, LN.popcll), "__ffs": ([INT], INT, LN.ffs),
             "__ffsll": ([LLONG], INT, LN.ffsll), "__clz": ([INT], INT, LN.clz), "__clzll": ([LLONG], INT, LN.clzll),
             "__brev": ([UINT], UINT, LN.brev), "__brevll": ([ULLONG], ULLONG, LN.brevll)}
_HIP_INT = {"__popc": ([UINT], UINT, LN.popc), "__popcll": ([ULLONG], UINT, LN.popcll), "__ffs": ([UINT, INT], UINT, LN.ffs),
            "__ffsll": ([ULLONG, LLONG], UINT, LN.ffsll), "__clz": ([INT], INT, LN.clz), "__clzll": ([LLONG], INT, LN.clzll),
            "__brev": ([UINT], UINT, LN.brev), "__brevll": ([ULLONG], ULLONG, LN.brevll)}


def _b_minmax(w, name, args, mask, node):
    _nargs(name, args, 2)
    t = {"fminf": FLOAT, "fmaxf": FLOAT, "fmin": DOUBLE, "fmax": DOUBLE}.get(name) or common(args[0][0], args[1][0])
    a, b = w.cv(args[0], t, mask), w.cv(args[1], t, mask)
    f = min if name in ("min", "fminf", "fmin") else max
    return t, [None if x is None else UNDEFINED if UNDEFINED in (x, y) else f(x, y) for x, y in zip(a, b)]


def _safe(f):
    def g(*a):
        try:
            return f(*a)
        except ValueError:
            return math.nan
        except OverflowError:
            return math.inf
    return g


_MATH = {"fabsf": (FLOAT, abs), "fabs": (DOUBLE, abs), "sqrtf": (FLOAT, math.sqrt), "sqrt": (DOUBLE, math.sqrt),
         "expf": (FLOAT, math.exp), "exp": (DOUBLE, math.exp), "logf": (FLOAT, math.log), "log": (DOUBLE, math.log),
         "floorf": (FLOAT, math.floor), "ceilf": (FLOAT, math.ceil),
         "floor": (DOUBLE, math.floor), "ceil": (DOUBLE, math.ceil),
         "abs": (INT, abs)}


def _b_math(w, name, args, mask, node):
    _nargs(name, args, 1)
    t, f = _MATH[name]
    f = _safe(f)
    return t, [None if v is None else UNDEFINED if v is UNDEFINED else conv(f(v), t) for v in w.cv(args[0], t, mask)]


def _b_atomic(w, name, args, mask, node):
    _nargs(name, args, 3 if name == "atomicCAS" else 2)
    pt, pv = args[0]
    if pt.kind != "ptr" or pt.elem.kind not in ("int", "float"):
        raise CompileError(f"{name} on {pt}", line_of(node))
    t = pt.elem
    addrs = w.offset(pv, [0] * w.W, t, mask, node)
    cells = [None] * w.W
    for i in lanes_of(mask):
        buf, off = addrs[i]
        if buf is None:
            raise UndefinedBehaviour(f"{name} through an undefined pointer", line_of(node))
        if not 0 <= off < len(buf.data):
            raise UndefinedBehaviour(f"out-of-bounds {name} {buf.name}[{off}]", line_of(node))
        cells[i] = (buf.data, off)
    vals = w.cv(args[-1], t, mask)
    cmp = w.cv(args[1], t, mask) if name == "atomicCAS" else None
    old = LN.atomic(name, cells, vals, mask, lambda v: conv(v, t), cmp)
    for i in lanes_of(mask):
        if cells[i][0][cells[i][1]] is UNDEFINED:
            w.note(node, f"{name} stores an undefined value to {addrs[i][0].name}[{addrs[i][1]}]")
    return t, old


_COMMON = {"__threadfence": _b_fence, "__threadfence_block": _b_fence, "__threadfence_system": _b_fence,
           "min": _b_minmax, "max": _b_minmax, "fminf": _b_minmax, "fmaxf": _b_minmax, "fmin": _b_minmax, "fmax": _b_minmax}
_COMMON.update({n: _b_math for n in _MATH})
_COMMON.update({n: _b_atomic for n in ("atomicCAS", *LN.ATOMIC_OPS)})
BUILTINS = {
    "cuda": {**_COMMON, **{n: _int_intrinsic(_CUDA_INT) for n in _CUDA_INT},
             **{n: _b_cuda_shfl for n in ("__shfl_sync", "__shfl_up_sync", "__shfl_down_sync", "__shfl_xor_sync")},
             **{n: _b_cuda_vote for n in ("__ballot_sync", "__any_sync", "__all_sync")},
             "__match_any_sync": _b_cuda_match, "__match_all_sync": _b_cuda_match,
             "__activemask": _b_cuda_activemask, "__syncwarp": _b_cuda_syncwarp},
    "hip": {**_COMMON, **{n: _int_intrinsic(_HIP_INT) for n in _HIP_INT},
            **{n: _b_hip_shfl for n in ("__shfl", "__shfl_up", "__shfl_down", "__shfl_xor", "__shfl_sync",
                                        "__shfl_up_sync", "__shfl_down_sync", "__shfl_xor_sync")},
            **{n: _b_hip_vote for n in ("__ballot", "__ballot64", "__any", "__all",
                                        "__ballot_sync", "__any_sync", "__all_sync")},
            "__match_any_sync": _b_hip_match, "__match_all_sync": _b_hip_match,
            **{n: _b_hip_misc for n in ("__lane_id", "__activemask", "__syncwarp", "__builtin_amdgcn_ds_bpermute")},
            "__builtin_amdgcn_fence": _b_fence, "__builtin_amdgcn_wave_barrier": _b_fence},
}
