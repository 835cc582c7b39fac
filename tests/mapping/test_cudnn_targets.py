"""cuDNN's ports go to MIOpen (AMD's tables' MIOpen column) or, for the backend (graph) API, to today's hipDNN
(names its own snapshot declares).  AMD's tables also give a HIP column for cuDNN: the hipDNN of ROCm 3,
archived, whose names (hipdnnCreateFilterDescriptor) no ROCm porter targets ships: a port that used one
would not compile, in a file that otherwise includes miopen/miopen.h."""

from __future__ import annotations

import json
from pathlib import Path

from porter.mapping import load_database
from porter.translate import translate

SOURCES = Path(__file__).resolve().parents[2] / "porter" / "mapping" / "sources"


def test_every_hipdnn_name_porter_emits_is_declared_by_todays_hipdnn():
    declared = set(json.loads((SOURCES / "snapshots" / "rocm_hipdnn.json").read_text())["names"])
    emitted = {e.hip for e in load_database().entries()
               if e.category == "cudnn" and e.hip and e.hip.lower().startswith("hipdnn")}
    assert emitted and emitted <= declared, sorted(emitted - declared)


def test_a_filter_descriptor_is_reported_not_renamed_to_the_archived_hipdnn():
    # written from cuDNN's API: MIOpen describes filters with tensor descriptors and has no such call
    src = b"""#include <cudnn.h>
void f(cudnnHandle_t h) {
  cudnnFilterDescriptor_t w;
  cudnnCreateFilterDescriptor(&w);
  cudnnDestroyFilterDescriptor(w);
}
"""
    t = translate(src, "f.cpp")
    assert b"hipdnn" not in t.output
    assert {"cudnnCreateFilterDescriptor", "cudnnDestroyFilterDescriptor"} <= {u.name for u in t.unsupported}


def _truth_with_conventions(tmp_path, edit):
    """truth.Truth over the shipped sources, with conventions.toml passed through ``edit``."""
    from porter.mapping.truth import Truth

    src = tmp_path / "sources"
    src.mkdir(parents=True)
    for p in SOURCES.iterdir():
        if p.name != "conventions.toml":
            (src / p.name).symlink_to(p)
    (src / "conventions.toml").write_text(edit((SOURCES / "conventions.toml").read_text(encoding="utf-8")),
                                          encoding="utf-8")
    return Truth(src)


def test_the_tables_hip_column_of_cudnn_declares_nothing_and_the_conventions_say_so(tmp_path):
    # HIPDNN_STATUS_ARCH_MISMATCH: AMD's tables' HIP column for CUDNN_STATUS_ARCH_MISMATCH, a name of the archived
    # ROCm 3 hipDNN that today's hipDNN does not declare; hipblasSgemm: the same column for cuBLAS, hipBLAS's name
    shipped = _truth_with_conventions(tmp_path / "a", lambda text: text)
    assert shipped.declared("HIPDNN_STATUS_ARCH_MISMATCH") is None
    assert shipped.declared("hipblasSgemm").where == shipped.tables_source
    # the family list in conventions.toml is what leaves the column out: emptied, the tables declare the name
    key = 'tables_hip_column_skip_families = ["CUDNN"]'
    emptied = _truth_with_conventions(tmp_path / "b", lambda text: text.replace(key, "tables_hip_column_skip_families = []"))
    assert key in (SOURCES / "conventions.toml").read_text(encoding="utf-8")
    assert emptied.declared("HIPDNN_STATUS_ARCH_MISMATCH").where == emptied.tables_source
