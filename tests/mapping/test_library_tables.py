"""Libraries hip-python does not cover, from AMD's HIPIFY tables (hipify-library-tables.tsv), checked against
each library's own headers: the table pairs and dates, the headers declare.  cuTENSOR -> hipTensor
(snapshots/rocm_hiptensor.json) first; cuSPARSELt -> hipSPARSELt below.

Facts used here, from the sources rather than from porter: cutensor.h of cutensor-cu12 2.8.1 declares
``cutensorStatus_t cutensorCreate(cutensorHandle_t* handle)``, ``cutensorCreateTensorDescriptor(handle,
desc*, numModes, extent[], stride[], cutensorDataType_t, uint32_t alignment)`` and ``cutensorContract(handle,
plan, alpha, A, B, beta, C, D, workspace, workspaceSize, stream)``; hipTensor 2.0's hiptensor.h (ROCm 7.0)
declares hiptensorCreate, hiptensorCreateTensorDescriptor and hiptensorContract with the same parameter
lists, HIPTENSOR_R_32F and HIPTENSOR_STATUS_SUCCESS, and no hiptensorContraction (hipTensor 1.x's call,
replaced by hiptensorContract in 2.0: hipTensor CHANGELOG); AMD's table dates hiptensorCreate 5.7 with a
change in 7.0, HIPTENSOR_STATUS_SUCCESS 5.7, HIPTENSOR_R_32F 7.0.
"""

from __future__ import annotations

import json
import re
import shutil

import pytest

from porter.mapping import build_database, truth
from port_messages import port_with_messages

SNAPSHOT = truth.SOURCES / "snapshots" / "rocm_hiptensor.json"

# a cuTENSOR 2 program (the calls in cutensor.h's order of parameters)
CUTENSOR2 = """#include <cutensor.h>
int run(const void *alpha, const void *A, const void *B, const void *beta, const void *C, void *D,
        void *work, uint64_t workSize, cudaStream_t s, cutensorPlan_t plan) {
  cutensorHandle_t handle;
  cutensorStatus_t st = cutensorCreate(&handle);
  if (st != CUTENSOR_STATUS_SUCCESS) return 1;
  cutensorTensorDescriptor_t descA;
  int64_t ext[2] = {4, 4};
  st = cutensorCreateTensorDescriptor(handle, &descA, 2, ext, nullptr, CUTENSOR_R_32F, 128);
  st = cutensorContract(handle, plan, alpha, A, B, beta, C, D, work, workSize, s);
  cutensorDestroy(handle);
  return 0;
}
"""

# cuTENSOR 1.x's contraction: AMD's table pairs it with hipTensor 1.x's hiptensorContraction
CUTENSOR1 = """#include <cutensor.h>
void old(const cutensorHandle_t *h, const cutensorContractionPlan_t *plan, void *D) {
  cutensorContraction(h, plan, nullptr, nullptr, nullptr, nullptr, nullptr, D, nullptr, 0, 0);
}
"""


@pytest.fixture(scope="module")
def declared() -> set[str]:
    return set(json.loads(SNAPSHOT.read_text(encoding="utf-8"))["names"])


@pytest.fixture(scope="module")
def table() -> dict[str, dict]:
    return {r["cuda"]: r for r in truth.read_tables(truth.SOURCES / truth.LIBRARY_TABLES) if r["family"] == "CUTENSOR"}


def test_the_snapshot_records_where_hiptensors_names_were_read():
    doc = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    assert doc["origin"]["repo"] == "ROCm/hipTensor"
    assert all(len(commit) == 40 for commit in doc["origin"]["files"].values())
    assert {"hiptensorCreate", "hiptensorContract", "HIPTENSOR_R_32F"} <= set(doc["names"])
    assert "hiptensorContraction" not in doc["names"]  # hipTensor 1.x's, gone in 2.0


def test_a_cutensor2_program_converts_to_the_declared_hiptensor_names_and_header_at_rocm_7():
    out, found = port_with_messages(CUTENSOR2, target_rocm="7.0")
    assert "#include <hiptensor/hiptensor.h>" in out and "cutensor.h" not in out
    for name in ("hiptensorHandle_t handle;", "hiptensorStatus_t st = hiptensorCreate(&handle);",
                 "st != HIPTENSOR_STATUS_SUCCESS", "hiptensorTensorDescriptor_t descA;",
                 "hiptensorCreateTensorDescriptor(handle, &descA, 2, ext, nullptr, HIPTENSOR_R_32F, 128)",
                 "hiptensorContract(handle, plan, alpha, A, B, beta, C, D, work, workSize, s)",
                 "hiptensorDestroy(handle);", "hiptensorPlan_t plan"):
        assert name in out, name
    assert "cutensor" not in out.replace("#include", "")
    assert "PORT030" not in found and "PORT032" not in found


def test_below_rocm_7_the_hiptensor_2_calls_stay_as_written_with_port032():
    out, found = port_with_messages(CUTENSOR2, target_rocm="6.3")
    assert "cutensorCreate(&handle)" in out and "hiptensorCreate" not in out
    assert "#include <cutensor.h>" in out
    assert any("hiptensorCreate needs ROCm 7.0" in m for m in found["PORT032"])
    assert any("hiptensor/hiptensor.h needs ROCm 7.0" in m for m in found["PORT032"])
    # the status codes are hipTensor 1.0's (ROCm 5.7): emitted
    assert "HIPTENSOR_STATUS_SUCCESS" in out
    out52, found52 = port_with_messages(CUTENSOR2, target_rocm="5.2")
    assert "CUTENSOR_STATUS_SUCCESS" in out52
    assert any("HIPTENSOR_STATUS_SUCCESS needs ROCm 5.7" in m for m in found52["PORT032"])


@pytest.mark.parametrize("target", ["6.3", "7.0"])
def test_a_pair_whose_hip_name_hiptensor_does_not_declare_is_not_emitted(table, declared, target):
    assert table["cutensorContraction"]["hip"] == "hiptensorContraction"
    assert "hiptensorContraction" not in declared
    out, found = port_with_messages(CUTENSOR1, target_rocm=target)
    assert "hiptensorContraction" not in out and "cutensorContraction(" in out
    assert any("cutensorContraction" in m and "hiptensorContraction" in m for m in found["PORT030"])


def test_a_call_whose_hip_parameters_differ_is_reported_not_renamed(table):
    assert table["cutensorLoggerSetLevel"]["hip"] == "hiptensorLoggerSetLevel"
    out, found = port_with_messages("#include <cutensor.h>\nvoid f() { cutensorLoggerSetLevel(2); }\n", target_rocm="7.0")
    assert "cutensorLoggerSetLevel(2)" in out
    assert any("hiptensorLogLevel_t" in m for m in found["PORT030"])


def test_every_emitted_cutensor_name_is_declared_by_hiptensor_and_dated_by_amds_table(db, table, declared):
    entries = [e for e in db.entries() if e.category == "cutensor" and e.kind == "identifier"]
    emitted = [e for e in entries if e.renames]
    assert len(emitted) > 100
    for e in emitted:
        assert e.hip in declared, e
        assert table[e.cuda]["hip"] == e.hip, e
        assert e.since_hip is not None, e
    # every pair of the table whose HIP name hipTensor's headers lack is unsupported
    for cuda, r in table.items():
        if r["hip"] and r["hip"] not in declared:
            assert not any(e.renames for e in db.lookup(cuda)), cuda


def test_truth_dates_a_changed_hiptensor_name_by_its_change():
    t = truth.Truth()
    assert t.declared("hiptensorCreate").since == "7.0"  # added 5.7, declaration changed in 7.0
    assert t.declared("HIPTENSOR_STATUS_SUCCESS").since == "5.7"
    assert t.declared("hiptensorContraction") is None  # in AMD's table, not in hipTensor's headers


# ---------------------------------------------------------------------------
# cuSPARSELt -> hipSPARSELt (snapshots/rocm_hipsparselt.json: ROCm/hipSPARSELt library/include/hipsparselt.h,
# installed as hipsparselt/hipsparselt.h by library/include/CMakeLists.txt).
#
# Facts used here: cusparseLt.h of nvidia-cusparselt-cu12 0.8.1 declares cusparseLtInit(cusparseLtHandle_t*),
# cusparseLtMatmulPlanInit(handle, plan*, matmulDescr*, algSelection*), cusparseLtSpMMACompress2(handle,
# sparseMatDescr*, int isSparseA, cusparseOperation_t op, d_dense, d_compressed, d_compressed_buffer, cudaStream_t)
# and cusparseLtMatmulDescriptorInit(..., cusparseComputeType); hipSPARSELt's hipsparselt.h declares the hipsparseLt*
# functions with the same parameters (hipDataType, hipsparseOperation_t, hipStream_t, hipsparseLtComputetype_t)
# and HIPSPARSELT_COMPUTE_16F/32I/32F/TF32/TF32_FAST; hipsparseLtDatatype_t was removed in hipSPARSELt 0.2.4
# (ROCm 7.0, CHANGELOG).  hipSPARSELt 0.1.0 is ROCm 6.0's (CHANGELOG); AMD's HIPIFY table dates every hipSPARSELt
# name 7.10.0, which porter keeps.  The table lists CUSPARSELT_INVALID_MODE with no HIP name.

SPARSELT_SNAPSHOT = truth.SOURCES / "snapshots" / "rocm_hipsparselt.json"

CUSPARSELT = """#include <cusparseLt.h>
int run(const void *dense, void *compressed, void *buf, cudaStream_t stream, cusparseOperation_t op) {
  cusparseLtHandle_t handle;
  cusparseLtMatDescriptor_t matA;
  cusparseLtMatmulDescriptor_t matmul;
  cusparseLtMatmulAlgSelection_t sel;
  cusparseLtMatmulPlan_t plan;
  cusparseStatus_t st = cusparseLtInit(&handle);
  cusparseComputeType ct = CUSPARSE_COMPUTE_16F;
  st = cusparseLtMatmulAlgSelectionInit(&handle, &sel, &matmul, CUSPARSELT_MATMUL_ALG_DEFAULT);
  st = cusparseLtMatmulPlanInit(&handle, &plan, &matmul, &sel);
  st = cusparseLtSpMMACompress2(&handle, &matA, 1, op, dense, compressed, buf, stream);
  cusparseLtDestroy(&handle);
  return st;
}
"""


@pytest.fixture(scope="module")
def sparselt_declared() -> set[str]:
    return set(json.loads(SPARSELT_SNAPSHOT.read_text(encoding="utf-8"))["names"])


@pytest.fixture(scope="module")
def sparselt_table() -> dict[str, dict]:
    return {r["cuda"]: r for r in truth.read_tables(truth.SOURCES / truth.LIBRARY_TABLES) if r["family"] == "CUSPARSELT"}


def test_the_hipsparselt_snapshot_records_where_its_names_were_read(sparselt_declared):
    doc = json.loads(SPARSELT_SNAPSHOT.read_text(encoding="utf-8"))
    assert doc["origin"]["repo"] == "ROCm/hipSPARSELt"
    assert all(len(commit) == 40 for commit in doc["origin"]["files"].values())
    assert set(doc["names"].values()) == {"hipsparselt/hipsparselt.h"}
    assert {"hipsparseLtInit", "hipsparseLtSpMMACompress2", "hipsparseLtComputetype_t",
            "HIPSPARSELT_COMPUTE_TF32_FAST"} <= sparselt_declared
    assert "hipsparseLtDatatype_t" not in sparselt_declared  # removed in hipSPARSELt 0.2.4 (ROCm 7.0)


def test_a_cusparselt_program_converts_to_the_declared_hipsparselt_names_and_header(sparselt_declared):
    out, found = port_with_messages(CUSPARSELT, target_rocm="7.10")
    assert "#include <hipsparselt/hipsparselt.h>" in out and "cusparseLt.h" not in out
    for line in ("hipsparseLtHandle_t handle;", "hipsparseLtMatDescriptor_t matA;",
                 "hipsparseLtMatmulDescriptor_t matmul;", "hipsparseLtMatmulAlgSelection_t sel;",
                 "hipsparseLtMatmulPlan_t plan;", "hipsparseStatus_t st = hipsparseLtInit(&handle);",
                 "hipsparseLtComputetype_t ct = HIPSPARSELT_COMPUTE_16F;",
                 "hipsparseLtMatmulAlgSelectionInit(&handle, &sel, &matmul, HIPSPARSELT_MATMUL_ALG_DEFAULT)",
                 "hipsparseLtMatmulPlanInit(&handle, &plan, &matmul, &sel)",
                 "hipsparseLtSpMMACompress2(&handle, &matA, 1, op, dense, compressed, buf, stream)",
                 "hipsparseLtDestroy(&handle);", "hipStream_t stream", "hipsparseOperation_t op"):
        assert line in out, line
    assert "cusparse" not in out.replace("#include", "")
    emitted = set(re.findall(r"\b(?:hipsparseLt\w+|HIPSPARSELT_\w+)", out))
    assert emitted and emitted <= sparselt_declared
    assert "PORT030" not in found and "PORT032" not in found


@pytest.mark.parametrize("target", ["5.7", "6.3"])
def test_below_the_tables_date_the_hipsparselt_names_stay_as_written_with_port032(target):
    # 5.7: before hipSPARSELt's first release (ROCm 6.0); 6.3: hipSPARSELt ships, but AMD's table dates 7.10
    out, found = port_with_messages(CUSPARSELT, target_rocm=target)
    assert "hipsparseLt" not in out and "HIPSPARSELT" not in out
    assert "#include <cusparseLt.h>" in out and "cusparseLtInit(&handle)" in out
    assert any("hipsparseLtInit needs ROCm 7.10" in m for m in found["PORT032"])
    assert any("hipsparselt/hipsparselt.h needs ROCm 7.10" in m for m in found["PORT032"])


def test_a_cusparselt_name_the_table_pairs_with_nothing_is_reported(sparselt_table):
    assert sparselt_table["CUSPARSELT_INVALID_MODE"]["hip"] == ""
    out, found = port_with_messages("#include <cusparseLt.h>\nint m = CUSPARSELT_INVALID_MODE;\n", target_rocm="7.10")
    assert "CUSPARSELT_INVALID_MODE" in out
    assert any("CUSPARSELT_INVALID_MODE" in m and "hipSPARSELt" in m for m in found["PORT030"])


def test_a_hipsparselt_pair_the_header_does_not_declare_is_not_emitted(gen, tmp_path, sparselt_table):
    # every HIP name of AMD's cuSPARSELt table is declared today; take one out of the snapshot: the pair goes
    src = tmp_path / "sources"
    shutil.copytree(truth.SOURCES, src)
    path = src / "snapshots" / "rocm_hipsparselt.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    del doc["names"]["hipsparseLtSpMMACompress2"]
    path.write_text(json.dumps(doc), encoding="utf-8")
    gen.transform(src, tmp_path / "data")
    db = build_database(tmp_path / "data", tmp_path / "no-curated")
    assert sparselt_table["cusparseLtSpMMACompress2"]["hip"] == "hipsparseLtSpMMACompress2"
    e = db.identifiers["cusparseLtSpMMACompress2"]
    assert not e.renames and e.status == "unsupported" and "hipsparseLtSpMMACompress2" in e.note
    assert db.identifiers["cusparseLtSpMMACompressedSize2"].target() == "hipsparseLtSpMMACompressedSize2"


def test_a_torch_pair_declared_by_hipsparselt_but_not_dated_by_amds_table_is_not_emitted(db, sparselt_declared,
                                                                                          sparselt_table):
    # torch's table pairs CUSPARSE_COMPUTE_32F with HIPSPARSELT_COMPUTE_32F; AMD's table does not list it, so no
    # ROCm release is known to declare it: it must not be emitted at every target as if HIP 5.2 had it
    assert "HIPSPARSELT_COMPUTE_32F" in sparselt_declared and "CUSPARSE_COMPUTE_32F" not in sparselt_table
    assert truth.Truth().declared("HIPSPARSELT_COMPUTE_32F") is None
    assert not any(e.renames for e in db.lookup("CUSPARSE_COMPUTE_32F"))
    out, found = port_with_messages("#include <cusparseLt.h>\ncusparseComputeType c = CUSPARSE_COMPUTE_32F;\n", target_rocm="5.2")
    assert "HIPSPARSELT_COMPUTE_32F" not in out


def test_every_emitted_cusparselt_name_is_declared_by_hipsparselt_and_dated_by_amds_table(db, sparselt_table,
                                                                                          sparselt_declared):
    emitted = [e for e in db.entries() if e.category == "cusparselt" and e.kind == "identifier" and e.renames]
    assert len(emitted) == sum(1 for r in sparselt_table.values() if r["hip"])
    for e in emitted:
        assert e.hip in sparselt_declared, e
        assert sparselt_table[e.cuda]["hip"] == e.hip, e
        assert e.since_hip == "7.10", e
