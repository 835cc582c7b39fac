"""The legacy cuBLAS list (porter/mapping/data/calls/cublas_legacy.json) against its sources:
NVIDIA's headers (the nvidia-cublas-cu12 snapshot the generator reads) and AMD's HIPIFY tables."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from porter.mapping import load_database
from porter.mapping.cublas_legacy import load_cublas_legacy, unit_is_legacy
from porter.mapping.truth import Truth

SOURCES = Path(__file__).resolve().parents[2] / "porter" / "mapping" / "sources"
SAME_IN_BOTH = ("cublasSetVector", "cublasGetVector", "cublasSetMatrix", "cublasGetMatrix",
                "cublasSetVectorAsync", "cublasGetVectorAsync", "cublasSetMatrixAsync", "cublasGetMatrixAsync")


def _nvidia():
    return json.loads((SOURCES / "snapshots" / "nv_cublas.json").read_text(encoding="utf-8"))


def _amd_tables() -> dict[str, str]:
    rows = (line for line in (SOURCES / "hipify-api-tables.tsv").read_text(encoding="utf-8").splitlines()
            if not line.startswith("#"))
    return {r["cuda"]: r["hip"] for r in csv.DictReader(rows, delimiter="\t") if r["family"] == "CUBLAS"}


def test_the_list_is_every_legacy_function_with_a_v2_twin():
    nv = _nvidia()
    names, functions = nv["names"], set(nv["functions"])
    expected = {n for n, f in names.items() if f == "cublas.h" and n in functions and names.get(n + "_v2") == "cublas_api.h"}
    assert load_cublas_legacy().functions == expected
    assert {"cublasSscal", "cublasSgemm", "cublasIsamax", "cublasSnrm2", "cublasGetVersion"} <= expected
    # the v2 header defines each of them as a macro for its _v2 function
    assert expected <= set(nv["macros"])


def test_amd_tables_give_the_legacy_name_the_handle_api_function():
    tables = _amd_tables()
    db = load_database()
    for name in load_cublas_legacy().functions:
        entry = db.identifiers[name]
        assert entry.renames and entry.hip == db.identifiers[name + "_v2"].hip, name
        if tables.get(name):  # cublasGetVersion: no HIP cell in the tables (a convention checked in hip-python)
            assert tables[name] == tables[name + "_v2"] == entry.hip, name


def test_helpers_of_one_signature_are_not_in_the_list_and_keep_their_hip_names():
    nv = _nvidia()
    legacy = load_cublas_legacy().functions
    truth = Truth()
    db = load_database()
    for name in SAME_IN_BOTH:
        assert nv["names"][name] == "cublas_api.h" and name not in legacy, name
        hip = db.identifiers[name].hip
        assert hip == "hipblas" + name[len("cublas"):] and truth.declared(hip), name


@pytest.mark.parametrize("includes, legacy", [
    (["cublas.h"], True), (["stdio.h", "cublas.h"], True), (["cublas_v2.h"], False),
    (["cublas.h", "cublas_v2.h"], False), (["helpers.h"], False), ([], False), (["cuda/include/cublas.h"], True),
])
def test_which_includes_make_a_unit_legacy(includes, legacy):
    assert unit_is_legacy(includes) is legacy
