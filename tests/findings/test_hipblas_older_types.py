"""PORT185: cuBLAS calls whose hipBLAS function takes older types at an older target ROCm (rules.toml
[[hipblas_older_types]]).

Half precision: cuBLAS's cublasHgemm takes `const __half*` (cuBLAS documentation, cublas_api.h); hipBLAS
declares hipblasHgemm with hipblasHalf, `typedef uint16_t hipblasHalf;` before ROCm 5.5 (ROCm/hipBLAS
library/include/hipblas/hipblas.h at 95105866) and, from hipBLAS 0.54 (ROCm 5.5), `__half` where
HIPBLAS_USE_HIP_HALF is defined first.  hipBLAS 5.5.1's header without that define declares what the older
headers declare (uint16_t, the same parameter lists), so it stands in for them in the compile checks.

The BLAS-like extensions: porter writes hipblasDotEx_v2 & co. (hipDataType, ROCm 6.0); hipBLAS 0.42 (ROCm 4.1)
to 2.x has hipblasDotEx & co. with hipblasDatatype_t, cuBLAS's parameters in cuBLAS's order.

The GEMM extensions: porter writes hipblasGemmEx_v2 & co. (hipDataType, hipblasComputeType_t, ROCm 6.0); older
hipBLAS has hipblasGemmEx & co. in cuBLAS's order with the data types and the compute type as hipblasDatatype_t,
the algorithm as hipblasGemmAlgo_t (HIPBLAS_GEMM_DEFAULT only) and the batched pointer arrays without cuBLAS's
inner const (hipblas.h at 95105866 and in 5.5.1)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from porter.findings import apply_fixes, scan
from porter.translate import TranslateOptions, translate
from porter.translate.engine import structure_rules

GUARDED = b"#ifndef HIPBLAS_USE_HIP_HALF\n#define HIPBLAS_USE_HIP_HALF\n#endif\n"

# written from cuBLAS's documentation: C = alpha * op(A) * op(B) + beta * C in half precision, one matrix,
# an array of matrices, matrices at a fixed stride
HGEMMS = b"""#include <cuda_fp16.h>
#include <cublas_v2.h>

cublasStatus_t gemms(cublasHandle_t h, int m, int n, int k, const __half* A, const __half* B, __half* C,
                     const __half* const* Aarray, const __half* const* Barray, __half* const* Carray, int batch) {
  const __half alpha = __float2half(1.0f);
  const __half beta = __float2half(0.0f);
  cublasStatus_t s = cublasHgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, A, m, B, k, &beta, C, m);
  if (s != CUBLAS_STATUS_SUCCESS) return s;
  s = cublasHgemmBatched(h, CUBLAS_OP_N, CUBLAS_OP_T, m, n, k, &alpha, Aarray, m, Barray, n, &beta, Carray, m, batch);
  if (s != CUBLAS_STATUS_SUCCESS) return s;
  return cublasHgemmStridedBatched(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &alpha, A, k, (long long)m * k,
                                   B, k, (long long)k * n, &beta, C, m, (long long)m * n, batch);
}
"""

# cuBLAS's documentation: r = x . y (half data, float result and accumulation), y += a * x, x *= a, |x|,
# the plane rotation of x and y, the conjugated dot product of complex vectors
EXTENSIONS = b"""#include <cuda_fp16.h>
#include <cublas_v2.h>

void extensions(cublasHandle_t h, int n, __half* x, __half* y, float* r, const float* a, float* nrm,
                const float* c, const float* s, const void* zx, const void* zy, void* zr) {
  cublasDotEx(h, n, x, CUDA_R_16F, 1, y, CUDA_R_16F, 1, r, CUDA_R_32F, CUDA_R_32F);
  cublasAxpyEx(h, n, a, CUDA_R_32F, x, CUDA_R_16F, 1, y, CUDA_R_16F, 1, CUDA_R_32F);
  cublasScalEx(h, n, a, CUDA_R_32F, y, CUDA_R_16F, 1, CUDA_R_32F);
  cublasNrm2Ex(h, n, x, CUDA_R_16F, 1, nrm, CUDA_R_32F, CUDA_R_32F);
  cublasRotEx(h, n, x, CUDA_R_16F, 1, y, CUDA_R_16F, 1, c, s, CUDA_R_32F, CUDA_R_32F);
  cublasDotcEx(h, n, zx, CUDA_C_32F, 1, zy, CUDA_C_32F, 1, zr, CUDA_C_32F, CUDA_C_32F);
}
"""

# cuBLAS's documentation (cublasGemmEx, cublasGemmStridedBatchedEx, cublasGemmBatchedEx): C = alpha * op(A) * op(B)
# + beta * C with half-precision matrices accumulated in single precision; bfloat16 matrices at fixed strides into
# single-precision results; int8 inputs with int32 results and accumulation; arrays of pointers to half matrices
# (cuBLAS's `const void* const Aarray[]`)
GEMMS = b"""#include <cstdint>
#include <cuda_fp16.h>
#include <cublas_v2.h>

cublasStatus_t gemms(cublasHandle_t h, int m, int n, int k, const __half* A, const __half* B, __half* C,
                     const void* X, const void* Y, float* Z, int batch, const int8_t* P, const int8_t* Q, int32_t* R,
                     const void* const* Aarray, const void* const* Barray, void* const* Carray) {
  const float alpha = 1.0f, beta = 0.0f;
  cublasStatus_t s = cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, A, CUDA_R_16F, m, B, CUDA_R_16F, k,
                                  &beta, C, CUDA_R_16F, m, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT_TENSOR_OP);
  if (s != CUBLAS_STATUS_SUCCESS) return s;
  s = cublasGemmStridedBatchedEx(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &alpha, X, CUDA_R_16BF, k, (long long)m * k,
                                 Y, CUDA_R_16BF, k, (long long)k * n, &beta, Z, CUDA_R_32F, m, (long long)m * n,
                                 batch, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  if (s != CUBLAS_STATUS_SUCCESS) return s;
  const int32_t one = 1, zero = 0;
  s = cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &one, P, CUDA_R_8I, k, Q, CUDA_R_8I, k, &zero, R, CUDA_R_32I, m,
                   CUBLAS_COMPUTE_32I, CUBLAS_GEMM_DEFAULT);
  if (s != CUBLAS_STATUS_SUCCESS) return s;
  return cublasGemmBatchedEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, Aarray, CUDA_R_16F, m, Barray, CUDA_R_16F, k,
                             &beta, Carray, CUDA_R_16F, m, batch, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
}
"""

# a single-precision GEMM whose compute type is `COMPUTE` (cuBLAS's documentation: CUBLAS_COMPUTE_32F_FAST_TF32
# "allows the library to use Tensor Cores with TF32 compute"; _PEDANTIC: the declared precision in every phase)
SGEMM_EX = b"""#include <cublas_v2.h>

void sgemm(cublasHandle_t h, int m, int n, int k, const float* A, const float* B, float* C, cublasComputeType_t ct) {
  const float alpha = 1.0f, beta = 0.0f;
  cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, A, CUDA_R_32F, m, B, CUDA_R_32F, k, &beta, C, CUDA_R_32F, m,
               COMPUTE, CUBLAS_GEMM_DEFAULT);
}
"""


def _at(target: str, **kw) -> TranslateOptions:
    return TranslateOptions(target_rocm=target, **kw)


def _rules(data: bytes, target: str, **kw):
    return [f for f in scan(data, "blas.cu", options=_at(target, **kw)) if f.rule in ("PORT185", "PORT032")]


def _fixed_port(data: bytes, target: str) -> bytes:
    """What `porter convert --fix --target-rocm target` writes: the safe fixes, then the translation."""
    fixed = apply_fixes(data, scan(data, "blas.cu", options=_at(target)))
    return translate(fixed, "blas.cu", _at(target)).output


def test_half_gemms_below_5_5_are_reported_with_the_cast_fix():
    found = _rules(HGEMMS, "5.2")
    assert [f.rule for f in found] == ["PORT185"] * 3
    assert all(f.fix and f.fix.safe for f in found)
    assert "uint16_t" in found[0].message and "HIPBLAS_USE_HIP_HALF" in found[0].message
    port = _fixed_port(HGEMMS, "5.2").decode()
    assert ("hipblasHgemm(h, HIPBLAS_OP_N, HIPBLAS_OP_N, m, n, k, reinterpret_cast<const hipblasHalf*>(&alpha), "
            "reinterpret_cast<const hipblasHalf*>(A), m, reinterpret_cast<const hipblasHalf*>(B), k, "
            "reinterpret_cast<const hipblasHalf*>(&beta), reinterpret_cast<hipblasHalf*>(C), m)") in port
    assert "reinterpret_cast<const hipblasHalf* const*>(Aarray)" in port
    assert "reinterpret_cast<hipblasHalf* const*>(Carray)" in port
    # the fixed source is not reported again
    fixed = apply_fixes(HGEMMS, scan(HGEMMS, "blas.cu", options=_at("5.2")))
    assert _rules(fixed, "5.2") == []
    # from 5.5 the define porter writes suffices; under --roc the calls are rocBLAS's (PORT181)
    assert _rules(HGEMMS, "5.5") == [] and _rules(HGEMMS, "6.3") == []
    assert [f for f in _rules(HGEMMS, "5.2", roc=True) if f.rule == "PORT185"] == []


def test_extensions_below_6_0_call_hipblas_older_functions_instead_of_port032():
    found = _rules(EXTENSIONS, "5.2")
    assert [f.rule for f in found] == ["PORT185"] * 6  # PORT032 ("needs ROCm 6.0") is replaced at these calls
    assert all(f.fix and f.fix.safe for f in found)
    assert "hipblasDatatype_t" in found[0].message
    port = _fixed_port(EXTENSIONS, "5.2").decode()
    assert "hipblasDotEx(h, n, x, HIPBLAS_R_16F, 1, y, HIPBLAS_R_16F, 1, r, HIPBLAS_R_32F, HIPBLAS_R_32F)" in port
    assert "hipblasRotEx(h, n, x, HIPBLAS_R_16F, 1, y, HIPBLAS_R_16F, 1, c, s, HIPBLAS_R_32F, HIPBLAS_R_32F)" in port
    assert "hipblasDotcEx(h, n, zx, HIPBLAS_C_32F, 1, zy, HIPBLAS_C_32F, 1, zr, HIPBLAS_C_32F, HIPBLAS_C_32F)" in port
    assert "_v2" not in port and "HIP_R_" not in port
    # at 6.0 porter's own port (hipblasDotEx_v2, hipDataType) is right: nothing to report
    assert _rules(EXTENSIONS, "6.0") == []


def test_a_type_porter_does_not_know_is_reported_without_a_fix():
    held = EXTENSIONS.replace(b"cublasDotEx(h, n, x, CUDA_R_16F", b"cublasDotEx(h, n, x, xtype")
    held = held.replace(b"void* zr)", b"void* zr, cudaDataType xtype)")
    dot = [f for f in _rules(held, "5.2") if "cublasDotEx" in f.message]
    assert len(dot) == 1 and dot[0].rule == "PORT185" and dot[0].fix is None
    assert "`xtype`" in dot[0].message and "HIPBLAS_R_16F for CUDA_R_16F" in dot[0].message
    # a macro that supplies arguments: reported, no fix
    macro = HGEMMS.replace(b"cublasHgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k,", b"cublasHgemm(GEMM_NN(h, m, n, k),")
    first = [f for f in _rules(macro, "5.2") if "`cublasHgemm`" in f.message]
    assert len(first) == 1 and first[0].fix is None and "a macro supplies" in first[0].message


def test_gemm_extensions_below_6_0_call_hipblas_older_gemm_functions():
    found = [f for f in _rules(GEMMS, "5.2") if f.rule == "PORT185"]
    assert len(found) == 4 and all(f.fix and f.fix.safe for f in found)
    assert "hipblasGemmEx" in found[0].message and "HIPBLAS_R_32F for CUBLAS_COMPUTE_32F" in found[0].message
    port = _fixed_port(GEMMS, "5.2").decode()
    assert ("hipblasGemmEx(h, HIPBLAS_OP_N, HIPBLAS_OP_N, m, n, k, &alpha, A, HIPBLAS_R_16F, m, B, HIPBLAS_R_16F, k,\n"
            "                                  &beta, C, HIPBLAS_R_16F, m, HIPBLAS_R_32F, HIPBLAS_GEMM_DEFAULT)") in port
    assert ("hipblasGemmStridedBatchedEx(h, HIPBLAS_OP_T, HIPBLAS_OP_N, m, n, k, &alpha, X, HIPBLAS_R_16B, k, "
            "(long long)m * k,\n                                 Y, HIPBLAS_R_16B, k, (long long)k * n, &beta, Z, "
            "HIPBLAS_R_32F, m, (long long)m * n,\n                                 batch, HIPBLAS_R_32F, "
            "HIPBLAS_GEMM_DEFAULT)") in port
    assert ("&zero, R, HIPBLAS_R_32I, m,\n                   HIPBLAS_R_32I, HIPBLAS_GEMM_DEFAULT)") in port
    assert ("hipblasGemmBatchedEx(h, HIPBLAS_OP_N, HIPBLAS_OP_N, m, n, k, &alpha, const_cast<const void**>(Aarray), "
            "HIPBLAS_R_16F, m, const_cast<const void**>(Barray), HIPBLAS_R_16F, k,\n                             "
            "&beta, const_cast<void**>(Carray), HIPBLAS_R_16F, m, batch, HIPBLAS_R_32F, HIPBLAS_GEMM_DEFAULT)") in port
    assert "_v2" not in port and "HIPBLAS_COMPUTE_" not in port and "CUBLAS_" not in port
    # the fixed source is not reported again; at 6.0 porter's own port (hipblasGemmEx_v2) is right; --roc: PORT181
    fixed = apply_fixes(GEMMS, scan(GEMMS, "blas.cu", options=_at("5.2")))
    assert [f for f in _rules(fixed, "5.2") if f.rule == "PORT185"] == []
    assert _rules(GEMMS, "6.0") == []
    assert [f for f in _rules(GEMMS, "5.2", roc=True) if f.rule == "PORT185"] == []


def _gemm_ex(compute: bytes) -> list:
    return [f for f in _rules(SGEMM_EX.replace(b"COMPUTE", compute), "5.2") if f.rule == "PORT185"]


def test_gemm_compute_types_without_a_safe_counterpart():
    # CUDA 10's form, a cudaDataType: the same hipblasDatatype_t, a safe fix
    (cuda10,) = _gemm_ex(b"CUDA_R_32F")
    assert cuda10.fix and cuda10.fix.safe and "HIPBLAS_R_32F for CUDA_R_32F" in cuda10.message
    # TF32 allowed: full single precision instead, offered for review only
    (tf32,) = _gemm_ex(b"CUBLAS_COMPUTE_32F_FAST_TF32")
    assert tf32.fix and not tf32.fix.safe and "full single precision" in tf32.message
    reviewed = SGEMM_EX.replace(b"COMPUTE", b"CUBLAS_COMPUTE_32F_FAST_TF32")
    suggested = apply_fixes(reviewed, scan(reviewed, "blas.cu", options=_at("5.2")), safe_only=False).decode()
    assert "C, HIPBLAS_R_32F, m,\n               HIPBLAS_R_32F, HIPBLAS_GEMM_DEFAULT)" in suggested
    assert apply_fixes(reviewed, scan(reviewed, "blas.cu", options=_at("5.2"))) == reviewed  # --fix leaves it
    # pedantic arithmetic, and a compute type held in a variable: reported, no fix
    (pedantic,) = _gemm_ex(b"CUBLAS_COMPUTE_32F_PEDANTIC")
    assert pedantic.fix is None and "`CUBLAS_COMPUTE_32F_PEDANTIC`" in pedantic.message
    (held,) = _gemm_ex(b"ct")
    assert held.fix is None and "`ct` is not a constant" in held.message


def _table(kind: str) -> dict:
    return next(t for t in structure_rules()["hipblas_older_types"] if t["kind"] == kind)


def _declarations(header: Path) -> dict[str, list[str]]:
    text = header.read_text()
    return {m.group(1): [" ".join(p.split()) for p in m.group(2).split(",")]
            for m in re.finditer(r"HIPBLAS_EXPORT\s+hipblasStatus_t\s+(\w+)\s*\(([^;]*?)\)\s*;", text, re.S)}


def _param_type(param: str) -> str:
    """`const hipblasHalf* const AP[]` -> `const hipblasHalf* const*`; `hipblasHalf* CP` -> `hipblasHalf*`."""
    if param.endswith("[]"):  # an array parameter is a pointer
        return re.sub(r"\s*\w+\s*\[\s*\]$", "*", param)
    return re.sub(r"\s*\b\w+$", "", param)  # drop the parameter's name


def test_the_table_is_hipblas_own_declarations(hipblas_include):
    header = hipblas_include / "hipblas" / "hipblas.h"
    decls = _declarations(header)
    text = header.read_text()
    assert re.search(r"typedef uint16_t hipblasHalf;", text) and "HIPBLAS_USE_HIP_HALF" in text
    from porter.mapping import load_database

    ids = load_database().identifiers
    cuda_args = json.loads((Path(__file__).parents[2] / "porter/mapping/data/calls/roc_blas_args.json")
                           .read_text())["functions"]
    for name, f in _table("half")["functions"].items():
        params = decls[ids[name].hip]
        assert len(params) == f["args"] == cuda_args[name]["cuda_args"], name
        half = {i: _param_type(p) for i, p in enumerate(params) if "hipblasHalf" in p}
        assert half == {int(k): v for k, v in f["cast"].items()}, name
    datatype = _table("datatype")
    enum = re.search(r"typedef enum\s*(?:hipblasDatatype_t\s*)?\{(.*?)\}\s*hipblasDatatype_t;", text, re.S).group(1)
    for value in datatype["constants"].values():
        assert re.search(rf"\b{value}\s*=", enum), value
    for value in datatype["compute_types"].values():
        assert re.search(rf"\b{value}\s*=", enum), value
    algos = re.search(r"\{([^{}]*)\}\s*hipblasGemmAlgo_t;", text).group(1)
    assert re.findall(r"\b(HIPBLAS_\w+)\s*=", algos) == [datatype["algo_hip"]]
    for name, f in datatype["functions"].items():
        params = decls[f["hip"]]
        assert len(params) == f["args"], name
        compute = [f["compute"]] if "compute" in f else []
        assert [i for i, p in enumerate(params) if p.startswith("hipblasDatatype_t")] == f["types"] + compute, name
        algo = [f["algo"]] if "algo" in f else []
        assert [i for i, p in enumerate(params) if p.startswith("hipblasGemmAlgo_t")] == algo, name
        arrays = {i: _param_type(p) for i, p in enumerate(params) if p.endswith("[]")}
        assert arrays == {int(k): v for k, v in f.get("arrays", {}).items()}, name
        if name in cuda_args:
            assert cuda_args[name]["cuda_args"] == f["args"], name


@pytest.mark.hipcc
def test_the_fixed_half_port_compiles_where_hipblas_half_is_uint16(hipcc_compile, hipblas_include):
    flags = ("-isystem", str(hipblas_include))
    port = _fixed_port(HGEMMS, "5.2")
    older = port.replace(GUARDED, b"")  # hipBLAS before 5.5 ignores the define: hipblasHalf is uint16_t
    for name, source in (("older", older), ("newer", port)):
        rc, out = hipcc_compile(source, name, flags=flags, syntax_only=True)
        assert rc == 0, out[-3000:]
    bare = translate(HGEMMS, "blas.cu", _at("5.2")).output.replace(GUARDED, b"")
    rc, out = hipcc_compile(bare, "bare", flags=flags, syntax_only=True)
    assert rc != 0 and "no matching function for call to 'hipblasHgemm'" in out, out[-3000:]


@pytest.mark.hipcc
@pytest.mark.parametrize("family, unfixed_error", [("extensions", "undeclared identifier 'cublasDotEx'"),
                                                   ("gemms", "undeclared identifier 'CUBLAS_COMPUTE_32F'")])
def test_the_fixed_port_compiles_with_hipblas_datatype(family, unfixed_error, hipcc_compile, hipblas_include):
    source = {"extensions": EXTENSIONS, "gemms": GEMMS}[family]
    flags = ("-isystem", str(hipblas_include))
    rc, out = hipcc_compile(_fixed_port(source, "5.2"), "fixed", flags=flags, syntax_only=True)
    assert rc == 0, out[-3000:]
    rc, out = hipcc_compile(translate(source, "blas.cu", _at("5.2")).output, "bare", flags=flags, syntax_only=True)
    assert rc != 0 and unfixed_error in out, out[-3000:]
