"""Without ``--roc``: cuSPARSE calls renamed to a hipSPARSE function that declares another parameter
count (porter/mapping/data/calls/hip_sparse_args.json, scripts/gen_hip_sparse_args.py,
porter/translate/call_args.py; PORT180 where no edit is made).

CUDA 12's cusparseSpSM_solve takes 10 arguments (cusparse.h 12.5); hipsparseSpSM_solve takes 11, a
trailing ``void* externalBuffer`` (hipsparse.h of ROCm 5.3 and of current ROCm).  hipSPARSE's changelog
says from hipSPARSE 3.1.1 (ROCm 6.2) that the argument is unused and nullptr may be passed, so the port
appends nullptr from that target on; below it the call is reported (pass the analysis call's buffer).
cusparseSpSV_solve takes 9; hipsparseSpSV_solve took 10 before hipSPARSE 3.0.0 (ROCm 6.0) and 9 since."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from porter.findings import scan
from porter.translate import TranslateOptions, translate
from required_tools import require

ROOT = Path(__file__).resolve().parents[2]
HIPSPARSE_HEADER = Path("/usr/include/hipsparse/hipsparse.h")

SOURCE = b"""#include <cusparse.h>
void solves(cusparseHandle_t h, const double* alpha, cusparseConstSpMatDescr_t A, cusparseConstDnMatDescr_t B,
            cusparseDnMatDescr_t C, cusparseSpSMDescr_t d, cusparseConstDnVecDescr_t x, cusparseDnVecDescr_t y,
            cusparseSpSVDescr_t vd, void* buffer)
{
    cusparseSpSM_analysis(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha, A, B, C,
                          CUDA_R_64F, CUSPARSE_SPSM_ALG_DEFAULT, d, buffer);
    cusparseSpSM_solve(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha, A, B, C,
                       CUDA_R_64F, CUSPARSE_SPSM_ALG_DEFAULT, d);
}
"""
SPSV = b"""#include <cusparse.h>
void solve(cusparseHandle_t h, const double* alpha, cusparseConstSpMatDescr_t A, cusparseConstDnVecDescr_t x,
           cusparseDnVecDescr_t y, cusparseSpSVDescr_t vd)
{
    cusparseSpSV_solve(h, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha, A, x, y, CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, vd);
}
"""


def _port(text: bytes, **options) -> str:
    return translate(text, "t.cu", TranslateOptions(**options)).output.decode()


def _args(out: str, name: str) -> list[list[str]]:
    """The arguments of each call of ``name``, blanks folded."""
    return [[" ".join(a.split()) for a in m.split(",")] for m in re.findall(rf"\b{name}\(([^;]*)\);", out)]


@pytest.mark.parametrize("target", [None, "6.2", "6.3"])
def test_spsm_solve_gets_hipsparse_eleven_arguments_from_rocm_6_2(target):
    out = _port(SOURCE, **({"target_rocm": target} if target else {}))
    (call,) = _args(out, "hipsparseSpSM_solve")
    assert len(call) == 11 and call[-1] == "nullptr" and call[-2] == "d", call
    assert len(_args(out, "hipsparseSpSM_analysis")[0]) == 11  # the analysis call keeps its buffer


@pytest.mark.parametrize("target", ["5.2", "6.1"])
def test_below_rocm_6_2_no_null_buffer_is_written_and_the_call_is_reported(target):
    options = TranslateOptions(target_rocm=target)
    out = translate(SOURCE, "t.cu", options).output.decode()
    (call,) = _args(out, "hipsparseSpSM_solve")
    assert len(call) == 10, call  # left as written: the solve there reads its buffer argument
    (hit,) = [f for f in scan(SOURCE, "t.cu", options=options) if f.rule == "PORT180"]
    assert hit.line == 8 and hit.severity == "error"
    assert "11 arguments" in hit.message and f"ROCm {target}" in hit.message
    assert "hipsparseSpSM_analysis" in hit.message  # which buffer to pass


def test_spsv_solve_fits_from_rocm_6_0_and_is_reported_before():
    assert len(_args(_port(SPSV), "hipsparseSpSV_solve")[0]) == 9
    assert not [f for f in scan(SPSV, "t.cu", options=TranslateOptions(target_rocm="6.0")) if f.rule == "PORT180"]
    old = TranslateOptions(target_rocm="5.7")
    assert len(_args(translate(SPSV, "t.cu", old).output.decode(), "hipsparseSpSV_solve")[0]) == 9
    (hit,) = [f for f in scan(SPSV, "t.cu", options=old) if f.rule == "PORT180"]
    assert "10 arguments" in hit.message and "hipsparseSpSV_analysis" in hit.message


def test_a_call_with_another_argument_count_is_left_alone():
    src = SOURCE.replace(b"CUSPARSE_SPSM_ALG_DEFAULT, d);", b"CUSPARSE_SPSM_ALG_DEFAULT, d, buffer);")
    (call,) = _args(_port(src), "hipsparseSpSM_solve")
    assert call[-1] == "buffer" and len(call) == 11


def test_roc_keeps_its_own_data():
    # --roc renames to rocsparse_spsm (rocSPARSE's data, PORT179): hipSPARSE's nullptr is not appended there
    out = _port(SOURCE, roc=True)
    assert "hipsparseSpSM_solve" not in out and "nullptr" not in out
    assert not [f for f in scan(SOURCE, "t.cu", options=TranslateOptions(roc=True, target_rocm="5.2"))
                if f.rule == "PORT180"]


@pytest.mark.hipcc
def test_the_port_compiles_against_hipsparse(hipcc_compile):
    require(HIPSPARSE_HEADER.is_file(), "hipSPARSE's headers (libhipsparse-dev) missing: the port is not compile-checked")
    # Debian 12's hipsparse.h (hipSPARSE of ROCm 5.3) declares hipsparseSpSM_solve with the 11 parameters
    # every release since keeps; the port for ROCm 6.2 passes them (the descriptors as CUDA 11's
    # non-const types: ROCm 5.3 has no hipsparseConst*Descr_t)
    cuda = SOURCE.replace(b"cusparseConstSpMatDescr_t", b"cusparseSpMatDescr_t").replace(
        b"cusparseConstDnMatDescr_t", b"cusparseDnMatDescr_t").replace(b"cusparseConstDnVecDescr_t", b"cusparseDnVecDescr_t")
    rc, out = hipcc_compile(_port(cuda, target_rocm="6.2").encode(), "t", syntax_only=True)
    assert rc == 0, out[-3000:]


def test_the_generator_reads_the_branch_amd_compilers_take():
    sys.path.insert(0, str(ROOT / "scripts"))
    from gen_hip_sparse_args import amd_branches, compare

    header = ("#if(!defined(CUDART_VERSION) || CUDART_VERSION >= 12000)\n"
              "int hipsparseX(int a, int b, void* extra);\n"
              "#elif(CUDART_VERSION >= 11031)\n"
              "int hipsparseX(int a, int b);\n"
              "#endif\n"
              "#if defined(CUDART_VERSION)\nint hipsparseY(int a);\n#else\nint hipsparseY(int a, int b);\n#endif\n")
    from header_declarations import declarations

    hip = declarations(amd_branches(header), "hipsparse")
    assert len(hip["hipsparseX"]) == 3 and len(hip["hipsparseY"]) == 2
    cu = declarations("int cusparseX(int a, int b);\nint cusparseY(int a, int b);\n", "cusparse")
    functions, counts = compare(cu, hip, {"cusparseX": "hipsparseX", "cusparseY": "hipsparseY"})
    # a count that differs with no decision from the libraries' semantics: a finding at every target, no edit
    assert list(functions) == ["cusparseX"] and counts["differs"] == 1 and counts["same_count"] == 1
    (release,) = functions["cusparseX"]["releases"]
    assert "args" not in release and release["finding"]


def test_the_data_records_its_sources():
    import json

    doc = json.loads((ROOT / "porter/mapping/data/calls/hip_sparse_args.json").read_text(encoding="utf-8"))
    assert set(doc["functions"]) == {"cusparseSpSM_solve", "cusparseSpSV_solve"}
    for f in doc["functions"].values():
        assert all(r["sources"] for r in f["releases"])
