"""Calls that compile in CUDA but not against the HIP headers of an older ROCm, each checked with Debian's
hipcc 5.2 (gfx90a) and clang-19 (gfx942) against the HIP 5.2 headers:

* PORT174: ``min(n, blockDim.x)`` with ``n`` an unsigned (or long) integer.  HIP's headers before ROCm 6.1
  make the built-in coordinates objects of ``__HIP_Coordinates<...>::__X`` that convert to unsigned int
  (hip-header-names.tsv: ``__HIP_Coordinates`` 5.6.0 to 6.0.2, ``__hip_builtin_threadIdx_t`` from 6.1.0;
  HIP 5.2's amd_hip_runtime.h), so ``min``'s template cannot deduce one type, and the int, float and double
  overloads (clang's __clang_hip_math.h) all need a user conversion for the coordinate and a standard
  conversion for the other operand: "call to 'min' is ambiguous".  CUDA's blockDim.x is an unsigned int
  and CUDA declares min for every integer type.  Casting the coordinate to the other operand's type picks
  the template; the values compared are the same.
* PORT175: ``atomicInc`` / ``atomicDec``.  HIP 5.2's amd_hip_atomic.h defines them through
  ``__builtin_amdgcn_atomic_inc(...) __asm("llvm.amdgcn.atomic.inc.i32.p0i32")``, an intrinsic LLVM 17
  removed: hipcc 5.2 (clang 15) links it, clang-19 (porter's gfx942 toolchain on a ROCm 5.2 machine) stops
  with "undefined hidden symbol: llvm.amdgcn.atomic.inc.i32.p0i32".  HIP's headers call
  ``__builtin_amdgcn_atomic_inc32(p, v, __ATOMIC_RELAXED, "agent")`` instead from ROCm 5.6 on
  (hip-header-names.tsv); both compilers compile that, and it is what HIP's atomicInc does (relaxed order,
  device scope).  The _block forms get the workgroup scope (the translator writes atomicInc for them).
  The _system forms HIP does not declare at all (the mapping database marks them unsupported: "use of
  undeclared identifier" with both compilers); the builtin with the system scope (the empty string) is
  CUDA's operation at CUDA's scope.  PORT030 (an unsupported name) yields to this finding where it
  reports the call (``ctx.covered``), so one finding, with the fix, says that HIP has no such function.
* PORT186: ``__ffs`` / ``__ffsll`` of an argument of another integer type.  CUDA declares one of each,
  ``int __ffs(int)`` and ``int __ffsll(long long)``; HIP declares two, for the signed and the unsigned type
  (amd_device_functions.h, HIP 5.2 to 7), so an argument of any other type (``int64_t``/``uint64_t``/
  ``size_t``, which are ``long``/``unsigned long`` on LP64 Linux, an int given to __ffsll, a long given to
  __ffs) converts to both equally: "call to '__ffsll' is ambiguous" (HeCBench's langford).  Casting it to
  CUDA's parameter type is the conversion CUDA makes implicitly.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from porter.findings.engine import Hit
from porter.findings.predicates import node_check
from porter.findings.predicates.common import args_of, compact, edit, fix, target_before
from porter.findings.predicates.expr_types import ExprTypes, defines_own_function
from porter.mapping.cache import load_toml

# ------------------------------------------------------------------------ PORT174
COORDINATES_UNTIL = "6.1"  # the first ROCm whose threadIdx & co. are unsigned ints (__hip_builtin_*_t)

# what a coordinate cannot be compared with unambiguously: an integer type of int's rank or above but int
AMBIGUOUS = frozenset({"unsigned int", "long", "unsigned long", "long long", "unsigned long long"})


@node_check("PORT174")
def min_max_of_a_coordinate(ctx, node, caps):
    older = target_before(ctx, COORDINATES_UNTIL)
    fn = ctx.text(caps["fn"][0])
    args = args_of(node)
    if len(args) != 2 or defines_own_function(ctx, fn):
        return None
    types = ExprTypes(ctx, node)
    kinds = [types.of(a) for a in args]
    coords = [i for i, k in enumerate(kinds) if k is not None and k[0] == "coord"]
    if not coords:
        return None
    if len(coords) == 2:
        target = ("unsigned int", "unsigned int")
    else:
        other = kinds[1 - coords[0]]
        if other is None or other[0] not in AMBIGUOUS:
            return None  # an int (or a float, a short...) picks one overload; an unknown type is not guessed at
        target = other
    spelled = target[1]
    # insertions around the operand, not a replacement of it: a fix inside it (a nested call) still applies
    edits = [e for i in coords for e in (edit(args[i].start_byte, args[i].start_byte, f"({spelled})("),
                                           edit(args[i].end_byte, args[i].end_byte, ")"))]
    fixed = list(ctx.text(a) for a in args)
    for i in coords:
        fixed[i] = f"({spelled})({fixed[i]})"
    other_text = ("another coordinate" if len(coords) == 2
                  else f"`{compact(ctx.text(args[1 - coords[0]]), 30)}` (of type `{target[1]}`)")
    # the values compared do not change: a coordinate converts to any of these types without loss; CUDA's
    # overload for two operands of an unsigned type compares them as that type, as the cast does
    safe = not target[0] in ("long", "long long")
    return Hit(node.start_byte, node.end_byte,
               {"call": compact(ctx.text(node), 50), "fn": fn, "coord": compact(ctx.text(args[coords[0]]), 20),
                "other": other_text, "verdict": _verdict(ctx, older, COORDINATES_UNTIL, "does not compile")},
               fix(f"cast the coordinate to `{spelled}`: `{fn}({', '.join(compact(f, 30) for f in fixed)})` "
                   "(the template then takes one type; the values compared are the same)", *edits, safe=safe),
               severity=None if older else "info")


def _verdict(ctx, older: bool, since: str, fails: str) -> str:
    """What the target says: the call fails with its headers (an error), or only with the older headers
    porter's gfx942 build uses on a machine without ROCm 6 (an info: the fix is harmless everywhere)."""
    if older:
        return f"{fails} with the HIP headers of ROCm {ctx.options.target}, the target"
    return (f"is fine with the HIP headers of ROCm {since} and later (the target is {ctx.options.target}) but {fails} with "
            "older ones, such as ROCm 5.2's that porter's clang-19 build for gfx942 uses on a machine without ROCm 6")


# ------------------------------------------------------------------------ PORT175
ATOMIC_INC_FROM = "5.6"  # the first ROCm whose headers porter has seen call __builtin_amdgcn_atomic_inc32
ATOMIC_BUILTINS_FILE = Path(__file__).resolve().parents[1] / "atomic_builtins.toml"
# the builtin's memory scope -> CUDA's word for it; "" is LLVM's system scope (atomic_builtins.toml says how
# that was checked)
_SCOPES = {"agent": "device", "workgroup": "block", "": "system"}


@functools.cache
def atomic_builtins() -> dict[str, tuple[str, str]]:
    """CUDA function -> (the clang builtin, its memory scope), from atomic_builtins.toml."""
    doc = load_toml(ATOMIC_BUILTINS_FILE)
    table = {}
    for entry in doc["atomic"]:
        if entry["scope"] not in _SCOPES:
            raise ValueError(f"{ATOMIC_BUILTINS_FILE.name}: {entry['cuda']}: scope {entry['scope']!r} is not one of "
                             f"{', '.join(_SCOPES)}")
        table[entry["cuda"]] = (entry["builtin"], entry["scope"])
    return table


@node_check("PORT175")
def atomic_inc_dec(ctx, node, caps):
    older = target_before(ctx, ATOMIC_INC_FROM)
    name = ctx.text(caps["fn"][0])
    args = args_of(node)
    if len(args) != 2 or defines_own_function(ctx, name):
        return None
    builtin, scope = atomic_builtins()[name]
    fn = caps["fn"][0]
    base = name.split("_")[0]
    here = "" if scope == "agent" else f"; here at the {_SCOPES[scope]} scope, as `{name}`"
    the_fix = fix(f"call `{builtin}(p, v, __ATOMIC_RELAXED, \"{scope}\")`, what HIP's own {base} does from "
                  f"ROCm 5.6 on (relaxed order, device scope){here}; hipcc 5.2 and clang-19 both compile it",
                  edit(fn.start_byte, fn.end_byte, builtin),
                  edit(args[-1].end_byte, args[-1].end_byte, f", __ATOMIC_RELAXED, \"{scope}\""))
    why = _undeclared_in_hip(name)
    if why is not None:  # no HIP declares it (the _system forms): an error at every target; PORT030 yields to this
        verdict = (f"does not compile with any HIP headers: HIP has no `{name}` ({why}); `{base}` at the "
                   f"{_SCOPES[scope]} scope is the same operation")
        severity = None
    else:
        verdict = (_verdict(ctx, older, ATOMIC_INC_FROM, "does not link for gfx942 with clang-19") +
                   f": there {name} calls the intrinsic llvm.amdgcn.atomic.inc/dec.i32 by name, which LLVM 17 and "
                   "later do not have, so the device link fails with an undefined symbol and no source line (hipcc "
                   "5.2, LLVM 15, links it)")
        severity = None if older else "info"
    return Hit(node.start_byte, node.end_byte, {"call": compact(ctx.text(node), 40), "name": name, "builtin": builtin,
                                                "scope": scope, "verdict": verdict}, the_fix, severity=severity)


def _undeclared_in_hip(name: str) -> str | None:
    """Why HIP has no ``name`` (the mapping database's note), or None where HIP declares it (atomicInc)."""
    from porter.mapping import load_database, user_note

    entry = load_database().identifiers.get(name)
    if entry is None or entry.status != "unsupported":
        return None
    return user_note(entry.note or "").removeprefix("no HIP counterpart: ").rstrip(".") or "no HIP counterpart"


# ------------------------------------------------------------------------ PORT177
# CUDA's integer min/max of one type (CUDA Math API, integer intrinsics).  No HIP header declares them
# (HIP 5.2's amd_math_functions.h and clang's __clang_hip_math.h, checked; hip-header-names.tsv, ROCm 5.6 to
# 6.3: absent) and AMD's HIPIFY tables list no HIP counterpart.  Both HIP headers declare `template <class T>
# T min(T, T)` / `max`: with both arguments cast to CUDA's parameter type it takes that type, as CUDA's
# function does (valid CUDA too, where the overload of that type is called).  Not database entries: `umin`
# and `umax` are words a project uses for its own things (tests/mapping: plain words).
INTEGER_MIN_MAX = {
    "umin": ("min", "unsigned int"), "umax": ("max", "unsigned int"),
    "llmin": ("min", "long long int"), "llmax": ("max", "long long int"),
    "ullmin": ("min", "unsigned long long int"), "ullmax": ("max", "unsigned long long int"),
}


def _namespaces(node) -> tuple[str, ...]:
    """The named namespaces enclosing ``node``, outermost first (an anonymous one is left out: its names
    are visible in the enclosing scope)."""
    chain = []
    n = node.parent
    while n is not None:
        if n.type == "namespace_definition":
            name = n.child_by_field_name("name")
            if name is not None:
                chain.append(name.text.decode("utf-8", "replace"))
        n = n.parent
    return tuple(reversed(chain))


def _own_definition_reaches(ctx, call, fn, name: str) -> bool:
    """Whether this call of ``name`` can mean the file's own definition of it: a macro, or a function or
    variable defined in the global namespace, in a namespace enclosing the call, or in one the file opens
    with `using` (a `::name` call: the global ones only).  A `my::umin` helper does not make a global
    `umin(a, b)` the project's: that one is CUDA's and does not compile."""
    from porter.findings.predicates.api import own_facts

    macro, definitions = own_facts(ctx, name)
    if macro:
        return True
    key = ("hipheaders.opened", name)  # the namespaces the file opens for the name: read once per name and file
    opened = ctx.cache.get(key)
    if opened is None:
        source, n = ctx.source, re.escape(name.encode())
        opened = {m.group(1).decode().rsplit("::", 1)[-1]
                  for m in re.finditer(rb"\busing\s+namespace\s+((?:\w+\s*::\s*)*\w+)\s*;", source)}
        opened |= {m.group(1).decode().rsplit("::", 1)[-1]
                   for m in re.finditer(rb"\busing\s+((?:\w+\s*::\s*)*\w+)\s*::\s*" + n + rb"\s*;", source)}
        ctx.cache[key] = opened
    parent = fn.parent
    global_only = parent is not None and parent.type == "qualified_identifier" and parent.child_by_field_name("scope") is None
    call_ns = _namespaces(call)
    for start, end in definitions:
        node = ctx.index.node_at(start, end)
        where = _namespaces(node) if node is not None else ()
        if not where:
            return True
        if global_only:
            continue
        if call_ns[:len(where)] == where or where[-1] in opened:
            return True
    return False


@node_check("PORT177")
def integer_min_max(ctx, node, caps):
    name = ctx.text(caps["fn"][0])
    args = args_of(node)
    if len(args) != 2 or any(a.type == "ERROR" for a in args) or _own_definition_reaches(ctx, node, caps["fn"][0], name):
        return None
    hip, ctype = INTEGER_MIN_MAX[name]
    fn = caps["fn"][0]
    edits = [edit(fn.start_byte, fn.end_byte, hip)]
    # insertions around each argument, not replacements of it: a fix inside one (a nested min) still applies
    edits += [e for a in args for e in (edit(a.start_byte, a.start_byte, f"({ctype})("), edit(a.end_byte, a.end_byte, ")"))]
    return Hit(node.start_byte, node.end_byte, {"call": compact(ctx.text(node), 50), "name": name, "hip": hip,
                                                "type": ctype},
               fix(f"`{hip}` with both arguments cast to `{ctype}`, as CUDA's `{name}` converts them (HIP's {hip} "
                   f"template then takes `{ctype}`)", *edits))


# ------------------------------------------------------------------------ PORT186
# CUDA's one parameter type -> the argument types that pick one of HIP's two overloads (after the promotions
# that are no conversion: a short or char promotes to int; HIP 5.2's built-in coordinate converts to unsigned)
_BIT_SCANS = {"__ffs": ("int", frozenset({"int", "unsigned int", "small", "coord"})),
              "__ffsll": ("long long", frozenset({"long long", "unsigned long long"}))}


@node_check("PORT186")
def bit_scan_of_another_type(ctx, node, caps):
    fn = ctx.text(caps["fn"][0])
    args = args_of(node)
    if fn not in _BIT_SCANS or len(args) != 1 or defines_own_function(ctx, fn):
        return None
    if ctx.reported.covered(node.start_byte, node.end_byte, {"PORT024"}):
        return None  # a 64-bit ballot given to __ffs: PORT024's fix makes the call __ffsll of it
    cuda_type, fine = _BIT_SCANS[fn]
    kind = ExprTypes(ctx, args[0]).of(args[0])
    if kind is None or kind[0] in fine:
        return None  # one overload matches; an unknown type is not guessed at
    arg = args[0]
    spelled = "unsigned int" if kind[0] == "coord" else kind[1]
    return Hit(node.start_byte, node.end_byte,
               {"call": compact(ctx.text(node), 50), "fn": fn, "arg": compact(ctx.text(arg), 30), "type": spelled,
                "cuda_type": cuda_type},
               fix(f"cast the argument to CUDA's parameter type: `{fn}(({cuda_type})({compact(ctx.text(arg), 30)}))` "
                   "(the conversion CUDA makes implicitly)",
                   edit(arg.start_byte, arg.start_byte, f"({cuda_type})("), edit(arg.end_byte, arg.end_byte, ")")))
