#!/usr/bin/env python3
"""Generate porter/mapping/data/calls/roc_sparse_args.json: for each cuSPARSE function that
``porter convert --roc`` renames to a rocSPARSE function (AMD's HIPIFY tables, the ``roc``
column), compare the two parameter lists and write the argument edits that make the call fit
rocSPARSE's signature, or record that the arguments differ.

Inputs (not in the repository; see the data file's ``sources``):
  --cusparse  NVIDIA's include/cusparse.h (pip download --no-deps nvidia-cusparse-cu12)
  --hipsparse hipsparse/hipsparse.h (Debian 12 libhipsparse-dev 5.3.3): hipSPARSE declares each
              cuSPARSE function under the hipsparse prefix with cuSPARSE's parameter list; used for
              the legacy functions CUDA 12's header no longer declares (csrmv, csrmm, ...)
  --rocsparse rocsparse/rocsparse-functions.h (Debian 12 librocsparse-dev 5.3.0)

The parameter lists are parsed by scripts/header_declarations.py's ``declarations`` (imported).

Only these shapes become edits, each with its reason written into the data:
  * rocSPARSE takes one more ``rocsparse_mat_info`` its documentation says may be NULL: insert nullptr
  * rocSPARSE takes one more ``rocsparse_operation trans_B`` right after ``trans_A``, cuSPARSE's
    function computes op(A)*B: insert rocsparse_operation_none
  * rocSPARSE takes a ``batch_stride`` right after ``batch_count`` in an interleaved-batch function:
    duplicate the batch count (cuSPARSE's interleaved layout puts system j's i-th entry at
    i*batchCount + j, a stride of batchCount)
  * cuSPARSE takes a trailing workspace ``void*`` rocSPARSE does not: drop it
  * a cuSPARSE buffer-size query (last ``size_t*``) and its compute function (last ``void*``) map to
    one rocSPARSE function ending (size_t* buffer_size, void* temp_buffer): nullptr for the other
  * with any of these, or with parameter lists that otherwise match: each ``cuComplex*`` /
    ``cuDoubleComplex*`` argument (hipSPARSE's mirror: ``hipComplex*`` / ``hipDoubleComplex*``)
    that rocSPARSE takes as ``rocsparse_float_complex*`` / ``rocsparse_double_complex*`` is wrapped in
    ``reinterpret_cast<const rocsparse_double_complex*>(...)`` (no ``const`` where rocSPARSE's is not):
    the port passes HIP's complex type (two floats/doubles, amd_hip_complex.h), which C++ does not
    convert to rocSPARSE's class of the same layout (rocsparse-complex-types.h); a null pointer
    constant is passed as it is (``keep_null``: reinterpret_cast does not take ``nullptr``)
Everything else that differs: no edit, recorded with rocSPARSE's parameter list (``int*`` where
rocSPARSE wants ``size_t*`` is recorded as such: a cast would write 8 bytes into a 4-byte int).
Index arrays in another order (cuSPARSE's csr2csr_compress: column indices before row pointers;
legacy csc2dense/dense2csc: row indices before column pointers; rocSPARSE the other way round): the
types match, so the renamed call would compile and pass them swapped.  The plan moves them: the k-th
row array of cuSPARSE's list (by the parameter names, ``_index_order``) goes to rocSPARSE's k-th row
array slot, the columns likewise, when the two lists have the same length and every other position
lines up by type (the complex casts compose, by position); otherwise recorded as ``order``.
"""

from __future__ import annotations

import argparse
import csv
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from header_declarations import declarations, fail, finish, read_header  # noqa: E402  (the parser the generators share)

ROOT = Path(__file__).resolve().parent.parent
TABLE = ROOT / "porter" / "mapping" / "sources" / "hipify-api-tables.tsv"
OUT = ROOT / "porter" / "mapping" / "data" / "calls" / "roc_sparse_args.json"

_DOC = re.compile(r"/\*!(.*?)\*/", re.S)
_CUDA_COMPLEX = {"cuComplex": "C", "cuFloatComplex": "C", "hipComplex": "C", "hipFloatComplex": "C",
                 "cuDoubleComplex": "Z", "hipDoubleComplex": "Z"}
_ROC_COMPLEX = {"rocsparse_float_complex": "C", "rocsparse_double_complex": "Z"}
_COMPLEX = {"cuComplex": "C", "cuFloatComplex": "C", "hipComplex": "C", "hipFloatComplex": "C",
            "rocsparse_float_complex": "C", "cuDoubleComplex": "Z", "hipDoubleComplex": "Z",
            "rocsparse_double_complex": "Z"}


def nullable_params(text: str) -> dict[str, set[str]]:
    """{rocSPARSE function: names of the parameters its doc comment says can be NULL}."""
    out: dict[str, set[str]] = {}
    for doc in _DOC.finditer(text):
        tail = text[doc.end():doc.end() + 20000]
        group = re.match(r"\s*(?:/\*\*@\{\*/\s*)?((?:ROCSPARSE_EXPORT\s+\w+\s+rocsparse_\w+\s*\([^;]*\);\s*)+)", tail)
        if not group:
            continue
        names = re.findall(r"(rocsparse_\w+)\s*\(", group.group(1))
        nullable = set()
        for pm in re.finditer(r"@param\[[a-z]+\]\s*\*?\s*(\w+)((?:(?!@param).)*)", doc.group(1), re.S):
            if re.search(r"can be\s+\\p\s+NULL", pm.group(2)):
                nullable.add(pm.group(1))
        for n in names:
            out[n] = nullable
    return out


def table_rows(families: tuple[str, ...]) -> list[dict[str, str]]:
    """AMD's table rows of these families (CUSPARSE, CUBLAS, CUSOLVER, ...)."""
    with TABLE.open(encoding="utf-8") as f:
        return [row for row in csv.DictReader((line for line in f if not line.startswith("#")), delimiter="\t")
                if row["family"] in families]


def _cusparse_rows() -> list[dict[str, str]]:
    """AMD's table rows of the cuSPARSE family."""
    return table_rows(("CUSPARSE",))


def type_map() -> dict[str, str]:
    """cuSPARSE and hipSPARSE type names -> rocSPARSE's, from AMD's tables."""
    out = {}
    for row in _cusparse_rows():
        if row["roc"]:
            out[row["cuda"]] = row["roc"]
            if row["hip"]:
                out[row["hip"]] = row["roc"]
    out.update({"int": "rocsparse_int", "int64_t": "int64_t"})
    out.update(curated_roc())
    return out


def curated_roc() -> dict[str, str]:
    """CUDA name -> rocSPARSE name of porter's curated entries that correct AMD's tables
    (porter/mapping/curated/rocsparse.toml: csrsv2Info_t), so the plans see the types porter writes."""
    sys.path.insert(0, str(ROOT))
    from porter.mapping import CURATED_DIR, read_curated

    return {e.cuda: e.roc for e in read_curated(CURATED_DIR / "rocsparse.toml") if e.roc}


def roc_names() -> dict[str, str]:
    """cuSPARSE function -> rocSPARSE function, from AMD's tables."""
    return {row["cuda"]: row["roc"] for row in _cusparse_rows()
            if row["roc"].startswith("rocsparse_") and row["cuda"].startswith("cusparse")}


def _norm(t: str, types: dict[str, str]) -> str:
    base, stars = t.rstrip("*"), len(t) - len(t.rstrip("*"))
    base = _COMPLEX.get(base, types.get(base, base))
    # CUDA 12's const descriptors (cusparseConstSpMatDescr_t): a cusparseSpMatDescr_t is passed; rocSPARSE
    # 5.3 has the one descriptor type
    base = base.replace("rocsparse_const_", "rocsparse_")
    return base + "*" * stars


def _fits(cuda: list[str], roc: list[str]) -> bool:
    return len(cuda) == len(roc) and all(a == b or (a == "void*" and b.endswith("*")) for a, b in zip(cuda, roc))


def edits_for(cname: str, rname: str, cparams, rparams, nullable: set[str], types,
              rconst: list[bool] | None = None, cuda_header: str = "cusparse.h") -> tuple[list | None, str]:
    """(argument plan, reason) or (None, what differs).  A plan lists, for each rocSPARSE
    parameter, {"arg": i} (the call's i-th argument, "format" wrapping it) or {"text": constant}.
    ``rconst``: for each rocSPARSE parameter, whether it points to const; ``cuda_header``: where
    ``cparams`` was read (named in the reason of a move)."""
    plan, why = _edits_for(cname, rname, cparams, rparams, nullable, types, cuda_header)
    if plan and any(a.get("format", "").startswith("static_cast<rocsparse_g") for a in plan):
        why += ("; the algorithm: cuSPARSE's algo (gtsv 0 cuThomas, 1 LU, 2 QR; gpsv 0 QR) is rocSPARSE's "
                "enumerator algo + 1 (thomas 1, lu 2, qr 3; gpsv qr 1)")
    if plan is None:
        return plan, why
    same = plan == []
    if same:
        plan = [{"arg": i} for i in range(len(cparams))]
    cast = complex_casts(plan, cparams, rparams, rconst or [False] * len(rparams))
    if not cast:
        return ([] if same else plan), why
    names = ", ".join(n for n in cast)
    roc_type = next(iter(cast.values()))
    reason = (f"the complex pointers ({names}) are passed as `{roc_type}*`: the port's "
              f"{'hipDoubleComplex' if 'double' in roc_type else 'hipFloatComplex'} (HIP's "
              f"{'double2' if 'double' in roc_type else 'float2'}, two {roc_type.split('_')[1]}s) does not "
              f"convert to rocSPARSE's class, which rocsparse-complex-types.h declares with the same layout "
              f"(C: struct {{ {roc_type.split('_')[1]} x, y; }}; C++: standard-layout, trivial, twice the size of "
              f"a {roc_type.split('_')[1]}), the cast hipSPARSE's rocSPARSE backend makes")
    return plan, (f"{why}; {reason}" if why else reason)


def complex_casts(plan: list, cparams, rparams, rconst: list[bool], roc_complex: dict[str, str] = _ROC_COMPLEX,
                  declared: list[str] | None = None) -> dict[str, str]:
    """Wrap in ``plan`` (in place) each argument that is a CUDA complex pointer where rocSPARSE takes
    its complex class's pointer of the same precision; {rocSPARSE parameter: rocSPARSE type} of them.
    ``roc_complex``: the library's complex types ({type: "C" or "Z"}; rocSPARSE's by default);
    ``declared``: for each of its parameters, the type as declared (``const T* const*``), which the
    cast then names, and an array of complex pointers (a batched function's) is cast as well."""
    out = {}
    for j, a in enumerate(plan):
        if "arg" not in a or "format" in a:
            continue
        ct, rt = cparams[a["arg"]][0], rparams[j][0]
        depth = len(ct) - len(ct.rstrip("*"))
        if not (depth in ((1, 2) if declared else (1,)) and len(rt) - len(rt.rstrip("*")) == depth):
            continue
        cp, rp = _CUDA_COMPLEX.get(ct[:-depth]), roc_complex.get(rt[:-depth])
        if cp is None or cp != rp:
            continue
        cast = declared[j] if declared else ("const " if rconst[j] else "") + rt
        plan[j] = {**a, "format": f"reinterpret_cast<{cast}>({{}})", "keep_null": True}
        out[rparams[j][1]] = rt[:-depth]
    return out


def _index_order(params) -> list[str]:
    """'row'/'col' for each parameter named as a row or column index array, in order."""
    out = []
    for _t, n in params:
        k = re.sub(r"_|sorted", "", n.lower())
        if re.search(r"row(ptr|ind|s)", k):
            out.append("row")
        elif re.search(r"col(ptr|ind|s)", k):
            out.append("col")
    return out


def index_permutation(cname: str, rname: str, cparams, rparams, ct: list[str], rt: list[str],
                      cuda_header: str = "cusparse.h") -> tuple[list | None, str]:
    """The plan that passes the index arrays in rocSPARSE's order: the k-th row array of cuSPARSE's
    list goes to rocSPARSE's k-th row array slot, the columns likewise (by the parameter names, as
    ``_index_order`` reads them); every other argument stays where it is.  (None, "order") when the
    lists do not have the same length or a position does not line up by type after the move."""
    if len(cparams) != len(rparams):
        return None, "order"
    slots = {}
    for side, params in (("c", cparams), ("r", rparams)):
        for i, (_t, n) in enumerate(params):
            kind = _index_order([("", n)])
            if kind:
                slots.setdefault((side, kind[0]), []).append(i)
    perm = list(range(len(cparams)))
    for kind in ("row", "col"):
        cs, rs = slots.get(("c", kind), []), slots.get(("r", kind), [])
        if len(cs) != len(rs):
            return None, "order"
        for ci, ri in zip(cs, rs):
            perm[ri] = ci
    if sorted(perm) != list(range(len(cparams))) or not _fits([ct[i] for i in perm], rt):
        return None, "order"
    moved = [j for j, i in enumerate(perm) if i != j]
    pairs = ", ".join(f"`{cparams[perm[j]][1]}` as `{rparams[j][1]}`" for j in moved)
    why = (f"{rname} takes the index arrays in another order than {cname} (by the parameter names: "
           f"{', '.join(n for _t, n in rparams if _index_order([('', n)]))} in rocsparse-functions.h, "
           f"{', '.join(n for _t, n in cparams if _index_order([('', n)]))} in {cuda_header}): each is passed "
           f"in rocSPARSE's slot ({pairs}); the types are the same, so the call in cuSPARSE's order compiled with them swapped")
    return [{"arg": i} for i in perm], why


def _policy_plan(cparams, rparams, ct: list[str], rt: list[str]) -> tuple[list | None, str]:
    """The plan of a call that passes cuSPARSE's ``cusparseSolvePolicy_t`` (the triangular solves and
    incomplete factorizations: csrsv2, csrsm2, bsrsv2, bsrsm2, csric02, csrilu02, bsric02, bsrilu02):
    the policy becomes ``rocsparse_solve_policy_auto``, an analysis call gets
    ``rocsparse_analysis_policy_force`` before it, and csrsm2's ``algo`` is not passed.  (None,
    "differs") when the list does not fit rocSPARSE's after these."""
    plan = [{"arg": i} for i in range(len(ct))]
    types = list(ct)
    why = []
    algo = [i for i, (t, n) in enumerate(cparams) if n == "algo" and t == "int"]
    if algo and not any(n in ("alg", "algo") for _t, n in rparams):
        del plan[algo[0]], types[algo[0]]
        why.append("cuSPARSE's `algo` picks the non-block (0) or block (1) implementation of the same solve; "
                   "rocSPARSE takes no such choice, so it is not passed")
    j = types.index("rocsparse_solve_policy")
    if rt[j:j + 2] == ["rocsparse_analysis_policy", "rocsparse_solve_policy"]:
        plan.insert(j, {"text": "rocsparse_analysis_policy_force"})
        types.insert(j, "rocsparse_analysis_policy")
        j += 1
        why.append("cuSPARSE's analysis call always analyses the matrix; rocsparse_analysis_policy_force has "
                   "rocSPARSE build that meta data anew (_reuse would keep what an earlier analysis left in info)")
    plan[j] = {"text": "rocsparse_solve_policy_auto", "replaces": plan[j]["arg"]}
    why.append("rocSPARSE's rocsparse_solve_policy has one value, rocsparse_solve_policy_auto "
               "(rocsparse-types.h), which AMD's tables pair with both of cuSPARSE's (CUSPARSE_SOLVE_POLICY_NO_LEVEL, "
               "_USE_LEVEL): the policy chooses whether level information is used, not the solution")
    if not _fits(types, rt):
        return None, "differs"
    return plan, "; ".join(why)


def _edits_for(cname: str, rname: str, cparams, rparams, nullable: set[str], types,
               cuda_header: str = "cusparse.h") -> tuple[list | None, str]:
    corder, rorder = _index_order(cparams), _index_order(rparams)
    ct = [_norm(t, types) for t, _ in cparams]
    rt = [_norm(t, types) for t, _ in rparams]
    if corder and len(corder) == len(rorder) and corder != rorder:
        return index_permutation(cname, rname, cparams, rparams, ct, rt, cuda_header)
    if "rocsparse_solve_policy" in ct:
        return _policy_plan(cparams, rparams, ct, rt)
    if _fits(ct, rt):
        return [], ""
    keep = [{"arg": i} for i in range(len(ct))]
    for i, ((t, n), rt_i) in enumerate(zip(cparams, rt)):
        alg = re.fullmatch(r"rocsparse_(gtsv|gpsv)_interleaved_alg", rt_i)
        if n == "algo" and t == "int" and alg:
            # cuSPARSE: gtsv algo 0 cuThomas, 1 LU, 2 QR; gpsv algo 0 QR.  rocSPARSE 5.3 (rocsparse-types.h):
            # *_alg_thomas 1, *_alg_lu 2, *_alg_qr 3 (gtsv), *_alg_qr 1 (gpsv): the same algorithm is algo + 1
            keep[i] = {"arg": i, "format": f"static_cast<{rt_i}>(({{}}) + 1)"}
            ct[i] = rt_i
    if len(rt) == len(ct) + 1:
        for i, (t, n) in enumerate(rparams):
            trial_t = ct[:i] + [rt[i]] + ct[i:]
            if not _fits(trial_t, rt):
                continue
            if rt[i] == "rocsparse_mat_info" and n in nullable:
                return keep[:i] + [{"text": "nullptr"}] + keep[i:], (
                    f"{rname} takes `rocsparse_mat_info {n}` from its analysis step, which its documentation says "
                    f"can be NULL (no analysis: the general routine); {cname} has no analysis step")
            if rt[i] == "rocsparse_operation" and n == "trans_B" and i > 0 and rparams[i - 1][1] == "trans_A":
                return keep[:i] + [{"text": "rocsparse_operation_none"}] + keep[i:], (
                    f"{cname} computes op(A)*B with B as stored; {rname}'s trans_B = rocsparse_operation_none is that")
            if n == "batch_stride" and "interleaved_batch" in rname and i > 0 and rparams[i - 1][1] == "batch_count":
                return keep[:i] + [{"arg": i - 1}] + keep[i:], (
                    f"cuSPARSE's interleaved layout stores entry i of system j at i*batchCount + j: "
                    f"{rname}'s batch_stride is batchCount")
        if (cparams and ct[-1] == "size_t*" and rt[-2:] == ["size_t*", "void*"]
                and _fits(ct[:-1], rt[:-2])):
            return keep + [{"text": "nullptr"}], (
                f"{rname} answers the buffer-size query of {cname} when temp_buffer is NULL")
        if (cparams and ct[-1] == "void*" and rt[-2:] == ["size_t*", "void*"]
                and _fits(ct[:-1], rt[:-2])):
            return keep[:-1] + [{"text": "nullptr"}, keep[-1]], (
                f"{rname} computes with temp_buffer when buffer_size is NULL")
    if len(rt) == len(ct) - 1 and ct[-1] == "void*" and _fits(ct[:-1], rt):
        return keep[:-1], (f"{rname} takes no workspace: {cname}'s last argument (`{cparams[-1][1]}`, "
                           f"the buffer its _bufferSizeExt sized) is not passed")
    for a, b in zip(ct, rt):
        if a == "rocsparse_int*" and b == "size_t*":
            return None, "int_size"
    return None, "differs"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cusparse", required=True, type=Path)
    ap.add_argument("--cusparse-version", required=True)
    ap.add_argument("--hipsparse", required=True, type=Path)
    ap.add_argument("--hipsparse-version", required=True)
    ap.add_argument("--rocsparse", required=True, type=Path)
    ap.add_argument("--rocsparse-version", required=True)
    ap.add_argument("-o", "--output", type=Path, default=OUT)
    args = ap.parse_args(argv)
    try:
        cu = declarations(read_header(args.cusparse), "cusparse")
        hip_text = read_header(args.hipsparse)
        roc_text = read_header(args.rocsparse)
    except OSError as e:
        return fail("gen_roc_sparse_args", e)
    hip = {"cusparse" + k[len("hipsparse"):]: v for k, v in declarations(hip_text, "hipsparse").items()}
    roc_const: dict[str, list[bool]] = {}
    roc = declarations(roc_text, "rocsparse_", roc_const)
    nullable = nullable_params(roc_text)
    types = type_map()
    functions, counts = {}, {"edit": 0, "complex_cast": 0, "index_order": 0, "int_size": 0, "order": 0, "differs": 0, "same": 0, "unknown": 0}
    for cname, rname in sorted(roc_names().items()):
        cparams = cu.get(cname) or hip.get(cname)
        rparams = roc.get(rname)
        if cparams is None or rparams is None:
            counts["unknown"] += 1
            continue
        plan, why = edits_for(cname, rname, cparams, rparams, nullable.get(rname, set()), types,
                              roc_const[rname], "cusparse.h" if cname in cu else "hipsparse.h")
        if plan == []:
            counts["same"] += 1
            continue
        entry = {"roc": rname, "cuda_args": len(cparams),
                 "roc_params": [f"{t} {n}".strip() for t, n in rparams]}
        if plan is None:
            entry["differs"] = why
            counts[why] += 1
        else:
            entry["args"] = plan
            entry["why"] = why
            used = [a["arg"] for a in plan if "arg" in a]  # (a "replaces" argument is not passed: pure)
            pure = sorted(i for i in range(len(cparams)) if used.count(i) != 1)
            if pure:  # dropped or passed twice: porter.translate.call_args leaves a call whose one has a side effect
                entry["pure"] = pure
            counts["edit"] += 1
            counts["complex_cast"] += any("keep_null" in a for a in plan)
            firsts = list(dict.fromkeys(a["arg"] for a in plan if "arg" in a))
            counts["index_order"] += firsts != sorted(firsts)
        entry["header"] = "cusparse.h" if cname in cu else "hipsparse.h"
        functions[cname] = entry
    return finish(
        args.output,
        about=("cuSPARSE calls whose rocSPARSE counterpart (porter convert --roc) takes other arguments. "
               "'args': rocSPARSE's arguments in order, each the call's argument 'arg' (0-based) or a "
               "constant 'text' (written in the place of the call's argument 'replaces', if given; 'format' wraps the argument: '{}' is its text; 'keep_null': a null pointer constant "
               "is passed unwrapped; an 'arg' out of CUDA's order moves that argument's text into the slot: the index "
               "arrays rocSPARSE takes in another order); 'why' says why each edit keeps the meaning; 'pure': the call's "
               "arguments dropped or passed twice, which must be free of side effects (else the call is left). 'differs': "
               "no rewrite, the call is reported with 'roc_params' ('int_size': CUDA's int* where rocSPARSE writes "
               "a size_t; 'order': the row and column index arrays in another order that porter could not pair, "
               "so the renamed call compiles). "
               "'cuda_args': the CUDA signature's argument count; a call with another count is left alone. "
               "Generated by scripts/gen_roc_sparse_args.py; read by porter/translate/call_args.py."),
        sources={
            "cuda": f"NVIDIA cusparse.h from nvidia-cusparse-cu12 {args.cusparse_version} (pip)",
            "cuda_legacy": (f"hipsparse/hipsparse.h, libhipsparse-dev {args.hipsparse_version} (Debian 12): "
                            "hipSPARSE's hipsparseX mirrors cuSPARSE's cusparseX parameter list; used for the "
                            "functions CUDA 12 removed (entries with header hipsparse.h)"),
            "roc": f"rocsparse/rocsparse-functions.h, librocsparse-dev {args.rocsparse_version} (Debian 12)",
            "names": "porter/mapping/sources/hipify-api-tables.tsv (AMD's HIPIFY tables, roc column)",
        },
        counts=counts,
        functions=functions,
    )


if __name__ == "__main__":
    sys.exit(main())
