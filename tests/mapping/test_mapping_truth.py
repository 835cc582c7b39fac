"""The verification gate over the shipped database: every HIP (and roc*/MIOpen) name porter can
emit is declared somewhere it can be checked -- the installed HIP 5.2 headers, HIP's headers
release by release, hip-python's recent-ROCm names, or AMD's own HIPIFY tables -- and the ROCm
range an entry carries is the one those sources give."""

from __future__ import annotations

import pytest

from porter.mapping import NEWEST_ROCM, Entry
from porter.mapping import truth as truth_mod


@pytest.fixture(scope="module")
def truth():
    return truth_mod.Truth()


def _emitted(db):
    for e in db.entries():
        if e.kind == "identifier" and e.renames and not (e.category == "pytorch" and e.source.startswith("torch")):
            yield e


def test_every_emitted_name_is_declared(db, truth):
    undeclared = [(e.cuda, t, e.source) for e in _emitted(db) for t in (e.hip, e.roc) if t and truth.declared(t) is None]
    assert undeclared == [], f"{len(undeclared)} emitted names are declared nowhere, e.g. {undeclared[:5]}"


def test_every_entry_carries_the_rocm_range_its_sources_give(db, truth):
    wrong = []
    for e in _emitted(db):
        d = truth.declared(e.hip)
        if e.context == "member":
            continue  # struct members are dated by their struct rule (tested below)
        if (e.since_hip, e.removed_hip) != (d.since, d.removed):
            wrong.append((e.cuda, e.hip, (e.since_hip, e.removed_hip), (d.since, d.removed)))
    assert wrong == [], wrong[:10]


def _torch_own_header(path: str) -> bool:
    import re
    import tomllib

    conv = tomllib.loads((truth_mod.SOURCES / "conventions.toml").read_text(encoding="utf-8"))
    return re.fullmatch(conv["torch_own_headers"], path) is not None


def test_every_header_porter_emits_exists_in_a_source(db, truth):
    # #include <thrust/...> kept as it is, <hipcub/hipcub.hpp>, <hip/hip_bf16.h>: each path must be a file of
    # the HIP 5.2 headers, HIP 5.7.1's, a Debian 13 ROCm library package, hip-python's declarations or documented
    missing = [(e.cuda, e.hip, e.source) for e in db.headers.values()
               if e.status == "supported" and e.hip and truth.header(e.hip) is None
               and not (e.source.startswith("torch") and _torch_own_header(e.hip))]
    assert missing == [], f"{len(missing)} emitted headers exist in no source, e.g. {missing[:5]}"


def test_a_header_newer_than_the_floor_carries_its_release(db, truth):
    # hip_bf16.h came with ROCm 5.7 (its __hip_bfloat16 is first in 5.7.0's headers): with --target-rocm 5.2
    # the include must not be emitted silently, whichever CUDA header it comes from
    for cuda in ("cuda_bf16.h", "cuda_bf16.hpp"):
        assert db.headers[cuda].hip == "hip/hip_bf16.h" and db.headers[cuda].since_hip == "5.7"
    assert db.headers["cuda_fp8.h"].since_hip == "6.2"
    late = [(e.cuda, e.hip) for e in db.headers.values() if e.status == "supported" and e.hip
            and truth.header(e.hip) is not None and truth.header(e.hip).since and e.since_hip is None]
    assert late == []


def test_bf16_raw_structs_map_from_the_release_that_declares_them(db, truth):
    # CUDA's __nv_bfloat16_raw / __nv_bfloat162_raw are { unsigned short x; } aligned 2 and { x, y } aligned 4
    # (cuda_bf16.h 13.0); hip_bf16.h declares __hip_bfloat16_raw / __hip_bfloat162_raw with the same members and
    # alignment from ROCm 6.2.0 (HIP's header names by release): before that the port cannot build
    for cuda, hip in (("__nv_bfloat16_raw", "__hip_bfloat16_raw"), ("__nv_bfloat162_raw", "__hip_bfloat162_raw")):
        e = db.identifiers[cuda]
        assert e.renames and e.hip == hip and e.since_hip == "6.2"
        assert truth.declared(hip) is not None


def test_bf16_rounding_suffixes_hip_lacks(db, truth):
    # CUDA's __float2bfloat16 and __float2bfloat16_rn are one conversion (cuda_bf16.h documents both as round
    # to nearest even; nvcc 13's host code gives the same bits for all 2^32 floats, run on 2026-12-07); HIP
    # declares __float2bfloat16 only (5.7+): the _rn form becomes it.  The two-half forms have no HIP name and
    # say which declared calls build the value.
    e = db.identifiers["__float2bfloat16_rn"]
    assert e.renames and e.hip == "__float2bfloat16" and e.since_hip == "5.7"
    assert truth.declared("__float2bfloat16") is not None and truth.declared("__float2bfloat16_rn") is None
    for cuda, calls in (("__float2bfloat162_rn", ("__bfloat162bfloat162", "__float2bfloat16")),
                        ("__floats2bfloat162_rn", ("__halves2bfloat162", "__float2bfloat16"))):
        e = db.identifiers[cuda]
        assert e.status == "unsupported" and truth.declared(cuda) is None
        assert all(c in e.alternative and truth.declared(c) is not None for c in calls)


def test_thrust_headers_rocthrust_lacks_are_not_emitted(db, truth):
    # CUDA 13's Thrust has headers rocThrust 5.7.1 does not ship: kept as they are, they would not be found
    absent = [e for e in db.headers.values() if e.cuda.startswith("thrust/") and "header gate" in e.source]
    assert absent and all(e.status == "unsupported" and not e.renames for e in absent)
    assert all(truth.header(e.cuda) is None and truth.header(e.cuda.replace("/cuda/", "/hip/")) is None
               and "Debian 13" in e.note for e in absent)
    kept = db.headers["thrust/device_vector.h"]
    assert kept.hip == "thrust/device_vector.h" and "rocThrust 5.7.1" in truth.header(kept.hip).where
    assert "hipCUB" in truth.header(db.headers["cub/cub.cuh"].hip).where


def test_the_default_target_is_the_newest_release_of_the_data():
    assert NEWEST_ROCM == truth_mod.NEXT


def test_amds_tables_win_over_torchs(db):
    # pairs where torch's table names a type that exists only in HIP's NVIDIA backend or not at all
    # (facts from AMD's HIPIFY tables, checked in the HIP 5.2 headers)
    for cuda, hip in (("CUaddress_mode", "HIPaddress_mode"), ("CU_CTX_SCHED_AUTO", "hipDeviceScheduleAuto"),
                      ("CUarray_format", "hipArray_Format"), ("CU_TR_FILTER_MODE_POINT", "HIP_TR_FILTER_MODE_POINT"),
                      ("CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID", "hipDeviceAttributePciDomainID")):
        e = db.identifiers[cuda]
        assert e.renames and e.hip == hip, (cuda, e.hip)
        assert "HIPIFY" in e.source and "torch" in (e.others or ""), cuda


def test_a_name_no_source_declares_is_not_emitted(db):
    # torch's cudaDevAttrGpuOverlap -> hipDeviceAttributeGpuOverlap exists in no HIP release; AMD pairs it otherwise
    assert db.identifiers["cudaDevAttrGpuOverlap"].hip != "hipDeviceAttributeGpuOverlap"
    assert not any(e.hip == "hipDeviceAttributeGpuOverlap" for e in db.identifiers.values() if e.renames)


def test_versions_come_from_the_sources(db):
    assert db.identifiers["cudaDeviceSetLimit"].since_hip == "5.3"  # not in the installed 5.2 headers
    assert db.identifiers["cudaMalloc"].since_hip is None  # in the installed 5.2 headers: the floor
    assert db.identifiers["CUDART_INF_F"].hip == "HIP_INF_F" and db.identifiers["CUDART_INF_F"].since_hip == "5.3"
    # __expf left HIP's own headers in 6.0 but clang's HIP wrapper headers still declare it: not "removed"
    assert db.identifiers["__expf"].removed_hip is None


def test_cudnn_maps_to_miopen_from_the_tables(db):
    e = db.identifiers["cudnnConvolutionForward"]
    assert e.renames and e.hip == "miopenConvolutionForward" and e.header == "miopen/miopen.h"
    assert db.identifiers["cudnnCreate"].hip == "miopenCreate"


def test_opt_in_declarations_are_not_emitted(db):
    # clang's and HIP's headers declare __fadd_rd only under #if defined OCML_BASIC_ROUNDED_OPERATIONS
    e = db.identifiers["__fadd_rd"]
    assert not e.renames and "OCML_BASIC_ROUNDED_OPERATIONS" in e.alternative


def test_gate_turns_an_undeclared_torch_pair_unsupported_and_fails_on_any_other(gen, tmp_path):
    import json
    import shutil

    from porter.mapping import build_database
    src = tmp_path / "sources"
    shutil.copytree(truth_mod.SOURCES, src)
    doc = {"source": "torch.utils.hipify 9.9", "tables": {"CUDA_IDENTIFIER_MAP": [["cudaFrobnicate", "hipFrobnicate"]]}}
    (src / "snapshots" / "torch.json").write_text(json.dumps(doc))
    gen.transform(src, tmp_path / "data")
    e = build_database(tmp_path / "data", tmp_path / "none").identifiers["cudaFrobnicate"]
    assert not e.renames and "declared in no HIP header" in e.note
    # a naming convention that invents a name fails the generator, naming the pair and its source
    fake = {"source": "a made-up header", "names": {"cudaInventedCall": "x.h"}, "functions": [], "macros": [],
            "deprecated": {}, "guards": {}}
    (src / "snapshots" / "cuda_fake.json").write_text(json.dumps(fake))
    conv = (src / "conventions.toml").read_text()
    conv += ('\n[[library]]\ncategory = "runtime"\ncuda_sets = ["cuda_fake"]\nonly = "cudaInventedCall"\n'
             "rules = [['cuda(\\w+)', 'hip\\1']]\ndoc_source = \"a made-up convention\"\n")
    (src / "conventions.toml").write_text(conv)
    with pytest.raises(gen.GateError, match=r"cudaInventedCall -> hipInventedCall.*a made-up convention"):
        gen.transform(src, tmp_path / "data2")


def test_available_in_reads_the_range():
    e = Entry("cudaX", "hipX", since_hip="6.1", removed_hip="7.0")
    assert e.available_in("6.0") == "too-new" and e.available_in("6.1") is None and e.available_in("7.0") == "removed"
    assert Entry("cudaY", "hipY", since_hip=">5.2").available_in("5.2") == "too-new"
    assert Entry("cudaY", "hipY", since_hip=">5.2").available_in("5.3") is None
