"""Two CUDA headers that port to the same HIP header: the second include goes.

CUDA facts: ``cuda.h`` (driver API) and ``cuda_runtime.h`` (runtime API) are two headers, and
CUDA code often includes both; HIP has one header for both, ``hip/hip_runtime.h``.  Likewise
``cublas.h`` (legacy API) and ``cublas_v2.h`` are both hipBLAS's one header, and cuSOLVER's
``cusolver_common.h`` and ``cusolverDn.h`` are both hipSOLVER's.  Every HIP header has an include
guard, so a second include of the same header adds nothing: it is left out of the port (its line
stays, empty, so the port's line numbers still match the CUDA file's).  An include the
preprocessor may skip (inside ``#if``/``#ifdef``, other than the file's include guard) does not
count as "already included": a later include of the same header stays.
"""

from __future__ import annotations

import pytest

from porter.translate import translate
from porter.translate.engine import TranslateOptions

KERNEL = b"__global__ void k(int* p) { p[threadIdx.x] = 1; }\n"


def port(source: bytes, path: str = "k.cu", **options) -> bytes:
    return translate(source, path, TranslateOptions(**options)).output


def test_driver_and_runtime_headers_become_one_runtime_include():
    src = b"#include <cuda.h>\n#include <memory>\n#include <cuda_runtime.h>\n" + KERNEL
    out = port(src)
    assert out == b"#include <hip/hip_runtime.h>\n#include <memory>\n\n" + KERNEL
    assert out.count(b"\n") == src.count(b"\n")  # line numbers still match the CUDA file's


def test_a_trailing_comment_on_the_dropped_include_stays():
    src = b"#include <cuda_runtime.h>\n#include \"cuda.h\" // driver API\n" + KERNEL
    assert port(src) == b"#include <hip/hip_runtime.h>\n // driver API\n" + KERNEL


def test_legacy_and_v2_cublas_headers_become_one_hipblas_include():
    src = b"#include \"cublas.h\"\n#include \"cublas_v2.h\"\nint f(cublasHandle_t h);\n"
    out = port(src, "blas.cpp")
    assert out.count(b"hipblas.h") == 1
    assert out == b"#include \"hipblas/hipblas.h\"\n\nint f(hipblasHandle_t h);\n"


def test_cusolver_headers_become_one_hipsolver_include():
    src = b"#include <cusolver_common.h>\n#include <cusolverDn.h>\nint f(cusolverDnHandle_t h);\n"
    assert port(src, "solve.cpp").splitlines()[:2] == [b"#include <hipsolver/hipsolver.h>", b""]


def test_the_file_include_guard_does_not_make_the_first_include_conditional():
    src = (b"#ifndef COMMON_CUH\n#define COMMON_CUH\n#include <cuda.h>\n#include <cuda_runtime.h>\n"
           b"__device__ inline int lane() { return threadIdx.x & 31; }\n#endif\n")
    out = port(src, "common.cuh")
    assert out.count(b"#include <hip/hip_runtime.h>") == 1
    assert out.startswith(b"#ifndef COMMON_CUH\n#define COMMON_CUH\n#include <hip/hip_runtime.h>\n\n")


@pytest.mark.parametrize("guard", [b"#ifdef USE_DRIVER_API\n", b"#if 0\n", b"#ifndef NO_DRIVER\n"])
def test_an_include_the_preprocessor_may_skip_does_not_count(guard):
    """``#ifdef X`` / ``#include <cuda.h>`` / ``#endif``, then ``#include <cuda_runtime.h>``: with X
    undefined only the second one is seen, so it must stay."""
    src = guard + b"#include <cuda.h>\n#endif\n#include <cuda_runtime.h>\n" + KERNEL
    out = port(src)
    assert out == guard + b"#include <hip/hip_runtime.h>\n#endif\n#include <hip/hip_runtime.h>\n" + KERNEL


def test_an_include_written_in_hip_already_counts():
    src = b"#include <hip/hip_runtime.h>\n#include <cuda_runtime.h>\n" + KERNEL
    assert port(src) == b"#include <hip/hip_runtime.h>\n\n" + KERNEL


def test_different_hip_headers_all_stay():
    """cuda_runtime_api.h is HIP's hip_runtime_api.h, another header: nothing is dropped."""
    src = b"#include <cuda_runtime.h>\n#include <cuda_runtime_api.h>\n#include <cuda_fp16.h>\n" + KERNEL
    out = port(src)
    assert out.startswith(b"#include <hip/hip_runtime.h>\n#include <hip/hip_runtime_api.h>\n#include <hip/hip_fp16.h>\n")


def test_curand_sub_headers_become_one_hiprand_kernel_include():
    """cuRAND's device headers (curand_kernel.h and the curand_*.h it is made of) are all
    hipRAND's hiprand_kernel.h."""
    src = (b"#include <curand_kernel.h>\n#include <curand_normal.h>\n#include <curand_uniform.h>\n"
           b"__global__ void k(curandState* s, float* x) { x[threadIdx.x] = curand_uniform(s); }\n")
    out = port(src)
    assert out.count(b"hiprand/hiprand_kernel.h") == 1
    assert out.splitlines()[:3] == [b"#include <hiprand/hiprand_kernel.h>", b"", b""]


def test_both_drops_and_the_still_converted_header_are_reported_as_converted():
    src = b"#include <cuda.h>\n#include <cuda_runtime.h>\n" + KERNEL
    names = [r.name for r in translate(src, "k.cu").converted]
    assert "cuda.h" in names and "cuda_runtime.h" in names


@pytest.mark.hipcc
def test_the_port_of_both_runtime_headers_compiles(hipcc_compile):
    src = (b"#include <cuda.h>\n#include <cuda_runtime.h>\n#include \"cuda_runtime.h\"\n"
           b"__global__ void k(int* p) { p[threadIdx.x] = 1; }\n"
           b"int main() { int* d; cudaMalloc(&d, 64 * sizeof(int)); k<<<1, 64>>>(d);\n"
           b"  CUdevice dev; cuDeviceGet(&dev, 0);\n  return cudaDeviceSynchronize() != cudaSuccess; }\n")
    out = port(src)
    assert out.count(b"#include") == 1
    rc, msg = hipcc_compile(out, "both")
    assert rc == 0, msg[-3000:]
