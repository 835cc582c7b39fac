"""cuBLAS's half GEMM in a project whose cuBLAS include and half call are in different files.

cublasHgemm takes `const __half*` (cuBLAS documentation, cublas_api.h); hipBLAS 5.5 declares hipblasHgemm with
hipblasHalf, a uint16_t unless HIPBLAS_USE_HIP_HALF is defined before hipblas.h (then __half: hipblas.h 5.5.1,
lines 92-100).  The define must stand before the include, wherever the call is: a header that includes cuBLAS
and CUDA's half type gets it whatever it calls (rules.toml [[define_before_include]] `in_headers`), and a file
whose half call relies on another file's hipBLAS include is told so (PORT185 at ROCm 5.5 and newer)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from porter.cli.main import main
from porter.translate import TranslateOptions, translate

GUARDED = "#ifndef HIPBLAS_USE_HIP_HALF\n#define HIPBLAS_USE_HIP_HALF\n#endif\n"

# written from cuBLAS's documentation: the project header includes cuBLAS, the .cu calls the half GEMM
COMMON_H = b"""#pragma once
#include <cuda_fp16.h>
#include <cublas_v2.h>

#define CHECK_CUBLAS(call) do { cublasStatus_t s_ = (call); if (s_ != CUBLAS_STATUS_SUCCESS) return s_; } while (0)
"""

MAIN_CU = b"""#include "common.h"

// C = alpha * A * B + beta * C in half precision (column-major, no transposes)
cublasStatus_t half_gemm(cublasHandle_t handle, int m, int n, int k, const __half* A, const __half* B, __half* C) {
  const __half alpha = __float2half(1.0f);
  const __half beta = __float2half(0.0f);
  CHECK_CUBLAS(cublasHgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, A, m, B, k, &beta, C, m));
  return CUBLAS_STATUS_SUCCESS;
}
"""

# the reverse shape: the .cu includes cuBLAS, then a header whose inline function calls the half GEMM
GEMM_CUH = b"""#pragma once
#include <cuda_fp16.h>

inline cublasStatus_t half_gemm(cublasHandle_t handle, int n, const __half* A, const __half* B, __half* C) {
  const __half alpha = __float2half(1.0f);
  const __half beta = __float2half(0.0f);
  return cublasHgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, A, n, B, n, &beta, C, n);
}
"""

REVERSE_CU = b"""#include <cublas_v2.h>
#include "gemm.cuh"

cublasStatus_t run(cublasHandle_t handle, int n, const __half* A, const __half* B, __half* C) {
  return half_gemm(handle, n, A, B, C);
}
"""


def _project(root: Path, files: dict[str, bytes]) -> Path:
    root.mkdir()
    for name, data in files.items():
        (root / name).write_bytes(data)
    return root


def test_a_header_that_includes_cublas_defines_the_half_macro_before_its_hipblas_include():
    out = translate(COMMON_H, "common.h").output.decode()
    assert out.count(GUARDED) == 1
    assert out.index(GUARDED) + len(GUARDED) == out.index("#include <hipblas/hipblas.h>")
    assert "#define HIPBLAS_USE_HIP_HALF" in translate(COMMON_H, "common.cuh").output.decode()
    # a source file still gets it only where it calls a half function (test_hipblas_half_define.py)
    assert "HIPBLAS_USE_HIP_HALF" not in translate(COMMON_H, "common.cpp").output.decode()
    # a header that includes cuBLAS without the half type gets none (the bundled blas_rand's checks.h)
    plain = COMMON_H.replace(b"#include <cuda_fp16.h>\n", b"")
    assert b"HIPBLAS_USE_HIP_HALF" not in translate(plain, "common.h").output
    # --roc includes rocBLAS, which does not read the macro
    assert b"HIPBLAS_USE_HIP_HALF" not in translate(COMMON_H, "common.h", TranslateOptions(roc=True)).output


@pytest.mark.hipcc
def test_the_converted_project_compiles_against_hipblas_5_5(tmp_path, hipcc_compile, hipblas_include):
    src = _project(tmp_path / "src", {"common.h": COMMON_H, "main.cu": MAIN_CU})
    out = tmp_path / "out"
    assert main(["convert", str(src), "-o", str(out), "-q"]) == 0
    port = (out / "main.cu").read_bytes()
    assert b"hipblasHgemm(handle, HIPBLAS_OP_N" in port
    rc, log = hipcc_compile(port, "main", flags=("-isystem", str(hipblas_include), "-I", str(out)), syntax_only=True)
    assert rc == 0, log[-3000:]


def _port185(tmp_path: Path, *flags: str) -> list[dict]:
    src = tmp_path / "reverse"
    if not src.exists():
        _project(src, {"main.cu": REVERSE_CU, "gemm.cuh": GEMM_CUH})
    report = tmp_path / "report.json"
    main(["scan", str(src), "--format", "json", "-o", str(report), "--rule", "PORT185", *flags])
    data = json.loads(report.read_text())
    findings = data["findings"] if isinstance(data, dict) else data
    return [f for f in findings if f.get("rule") == "PORT185"]


def test_a_half_call_relying_on_another_files_hipblas_include_is_reported(tmp_path):
    found = _port185(tmp_path)
    assert [(Path(f["file"]).name, f["line"]) for f in found] == [("gemm.cuh", 7)]  # the cublasHgemm call
    assert "#define HIPBLAS_USE_HIP_HALF" in found[0]["message"]
    assert "-DHIPBLAS_USE_HIP_HALF" in found[0]["message"]
    # below 5.5 PORT185's casts cover the call (the define does not exist there), and --roc calls rocBLAS
    older = _port185(tmp_path, "--target-rocm", "5.2")
    assert [Path(f["file"]).name for f in older] == ["gemm.cuh"] and "reinterpret_cast" in older[0]["message"]
    assert "-DHIPBLAS_USE_HIP_HALF" not in older[0]["message"]
    assert _port185(tmp_path, "--roc") == []
    # none where the file includes cuBLAS itself (the translator defines the macro there) or defines it
    own = _project(tmp_path / "own", {"main.cu": MAIN_CU.replace(b'#include "common.h"', COMMON_H)})
    report = tmp_path / "own.json"
    main(["scan", str(own), "--format", "json", "-o", str(report), "--rule", "PORT185"])
    assert "PORT185" not in report.read_text()
    defined = _project(tmp_path / "defined", {"gemm.cuh": b"#define HIPBLAS_USE_HIP_HALF\n" + GEMM_CUH})
    report = tmp_path / "defined.json"
    main(["scan", str(defined), "--format", "json", "-o", str(report), "--rule", "PORT185"])
    assert "PORT185" not in report.read_text()


def test_a_half_call_whose_project_header_gets_the_define_is_not_reported(tmp_path):
    """common.h includes cuBLAS and the half type: its port defines the macro before hipblas.h, so main.cu's
    call is fine; the same header without the half type gets no define, and the call is reported."""
    def scan(name: str, common: bytes) -> list[str]:
        src = _project(tmp_path / name, {"common.h": common, "main.cu": MAIN_CU})
        report = tmp_path / f"{name}.json"
        main(["scan", str(src), "--format", "json", "-o", str(report), "--rule", "PORT185"])
        data = json.loads(report.read_text())
        findings = data["findings"] if isinstance(data, dict) else data
        return [Path(f["file"]).name for f in findings if f.get("rule") == "PORT185"]

    assert scan("with_half", COMMON_H) == []
    assert scan("without_half", COMMON_H.replace(b"#include <cuda_fp16.h>\n", b"")) == ["main.cu"]
