"""The query files a scan needs are compiled together as one tree-sitter query (engine.queries_for: a
query costs compile time before any pattern, and patterns share their analysis).  Each file's
matches are still its own: the same matches, in the same order, as that file's query compiled alone
gives; and an error in one file reads as when that file is compiled alone."""

from __future__ import annotations

from pathlib import Path

import pytest
import tree_sitter as ts

import porter.findings.engine as engine
from porter import parse
from porter.project.scan import scan_path

SAMPLES = Path(__file__).resolve().parents[2] / "sample_projects"

# CUDA that several query files look at: a warp-size reduction (warp_size: the offset 16 and the
# __shfl_down_sync loop of a 32-lane warp), a full 32-bit lane mask for a ballot (lane_mask), a
# __shared__ array with one slot per 32-lane warp (warp_size / lds), cooperative groups' thread block
# tiles (cooperative_groups) and inline PTX (inline_asm)
_SOURCE = b"""\
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__device__ float warp_sum(float v) {
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(0xffffffff, v, offset);
    return v;
}

__global__ void block_sum(const float* in, float* out, int n) {
    __shared__ float partial[1024 / 32];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? in[i] : 0.0f;
    unsigned active = __ballot_sync(0xffffffff, v != 0.0f);
    unsigned lane;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
    v = warp_sum(v);
    if ((threadIdx.x & 31) == 0) partial[threadIdx.x / 32] = v + active + lane + tile.size();
    block.sync();
    if (threadIdx.x == 0) out[blockIdx.x] = partial[0];
}
"""

_QUERY_PASS = engine._query_pass


def _query_matches(monkeypatch, compile_first) -> tuple[list, set]:
    """Every match the query passes of a scan of _SOURCE keep (capture names and node spans), and the
    query objects that served them."""
    monkeypatch.setattr(engine, "_COMPILED", {})
    compile_first()
    kept, queries = [], set()
    real = _QUERY_PASS

    def recording(*args, **kwargs):
        found = real(*args, **kwargs)
        kept.extend(sorted((name, tuple((n.start_byte, n.end_byte) for n in nodes)) for name, nodes in caps.items())
                    for _pattern, caps in found)
        queries.update(id(q) for q, *_rest in engine._COMPILED.values())
        return found

    monkeypatch.setattr(engine, "_query_pass", recording)
    engine.scan(_SOURCE, "block_sum.cu")
    return kept, queries


def test_files_compiled_together_keep_their_own_matches(monkeypatch):
    alone, alone_queries = _query_matches(monkeypatch, lambda: [engine.queries_for((n,)) for n in engine.rule_files()])
    together, together_queries = _query_matches(monkeypatch, lambda: None)
    assert len(alone) >= 5  # the fixture is looked at by several query files ...
    assert len(together_queries) < len(engine._COMPILED)  # ... compiled here as fewer queries than files
    assert together == alone


def test_a_broken_query_file_fails_as_when_compiled_alone(monkeypatch, request):
    """An error in one of the files compiled together reads as that file's own (its row and column),
    not as a place in the other files' patterns."""
    real = parse.query_text
    monkeypatch.setattr(engine, "_COMPILED", {})
    engine.file_patterns.cache_clear()  # (kept as the text read then)
    request.addfinalizer(engine.file_patterns.cache_clear)
    monkeypatch.setattr(parse, "query_text",
                        lambda name: "((call_expression) @PORT011)\n((no_such_node) @PORT011)"
                        if name == "rules/warp_size" else real(name))
    with pytest.raises(ts.QueryError) as alone:
        ts.Query(parse.language(), "((call_expression) @PORT011)\n((no_such_node) @PORT011)")
    with pytest.raises(ts.QueryError) as together:
        engine.queries_for(("inline_asm", "lane_mask", "warp_size"))
    assert str(together.value) == str(alone.value)
    assert "inline_asm" in engine._COMPILED and "lane_mask" in engine._COMPILED  # the good ones are compiled


def test_each_query_file_is_compiled_once_a_process(monkeypatch):
    """Scanning every sample project twice in one process compiles each query file's patterns once
    (compiling costs tens of milliseconds a query): the second scan and every file after the first
    reuse the query that holds them, alone or with other files'."""
    samples = sorted(p for p in SAMPLES.iterdir() if p.is_dir()) if SAMPLES.is_dir() else []
    if not samples:
        pytest.skip("no sample projects in this checkout")
    monkeypatch.setattr(engine, "_COMPILED", {})
    compiled: list[str] = []
    real = ts.Query

    def counting(language, text):
        compiled.append(text)
        return real(language, text)

    monkeypatch.setattr(ts, "Query", counting)
    for _round in range(2):
        for root in samples:
            assert scan_path(root, jobs=1).findings
    # how many compiled queries held each query file's patterns (a pattern names its file's rules only)
    times = {name: sum(engine.file_patterns(name)[0] in text for text in compiled) for name in engine.rule_files()}
    assert len(engine._COMPILED) >= 8  # the samples need most query files ...
    assert {n: times[n] for n in engine._COMPILED} == dict.fromkeys(engine._COMPILED, 1)  # ... each compiled once
    assert not any(times[n] for n in times if n not in engine._COMPILED)  # (none compiled and dropped)
