#!/usr/bin/env python3
"""Generate porter/mapping/data/calls/roc_blas_args.json: for each cuBLAS and cuSOLVER function that
``porter convert --roc`` renames to a rocBLAS or rocSOLVER function (AMD's HIPIFY tables, the ``roc``
column), compare the two parameter lists and write the argument edits that make the call fit the
roc* signature, or record that the arguments differ.

Inputs (not in the repository; see the data file's ``sources``):
  --cublas    NVIDIA's include/cublas_api.h (pip download --no-deps nvidia-cublas-cu12)
  --cusolver  NVIDIA's include/cusolverDn.h (pip download --no-deps nvidia-cusolver-cu12)
  --rocblas   the folder rocblas/ of Debian 13's librocblas-dev (dpkg-deb -x; not installed)
  --rocsolver the folder rocsolver/ of Debian 13's librocsolver-dev

The declarations are parsed by scripts/header_declarations.py's ``declarations`` (imported); the
names are porter's own (its mapping database under --roc), so every rename porter writes is compared.  Only these shapes become edits, each with its reason in the data:
  * cuSOLVER passes a workspace and its size (``Workspace``/``work`` and ``Lwork``/``lwork``) that the
    rocSOLVER function does not take: drop both (rocSOLVER allocates its workspace itself, from the
    rocblas_handle: its memory model); the dropped arguments must be free of side effects (``pure``)
  * rocBLAS takes an output matrix D (``d, d_type, ldd``; ``stride_d``) after C, and its doc comment says
    that D may be C when d_type is c_type and ldd is ldc: pass C's arguments again (cuBLAS writes C in
    place); they must be free of side effects (``pure``).  With it, the trailing arguments rocBLAS adds:
    ``solution_index`` 0 (its doc comment: the default solution when <= 0) and ``flags``
    rocblas_gemm_flags_none; and cuBLAS's ``cublasComputeType_t`` where rocBLAS takes a
    ``rocblas_datatype`` (``values``): the constants whose comment in cublas_api.h says "- default"
    (CUBLAS_COMPUTE_32F: float) become the rocblas_datatype of that type (rocblas-types.h's comment
    says the same type); another constant or a variable: the call is left as written and reported
With any of these, or with parameter lists that otherwise match: each pointer to cuComplex /
cuDoubleComplex (the port's hipFloatComplex / hipDoubleComplex), or array of such pointers (the batched
functions), where rocBLAS/rocSOLVER takes rocblas_float_complex / rocblas_double_complex of the same
precision, is wrapped in ``reinterpret_cast<T>(...)``, T the roc* parameter's declared type (no const
where rocBLAS's has none); a null pointer constant is passed as it is (``keep_null``).  This is the
rocSPARSE generator's ``complex_casts``.  rocblas-complex-types.h (rocBLAS 5.5) declares, for hipcc,
``rocblas_complex_num<T>`` with two T members and static_asserts that it is standard-layout, trivial and
twice the size of T; for C or a host compiler ``struct { T x, y; }``; with ROCM_MATHLIBS_API_USE_HIP_COMPLEX
HIP's own type: hipFloatComplex / hipDoubleComplex (HIP's float2 / double2) have that layout, and C++
converts neither pointer to the other.
Everything else that differs: no edit, recorded with the roc* parameter list ("complex_value": a complex
number passed by value, which a pointer cast cannot fix; "differs": anything else).
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen_roc_sparse_args import _fits, complex_casts  # noqa: E402  (the rocSPARSE generator's argument plans)
from header_declarations import declarations, fail, finish, parameter_lists, read_header  # noqa: E402  (shared)

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "porter" / "mapping" / "data" / "calls" / "roc_blas_args.json"

_NOISE = re.compile(r"\b(?:CUBLASAPI|CUBLASWINAPI|CUSOLVERAPI|ROCBLAS_EXPORT|ROCSOLVER_EXPORT|__host__|__device__)\b"
                    r"|\b(?:CUSOLVER|CUBLAS|ROCBLAS|ROCSOLVER)_DEPRECATED\w*\s*(?:\([^()]*\))?")
_ROC_COMPLEX = {"rocblas_float_complex": "C", "rocblas_double_complex": "Z"}  # complex_casts' precision keys
_CAST = {"hipFloatComplex": "rocblas_float_complex", "hipDoubleComplex": "rocblas_double_complex"}
_COMPLEX = {"cuComplex": "hipFloatComplex", "cuFloatComplex": "hipFloatComplex", "hipComplex": "hipFloatComplex",
            "cuDoubleComplex": "hipDoubleComplex"}  # what the port passes (AMD's tables: cuComplex -> hipComplex)
_WORKSPACE = re.compile(r"(?i)(work(space)?|lwork)$")
_D_OF_C = {"d": "c", "d_type": "c_type", "ldd": "ldc", "stride_d": "stride_c"}
# rocblas_gemm_ex's doc comment on d: "If d and c pointers are to the same matrix then d_type must equal
# c_type and ldd must equal ldc" (rocblas-functions.h, rocBLAS 5.5)
# (rocblas_gemm_batched_ex: "If d and c are the same array of matrix pointers then ...")
_ALIAS_DOC = re.compile(r"If d and c (?:pointers are to the same matrix|are the same array of matrix pointers)\s+"
                        r"then d_type must equal c_type\s+and ldd must equal ldc")


_INTS = {"rocblas_int": 4, "int32_t": 4, "longlongint": 8, "int64_t": 8, "rocblas_stride": 8}
_ARRAY = re.compile(r"\b([A-Za-z_]\w*)\s*\[\s*\]")


def _fits_blas(cuda: list[str], roc: list[str]) -> bool:
    """``_fits``, an integer value where rocBLAS takes one at least as wide (``long long strideA`` as
    ``rocblas_stride``, int64_t: C++ converts it without loss), and any pointer where rocBLAS takes a
    ``void*`` (the batched _ex functions' arrays of matrix pointers)."""
    return len(cuda) == len(roc) and all(_fits([a], [b]) or _INTS.get(a, 99) <= _INTS.get(b, 0)
                                         or b == "void*" and a.endswith("*") for a, b in zip(cuda, roc))


def parse(text: str, prefix: str, consts: dict | None = None) -> dict[str, list[tuple[str, str]]]:
    """``declarations`` of a header whose array parameters (``const float* const Aarray[]``) are
    written as pointers first (the shared parser takes the name before ``[]`` for a type)."""
    return declarations(_ARRAY.sub(r"* \1", text), prefix, consts, noise=_NOISE)


def declared_types(text: str, prefix: str) -> dict[str, list[str]]:
    """{function: [each parameter's type as declared, with its consts: ``const rocblas_float_complex* const*``]}
    (an array parameter written as a pointer), for the complex casts to name."""
    out: dict[str, list[str]] = {}
    for name, params in parameter_lists(_ARRAY.sub(r"* \1", text), prefix, _NOISE).items():
        params = " ".join(params.split())
        types = []
        for p in ([] if params in ("", "void") else params.split(",")):
            words = p.replace("*", " * ").split()
            if len(words) > 1 and re.match(r"[A-Za-z_]\w*$", words[-1]) and words[-1] != "const":
                words = words[:-1]
            t = re.sub(r"\s*\*", "*", " ".join(words))
            # a top-level const (a value, or the pointer itself) is not the caller's business
            types.append(re.sub(r"\bconst\s+", "", t) if "*" not in t else re.sub(r"\*\s*const$", "*", t))
        out[name] = types
    return out


def _renames() -> dict[str, str]:
    """CUDA name -> the name ``porter convert --roc`` writes, of the cuBLAS and cuSOLVER names porter's
    mapping database knows (AMD's HIPIFY tables: the roc column where there is one, else the hip one)."""
    sys.path.insert(0, str(ROOT))
    from porter.mapping import load_database

    return {name: e.target(True) for name, e in load_database().identifiers.items()
            if name.startswith(("cublas", "cusolver", "CUBLAS", "CUSOLVER", "cuComplex", "cuDoubleComplex",
                                "cuFloatComplex", "cudaDataType", "cudaStream_t")) and e.target(True)}


def type_map() -> dict[str, str]:
    """cuBLAS and cuSOLVER type names -> what the port writes (rocBLAS's under --roc)."""
    out = dict(_renames())
    out.update({"int": "rocblas_int", "cusolver_int_t": "rocblas_int", "cudaStream_t": "hipStream_t"})
    return out


def roc_names() -> dict[str, str]:
    """cuBLAS/cuSOLVER function -> the rocBLAS/rocSOLVER function porter renames it to under --roc."""
    return {c: r for c, r in _renames().items()
            if c.startswith(("cublas", "cusolver")) and r.startswith(("rocblas_", "rocsolver_")) and r != "rocblas_handle"}


def _norm(t: str, types: dict[str, str]) -> str:
    base, stars = t.rstrip("*"), len(t) - len(t.rstrip("*"))
    return _COMPLEX.get(base, types.get(base, base)) + "*" * stars


def _castable(t: str) -> str:
    """The port's complex pointer (or array of them) as the rocBLAS complex type a cast makes it."""
    base = t.rstrip("*")
    return _CAST.get(base, base) + t[len(base):] if base != t else t


def compute_values(cublas_text: str, types_text: str) -> dict[str, str]:
    """{cublasComputeType_t constant: rocblas_datatype constant} for the constants whose comment in
    cublas_api.h names a type with "- default" and whose rocblas_datatype's comment names that type."""
    roc = {}
    for name, what in re.findall(r"\b(rocblas_datatype_\w+)\s*=\s*\d+,\s*/\*\*<\s*([^*]*?)\s*\*/", types_text):
        roc[what] = name
    words = {"half": "16-bit floating point, real", "float": "32-bit floating point, real",
             "double": "64-bit floating point, real", "signed 32-bit int": "32-bit signed integer, real"}
    out = {}
    for name, what in re.findall(r"\b(CUBLAS_COMPUTE_\w+)\s*=\s*\d+,\s*/\*\s*(.*?)\s*-\s*default\s*\*/", cublas_text):
        if what in words and words[what] in roc:
            out[name] = roc[words[what]]
    return out


def edits_for(cname: str, rname: str, cparams, rparams, types, alias_doc: bool,
              values: dict[str, str], declared: list[str] | None = None) -> tuple[list | None, str, list[int]]:
    """(argument plan, reason, pure) or (None, what differs, []).  A plan lists, for each roc*
    parameter, {"arg": i} (the call's i-th argument; "values": its text must be one of these constants,
    replaced by the value; "format": wrapped, '{}' its text, "keep_null": a null pointer constant is not)
    or {"text": constant}; ``pure``: the call's arguments that are dropped or passed twice (an argument
    with a side effect leaves the call as written).  ``declared``: the roc* parameters' declared types
    (``declared_types``), named by the complex casts."""
    plan, why, pure = _edits_for(cname, rname, cparams, rparams, types, alias_doc, values)
    if plan is None:
        if any(t.rstrip("*") == t and t in _ROC_COMPLEX for t, _n in rparams) or any(
                t in _COMPLEX for t, _n in cparams):
            return None, "complex_value", []
        return plan, why, pure
    same = plan == []
    if same:
        plan = [{"arg": i} for i in range(len(cparams))]
    cast = complex_casts(plan, cparams, rparams, [False] * len(rparams), _ROC_COMPLEX,
                         declared or [t for t, _n in rparams])
    if not cast:
        return ([] if same else plan), why, pure
    roc_type = next(iter(cast.values()))
    real = roc_type.split("_")[1]
    reason = (f"the complex pointers ({', '.join(cast)}) are passed as {roc_type}'s "
              f"(reinterpret_cast to the declared parameter type): the port's "
              f"{'hipDoubleComplex' if real == 'double' else 'hipFloatComplex'} (HIP's {real}2, two {real}s) does "
              f"not convert to rocBLAS's {roc_type}, which rocblas-complex-types.h declares with the same layout "
              f"(C++: rocblas_complex_num<{real}>, static_asserts: standard-layout, trivial, twice the size of a "
              f"{real}; C: struct {{ {real} x, y; }})")
    return plan, (f"{why}; {reason}" if why else reason), pure


def _edits_for(cname: str, rname: str, cparams, rparams, types, alias_doc: bool,
               values: dict[str, str]) -> tuple[list | None, str, list[int]]:
    """``edits_for`` without the complex casts, comparing the port's complex pointers as the rocBLAS
    type the cast makes them."""
    ct = [_castable(_norm(t, types)) for t, _ in cparams]
    rt = [_norm(t, types) for t, _ in rparams]
    if _fits_blas(ct, rt):
        return [], "", []
    # cuSOLVER's workspace and its size: rocSOLVER takes neither
    work = [i for i, (_t, n) in enumerate(cparams) if _WORKSPACE.match(n)]
    if work and cname.startswith("cusolverDn") and _fits_blas([t for i, t in enumerate(ct) if i not in work], rt):
        names = ", ".join(f"`{cparams[i][1]}`" for i in work)
        plan = [{"arg": i} for i in range(len(ct)) if i not in work]
        for a in plan:  # cuSOLVER's getrf: a NULL devIpiv is LU without pivoting (rocSOLVER: the _npvt function)
            if cparams[a["arg"]][1] == "devIpiv":
                a["not_null"] = True
        return plan, (
            f"{rname} takes no workspace ({names} of {cname} are not passed): rocSOLVER allocates its workspace "
            "itself, from the rocblas_handle (rocSOLVER's memory model: 'pointers to the workspace are not "
            "explicitly passed to rocSOLVER functions as arguments'; by default the device memory is allocated "
            "and grown automatically)" + ("; a null devIpiv (cuSOLVER: no pivoting) leaves the call as written: "
                                          f"{rname}_npvt is that, not {rname}" if any("not_null" in a for a in plan) else "")), work
    # rocBLAS's D output matrix, which may be C: C's arguments again
    rnames = [n for _t, n in rparams]
    cnames = [n.lower() for _t, n in cparams]
    if alias_doc and "d" in rnames:
        plan, pure, why = [], [], []
        ci = 0
        for j, (t, n) in enumerate(rparams):
            if n in _D_OF_C and _D_OF_C[n] in rnames:
                src = plan[rnames.index(_D_OF_C[n])]
                if "arg" not in src:
                    return None, "differs", []
                plan.append({"arg": src["arg"]})
                pure.append(src["arg"])
                continue
            if n == "solution_index" and rt[j] == "int32_t":
                plan.append({"text": "0"})
                continue
            if n == "flags" and rt[j] == "uint32_t":
                plan.append({"text": "rocblas_gemm_flags_none"})
                continue
            if ci >= len(ct):
                return None, "differs", []
            if n == "compute_type" and ct[ci] in ("rocblas_computetype", "cublasComputeType_t") \
                    and rt[j] == "rocblas_datatype" and values:
                plan.append({"arg": ci, "values": values})
                why.append(f"`{cparams[ci][1]}`: a cublasComputeType_t constant whose comment in cublas_api.h says "
                           "'<type> - default' is passed as the rocblas_datatype of that type (rocblas-types.h), "
                           "rocBLAS's compute_type ('the datatype of computation', the type of alpha and beta); "
                           "another value leaves the call as written")
                ci += 1
                continue
            if not _fits_blas([ct[ci]], [rt[j]]):
                return None, "differs", []
            plan.append({"arg": ci})
            ci += 1
        if ci != len(ct) or not any("values" in a for a in plan) and "computeType".lower() in cnames:
            return None, "differs", []
        dup = ", ".join(f"`{rnames[j]}`" for j, a in enumerate(plan) if rnames[j] in _D_OF_C)
        return plan, (f"{rname} writes its result to D ({dup}), which its doc comment lets be C when d_type is "
                      f"c_type and ldd is ldc: {cname} writes C in place, so C's arguments are passed again; "
                      f"solution_index 0 (the doc comment: the default solution when <= 0), flags "
                      f"rocblas_gemm_flags_none" + ("; " + "; ".join(why) if why else "")), sorted(set(pure))
    return None, "differs", []


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cublas", required=True, type=Path)
    ap.add_argument("--cublas-version", required=True)
    ap.add_argument("--cusolver", required=True, type=Path)
    ap.add_argument("--cusolver-version", required=True)
    ap.add_argument("--rocblas", required=True, type=Path, help="the rocblas/ include folder")
    ap.add_argument("--rocblas-version", required=True)
    ap.add_argument("--rocsolver", required=True, type=Path, help="the rocsolver/ include folder")
    ap.add_argument("--rocsolver-version", required=True)
    ap.add_argument("-o", "--output", type=Path, default=OUT)
    args = ap.parse_args(argv)
    try:
        cublas_text = read_header(args.cublas)
        cu = parse(cublas_text, "cublas")
        cu.update(parse(read_header(args.cusolver), "cusolver"))
        roc_texts = {p.name: read_header(p)
                     for folder in (args.rocblas, args.rocsolver) for p in sorted(folder.rglob("*.h"))}
    except OSError as e:
        return fail("gen_roc_blas_args", e)
    roc, roc_header, roc_const, roc_declared = {}, {}, {}, {}
    for header, text in roc_texts.items():
        for prefix in ("rocblas_", "rocsolver_"):
            consts: dict[str, list[bool]] = {}
            declared = declared_types(text, prefix)
            for name, params in parse(text, prefix, consts).items():
                if name not in roc:
                    roc[name], roc_header[name], roc_const[name] = params, header, consts[name]
                    roc_declared[name] = declared.get(name)
    fn_text = roc_texts.get("rocblas-functions.h", "")
    types = type_map()
    values = compute_values(cublas_text, roc_texts.get("rocblas-types.h", ""))
    functions = {}
    # not_cuda: a type or a function cublas_api.h/cusolverDn.h do not declare (legacy cublasInit);
    # not_roc: a function rocBLAS/rocSOLVER of this release does not declare (the _64 ones, math mode)
    # complex_cast: edits that wrap complex pointers; complex_only: those whose only edit that is;
    # complex_value: a complex number passed by value (no edit)
    counts = {"compared": 0, "same": 0, "edit": 0, "complex_cast": 0, "complex_only": 0, "complex_value": 0,
              "differs": 0, "not_cuda": 0, "not_roc": 0}
    for cname, rname in sorted(roc_names().items()):
        # (cublas_v2.h: #define cublasSaxpy cublasSaxpy_v2, cublasSaxpy_64 cublasSaxpy_v2_64)
        cparams = cu.get(cname) or cu.get(cname + "_v2") or cu.get(re.sub(r"_64$", "_v2_64", cname))
        rparams = roc.get(rname)
        if cparams is None or rparams is None:
            counts["not_cuda" if cparams is None else "not_roc"] += 1
            continue
        counts["compared"] += 1
        m = re.search(r"\b" + re.escape(rname) + r"\s*\(", fn_text)
        doc = fn_text[max(0, fn_text.rfind("/*", 0, m.start()) if m else 0):m.start()] if m else ""
        declared = roc_declared[rname]
        plan, why, pure = edits_for(cname, rname, cparams, rparams, types, bool(_ALIAS_DOC.search(doc)), values,
                                    declared if declared and len(declared) == len(rparams) else None)
        if plan == []:
            counts["same"] += 1
            continue
        entry = {"roc": rname, "cuda_args": len(cparams), "header": roc_header[rname],
                 "roc_params": [f"{d} {n}".strip() for d, (_t, n) in zip(declared, rparams)]
                 if declared and len(declared) == len(rparams) else
                 [f"{'const ' if c else ''}{t} {n}".strip() for (t, n), c in zip(rparams, roc_const[rname])]}
        if plan is None:
            entry["differs"] = why
            counts[why] += 1
        else:
            entry.update(args=plan, why=why, pure=pure)
            counts["edit"] += 1
            if any("keep_null" in a for a in plan):
                counts["complex_cast"] += 1
                counts["complex_only"] += all(set(a) <= {"arg", "format", "keep_null"} for a in plan) and [
                    a["arg"] for a in plan] == list(range(len(cparams)))
        functions[cname] = entry
    return finish(
        args.output,
        about=("cuBLAS and cuSOLVER calls whose rocBLAS/rocSOLVER counterpart (porter convert --roc) takes other "
               "arguments. 'args': the roc* function's arguments in order, each the call's argument 'arg' (0-based; "
               "'values': the argument's text must be one of these constants and is replaced by its value) or a "
               "constant 'text'; 'format' wraps the argument ('{}' is its text: the complex pointers' reinterpret_cast "
               "to rocBLAS's complex type), 'keep_null': a null pointer constant is passed unwrapped; 'not_null': a "
               "null pointer constant there leaves the call as written; 'pure': the call's arguments that are "
               "dropped or passed twice, which must be free of side effects; 'why' says why each edit keeps the "
               "meaning. 'differs': no rewrite, the call is reported with 'roc_params' ('complex_value': a complex "
               "number passed by value). 'cuda_args': the CUDA signature's argument "
               "count; a call with another count is left alone. Generated by scripts/gen_roc_blas_args.py; read "
               "by porter/mapping/roc_sparse_args.py (load_blas_call_args)."),
        sources={
            "cuda": (f"NVIDIA cublas_api.h from nvidia-cublas-cu12 {args.cublas_version}, cusolverDn.h from "
                     f"nvidia-cusolver-cu12 {args.cusolver_version} (pip)"),
            "roc": (f"rocblas/ headers of librocblas-dev {args.rocblas_version}, rocsolver/ headers of "
                    f"librocsolver-dev {args.rocsolver_version} (Debian 13)"),
            "names": ("porter's mapping database (porter.mapping.load_database, Entry.target(roc=True)): the names "
                      "porter convert --roc writes"),
            "workspace": ("rocSOLVER documentation, Memory model (rocm.docs.amd.com/projects/rocSOLVER, "
                          "userguide/memory): workspace pointers are not passed to rocSOLVER functions"),
        },
        counts=counts,
        functions=functions,
    )


if __name__ == "__main__":
    sys.exit(main())
