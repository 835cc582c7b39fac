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
