"""The file checks that look at syntax trees (PORT015's uses of a warp-size constant, PORT030's
unsupported names, PORT033's overloads, PORT034's call arity) are served, in a big file scanned a
region at a time, the tree the query pass holds for each region: no region is parsed a second time
for them, even with no room to keep trees between the query pass and the checks, and the findings
are those of the same file scanned with one tree for the whole file."""

from __future__ import annotations

import threading

import pytest

import porter.findings.engine as engine
import porter.translate.source_index as source_index
from porter.findings import predicates
from porter.findings.engine import scan
from porter.translate.source_index import index_source
from test_scan_parses_once import _scan_counting  # (a region-by-region scan that counts the parses)

# one warp width for the whole project, named in its header (a 32 that is wrong on a 64-lane MI300X wave
# wherever device code uses it as the wave width: PORT015), and a file of many kernels that use it
_HEADER = b"#pragma once\nconstexpr int kWarpSize = 32;\n"
_HEAD = b'#include "warp.cuh"\n\n'
_COPY = """\
__device__ float warp_sum{i}(float v) {{
    for (int offset = kWarpSize / 2; offset > 0; offset /= 2)
        v += __shfl_down_sync(0xffffffff, v, offset);
    return v;
}}

__global__ void reduce{i}(const float* in, float* out, int n) {{
    __shared__ float partial[8];
    int warp = threadIdx.x / kWarpSize;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = warp_sum{i}(i < n ? in[i] : 0.0f);
    if (threadIdx.x % kWarpSize == 0) partial[warp] = v;
    __syncthreads();
    if (threadIdx.x == 0) {{
        float s = 0.0f;
        for (int w = 0; w < 8; ++w) s += partial[w];
        out[blockIdx.x] = s;
    }}
}}
"""


def _big_file(copies: int) -> bytes:
    return _HEAD + b"\n".join(_COPY.format(i=i).encode() for i in range(copies))


@pytest.fixture
def project(tmp_path):
    """The header and a file of 60 kernels on disk: (the file's text, its path)."""
    (tmp_path / "warp.cuh").write_bytes(_HEADER)
    source = _big_file(60)
    (tmp_path / "kernels.cu").write_bytes(source)
    return source, str(tmp_path / "kernels.cu")


def _key(findings):
    return [(f.rule, f.line, f.column, f.end_line, f.end_column, f.message, f.fix) for f in findings]


@pytest.fixture
def no_room(monkeypatch):
    """Files over 4 kB are parsed by regions of about 1 kB, and a scan keeps no tree between its
    query pass and its file checks (neither for the file's size nor for the checks)."""
    monkeypatch.setattr(source_index, "BIG_BYTES", 4 << 10)
    monkeypatch.setattr(source_index, "REGION_BYTES", 1 << 10)
    monkeypatch.setattr(engine, "SCAN_KEEPS_BYTES", 0)
    monkeypatch.setattr(engine, "FILE_CHECK_KEEPS_BYTES", 0)


def _whole(source: bytes, monkeypatch, path: str = "big.cu"):
    monkeypatch.setattr(source_index, "BIG_BYTES", 10 ** 9)  # not big: one tree for the whole file
    return scan(source, path)


def test_a_file_check_walking_every_region_is_served_the_query_pass_trees(no_room, monkeypatch, project):
    source, path = project
    copies = 60
    found, index, parses, held = _scan_counting(source, path)
    # each kernel's `kWarpSize / 2` (a loop bound) and `threadIdx.x / kWarpSize` use the 32 as the wave
    # width in device code: PORT015 looked at the trees of every region
    port015_lines = {f.line for f in found if f.rule == "PORT015"}
    assert len(port015_lines) >= copies
    again = {k: n for k, n in parses.items() if n > 1}
    assert not again, f"regions parsed more than once (region: times): {again}"
    assert held <= 2  # one region's tree at a time (and the one being made)
    assert "tree_at" not in index.__dict__  # the index is as it was
    assert _key(found) == _key(_whole(source, monkeypatch, path))


def test_the_sample_sources_with_no_room_parse_each_region_about_once(monkeypatch):
    """Every sample project's sources in one file (the README's benchmark input) in 2 kB regions,
    no tree kept for the checks: 1.09x the file's bytes are parsed (2.20x when the file checks ran
    after the query pass; a region is parsed again only where a check asks for one the loop has
    passed: PORT015 walks the uses of one set of names, then of another), the findings are unchanged."""
    from tests.findings.test_findings_big_files import _amalgamation

    source = _amalgamation()
    monkeypatch.setattr(source_index, "BIG_BYTES", 4 << 10)
    monkeypatch.setattr(source_index, "REGION_BYTES", 2 << 10)
    monkeypatch.setattr(engine, "SCAN_KEEPS_BYTES", 0)
    monkeypatch.setattr(engine, "FILE_CHECK_KEEPS_BYTES", 0)
    found, index, parses, _held = _scan_counting(source)
    parsed = sum((index.regions[k][1] - index.regions[k][0]) * n for k, n in parses.items())
    assert parsed <= 1.15 * len(source), f"{parsed / len(source):.2f}x the file's bytes parsed"
    assert _key(found) == _key(_whole(source, monkeypatch))


def _served_threads():
    return [t for t in threading.enumerate() if t.name.startswith("porter-PORT")]


def test_a_served_check_that_fails_is_reported_and_the_others_still_report(no_room, monkeypatch, project):
    """A file check that fails after reading the trees of five regions (while the loop is at the
    fifth): one PORT900 for it, every other finding as in a whole-file scan without that check, and
    no thread left behind."""
    real = predicates.FILE_REGISTRY["PORT015"]

    def failing(ctx):
        for start, _end in ctx.index.regions[:5]:
            ctx.index.tree_at(start)
        raise RuntimeError("broken check")

    monkeypatch.setitem(predicates.FILE_REGISTRY, "PORT015", failing)
    source, path = project
    found = scan(source, path)
    internal = [f for f in found if f.rule == "PORT900"]
    assert len(internal) == 1 and "PORT015" in internal[0].message and "broken check" in internal[0].message
    assert not _served_threads()
    monkeypatch.setitem(predicates.FILE_REGISTRY, "PORT015", real)
    expected = [f for f in _whole(source, monkeypatch, path) if f.rule != "PORT015"]
    assert _key([f for f in found if f.rule != "PORT900"]) == _key(expected)


def test_an_interrupted_scan_leaves_no_check_paused(no_room, monkeypatch, project):
    """Ctrl-C in the region loop (raised by PORT020's node check, a full-mask shuffle, in the tenth
    kernel): the scan stops, the paused file checks are unwound (no thread left), and the index
    parses trees as before."""
    real = predicates.REGISTRY["PORT020"]
    calls = [0]

    def interrupting(ctx, node, caps):
        calls[0] += 1
        if calls[0] == 10:
            raise KeyboardInterrupt
        return real(ctx, node, caps)

    monkeypatch.setitem(predicates.REGISTRY, "PORT020", interrupting)
    source, path = project
    index = index_source(source)
    with pytest.raises(KeyboardInterrupt):
        scan(source, path, index=index)
    assert calls[0] == 10
    assert not _served_threads()
    assert "tree_at" not in index.__dict__
    assert index.tree_at(len(source) - 1).root_node.end_byte == len(source)


def test_the_scan_context_goes_with_the_scan(no_room, monkeypatch, project):
    """Once the scan returns, nothing it made for the served checks keeps its context (the file's
    caches: about 150 MB for a 40 MB file) alive: freed at once, not when the cyclic collector runs."""
    import gc
    import weakref

    real = predicates.FILE_REGISTRY["PORT015"]
    seen = []

    def watched(ctx):
        seen.append(weakref.ref(ctx))
        return real(ctx)

    monkeypatch.setitem(predicates.FILE_REGISTRY, "PORT015", watched)
    source, path = project
    gc.disable()
    try:
        found = scan(source, path)
        assert seen and seen[0]() is None
    finally:
        gc.enable()
    assert any(f.rule == "PORT015" for f in found)
