#!/usr/bin/env python3
"""Generate porter/mapping/data/calls/hip_sparse_args.json: for each cuSPARSE function that
``porter convert`` (default, no --roc) renames to a hipSPARSE function (porter/mapping/data/cusparse.json),
compare CUDA 12's parameter list with hipSPARSE's and record, for the functions whose counts differ,
what porter does at each target ROCm: an argument edit (``args``) where hipSPARSE's documented
behaviour makes one keep the meaning, otherwise a finding (PORT180) that says what to pass.

Inputs (not in the repository; see the data file's ``sources``):
  --cusparse  NVIDIA's include/cusparse.h (pip download --no-deps nvidia-cusparse-cu12)
  --hipsparse hipsparse/hipsparse.h (Debian 12 libhipsparse-dev 5.3.3).  Its declarations are read as
              AMD's compiler sees them: CUDART_VERSION is undefined there, so of each
              ``#if ... CUDART_VERSION ...`` group the branch taken is the one whose condition holds with
              ``defined(CUDART_VERSION)`` false and CUDART_VERSION 0 (``!defined(CUDART_VERSION) || ...``)

The parameter lists are parsed by scripts/header_declarations.py's ``declarations`` (imported).  What
each differing function's call becomes is a decision from the libraries' documented semantics
(``DECISIONS``, with its sources, written into the data); a function whose count differs and that has
no decision gets a finding at every target (no edit).  The generator checks each decision against the
header it read (the release it covers must declare the count the decision says)."""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from header_declarations import declarations, fail, finish, read_header  # noqa: E402  (the parser the generators share)

ROOT = Path(__file__).resolve().parent.parent
NAMES = ROOT / "porter" / "mapping" / "data" / "cusparse.json"
OUT = ROOT / "porter" / "mapping" / "data" / "calls" / "hip_sparse_args.json"

_DIRECTIVE = re.compile(r"^\s*#\s*(if|ifdef|ifndef|elif|else|endif)\b(.*)$")

_CHANGELOG = "hipSPARSE CHANGELOG.md (ROCm/rocm-libraries projects/hipsparse/CHANGELOG.md)"
_SPSM_SRC = ("ROCm/rocm-libraries projects/hipsparse/library/src/amd_detail/generic/hipsparse_spsm.cpp: "
             "hipsparseSpSM_analysis stores its externalBuffer in the SpSM descriptor "
             "(spsmDescr->externalBuffer) and hipsparseSpSM_solve passes spsmDescr->externalBuffer to "
             "rocsparse_spsm(rocsparse_spsm_stage_compute), never its own argument")

# What a call with CUDA's arguments becomes, by target ROCm (each entry holds from its release on).
# "hip_args": hipSPARSE's parameter count from that release; "args": the edit (as in roc_sparse_args.json:
# the call's argument "arg" or a constant "text"); "finding": what PORT180 tells the user where no edit
# keeps the meaning; neither: the call fits as written.
DECISIONS = {
    "cusparseSpSM_solve": {
        "releases": [
            {"from": "5.0", "hip_args": 11,
             "finding": ("hipsparseSpSM_solve takes an 11th argument, `void* externalBuffer`, that cuSPARSE's "
                         "10-parameter cusparseSpSM_solve (CUDA 12) does not have; hipSPARSE before 3.1.1 "
                         "(ROCm 6.2) documents no null value for it: pass the buffer given to "
                         "hipsparseSpSM_analysis (the one sized by hipsparseSpSM_bufferSize)"),
             "sources": ["hipsparse.h 5.3.3 (Debian 12): hipsparseSpSM_solve(..., hipsparseSpSMDescr_t spsmDescr, "
                         "void* externalBuffer), documented as 'temporary storage buffer allocated by the user'",
                         f"{_CHANGELOG}: the note that the argument is unused and nullptr may be passed appears "
                         "first under hipSPARSE 3.1.1 for ROCm 6.2.0"]},
            {"from": "6.2", "hip_args": 11,
             "args": [{"arg": i} for i in range(10)] + [{"text": "nullptr"}],
             "why": ("hipsparseSpSM_solve's 11th argument (`void* externalBuffer`) is unused from hipSPARSE 3.1.1 "
                     "(ROCm 6.2) on: the rocSPARSE backend keeps the buffer hipsparseSpSM_analysis was given in "
                     "the SpSM descriptor and solves with it, and the changelog says nullptr can be passed "
                     "(AMD's HIPIFY writes nullptr too)"),
             "sources": [f"{_CHANGELOG}, hipSPARSE 3.1.1 for ROCm 6.2.0 (and 3.1.2, 3.2.0, 4.0.1), known issues: "
                         "'this extra parameter can be ignored and nullptr passed as it is unused internally by "
                         "hipsparseSpSM_solve()'", _SPSM_SRC,
                         "ROCm/HIPIFY tests/unit_tests/synthetic/libraries/cusparse2hipsparse_12000.cu: "
                         "hipsparseSpSM_solve(..., spSMDescr, nullptr)"]},
        ],
    },
    "cusparseSpSV_solve": {
        "releases": [
            {"from": "5.0", "hip_args": 10,
             "finding": ("hipsparseSpSV_solve takes a 10th argument, `void* externalBuffer`, that cuSPARSE's "
                         "9-parameter cusparseSpSV_solve (CUDA 12) does not have (hipSPARSE changed it to "
                         "cuSPARSE's list in ROCm 6.0): pass the buffer given to hipsparseSpSV_analysis (the "
                         "one sized by hipsparseSpSV_bufferSize), or target ROCm 6.0 or later"),
             "sources": ["hipsparse.h 5.3.3 (Debian 12): hipsparseSpSV_solve(..., hipsparseSpSVDescr_t spsvDescr, "
                         "void* externalBuffer)"]},
            {"from": "6.0", "hip_args": 9,
             "why": "hipSPARSE 3.0.0 (ROCm 6.0) declares hipsparseSpSV_solve with cuSPARSE's 9 parameters",
             "sources": [f"{_CHANGELOG}, hipSPARSE 3.0.0 for ROCm 6.0.0: 'Changed the hipsparseSpSV_solve() API "
                         "function to match the NVIDIA CUDA cuSPARSE API'",
                         "ROCm/rocm-libraries projects/hipsparse/library/include: hipsparseSpSV_solve(handle, opA, "
                         "alpha, matA, x, y, computeType, alg, spsvDescr) in the !defined(CUDART_VERSION) branch"]},
        ],
    },
}
HEADER_RELEASE = "5.0"  # the decisions' entry the Debian 12 header (hipSPARSE of ROCm 5.3) is checked against


def _amd_value(cond: str) -> bool | None:
    """A condition on CUDART_VERSION as AMD's compiler reads it (undefined: ``defined`` is false, the
    name is 0); None when the condition is not about CUDART_VERSION alone."""
    if "CUDART_VERSION" not in cond:
        return None
    expr = re.sub(r"//.*|/\*.*?\*/", " ", cond)
    expr = re.sub(r"\bdefined\s*\(\s*CUDART_VERSION\s*\)|\bdefined\s+CUDART_VERSION\b", " F ", expr)
    expr = re.sub(r"\bCUDART_VERSION\b", " 0 ", expr)
    expr = expr.replace("||", " or ").replace("&&", " and ")
    expr = re.sub(r"!(?!=)", " not ", expr).replace(" F ", " False ")
    if re.search(r"[A-Za-z_]", re.sub(r"\b(?:False|or|and|not)\b", " ", expr)):
        return None
    return bool(eval(expr, {"__builtins__": {}}, {}))  # only literals, comparisons and boolean operators remain


def amd_branches(text: str) -> str:
    """``text`` with each ``#if``/``#elif``/``#else`` group on CUDART_VERSION reduced to the branch AMD's
    compiler takes (the other branches' lines blanked, so line numbers stay); other groups kept whole."""
    out: list[str] = []
    stack: list[list] = []  # [about CUDART_VERSION, a branch taken, emitting before the group]
    emit = True
    for line in text.splitlines(keepends=True):
        m = _DIRECTIVE.match(line)
        if not m:
            out.append(line if emit else "\n")
            continue
        kind, rest = m.group(1), m.group(2)
        if kind in ("if", "ifdef", "ifndef"):
            if kind == "if":
                value = _amd_value(rest)
            else:
                value = (kind == "ifndef") if re.match(r"\s*CUDART_VERSION\b", rest) else None
            if value is None:
                stack.append([False, True, emit])
                out.append(line)
            else:
                stack.append([True, value, emit])
                emit = emit and value
                out.append("\n")
        elif kind in ("elif", "else"):
            group = stack[-1]
            if not group[0]:
                out.append(line)
                continue
            value = True if kind == "else" else _amd_value(rest)
            if value is None:
                raise ValueError(f"an #elif that is not about CUDART_VERSION alone: {line.strip()}")
            emit = group[2] and not group[1] and value
            group[1] = group[1] or value
            out.append("\n")
        else:
            group = stack.pop()
            if group[0]:
                emit = group[2]
                out.append("\n")
            else:
                out.append(line)
    return "".join(out)


def hip_names() -> dict[str, str]:
    """cuSPARSE function -> the hipSPARSE function porter renames it to."""
    sys.path.insert(0, str(ROOT))
    from porter.mapping import read_generated

    return {e.cuda: e.hip for e in read_generated(NAMES)
            if e.kind == "identifier" and e.cuda.startswith("cusparse") and (e.hip or "").startswith("hipsparse")}


def _listing(params) -> list[str]:
    return [f"{t} {n}".strip() for t, n in params]


def compare(cu: dict, hip: dict, names: dict[str, str]) -> tuple[dict, dict]:
    """({cuSPARSE function: entry} of the functions whose counts differ, counts)."""
    functions, counts = {}, {"compared": 0, "same_count": 0, "differs": 0, "not_in_cuda12": 0, "not_in_hipsparse": 0}
    for cname, hname in sorted(names.items()):
        if cname not in cu:
            counts["not_in_cuda12"] += 1
            continue
        if hname not in hip:
            counts["not_in_hipsparse"] += 1
            continue
        counts["compared"] += 1
        cparams, hparams = cu[cname], hip[hname]
        if len(cparams) == len(hparams):
            counts["same_count"] += 1
            continue
        counts["differs"] += 1
        decision = DECISIONS.get(cname) or {"releases": [{
            "from": HEADER_RELEASE, "hip_args": len(hparams),
            "finding": (f"{hname} takes {len(hparams)} arguments where {cname} takes {len(cparams)}: write the call "
                        "from hipSPARSE's parameter list"),
            "sources": ["hipsparse.h (Debian 12)"]}]}
        checked = [r for r in decision["releases"] if r["from"] == HEADER_RELEASE]
        if not checked or checked[0]["hip_args"] != len(hparams):
            raise SystemExit(f"gen_hip_sparse_args: the decision for {cname} does not match the header "
                             f"({len(hparams)} parameters)")
        functions[cname] = {"hip": hname, "cuda_args": len(cparams), "cuda_params": _listing(cparams),
                            "hip_params": _listing(hparams), "releases": decision["releases"]}
    return functions, counts


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cusparse", required=True, type=Path)
    ap.add_argument("--cusparse-version", required=True)
    ap.add_argument("--hipsparse", required=True, type=Path)
    ap.add_argument("--hipsparse-version", required=True)
    ap.add_argument("-o", "--output", type=Path, default=OUT)
    args = ap.parse_args(argv)
    try:
        cu = declarations(read_header(args.cusparse), "cusparse")
        hip = declarations(amd_branches(read_header(args.hipsparse)), "hipsparse")
    except (OSError, ValueError) as e:
        return fail("gen_hip_sparse_args", e)
    functions, counts = compare(cu, hip, hip_names())
    return finish(
        args.output,
        about=("cuSPARSE calls that porter convert (no --roc) renames to a hipSPARSE function declaring another "
               "parameter count than CUDA 12's. 'releases': from each ROCm release ('from') on, hipSPARSE's count "
               "('hip_args') and what porter does with a call written with CUDA's 'cuda_args' arguments: 'args' "
               "(hipSPARSE's arguments in order, each the call's argument 'arg' (0-based) or a constant 'text'; "
               "'why' says why it keeps the meaning), 'finding' (no edit: PORT180 reports the call with this "
               "text), or neither (the call fits). The entry of the latest release at or below --target-rocm "
               "applies. 'sources' name what each decision rests on. Generated by scripts/gen_hip_sparse_args.py; "
               "read by porter/mapping/hip_sparse_args.py."),
        sources={
            "cuda": f"NVIDIA cusparse.h from nvidia-cusparse-cu12 {args.cusparse_version} (pip)",
            "hip": (f"hipsparse/hipsparse.h, libhipsparse-dev {args.hipsparse_version} (Debian 12), the branches "
                    "taken where CUDART_VERSION is undefined (AMD)"),
            "names": "porter/mapping/data/cusparse.json (the hipsparse* name porter writes)",
        },
        counts=counts,
        functions=functions,
    )


if __name__ == "__main__":
    sys.exit(main())
