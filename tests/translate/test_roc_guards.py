"""Under --roc, the tests of a CUDA library header's include guard name the roc* header's guard.

A --roc port includes rocblas/rocblas.h, rocsparse/rocsparse.h, rocrand/rocrand.h, rocsolver/rocsolver.h where the
CUDA file included cuBLAS, cuSPARSE, cuRAND, cuSOLVER; NVIDIA's samples guard their error-string helpers with
those headers' guards (`#ifdef CUBLAS_API_H_`, `#ifdef CUSPARSEAPI`, `#ifdef CURAND_H_`, `#ifdef
CUSOLVER_COMMON_H_` in Common/helper_cuda.h).  Renamed to the hip* header's guard, which a --roc port never
defines, the guarded code vanished without a word.  The guards are the roc* headers' own (`#ifndef X` /
`#define X`), read from the installed headers here.  And once both helpers are live, the cuBLAS and cuSOLVER
overloads take one type under --roc (rocblas_status): PORT033 says so."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from porter.findings import scan
from porter.translate import TranslateOptions, translate

ROC = TranslateOptions(roc=True)

# the guards as CUDA's headers define them (cublas_api.h, cusparse.h's CUSPARSEAPI, curand.h, cusolver_common.h)
GUARDED = """#include <cublas_v2.h>
#include <cusparse.h>
#include <curand.h>
#include <cusolverDn.h>
#ifdef CUBLAS_API_H_
int blas_here = 1;
#endif
#ifdef CUSPARSEAPI
int sparse_here = 1;
#endif
#if defined(CURAND_H_)
int rand_here = 1;
#endif
#ifdef CUSOLVER_COMMON_H_
int solver_here = 1;
#endif
"""

ROC_GUARDS = {"rocblas/rocblas.h": "ROCBLAS_H", "rocsparse/rocsparse.h": "_ROCSPARSE_H_",
              "rocrand/rocrand.h": "ROCRAND_H_", "rocsolver/rocsolver.h": "ROCSOLVER_H"}


def test_the_guards_name_the_headers_the_roc_port_includes():
    out = translate(GUARDED.encode(), "g.cu", ROC).output.decode()
    for header, guard in ROC_GUARDS.items():
        assert f"#include <{header}>" in out
        assert guard in out, (guard, out)
    assert not re.search(r"HIPBLAS_H|_HIPSPARSE_H_|HIPRAND_H_|HIPSOLVER_H", out), out
    # without --roc: the hip* headers and their guards, as before
    hip = translate(GUARDED.encode(), "g.cu").output.decode()
    for guard in ("HIPBLAS_H", "_HIPSPARSE_H_", "HIPRAND_H_", "HIPSOLVER_H"):
        assert guard in hip


def _guard_of(header: Path) -> str:
    m = re.search(r"^#ifndef\s+(\w+)\s*\n#define\s+\1\b", header.read_text(encoding="utf-8", errors="replace"), re.M)
    assert m, header
    return m.group(1)


@pytest.mark.parametrize("header", sorted(ROC_GUARDS))
def test_each_roc_guard_is_the_headers_own(header, request):
    # rocSPARSE and rocRAND: Debian 12's packages (/usr/include); rocBLAS and rocSOLVER: the rocblas_include fixture
    folder = Path("/usr/include") if header.split("/")[0] in ("rocsparse", "rocrand") else \
        request.getfixturevalue("rocblas_include")
    path = folder / header
    if not path.is_file():
        pytest.skip(f"{path} is not installed")
    assert _guard_of(path) == ROC_GUARDS[header]


# written from cuSPARSE's and cuRAND's documented status enums, guarded as NVIDIA's helper_cuda.h does
HELPERS = """#include <cusparse.h>
#include <curand.h>

#ifdef CUSPARSEAPI
static const char *status_name(cusparseStatus_t error) {
  switch (error) {
    case CUSPARSE_STATUS_SUCCESS: return "CUSPARSE_STATUS_SUCCESS";
    case CUSPARSE_STATUS_NOT_INITIALIZED: return "CUSPARSE_STATUS_NOT_INITIALIZED";
    case CUSPARSE_STATUS_INVALID_VALUE: return "CUSPARSE_STATUS_INVALID_VALUE";
  }
  return "<unknown>";
}
#endif

#ifdef CURAND_H_
static const char *status_name(curandStatus_t error) {
  switch (error) {
    case CURAND_STATUS_SUCCESS: return "CURAND_STATUS_SUCCESS";
    case CURAND_STATUS_NOT_INITIALIZED: return "CURAND_STATUS_NOT_INITIALIZED";
  }
  return "<unknown>";
}
#endif

int both(cusparseStatus_t s, curandStatus_t r) { return status_name(s)[0] + status_name(r)[0]; }
"""


@pytest.mark.hipcc
def test_the_guarded_helpers_stay_in_the_roc_port(hipcc_compile):
    out = translate(HELPERS.encode(), "h.cu", ROC).output
    rc, log = hipcc_compile(out, "helpers", syntax_only=True)
    assert rc == 0, log[-3000:]


OVERLOADS = """#include <cublas_v2.h>
#include <cusolverDn.h>
const char *name(cublasStatus_t s) { return s == CUBLAS_STATUS_SUCCESS ? "ok" : "blas error"; }
const char *name(cusolverStatus_t s) { return s == CUSOLVER_STATUS_SUCCESS ? "ok" : "solver error"; }
"""


def test_overloads_that_become_one_under_roc_are_reported_there_only():
    with_roc = [f for f in scan(OVERLOADS.encode(), "o.cu", options=ROC) if f.rule == "PORT033"]
    assert len(with_roc) == 1 and "rocblas_status" in with_roc[0].message
    assert [f for f in scan(OVERLOADS.encode(), "o.cu") if f.rule == "PORT033"] == []
