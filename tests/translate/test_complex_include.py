"""HIP's complex type lives in hip/hip_complex.h, which hip/hip_runtime.h does not include (rules.toml
[complex_include]).  CUDA code gets cuComplex through cuBLAS's, cuSPARSE's, cuSOLVER's and cuFFT's headers
(each includes cuComplex.h); of the headers the port includes instead, hipSPARSE's, hipFFT's and hipSOLVER's
bring hip/hip_complex.h in and hipBLAS's does not (hipblas.h includes it only under
ROCM_MATHLIBS_API_USE_HIP_COMPLEX), so a cuBLAS port using the complex type needs the include."""

from __future__ import annotations


import pytest

from porter.translate import TranslateOptions, translate

# written from cuBLAS's API: cublas_v2.h includes cuComplex.h, so this file never includes it
BLAS = b"""#include <cublas_v2.h>
float scaled_norm(cublasHandle_t h, int n, const float* x, cuComplex scale) {
  cuComplex twice = cuCmulf(scale, make_cuComplex(2.0f, 0.0f));
  float r = 0.0f;
  cublasSnrm2(h, n, x, 1, &r);
  return r * cuCabsf(twice);
}
"""


def test_a_hipblas_port_using_the_complex_type_gets_its_header():
    out = translate(BLAS, "norm.cpp").output.decode()
    assert out.count("#include <hip/hip_complex.h>") == 1
    assert out.index("#include <hip/hip_complex.h>") < out.index("hipComplex twice = hipCmulf(scale, make_hipComplex(2.0f, 0.0f));")


def test_no_include_where_the_library_header_brings_it_or_the_file_has_it():
    sparse = BLAS.replace(b"cublas_v2.h", b"cusparse.h")
    assert b"hip_complex.h" not in translate(sparse, "s.cpp").output  # hipsparse.h:45 includes it
    fft = BLAS.replace(b"cublas_v2.h", b"cufft.h")
    assert b"hip_complex.h" not in translate(fft, "f.cpp").output  # hipfft.h includes it
    own = translate(b"#include <cuComplex.h>\n" + BLAS, "o.cpp").output
    assert own.count(b"hip_complex.h") == 1  # cuComplex.h's own port, nothing added
    plain = translate(BLAS.replace(b", cuComplex scale", b"").replace(b"cuComplex twice = cuCmulf(scale, make_cuComplex(2.0f, 0.0f));", b"float twice = 2.0f;")
                      .replace(b"cuCabsf(twice)", b"twice"), "p.cpp").output
    assert b"hip_complex.h" not in plain  # no complex name used: nothing added


@pytest.mark.hipcc
def test_the_hipblas_port_compiles(hipcc_compile, hipblas_include):
    # hipBLAS 5.5's headers (Debian 13): the port for that release (from 6.0 porter writes the _v2 names)
    port = translate(BLAS, "norm.cpp", TranslateOptions(target_rocm="5.5")).output
    rc, out = hipcc_compile(port, "norm", flags=("-isystem", str(hipblas_include)), syntax_only=True)
    assert rc == 0, out[-3000:]
    rc, out = hipcc_compile(port.replace(b"#include <hip/hip_complex.h>\n", b""), "bare",
                            flags=("-isystem", str(hipblas_include)), syntax_only=True)
    assert rc != 0 and "hipComplex" in out, out[-3000:]
