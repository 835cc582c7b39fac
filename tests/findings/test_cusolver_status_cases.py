"""PORT030's fix for the `case` labels of cuSOLVER statuses hipSOLVER has no status for, in a CUDA error-string
helper over cusolverStatus_t (NVIDIA's samples' helper_cuda.h has one: `_cudaGetErrorEnum(cusolverStatus_t)`,
with `case CUSOLVER_STATUS_INVALID_LICENSE:`).

The facts, written here from their sources and not from what porter prints:
* cuSOLVER's statuses and values: cusolverStatus_t as NVIDIA documents it (nvmath-python's
  nvmath.bindings.cusolver.Status, docs.nvidia.com; the names are cusolver_common.h's of nvidia-cusolver-cu12
  11.7.5.82);
* hipSOLVER's: hipsolverStatus_t of ROCm/hipSOLVER's library/include/internal/hipsolver-types.h (the 2024
  version: 0..13), of its 2020-2022 version (ROCm 5.1/5.2) and of hipSOLVER 1.7.0 (ROCm 5.5, Debian 13
  libhipsolver-dev 5.5.1-8): both end at HIPSOLVER_STATUS_UNKNOWN = 11; AMD's HIPIFY tables date
  HIPSOLVER_STATUS_ZERO_PIVOT 5.6.0 and HIPSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED 6.1.0.
hipSOLVER numbers its statuses its own way (ARCH_MISMATCH is 4 in cuSOLVER, 8 in hipSOLVER; 11 is
CUSOLVER_STATUS_INVALID_LICENSE and HIPSOLVER_STATUS_UNKNOWN): the port maps them by name, so a label whose
CUDA status has no hipSOLVER name is reached by no value hipSOLVER returns, whatever its number."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

from porter.findings import apply_fixes, scan
from porter.findings.predicates import status_cases
from porter.translate import TranslateOptions, translate

# AMD's HIPIFY tables (ROCm/HIPIFY 014177b), the copy the mapping database is generated from
HIPIFY_TABLES = Path(__file__).resolve().parents[2] / "porter" / "mapping" / "sources" / "hipify-api-tables.tsv"

# cusolverStatus_t, NVIDIA's list: name -> value
CUSOLVER = {
    "CUSOLVER_STATUS_SUCCESS": 0, "CUSOLVER_STATUS_NOT_INITIALIZED": 1, "CUSOLVER_STATUS_ALLOC_FAILED": 2,
    "CUSOLVER_STATUS_INVALID_VALUE": 3, "CUSOLVER_STATUS_ARCH_MISMATCH": 4, "CUSOLVER_STATUS_MAPPING_ERROR": 5,
    "CUSOLVER_STATUS_EXECUTION_FAILED": 6, "CUSOLVER_STATUS_INTERNAL_ERROR": 7,
    "CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED": 8, "CUSOLVER_STATUS_NOT_SUPPORTED": 9,
    "CUSOLVER_STATUS_ZERO_PIVOT": 10, "CUSOLVER_STATUS_INVALID_LICENSE": 11,
    "CUSOLVER_STATUS_IRS_PARAMS_NOT_INITIALIZED": 12, "CUSOLVER_STATUS_IRS_PARAMS_INVALID": 13,
    "CUSOLVER_STATUS_IRS_PARAMS_INVALID_PREC": 14, "CUSOLVER_STATUS_IRS_PARAMS_INVALID_REFINE": 15,
    "CUSOLVER_STATUS_IRS_PARAMS_INVALID_MAXITER": 16, "CUSOLVER_STATUS_IRS_INTERNAL_ERROR": 20,
    "CUSOLVER_STATUS_IRS_NOT_SUPPORTED": 21, "CUSOLVER_STATUS_IRS_OUT_OF_RANGE": 22,
    "CUSOLVER_STATUS_IRS_NRHS_NOT_SUPPORTED_FOR_REFINE_GMRES": 23, "CUSOLVER_STATUS_IRS_INFOS_NOT_INITIALIZED": 25,
    "CUSOLVER_STATUS_IRS_INFOS_NOT_DESTROYED": 26, "CUSOLVER_STATUS_IRS_MATRIX_SINGULAR": 30,
    "CUSOLVER_STATUS_INVALID_WORKSPACE": 31,
}
# hipsolverStatus_t of ROCm 5.2 .. 5.5 (the headers named above), and what later releases added
HIPSOLVER_52 = {
    "HIPSOLVER_STATUS_SUCCESS": 0, "HIPSOLVER_STATUS_NOT_INITIALIZED": 1, "HIPSOLVER_STATUS_ALLOC_FAILED": 2,
    "HIPSOLVER_STATUS_INVALID_VALUE": 3, "HIPSOLVER_STATUS_MAPPING_ERROR": 4, "HIPSOLVER_STATUS_EXECUTION_FAILED": 5,
    "HIPSOLVER_STATUS_INTERNAL_ERROR": 6, "HIPSOLVER_STATUS_NOT_SUPPORTED": 7, "HIPSOLVER_STATUS_ARCH_MISMATCH": 8,
    "HIPSOLVER_STATUS_HANDLE_IS_NULLPTR": 9, "HIPSOLVER_STATUS_INVALID_ENUM": 10, "HIPSOLVER_STATUS_UNKNOWN": 11,
}
HIPSOLVER_56 = {**HIPSOLVER_52, "HIPSOLVER_STATUS_ZERO_PIVOT": 12}
HIPSOLVER_61 = {**HIPSOLVER_56, "HIPSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED": 13}
# hipSOLVER release -> ROCm release (hipSOLVER's CHANGELOG.md: "hipSOLVER 1.7.0 for ROCm 5.5.0", ...)
HIPSOLVER_ROCM = {(1, 4): "5.2", (1, 5): "5.3", (1, 6): "5.4", (1, 7): "5.5", (1, 8): "5.6", (2, 0): "6.0",
                  (2, 1): "6.1", (2, 2): "6.2", (2, 3): "6.3"}


def hipsolver_at(rocm: str) -> dict[str, int]:
    key = tuple(int(p) for p in rocm.split("."))
    return HIPSOLVER_61 if key >= (6, 1) else HIPSOLVER_56 if key >= (5, 6) else HIPSOLVER_52


# no hipSOLVER status of the same name (AMD's HIPIFY tables pair them with nothing)
NO_HIP = sorted(n for n in CUSOLVER if "HIPSOLVER" + n[len("CUSOLVER"):] not in HIPSOLVER_61
                and n not in ("CUSOLVER_STATUS_IRS_PARAMS_INVALID", "CUSOLVER_STATUS_IRS_INTERNAL_ERROR",
                              "CUSOLVER_STATUS_IRS_NOT_SUPPORTED"))

# helper_cuda.h's shape: one case per status, a blank line between them, the fallback after the switch
HELPER = ("#include <cusolverDn.h>\n"
          "static const char *_cudaGetErrorEnum(cusolverStatus_t error) {\n"
          "  switch (error) {\n"
          + "\n".join(f"    case {n}:\n      return \"{n}\";\n" for n in CUSOLVER)
          + "  }\n\n  return \"<unknown>\";\n}\n").encode()


def _findings(src: bytes, target: str | None = None) -> list:
    return scan(src, "t.cu", options=TranslateOptions(target_rocm=target))


def _labels(port: bytes) -> list[str]:
    return re.findall(r"^\s*case\s+(\w+)\s*:", port.decode(), re.M)


def test_the_tables_are_nvidias_and_hipsolvers():
    enum = status_cases.status_enums()["CUSOLVER_STATUS_INVALID_LICENSE"]
    assert enum.cuda == CUSOLVER and enum.hip_type == "hipsolverStatus_t" and not enum.same_values
    for rocm in ("5.2", "5.5", "5.6", "6.0", "6.1", "6.3"):
        assert enum.hip_at(rocm) == hipsolver_at(rocm), rocm


def test_the_tables_agree_with_amds_hipify_pairs():
    # what the port writes for each cuSOLVER status (porter's mapping database) is AMD's HIP name, and the
    # statuses the table calls aliases are the ones AMD pairs with another status's HIP name
    rows = {r["cuda"]: r for r in csv.DictReader(
        (l for l in HIPIFY_TABLES.read_text().splitlines() if not l.startswith("#")),
        delimiter="\t") if r["cuda"] in CUSOLVER}
    assert set(rows) == set(CUSOLVER)
    enum = status_cases.status_enums()["CUSOLVER_STATUS_SUCCESS"]
    for name, row in rows.items():
        assert (status_cases.hip_status(name, "6.3") or "") == row["hip"], name
        own = "CUSOLVER" + row["hip"][len("HIPSOLVER"):] if row["hip"] else None
        assert enum.alias.get(name) == (own if own != name else None), name
        if row["hip"] in enum.hip_since:
            assert row["hip_added"].startswith(enum.hip_since[row["hip"]] + "."), name
    assert NO_HIP == sorted(n for n, r in rows.items() if not r["hip"])


def test_the_hip_table_is_the_header_when_it_is_here(hipsolver_include):
    folder = hipsolver_include / "hipsolver"
    version = (folder / "internal" / "hipsolver-version.h").read_text()
    major, minor = (int(re.search(rf"hipsolverVersion{k}\s+(\d+)", version).group(1)) for k in ("Major", "Minor"))
    rocm = HIPSOLVER_ROCM[(major, minor)]
    text = (folder / "internal" / "hipsolver-types.h").read_text()
    body = re.search(r"typedef enum\s*\{([^}]*)\}\s*hipsolverStatus_t;", text).group(1)
    body = re.sub(r"//[^\n]*", "", body)
    assert {n: int(v, 0) for n, v in re.findall(r"(HIPSOLVER_STATUS_\w+)\s*=\s*(\w+)", body)} == hipsolver_at(rocm)
    assert status_cases.status_enums()["CUSOLVER_STATUS_SUCCESS"].hip_at(rocm) == hipsolver_at(rocm)


@pytest.mark.parametrize("target", [None, "5.2"], ids=["newest", "rocm5.2"])
def test_every_label_without_a_hipsolver_status_gets_the_removal_fix(target):
    port030 = {f.line: f for f in _findings(HELPER, target) if f.rule == "PORT030"}
    lines = {4 + 3 * list(CUSOLVER).index(n): n for n in NO_HIP}
    assert set(lines) <= set(port030)
    for line, name in lines.items():
        f = port030[line]
        assert f.fix is not None and f.fix.safe, f.message
        assert "cannot simply go" not in f.message  # HIPSOLVER_STATUS_UNKNOWN's 11 is no reason to keep LICENSE's
    # the license case of helper_cuda.h: the fix takes its two lines and a blank line, nothing else
    lic = 4 + 3 * list(CUSOLVER).index("CUSOLVER_STATUS_INVALID_LICENSE")
    fixed = apply_fixes(HELPER, [port030[lic]]).decode().splitlines()
    assert fixed == [l for i, l in enumerate(HELPER.decode().splitlines(), 1) if i not in (lic, lic + 1, lic + 2)]


@pytest.mark.parametrize("target", [None, "5.2"], ids=["newest", "rocm5.2"])
def test_the_fixed_port_names_only_hipsolver_statuses(target):
    # every label the fixes leave is one hipSOLVER declares at the target, or a status the target lacks
    # (PORT032's: ZERO_PIVOT and MATRIX_TYPE_NOT_SUPPORTED before ROCm 5.6 and 6.1)
    opts = TranslateOptions(target_rocm=target)
    fixed = apply_fixes(HELPER, _findings(HELPER, target))
    left = set(_labels(translate(fixed, "t.cu", opts).output))
    unported = {n for n in left if n.startswith("CUSOLVER_")}
    assert left - unported <= set(hipsolver_at(target or "6.3"))
    assert not unported & set(NO_HIP)
    assert all("HIPSOLVER" + n[len("CUSOLVER"):] not in hipsolver_at(target or "6.3") for n in unported)


def test_a_label_the_port_has_a_status_for_gets_no_removal():
    src = (b"#include <cusolverDn.h>\nconst char* f(cusolverStatus_t e) {\n  switch (e) {\n"
           b"    case CUSOLVER_STATUS_ARCH_MISMATCH:\n      return \"A\";\n"
           b"    case CUSOLVER_STATUS_INVALID_LICENSE:\n      return \"L\";\n  }\n  return \"?\";\n}\n")
    fixed = apply_fixes(src, _findings(src))
    assert _labels(fixed) == ["CUSOLVER_STATUS_ARCH_MISMATCH"]
    assert _labels(translate(fixed, "t.cu", TranslateOptions()).output) == ["HIPSOLVER_STATUS_ARCH_MISMATCH"]
