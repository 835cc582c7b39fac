"""A library's API-decoration macro used as "is this library's header included": cusparse.h defines
CUSPARSEAPI, and NVIDIA's samples' helper_cuda.h declares its cuSPARSE overload of _cudaGetErrorEnum under
``#ifdef CUSPARSEAPI``.  hipsparse.h defines no CUSPARSEAPI, so the port dropped the overload and
``checkCudaErrors(cusparseCreate(&h))`` failed with "no matching function for call to '_cudaGetErrorEnum'"
and no finding (NVIDIA's conjugateGradient sample).  The presence test now names hipsparse.h's include guard
(curated/preprocessor.toml), the guard CUSPARSE_H_ already maps to."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from porter.translate import TranslateOptions, translate

# written from cuSPARSE's API and the helper's shape: a checker template that needs an overload per status type
HELPER = b"""#include <cuda_runtime.h>
#include <cusparse.h>
#include <stdio.h>

static const char *_cudaGetErrorEnum(cudaError_t error) { return cudaGetErrorName(error); }

#ifdef CUSPARSEAPI
static const char *_cudaGetErrorEnum(cusparseStatus_t error) {
  return error == CUSPARSE_STATUS_SUCCESS ? "CUSPARSE_STATUS_SUCCESS" : "<unknown>";
}
#endif

#if !defined(CUSPARSEAPI)
#error "cusparse.h is included above"
#endif

template <typename T>
void check(T result, char const *const func) {
  if (result) fprintf(stderr, "%s: %s\\n", func, _cudaGetErrorEnum(result));
}

int main() {
  cusparseHandle_t handle = 0;
  check(cusparseCreate(&handle), "cusparseCreate");
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  return 0;
}
"""

HIPSPARSE_H = Path("/usr/include/hipsparse/hipsparse.h")


def test_the_presence_tests_name_hipsparse_h_guard():
    out = translate(HELPER, "helper.cu").output.decode()
    assert "#ifdef _HIPSPARSE_H_\n" in out
    assert "#if !defined(_HIPSPARSE_H_)\n" in out
    assert "CUSPARSEAPI" not in out
    assert "#include <hipsparse/hipsparse.h>" in out


def test_hip_defines_that_guard_in_hipsparse_h():
    if not HIPSPARSE_H.exists():
        pytest.skip("hipSPARSE's headers are not installed (Debian 12: libhipsparse-dev)")
    text = HIPSPARSE_H.read_text()
    assert re.search(r"^#ifndef _HIPSPARSE_H_\n#define _HIPSPARSE_H_\n", text, re.M)


@pytest.mark.hipcc
def test_the_port_of_the_helper_compiles(hipcc_compile):
    if not HIPSPARSE_H.exists():
        pytest.skip("hipSPARSE's headers are not installed (Debian 12: libhipsparse-dev)")
    rc, out = hipcc_compile(translate(HELPER, "helper.cu").output, "helper", syntax_only=True)
    assert rc == 0, out[-3000:]


# written from cuSOLVER's API and the same helper shape: the overload is declared under cusolver_common.h's guard
SOLVER_HELPER = b"""#include <cusolverDn.h>
#include <stdio.h>

#ifdef CUSOLVER_COMMON_H_
static const char *_cudaGetErrorEnum(cusolverStatus_t error) {
  return error == CUSOLVER_STATUS_SUCCESS ? "CUSOLVER_STATUS_SUCCESS" : "<unknown>";
}
#endif

int main() {
  cusolverDnHandle_t handle = 0;
  cusolverStatus_t s = cusolverDnCreate(&handle);
  printf("%s\\n", _cudaGetErrorEnum(s));
  return 0;
}
"""

def test_the_cusolver_presence_test_names_hipsolver_h_guard():
    out = translate(SOLVER_HELPER, "solver_helper.cu").output.decode()
    assert "#ifdef HIPSOLVER_H\n" in out and "CUSOLVER_COMMON_H_" not in out
    assert "#include <hipsolver/hipsolver.h>" in out


@pytest.mark.hipcc
def test_the_port_of_the_solver_helper_compiles(hipcc_compile, hipsolver_include):
    header = hipsolver_include / "hipsolver" / "hipsolver.h"
    assert re.search(r"^#ifndef HIPSOLVER_H\n#define HIPSOLVER_H\n", header.read_text(), re.M)
    port = translate(SOLVER_HELPER, "solver_helper.cu", TranslateOptions(target_rocm="5.5")).output
    rc, out = hipcc_compile(port, "solver_helper", flags=("-isystem", str(hipsolver_include)), syntax_only=True)
    assert rc == 0, out[-3000:]
