"""PORT185 older hipBLAS types: without ``--roc``, a cuBLAS call whose hipBLAS function, in the hipBLAS of
the target ROCm, takes older types than the port passes, so the port does not compile there.

The facts are porter/translate/rules.toml [[hipblas_older_types]] (each table: `kind`, the release `until`
which the port compiles from, the CUDA functions with their argument counts):

- "half" (below ROCm 5.5): cublasHgemm & co. pass ``__half`` pointers, which hipBLAS declares hipblasHalf,
  a uint16_t until HIPBLAS_USE_HIP_HALF (which porter defines) came with 5.5.  The fix casts each such
  argument to hipBLAS's parameter type: the same 16 bits.  An argument that is a null pointer constant
  (it converts) or already one of hipblasHalf's pointers is left alone; a call with no other is not reported.
- "datatype" (below ROCm 6.0): cublasDotEx & co. and cublasGemmEx & co. become hipBLAS's hipblasDotEx_v2 &
  co. (hipDataType, hipblasComputeType_t), which came with 6.0 (PORT032's finding, which this one replaces at
  the call); older hipBLAS has hipblasDotEx, hipblasGemmEx & co. with cuBLAS's parameters and hipBLAS's own
  hipblasDatatype_t.  The fix calls that function with the hipblasDatatype_t constant of each CUDA_R_/CUDA_C_
  type argument and of the compute type (`compute`: a cublasComputeType_t or, in CUDA 10 code, a cudaDataType),
  and HIPBLAS_GEMM_DEFAULT for a cublasGemmAlgo_t constant (`algo`), where every type argument is a constant
  with such a counterpart.  A compute type that only allows reduced precision (FAST_TF32 & co.) gets a fix for
  review; a pedantic one, or one held in a variable, none.

A call whose argument count is not CUDA's (a macro supplies some) is reported without a fix.

From 5.5 on, a file that calls a half function but includes no hipBLAS header (nor a cuBLAS one the port
includes as hipblas.h) and does not name HIPBLAS_USE_HIP_HALF relies on another file's include, which may come
without the define: reported once, at its first such call, without a fix (porter defines it in the headers it
converts; otherwise the build's flags must).  Only a file that names a half function does this work."""

from __future__ import annotations

import functools
import re
from typing import NamedTuple

from porter.findings.engine import Hit
from porter.findings.predicates import file_check
from porter.findings.predicates.common import LibraryFacts, edit, fix


class _Fact(NamedTuple):
    kind: str  # "half" | "datatype"
    until: str  # the first ROCm release whose hipBLAS takes the port's call
    args: int  # CUDA's argument count
    cast: dict[int, str]  # half: argument -> hipBLAS's parameter type
    hip: str  # datatype: the hipBLAS function of the older releases
    types: tuple[int, ...]  # datatype: the data-type arguments
    constants: dict[str, str]  # datatype: CUDA's constant -> hipBLAS's
    compute: int | None = None  # datatype: the compute-type argument (GEMM), if any
    algo: int | None = None  # datatype: the algorithm argument (GEMM), if any
    compute_types: dict[str, str] = {}  # cublasComputeType_t constant -> hipblasDatatype_t
    compute_review: frozenset[str] = frozenset()  # ... whose fix changes the precision: for review
    compute_without: frozenset[str] = frozenset()  # compute types no hipblasDatatype_t computes
    algos: frozenset[str] = frozenset()  # cublasGemmAlgo_t constants
    algo_hip: str = ""  # hipBLAS's one algorithm
    arrays: dict[int, str] = {}  # datatype: pointer-array argument -> hipBLAS's parameter type (a const_cast)


def _tables() -> list[dict]:
    from porter.translate.engine import structure_rules

    return list(structure_rules().get("hipblas_older_types", ()))


def _load() -> dict[bytes, _Fact]:
    out = {}
    for table in _tables():
        for name, f in table["functions"].items():
            out[name.encode()] = _Fact(table["kind"], table["until"], f["args"],
                                       {int(k): v for k, v in f.get("cast", {}).items()}, f.get("hip", ""),
                                       tuple(f.get("types", ())), table.get("constants", {}),
                                       f.get("compute"), f.get("algo"), table.get("compute_types", {}),
                                       frozenset(table.get("compute_review", ())),
                                       frozenset(table.get("compute_without", ())),
                                       frozenset(table.get("algos", ())), table.get("algo_hip", ""),
                                       {int(k): v for k, v in f.get("arrays", {}).items()})
    return out


@functools.cache
def _older(target: str, until: str) -> bool:
    from porter.mapping import version_key

    return version_key(target) < version_key(until)


@functools.cache
def _newest_until() -> str:
    from porter.mapping import version_key

    return max((t["until"] for t in _tables()), key=version_key, default="0")


@functools.cache
def _half_names() -> tuple[bytes, ...]:
    """The CUDA names of the "half" tables (cublasHgemm & co.)."""
    return tuple(name.encode() for t in _tables() if t["kind"] == "half" for name in t["functions"])


def _applies(ctx) -> bool:
    """An older target (the tables' calls), or a newer one in a file that names a half function (the define)."""
    if ctx.options.roc or b"cublas" not in ctx.source:
        return False
    return _older(ctx.options.target, _newest_until()) or any(ctx.mentions(n) for n in _half_names())


_CALLS = LibraryFacts(_load, _applies)


@functools.cache
def _half_rule() -> dict:
    """rules.toml [[define_before_include]] for hipBLAS's half functions ({} where there is none)."""
    from porter.translate.engine import structure_rules

    return next((rule for rule in structure_rules().get("define_before_include", ()) if "hipblasHgemm" in rule["names"]), {})


def _half_define() -> tuple[str, frozenset[str]]:
    """That rule's macro and the headers it precedes."""
    rule = _half_rule()
    return (rule["define"], frozenset(rule["before"])) if rule else ("", frozenset())


def _relies_on_another_include(ctx) -> bool:
    """Whether the file includes no header that is (or whose port is) one the half define precedes, and does
    not name the macro itself: the hipBLAS include its half calls need comes from another file."""
    macro, before = _half_define()
    if not macro or ctx.mentions(macro.encode()):
        return False
    from porter.mapping import load_database

    headers = load_database().headers

    def hipblas(inner: str) -> bool:
        entry = headers.get(inner)
        return inner in before or (entry is not None and entry.target(False) in before)

    quoted = []
    for node in ctx.index.includes:
        inner = ctx.source[node.start_byte + 1:node.end_byte - 1].decode("utf-8", "replace")
        if hipblas(inner):
            return False
        if ctx.source[node.start_byte:node.start_byte + 1] == b'"':
            quoted.append(inner)
    # a project header it includes that porter gives the define ([[define_before_include]] in_headers: it
    # includes cuBLAS and CUDA's half type): the include the call relies on comes after the define
    if quoted and ctx.file:
        from porter.findings.values import header_files
        from porter.translate.engine import header_gets_define

        def port_header(inner: str) -> str:
            entry = headers.get(inner)
            return entry.target(False) if entry is not None and entry.target(False) else inner

        rule = _half_rule()
        for _shown, path, _facts in header_files(ctx.file, quoted, ctx.path):
            try:
                text = open(path, "rb").read()
            except OSError:
                continue
            includes = [port_header(m.decode("utf-8", "replace")) for m in _INCLUDED.findall(text)]
            if header_gets_define(rule, text, path, includes):
                return False
    return True


_INCLUDED = re.compile(rb"^[ \t]*#[ \t]*include[ \t]*[<\"]([^>\"\n]+)[>\"]", re.M)


def _define_elsewhere(ctx, pos, end, name, hip, fact):
    macro, _before = _half_define()
    problem = (f"not where the hipblas.h this call relies on is included without `#define {macro}` before it. This file includes "
               f"no hipBLAS header, so porter adds no define here; the header or file that includes hipblas.h for it "
               f"gets hipBLAS's hipblasHalf, a uint16_t unless {macro} is defined first (from ROCm {fact.until} it then "
               f"is __half), and the __half pointers cuBLAS takes do not convert. porter adds the define, guarded, to "
               f"the headers it converts that include cuBLAS; for one it does not convert, add -D{macro} to the "
               f"build's flags (porter build --flag=-D{macro})")
    return Hit(pos, end, {"name": name, "hip": hip, "target": ctx.options.target, "problem": problem})

_NULL = re.compile(rb"^\(*\s*(?:nullptr|NULL|0)\s*\)*$")
_HALF_ALREADY = re.compile(rb"^\s*(?:reinterpret_cast\s*<\s*(?:const\s+)?hipblasHalf\b"
                           rb"|\(\s*(?:const\s+)?hipblasHalf\s*\*)")  # already one of hipblasHalf's pointers


def _cast_to(text: bytes, typ: str) -> bool:
    """Whether ``text`` is already a cast to ``typ`` (a C-style cast or a const_cast/reinterpret_cast)."""
    flat = b"".join(text.split()).decode("utf-8", "replace")
    pattern = re.escape("".join(typ.split()))
    return re.match(rf"^(?:\({pattern}\)|(?:const|reinterpret)_cast<{pattern}>\()", flat) is not None


def _plain(text: bytes) -> str:
    text = b"".join(text.split())
    while text.startswith(b"(") and text.endswith(b")"):
        text = text[1:-1]
    return text.decode("utf-8", "replace")


def _half(ctx, pos, end, name, hip, spans, fact):
    source = ctx.source
    edits, by_type = [], {}
    for i, typ in sorted(fact.cast.items()):
        s, e = spans[i]
        text = source[s:e]
        if _NULL.match(b"".join(text.split())) or _HALF_ALREADY.match(text):
            continue  # converts as it is
        edits += [edit(s, s, f"reinterpret_cast<{typ}>("), edit(e, e, ")")]
        by_type.setdefault(typ, []).append(f"`{_plain(text)}`")
    if not edits:
        return None
    shown = "; ".join(f"{', '.join(args)} as `{typ}`" for typ, args in by_type.items())
    problem = (f"hipBLAS before ROCm {fact.until} declares these pointers with hipblasHalf, a uint16_t there "
               f"(HIPBLAS_USE_HIP_HALF, which porter defines to make it __half, came with {fact.until}), so the __half "
               f"pointers cuBLAS takes do not convert; pass {shown} (reinterpret_cast: the same 16-bit values)")
    return Hit(pos, end, {"name": name, "hip": hip, "target": ctx.options.target, "problem": problem},
               fix("cast the __half pointer arguments to hipBLAS's hipblasHalf pointers (the same bits)", *edits))


def _datatype(ctx, pos, end, name, hip, spans, fact):
    source = ctx.source
    edits, unknown, pairs, review, without = [edit(pos, end, fact.hip)], [], {}, [], []
    known = set(fact.constants.values())

    def replace(i, value, text):
        s, e = spans[i]
        edits.append(edit(s, e, value))
        pairs[text] = value

    for i in fact.types:
        text = _plain(source[spans[i][0]:spans[i][1]])
        if text in known:
            continue
        value = fact.constants.get(text)
        if value is None:
            unknown.append(f"`{text}`")
        else:
            replace(i, value, text)
    if fact.compute is not None:
        text = _plain(source[spans[fact.compute][0]:spans[fact.compute][1]])
        value = fact.compute_types.get(text) or fact.constants.get(text)
        if text in known:
            pass
        elif value is not None:
            replace(fact.compute, value, text)
            if text in fact.compute_review:
                review.append(text)
        elif text in fact.compute_without:
            without.append(text)
        else:
            unknown.append(f"`{text}`")
    if fact.algo is not None:
        text = _plain(source[spans[fact.algo][0]:spans[fact.algo][1]])
        if text in fact.algos:  # a variable keeps its value: hipblasGemmAlgo_t is in every hipBLAS
            replace(fact.algo, fact.algo_hip, text)
    arrays = []
    for i, typ in sorted(fact.arrays.items()):
        s, e = spans[i]
        if not _cast_to(source[s:e], typ):
            edits.extend((edit(s, s, f"const_cast<{typ}>("), edit(e, e, ")")))
            arrays.append(f"`{_plain(source[s:e])}` as `{typ}`")
    problem = (f"`{hip}` came with ROCm {fact.until}; hipBLAS before it has `{fact.hip}`, which takes cuBLAS's "
               "arguments with the data types" + (" and the compute type" if fact.compute is not None else "") +
               " as hipBLAS's own enum hipblasDatatype_t" +
               (f" (and the algorithm as hipblasGemmAlgo_t, whose one value is {fact.algo_hip})"
                if fact.algo is not None else ""))
    the_fix = None
    if without:
        problem += (f"; `{without[0]}` asks for the declared precision in every phase of the computation, which no "
                    "hipblasDatatype_t promises (hipBLAS leaves cuBLAS's pedantic compute types out for rocBLAS), "
                    "so porter writes no fix: choose the compute type yourself")
    elif unknown:
        problem += (f"; {', '.join(unknown)} {'is' if len(unknown) == 1 else 'are'} not a constant porter can map: "
                    "call it with the hipblasDatatype_t constant of each type (HIPBLAS_R_16F for CUDA_R_16F, "
                    "HIPBLAS_R_32F for CUDA_R_32F" + (" or CUBLAS_COMPUTE_32F" if fact.compute is not None else "")
                    + ", ...)")
    else:
        problem += ": call it with " + (", ".join(f"{v} for {k}" for k, v in pairs.items()) or "those constants")
        if arrays:
            problem += (f", and pass {', '.join(arrays)} (const_cast: hipBLAS declares its pointer arrays without "
                        "cuBLAS's const and only reads them)")
        if review:
            problem += (f"; `{review[0]}` only allows cuBLAS to round the 32-bit inputs to a narrower type on "
                        f"tensor cores, and hipBLAS before {fact.until} has no such compute type: {pairs[review[0]]} "
                        "computes in full single precision, a result cuBLAS allows but not the one an NVIDIA GPU "
                        "gives, and slower, so the fix is for review")
        the_fix = fix(f"call `{fact.hip}` with the hipblasDatatype_t constants of the CUDA data types"
                      + (" and compute type" if fact.compute is not None else ""), *edits, safe=not review)
    return Hit(pos, end, {"name": name, "hip": hip, "target": ctx.options.target, "problem": problem}, the_fix)


@file_check("PORT185", regions=_CALLS.regions)
def older_hipblas_types(ctx):
    from porter.mapping import load_database

    ids = load_database().identifiers
    target = ctx.options.target
    hits = []
    elsewhere = None  # a newer target: whether the half calls rely on another file's hipBLAS include
    for pos, end, word, spans, fact in _CALLS.calls(ctx):
        older = _older(target, fact.until)
        if not older and fact.kind != "half":
            continue
        name = word.decode()
        entry = ids.get(name)
        hip = entry.target(False) if entry is not None and entry.renames else None
        if not hip:
            continue
        if not older:  # reported once, at the file's first half call: the one define serves them all
            if elsewhere is None:
                elsewhere = _relies_on_another_include(ctx)
                if elsewhere:
                    hits.append(_define_elsewhere(ctx, pos, end, name, hip, fact))
            continue
        if len(spans) != fact.args:
            problem = (f"the call passes {len(spans)} arguments where cuBLAS's list has {fact.args} (a macro supplies "
                       "some), so porter writes no fix" +
                       (f"; hipBLAS before ROCm {fact.until} takes its half-precision pointers as hipblasHalf* "
                        "(uint16_t*): cast each __half pointer with reinterpret_cast" if fact.kind == "half" else
                        f"; hipBLAS before ROCm {fact.until} has `{fact.hip}`, which takes the data types"
                        + (" and the compute type" if fact.compute is not None else "") +
                        " as hipblasDatatype_t (HIPBLAS_R_16F for CUDA_R_16F, ...)"))
            hits.append(Hit(pos, end, {"name": name, "hip": hip, "target": target, "problem": problem}))
            continue
        hit = (_half if fact.kind == "half" else _datatype)(ctx, pos, end, name, hip, spans, fact)
        if hit is not None:
            hits.append(hit)
    return hits
