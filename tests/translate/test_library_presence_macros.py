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

from porter.translate import translate

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
