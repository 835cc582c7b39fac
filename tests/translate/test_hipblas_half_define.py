"""cuBLAS's half-precision functions take __half (cublas_api.h: cublasHgemm(..., const __half* alpha,
const __half* A, ...)); hipBLAS declares its counterparts with hipblasHalf, which is uint16_t unless
HIPBLAS_USE_HIP_HALF is defined before hipblas.h (hipblas/hipblas.h, hipBLAS 5.5: then it is __half).
The port defines it, guarded, ahead of the hipBLAS include (rules.toml [[define_before_include]])."""

from __future__ import annotations


import pytest

from porter.translate import TranslateOptions, translate
from porter.translate.engine import whole_file_names

GUARDED = "#ifndef HIPBLAS_USE_HIP_HALF\n#define HIPBLAS_USE_HIP_HALF\n#endif\n"

# written from cuBLAS's documentation: C = alpha * A * B + beta * C in half precision
HGEMM = b"""#include <cstdio>
#include <cuda_fp16.h>
#include <cublas_v2.h>

cublasStatus_t half_gemm(cublasHandle_t handle, int m, int n, int k, const __half* A, const __half* B, __half* C) {
  const __half alpha = __float2half(1.0f);
  const __half beta = __float2half(0.0f);
  return cublasHgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, A, m, B, k, &beta, C, m);
}
"""

SGEMM = (HGEMM.replace(b"#include <cuda_fp16.h>\n", b"").replace(b"__half", b"float")
         .replace(b"__float2half(1.0f)", b"1.0f").replace(b"__float2half(0.0f)", b"0.0f")
         .replace(b"cublasHgemm", b"cublasSgemm"))


def test_a_half_gemm_port_defines_hipblas_use_hip_half_before_the_hipblas_include():
    out = translate(HGEMM, "gemm.cpp").output.decode()
    assert "hipblasHgemm(handle, HIPBLAS_OP_N" in out
    assert out.count(GUARDED) == 1
    assert out.index(GUARDED) + len(GUARDED) == out.index("#include <hipblas/hipblas.h>")
    # the lines after it still map back to their CUDA lines (compiler messages on the port)
    t = translate(HGEMM, "gemm.cpp")
    lines = out.splitlines()
    hgemm_line = next(i for i, s in enumerate(lines, 1) if "hipblasHgemm(" in s)
    assert t.output_line_to_source(hgemm_line) == next(
        i for i, s in enumerate(HGEMM.decode().splitlines(), 1) if "cublasHgemm(" in s)


def test_no_define_without_a_half_precision_call_or_a_hipblas_include():
    assert b"HIPBLAS_USE_HIP_HALF" not in translate(SGEMM, "s.cpp").output
    # --roc ports to rocBLAS (rocblas_hgemm, rocblas/rocblas.h), which does not read the macro
    roc = translate(HGEMM, "r.cpp", TranslateOptions(roc=True)).output
    assert b"rocblas_hgemm" in roc and b"HIPBLAS_USE_HIP_HALF" not in roc


def test_the_define_is_not_added_twice():
    port = translate(HGEMM, "gemm.cpp").output
    assert translate(port, "gemm.cpp").output == port  # converting the port again changes nothing
    # a CUDA file that defines the macro itself (or a half-converted one) gets no second definition
    own = b"#define HIPBLAS_USE_HIP_HALF 1\n" + HGEMM
    assert translate(own, "own.cpp").output.count(b"HIPBLAS_USE_HIP_HALF") == 1
    half = port.replace(b"hipblasHgemm", b"cublasHgemm")
    assert translate(half, "half.cpp").output.count(GUARDED.encode()) == 1


def test_a_region_with_a_half_call_is_translated_with_its_whole_file():
    # the review app's region splice would miss the define: it declines these names
    assert b"cublasHgemm" in whole_file_names(False)
    assert b"cublasSgemm" not in whole_file_names(False)


@pytest.mark.hipcc
def test_the_half_gemm_port_compiles_against_hipblas(hipcc_compile, hipblas_include):
    # hipBLAS 5.5's headers (Debian 13), where HIPBLAS_USE_HIP_HALF first exists
    port = translate(HGEMM, "gemm.cpp", TranslateOptions(target_rocm="5.5")).output
    rc, out = hipcc_compile(port, "gemm", flags=("-isystem", str(hipblas_include)), syntax_only=True)
    assert rc == 0, out[-3000:]
    rc, out = hipcc_compile(port.replace(GUARDED.encode(), b""), "bare",
                            flags=("-isystem", str(hipblas_include)), syntax_only=True)
    assert rc != 0 and "no matching function for call to 'hipblasHgemm'" in out, out[-3000:]
