"""PORT030 on a `case` label the port cannot keep as the translator writes it, found from the translation itself:

* two labels of different CUDA names that become one name: a duplicate case value, which does not compile.  Under
  --roc, AMD's HIPIFY tables give CUBLAS_STATUS_ALLOC_FAILED rocBLAS's rocblas_status_not_implemented, the name the
  port writes for CUBLAS_STATUS_NOT_SUPPORTED too; four cuSOLVER statuses (MAPPING_ERROR, EXECUTION_FAILED,
  NOT_SUPPORTED, ZERO_PIVOT) share it as well;
* under --roc, a label written as a HIP library's name where the roc* library has none (CUBLAS_STATUS_LICENSE_ERROR ->
  HIPBLAS_STATUS_UNKNOWN; CUSPARSE_STATUS_MAPPING_ERROR -> HIPSPARSE_STATUS_MAPPING_ERROR; CURAND_STATUS_ARCH_MISMATCH
  -> HIPRAND_STATUS_ARCH_MISMATCH) in a port that includes only the roc* library's header: undeclared.

A CUDA error-string helper over each library's status enum is the user's code here; the fixed port (`porter convert
--roc --fix`) must name only statuses the roc* header declares, each once.  The enum lists are NVIDIA's
(cublas_api.h / cusparse.h / curand.h as NVIDIA documents cublasStatus_t, cusparseStatus_t, curandStatus_t) and the
roc* headers' (rocBLAS 5.5.1's rocblas/internal/rocblas-types.h, Debian 13 librocblas-dev; rocSPARSE's and rocRAND's
installed headers where they are here), not what porter prints."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from porter.findings import apply_fixes, scan
from porter.translate import TranslateOptions, translate
from test_cusolver_status_cases import HELPER as CUSOLVER_HELPER
from test_cusolver_status_cases import _labels

ROC = TranslateOptions(roc=True)

# cublasStatus_t, NVIDIA's list: name -> value
CUBLAS = {"CUBLAS_STATUS_SUCCESS": 0, "CUBLAS_STATUS_NOT_INITIALIZED": 1, "CUBLAS_STATUS_ALLOC_FAILED": 3,
          "CUBLAS_STATUS_INVALID_VALUE": 7, "CUBLAS_STATUS_ARCH_MISMATCH": 8, "CUBLAS_STATUS_MAPPING_ERROR": 11,
          "CUBLAS_STATUS_EXECUTION_FAILED": 13, "CUBLAS_STATUS_INTERNAL_ERROR": 14, "CUBLAS_STATUS_NOT_SUPPORTED": 15,
          "CUBLAS_STATUS_LICENSE_ERROR": 16}
# cusparseStatus_t, NVIDIA's list
CUSPARSE = {"CUSPARSE_STATUS_SUCCESS": 0, "CUSPARSE_STATUS_NOT_INITIALIZED": 1, "CUSPARSE_STATUS_ALLOC_FAILED": 2,
            "CUSPARSE_STATUS_INVALID_VALUE": 3, "CUSPARSE_STATUS_ARCH_MISMATCH": 4, "CUSPARSE_STATUS_MAPPING_ERROR": 5,
            "CUSPARSE_STATUS_EXECUTION_FAILED": 6, "CUSPARSE_STATUS_INTERNAL_ERROR": 7,
            "CUSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED": 8, "CUSPARSE_STATUS_ZERO_PIVOT": 9,
            "CUSPARSE_STATUS_NOT_SUPPORTED": 10, "CUSPARSE_STATUS_INSUFFICIENT_RESOURCES": 11}
# curandStatus_t, NVIDIA's list
CURAND = {"CURAND_STATUS_SUCCESS": 0, "CURAND_STATUS_VERSION_MISMATCH": 100, "CURAND_STATUS_NOT_INITIALIZED": 101,
          "CURAND_STATUS_ALLOCATION_FAILED": 102, "CURAND_STATUS_TYPE_ERROR": 103, "CURAND_STATUS_OUT_OF_RANGE": 104,
          "CURAND_STATUS_LENGTH_NOT_MULTIPLE": 105, "CURAND_STATUS_DOUBLE_PRECISION_REQUIRED": 106,
          "CURAND_STATUS_LAUNCH_FAILURE": 201, "CURAND_STATUS_PREEXISTING_FAILURE": 202,
          "CURAND_STATUS_INITIALIZATION_FAILED": 203, "CURAND_STATUS_ARCH_MISMATCH": 204,
          "CURAND_STATUS_INTERNAL_ERROR": 999}

# rocblas_status of rocBLAS 2.47 (ROCm 5.5: Debian 13's librocblas-dev 5.5.1), and what rocBLAS of ROCm 5.7 added
# (AMD's HIPIFY tables date rocblas_status_arch_mismatch 5.7.0; rocBLAS's rocblas-types.h numbers it 15)
ROCBLAS_55 = {"rocblas_status_success": 0, "rocblas_status_invalid_handle": 1, "rocblas_status_not_implemented": 2,
              "rocblas_status_invalid_pointer": 3, "rocblas_status_invalid_size": 4, "rocblas_status_memory_error": 5,
              "rocblas_status_internal_error": 6, "rocblas_status_perf_degraded": 7,
              "rocblas_status_size_query_mismatch": 8, "rocblas_status_size_increased": 9,
              "rocblas_status_size_unchanged": 10, "rocblas_status_invalid_value": 11, "rocblas_status_continue": 12,
              "rocblas_status_check_numerics_fail": 13}
ROCBLAS_57 = {**ROCBLAS_55, "rocblas_status_excluded_from_build": 14, "rocblas_status_arch_mismatch": 15}

ROCSPARSE_TYPES = Path("/usr/include/rocsparse/rocsparse-types.h")
ROCRAND_H = Path("/usr/include/rocrand/rocrand.h")


def helper(header: str, ctype: str, names) -> bytes:
    """A CUDA error-string helper: one case per status, each returning the status's name."""
    cases = "".join(f"    case {n}: return \"{n}\";\n" for n in names)
    return (f"#include <{header}>\nconst char* status_name({ctype} e) {{\n  switch (e) {{\n{cases}  }}\n"
            "  return \"?\";\n}\n").encode()


CUBLAS_HELPER = helper("cublas_v2.h", "cublasStatus_t", CUBLAS)


def _line(src: bytes, name: str) -> int:
    return next(i for i, l in enumerate(src.decode().splitlines(), 1) if f"case {name}:" in l)


def _fixed_port(src: bytes, opts: TranslateOptions) -> bytes:
    """``porter convert --fix`` with ``opts``: the safe fixes applied to the CUDA, then the translation."""
    return translate(apply_fixes(src, scan(src, "t.cu", options=opts)), "t.cu", opts).output


def _enum(header: Path, type_name: str, prefix: str) -> dict[str, int]:
    """The enumerators (and values) of ``typedef enum ... {...} type_name;`` in a header."""
    text = re.sub(r"//[^\n]*|/\*.*?\*/", "", header.read_text(), flags=re.S)
    body = re.search(r"typedef\s+enum\s*\w*\s*\{([^}]*)\}\s*" + type_name + r"\s*;", text).group(1)
    return {n: int(v, 0) for n, v in re.findall(rf"({prefix}\w+)\s*=\s*(\w+)", body)}


# ---------------------------------------------------------------- cuBLAS under --roc
def test_the_rocblas_table_is_the_header_when_it_is_here(rocblas_include):
    version = (rocblas_include / "rocblas" / "internal" / "rocblas-version.h").read_text()
    assert re.search(r"ROCBLAS_VERSION_MINOR\s+47\b", version)  # rocBLAS 2.47: ROCm 5.5
    assert _enum(rocblas_include / "rocblas" / "internal" / "rocblas-types.h", "rocblas_status",
                 "rocblas_status_") == ROCBLAS_55


def test_the_cublas_helper_ports_under_roc_to_declared_labels_of_distinct_values():
    unfixed = _labels(translate(CUBLAS_HELPER, "t.cu", ROC).output)
    # the port as it was: a duplicate case value and a hipBLAS name beside rocblas/rocblas.h
    assert len(set(unfixed)) < len(unfixed) and set(unfixed) - set(ROCBLAS_57)
    fixed = _fixed_port(CUBLAS_HELPER, ROC)
    labels = _labels(fixed)
    assert set(labels) <= set(ROCBLAS_57), set(labels) - set(ROCBLAS_57)
    assert len({ROCBLAS_57[l] for l in labels}) == len(labels)
    # and nothing more went: each rocBLAS status the port had a label for keeps one
    assert sorted(labels) == sorted({l for l in unfixed if l in ROCBLAS_57})
    assert b"<rocblas/rocblas.h>" in fixed and b"hipblas" not in fixed


def test_each_label_the_roc_port_cannot_keep_is_reported_with_the_removal_fix():
    found = {f.line: f for f in scan(CUBLAS_HELPER, "t.cu", options=ROC) if f.rule == "PORT030"}
    # CUBLAS_STATUS_ALLOC_FAILED and CUBLAS_STATUS_NOT_SUPPORTED both become rocblas_status_not_implemented: the label
    # that reads least like it goes, and the value reaches NOT_SUPPORTED's case
    alloc = found.pop(_line(CUBLAS_HELPER, "CUBLAS_STATUS_ALLOC_FAILED"))
    assert alloc.fix is not None and alloc.fix.safe
    assert "rocblas_status_not_implemented" in alloc.message and "CUBLAS_STATUS_NOT_SUPPORTED" in alloc.message
    lic = found.pop(_line(CUBLAS_HELPER, "CUBLAS_STATUS_LICENSE_ERROR"))
    assert lic.fix is not None and lic.fix.safe
    assert "HIPBLAS_STATUS_UNKNOWN" in lic.message and "hipblas/hipblas.h" in lic.message
    assert found == {}
    fixed = _fixed_port(CUBLAS_HELPER, ROC).decode()
    assert '"CUBLAS_STATUS_NOT_SUPPORTED"' in fixed and '"CUBLAS_STATUS_ALLOC_FAILED"' not in fixed


def test_the_roc_port_compiles_with_rocblas_headers(rocblas_include, hipcc_compile):
    # rocBLAS 5.5 has no rocblas_status_arch_mismatch (5.7): the helper over the other statuses, ported for 5.5
    opts = TranslateOptions(roc=True, target_rocm="5.5")
    src = helper("cublas_v2.h", "cublasStatus_t", [n for n in CUBLAS if n != "CUBLAS_STATUS_ARCH_MISMATCH"])
    flags = ["-isystem", str(rocblas_include)]
    rc, out = hipcc_compile(translate(src, "t.cu", opts).output, "unfixed", flags=flags, syntax_only=True)
    assert rc != 0 and "duplicate case value" in out and "HIPBLAS_STATUS_UNKNOWN" in out
    rc, out = hipcc_compile(_fixed_port(src, opts), "fixed", flags=flags, syntax_only=True)
    assert rc == 0, out[-3000:]


# ---------------------------------------------------------------- cuSOLVER under --roc (rocSOLVER: rocblas_status)
def test_the_cusolver_helper_ports_under_roc_to_declared_labels_of_distinct_values():
    unfixed = _labels(translate(CUSOLVER_HELPER, "t.cu", ROC).output)
    assert unfixed.count("rocblas_status_not_implemented") > 1
    labels = _labels(_fixed_port(CUSOLVER_HELPER, ROC))
    assert set(labels) <= set(ROCBLAS_57), set(labels) - set(ROCBLAS_57)
    assert len({ROCBLAS_57[l] for l in labels}) == len(labels)
    assert sorted(labels) == sorted({l for l in unfixed if l in ROCBLAS_57})


def test_the_cusolver_roc_port_for_rocm_5_5_compiles_with_rocsolver_headers(rocblas_include, hipcc_compile):
    opts = TranslateOptions(roc=True, target_rocm="5.5")
    flags = ["-isystem", str(rocblas_include)]
    rc, out = hipcc_compile(_fixed_port(CUSOLVER_HELPER, opts), "fixed", flags=flags, syntax_only=True)
    assert rc == 0, out[-3000:]


# ---------------------------------------------------------------- labels that stay distinct get nothing
@pytest.mark.parametrize("src, opts", [
    (CUBLAS_HELPER, TranslateOptions()),  # hipBLAS has a status of each name
    (helper("cublas_v2.h", "cublasStatus_t", ["CUBLAS_STATUS_SUCCESS", "CUBLAS_STATUS_INVALID_VALUE",
                                              "CUBLAS_STATUS_NOT_SUPPORTED", "CUBLAS_STATUS_INTERNAL_ERROR"]), ROC),
    (helper("cuda_runtime.h", "cudaError_t", ["cudaSuccess", "cudaErrorInvalidValue", "cudaErrorMemoryAllocation",
                                              "cudaErrorNotReady", "cudaErrorInvalidDevice"]), ROC),
    (helper("cusparse.h", "cusparseStatus_t", CUSPARSE), TranslateOptions()),
], ids=["cublas-hip", "cublas-roc-distinct", "runtime-roc", "cusparse-hip"])
def test_labels_the_port_keeps_distinct_and_declared_get_nothing(src, opts):
    assert [f for f in scan(src, "t.cu", options=opts) if f.rule == "PORT030"] == []
    labels = _labels(translate(src, "t.cu", opts).output)
    assert len(set(labels)) == len(labels)


def test_a_duplicate_under_another_switch_is_no_duplicate():
    # the two labels that become rocblas_status_not_implemented stand in two switches: each compiles
    one = helper("cublas_v2.h", "cublasStatus_t", ["CUBLAS_STATUS_ALLOC_FAILED"])
    two = one.replace(b"status_name", b"other_name").replace(b"ALLOC_FAILED", b"NOT_SUPPORTED").split(b"\n", 1)[1]
    assert [f for f in scan(one + two, "t.cu", options=ROC) if f.rule == "PORT030"] == []


# ---------------------------------------------------------------- cuSPARSE and cuRAND under --roc, compiled
@pytest.mark.parametrize("header, ctype, names, roc_header, roc_type, prefix", [
    ("cusparse.h", "cusparseStatus_t", CUSPARSE, ROCSPARSE_TYPES, "rocsparse_status", "rocsparse_status_"),
    ("curand.h", "curandStatus_t", CURAND, ROCRAND_H, "rocrand_status", "ROCRAND_STATUS_"),
], ids=["cusparse", "curand"])
def test_the_roc_port_names_only_the_roc_librarys_statuses_and_compiles(header, ctype, names, roc_header, roc_type,
                                                                        prefix, hipcc_compile):
    if not roc_header.is_file():
        pytest.skip(f"{roc_header} missing: the port is not checked against the roc* header")
    declared = _enum(roc_header, roc_type, prefix)
    src = helper(header, ctype, names)
    unfixed = translate(src, "t.cu", ROC).output
    foreign = [l for l in _labels(unfixed) if l not in declared]
    assert foreign  # the port as it was: HIP library names beside the roc* header
    flagged = {f.line for f in scan(src, "t.cu", options=ROC) if f.rule == "PORT030" and f.fix and f.fix.safe}
    assert len(flagged) == len(foreign)
    fixed = _fixed_port(src, ROC)
    labels = _labels(fixed)
    assert set(labels) <= set(declared) and len({declared[l] for l in labels}) == len(labels)
    assert sorted(labels) == sorted(l for l in _labels(unfixed) if l in declared)
    rc, out = hipcc_compile(unfixed, "unfixed", syntax_only=True)
    assert rc != 0 and all(f"'{l}'" in out for l in foreign), out[-3000:]
    rc, out = hipcc_compile(fixed, "fixed", syntax_only=True)
    assert rc == 0, out[-3000:]
