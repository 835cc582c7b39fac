"""``--roc``: cuBLAS and cuSOLVER calls whose rocBLAS/rocSOLVER function takes other arguments get
that function's argument list (porter/mapping/data/calls/roc_blas_args.json, porter/translate/call_args.py).

Renaming ``cublasGemmEx(19 arguments)`` to ``rocblas_gemm_ex`` (24: a D matrix, the compute type as a
rocblas_datatype, solution_index, flags) or ``cusolverDnSpotrf(..., Workspace, Lwork, devInfo)`` to
``rocsolver_spotrf`` (no workspace: rocSOLVER allocates it) made ports that do not compile.  The
fixtures are written from NVIDIA's documented signatures; the compile check needs rocBLAS's and
rocSOLVER's headers (Debian 13's librocblas-dev / librocsolver-dev, not packaged for Debian 12: point
PORTER_ROCBLAS_INCLUDE at an include folder holding rocblas/ and rocsolver/), so the argument lists
are also checked against the parameter lists the data records from those headers."""

from __future__ import annotations

import re

import pytest

from porter.mapping.roc_sparse_args import load_blas_call_args
from porter.translate import TranslateOptions, translate

SRC = b"""#include <cublas_v2.h>
#include <cusolverDn.h>
#include <cuComplex.h>
void f(cublasHandle_t h, cusolverDnHandle_t s, int m, int n, int k, const __half* A, const __half* B,
       __half* C, int ldc, float* X, float* Y, float* work, int lwork, int* ipiv, int* info,
       const cuComplex* x, cuComplex* y, const cuComplex* const* As, cuComplex** Cs, cuDoubleComplex* Z,
       cuDoubleComplex* zwork, float* norm) {
  float a = 1, b = 0;
  cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &a, A, CUDA_R_16F, m, B, CUDA_R_16F, k, &b, C, CUDA_R_16F, ldc, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  cublasSaxpy(h, n, &a, X, 1, Y, 1);
  cusolverDnSpotrf(s, CUBLAS_FILL_MODE_LOWER, n, X, n, work, lwork, info);
  cusolverDnSgetrf(s, n, n, X, n, work, ipiv, info);
  cusolverDnSsytrf(s, CUBLAS_FILL_MODE_UPPER, n, X, n, ipiv, work, lwork, info);
  cuComplex ca = make_cuComplex(1, 0), cb = make_cuComplex(0, 0);
  cublasCaxpy(h, n, &ca, x, 1, y, 1);
  cublasScnrm2(h, n, x, 1, norm);
  cublasCgemv(h, CUBLAS_OP_N, m, n, &ca, x, m, NULL, 1, &cb, y, 1);
  cublasCgemmBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &ca, As, m, As, k, &cb, Cs, m, 4);
  cusolverDnZpotrf(s, CUBLAS_FILL_MODE_LOWER, n, Z, n, zwork, lwork, info);
}
"""


def _port(text: bytes, roc: bool = True) -> str:
    return translate(text, "t.cu", TranslateOptions(roc=roc)).output.decode()


def _call(out: str, name: str) -> list[str]:
    return [" ".join(m.split()) for m in re.findall(rf"\b{name}\(([^;]*)\);", out)]


def test_gemm_ex_gets_rocblas_arguments_with_c_as_d():
    out = _port(SRC)
    (args,) = _call(out, "rocblas_gemm_ex")
    got = args.split(", ")
    params = load_blas_call_args()["cublasGemmEx"].roc_params  # rocblas-functions.h 5.5, as the data records it
    assert len(got) == len(params) == 24
    named = {p.rsplit(" ", 1)[1]: a for p, a in zip(params, got)}
    # D is C (rocBLAS's doc comment: allowed when d_type == c_type and ldd == ldc); compute type as a
    # rocblas_datatype; the default solution; no flags
    assert (named["d"], named["d_type"], named["ldd"]) == (named["c"], named["c_type"], named["ldc"]) == (
        "C", "rocblas_datatype_f16_r", "ldc")
    assert named["compute_type"] == "rocblas_datatype_f32_r"
    assert (named["algo"], named["solution_index"], named["flags"]) == (
        "rocblas_gemm_algo_standard", "0", "rocblas_gemm_flags_none")


def test_rocsolver_calls_lose_the_workspace_and_same_lists_stay():
    out = _port(SRC)
    assert _call(out, "rocsolver_spotrf") == ["s, rocblas_fill_lower, n, X, n, info"]
    assert _call(out, "rocsolver_sgetrf") == ["s, n, n, X, n, ipiv, info"]
    assert _call(out, "rocsolver_ssytrf") == ["s, rocblas_fill_upper, n, X, n, ipiv, info"]
    assert _call(out, "rocblas_saxpy") == ["h, n, &a, X, 1, Y, 1"]
    for name, roc in (("cusolverDnSpotrf", "rocsolver_spotrf"), ("cusolverDnSgetrf", "rocsolver_sgetrf")):
        params = [p.rsplit(" ", 1)[1] for p in load_blas_call_args()[name].roc_params]
        assert len(_call(out, roc)[0].split(", ")) == len(params)
        assert "work" not in " ".join(params).lower()


def test_complex_pointers_are_cast_to_rocblas_complex_types():
    out = _port(SRC)
    cf = "reinterpret_cast<const rocblas_float_complex*>"
    assert _call(out, "rocblas_caxpy") == [f"h, n, {cf}(&ca), {cf}(x), 1, reinterpret_cast<rocblas_float_complex*>(y), 1"]
    assert _call(out, "rocblas_scnrm2") == [f"h, n, {cf}(x), 1, norm"]
    # a null pointer constant is passed as it is (reinterpret_cast does not take nullptr or 0)
    assert _call(out, "rocblas_cgemv") == [
        f"h, rocblas_operation_none, m, n, {cf}(&ca), {cf}(x), m, NULL, 1, {cf}(&cb), "
        "reinterpret_cast<rocblas_float_complex*>(y), 1"]
    # the batched arrays of matrix pointers: rocBLAS's `const rocblas_float_complex* const A[]`
    (gemm,) = _call(out, "rocblas_cgemm_batched")
    assert "reinterpret_cast<const rocblas_float_complex* const*>(As)" in gemm
    assert "reinterpret_cast<rocblas_float_complex* const*>(Cs)" in gemm
    # the workspace goes and the complex matrix is cast
    assert _call(out, "rocsolver_zpotrf") == [
        "s, rocblas_fill_lower, n, reinterpret_cast<rocblas_double_complex*>(Z), n, info"]
    # each cast names the parameter type rocBLAS declares, as the data records it from its headers
    for name, roc in (("cublasCaxpy", "rocblas_caxpy"), ("cublasCgemv", "rocblas_cgemv"),
                      ("cublasCgemmBatched", "rocblas_cgemm_batched"), ("cusolverDnZpotrf", "rocsolver_zpotrf")):
        params = load_blas_call_args()[name].roc_params
        args = re.split(r", (?![^()<>]*[)>])", _call(out, roc)[0])
        assert len(args) == len(params)
        for param, arg in zip(params, args):
            cast = re.match(r"reinterpret_cast<(.*)>\(", arg)
            if cast:
                assert param.rsplit(" ", 1)[0] == cast.group(1), (name, param, arg)


def test_calls_the_edit_would_change_are_left_as_written():
    src = (SRC.replace(b"&b, C, CUDA_R_16F", b"&b, Cs[i++], CUDA_R_16F")
           .replace(b"int* info)", b"int* info, __half** Cs, int i)")
           .replace(b"work, ipiv, info", b"work, NULL, info")
           .replace(b"X, n, work, lwork, info", b"X, n, next(), lwork, info"))
    out = _port(src)
    # C passed twice would be incremented twice; a null devIpiv is getrf without pivoting (rocSOLVER's
    # _npvt function); a workspace made by a call would no longer be made
    assert len(_call(out, "rocblas_gemm_ex")[0].split(", ")) == 19
    assert _call(out, "rocsolver_sgetrf") == ["s, n, n, X, n, work, NULL, info"]
    assert _call(out, "rocsolver_spotrf") == ["s, rocblas_fill_lower, n, X, n, next(), lwork, info"]
    tf32 = _port(SRC.replace(b"CUBLAS_COMPUTE_32F,", b"CUBLAS_COMPUTE_32F_FAST_TF32,"))
    assert len(_call(tf32, "rocblas_gemm_ex")[0].split(", ")) == 19


def test_without_roc_the_port_keeps_cuda_arguments():
    out = _port(SRC, roc=False)
    assert _call(out, "hipsolverDnSpotrf") == [
        "s, HIPBLAS_FILL_MODE_LOWER, n, X, n, work, lwork, info"]


@pytest.mark.hipcc
def test_the_port_compiles_against_rocblas_and_rocsolver(hipcc_compile, rocblas_include):
    rc, out = hipcc_compile(("#include <hip/hip_fp16.h>\n" + _port(SRC)).encode(), "t", flags=(f"-I{rocblas_include}",),
                            syntax_only=True)
    assert rc == 0, out


def test_every_hipsolver_name_left_in_a_roc_port_is_reported():
    """cuSOLVER dense functions without a rocSOLVER name keep hipSOLVER's, which a --roc port (rocblas_handle,
    rocsolver/rocsolver.h) cannot call: each line where the port still names a hipSOLVER function has PORT182,
    and a workspace query of a function rocSOLVER runs without a workspace is said to go."""
    from porter.findings import scan

    src = (b"#include <cusolverDn.h>\n"
           b"void f(cusolverDnHandle_t s, int n, float* A, float* work, int* info, float** As, int* infos) {\n"
           b"  int lwork = 0;\n"
           b"  cusolverDnSpotrf_bufferSize(s, CUBLAS_FILL_MODE_LOWER, n, A, n, &lwork);\n"
           b"  cusolverDnSpotrf(s, CUBLAS_FILL_MODE_LOWER, n, A, n, work, lwork, info);\n"
           b"  cusolverDnSpotrfBatched(s, CUBLAS_FILL_MODE_LOWER, n, As, n, infos, 4);\n"
           b"}\n")
    out = _port(src)
    assert "rocsolver/rocsolver.h" in out and "rocblas_handle s" in out
    kept = {i for i, line in enumerate(out.splitlines(), 1) if re.search(r"\bhipsolver\w*\s*\(", line)}
    assert kept == {4, 6}
    findings = [f for f in scan(src, "t.cu", options=TranslateOptions(roc=True)) if f.rule == "PORT182"]
    assert {f.line for f in findings} == kept
    query = next(f for f in findings if f.line == 4)
    assert "rocsolver_spotrf" in query.message and "remove this query" in query.message
    assert not [f for f in scan(src, "t.cu") if f.rule == "PORT182"]  # without --roc: hipSOLVER throughout
