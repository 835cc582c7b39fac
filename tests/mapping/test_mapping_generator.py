"""scripts/gen_mappings.py: the committed data is what the generator makes, and its rules behave."""

import json
import shutil
from pathlib import Path

import pytest

from porter.mapping import DATA_DIR, build_database

SOURCES = DATA_DIR.parent / "sources"


def test_committed_data_is_up_to_date(gen, tmp_path):
    summary, missing = gen.transform(SOURCES, tmp_path)
    assert missing == []
    fresh = {p.name: p.read_text() for p in tmp_path.glob("*.json")}
    committed = {p.name: p.read_text() for p in DATA_DIR.glob("*.json")}
    assert sorted(fresh) == sorted(committed)
    stale = [name for name in fresh if fresh[name] != committed[name]]
    assert stale == [], f"run scripts/gen_mappings.py: {stale} differ"
    assert sum(sum(c.values()) for c in summary.values()) > 10000


def test_generator_is_deterministic(gen, tmp_path):
    gen.transform(SOURCES, tmp_path / "a")
    gen.transform(SOURCES, tmp_path / "b")
    for p in (tmp_path / "a").glob("*.json"):
        assert p.read_bytes() == (tmp_path / "b" / p.name).read_bytes()


def _sources_with(tmp_path, torch_rows):
    src = tmp_path / "sources"
    shutil.copytree(SOURCES, src)
    doc = {"source": "torch.utils.hipify 1.13.1", "tables": {"CUDA_IDENTIFIER_MAP": torch_rows}}
    (src / "snapshots" / "torch.json").write_text(json.dumps(doc))
    return src


def test_hip_unsupported_tag_of_older_torch_tables_is_honoured(gen, tmp_path):
    # torch < 2.0 stored (hip, CONV_*, API_*, HIP_UNSUPPORTED) tuples; the extract stage keeps the tags
    rows = [
        # a name AMD's tables do not pair (theirs would win)
        ["cudaGraphicsEGLRegisterImage", "hipGraphicsEGLRegisterImage", "CONV_GL", "API_RUNTIME", "HIP_UNSUPPORTED"],
        ["cudaMallocPitch", "hipMallocPitch", "CONV_MEM", "API_RUNTIME"],
    ]
    out = tmp_path / "data"
    gen.transform(_sources_with(tmp_path, rows), out)
    db = build_database(out, tmp_path / "no-curated")
    e = db.identifiers["cudaGraphicsEGLRegisterImage"]
    assert e.status == "unsupported" and not e.renames and "HIP_UNSUPPORTED" in e.note
    assert db.identifiers["cudaMallocPitch"].target() == "hipMallocPitch"


def test_missing_snapshot_is_reported_and_the_rest_still_generates(gen, tmp_path):
    src = tmp_path / "sources"
    shutil.copytree(SOURCES, src)
    (src / "snapshots" / "nv_cufft.json").unlink()
    out = tmp_path / "data"
    summary, missing = gen.transform(src, out)
    assert missing == ["nv_cufft"]
    assert "cublas" in summary and "curand" in summary
    db = build_database(out, tmp_path / "no-curated")
    assert "cublasSgemm_v2" in db.identifiers


def test_main_prints_a_summary_and_names_missing_snapshots(gen, tmp_path, capsys):
    src = tmp_path / "sources"
    shutil.copytree(SOURCES, src)
    (src / "snapshots" / "nv_nccl.json").unlink()
    assert gen.main(["--sources", str(src), "--out", str(tmp_path / "data")]) == 0
    out, err = capsys.readouterr()
    assert "nv_nccl.json missing" in err and "--extract" in err
    assert "cublas" in out and "total" in out


@pytest.mark.skipif(not Path("/usr/include/hiprand/hiprand.h").exists(),
                    reason="hipRAND headers not installed (libhiprand-dev): cannot re-extract the hipRAND snapshot")
def test_hiprand_snapshot_matches_the_installed_headers(gen):
    root, globs = gen.HIP_SETS["hiprand"]
    files = gen._files(root, globs, gen.HIP_EXCLUDE)
    doc = gen._snapshot_of(gen._read(files, root), gen._keep_public)
    committed = json.loads((SOURCES / "snapshots" / "hip_hiprand.json").read_text())
    assert doc["names"] == committed["names"]
    assert doc["guards"] == committed["guards"]


def test_installed_torch_table_matches_the_snapshot(gen):
    doc = gen.extract_torch()
    if doc is None:
        pytest.skip("torch is not importable: the torch snapshot cannot be re-read")
    committed = json.loads((SOURCES / "snapshots" / "torch.json").read_text())
    if doc["source"] != committed["source"]:
        pytest.skip(f"installed {doc['source']} differs from the snapshot's {committed['source']}: run --extract")
    assert doc["tables"] == committed["tables"]


def test_header_guard_detection(gen):
    assert gen.header_guard("/* c */\n#if !defined(__CUDA_RUNTIME_H__)\n#define __CUDA_RUNTIME_H__\n") == "__CUDA_RUNTIME_H__"
    assert gen.header_guard("#ifndef HIPRAND_H_\n#define HIPRAND_H_\n#endif\n") == "HIPRAND_H_"
    assert gen.header_guard("#ifndef FOO\nint x;\n#endif\n") is None


def test_snake_case_keeps_acronyms(gen):
    assert gen.snake("SgemmStridedBatched") == "sgemm_strided_batched"
    assert gen.snake("CreateGenerator") == "create_generator"
    assert gen.snake("SpMV") == "sp_mv"


def test_the_package_sets_the_generator_extracts_are_the_ones_the_truth_gate_reads(gen):
    # the set names live in two places (the generator fetches the packages, truth.py reads the
    # snapshots back): a set added to one and not the other would be extracted and never
    # consulted, or consulted and never made
    from porter.mapping import truth

    assert set(gen.DEB_SETS) == set(truth.LIBRARY_SETS) | {truth.LATER_HIP_SET}
