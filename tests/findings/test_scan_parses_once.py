"""A scan of a big file (past SCAN_KEEPS_BYTES: one region tree alive at a time) parses each region
once: the file checks that look at syntax trees after the query pass (PORT015's uses of a warp-size
constant, PORT170's walk over the definitions that collide with HIP) are served the trees the query
pass made, and the findings are those of the same file scanned with one tree for the whole file."""

from __future__ import annotations

import bisect

import pytest

import porter.findings.engine as engine
import porter.translate.source_index as source_index
from porter import parse
from porter.findings.engine import scan
from porter.translate.source_index import index_source

# CUDA code a warp-size check and a HIP-collision check both look at: a 32-lane warp width as a named
# constant (PORT015: its uses in device code are wrong on a 64-lane MI300X wave), and the double
# atomicAdd that code written for GPUs before sm_60 defines itself (HIP's runtime declares the same
# function, so the definition collides: PORT170)
_ATOMIC_ADD = b"""\
__device__ double atomicAdd(double* address, double val) {
    unsigned long long int* as_ull = (unsigned long long int*)address;
    unsigned long long int old = *as_ull, assumed;
    do {
        assumed = old;
        old = atomicCAS(as_ull, assumed, __double_as_longlong(val + __longlong_as_double(assumed)));
    } while (assumed != old);
    return __longlong_as_double(old);
}
"""

_COPY = """\
constexpr int kWarpSize{i} = 32;

__device__ float warp_sum{i}(float v) {{
    for (int offset = kWarpSize{i} / 2; offset > 0; offset /= 2)
        v += __shfl_down_sync(0xffffffff, v, offset);
    return v;
}}

__global__ void reduce{i}(const float* in, float* out, int n) {{
    __shared__ float partial[256 / kWarpSize{i}];
    int lane = threadIdx.x % kWarpSize{i};
    int warp = threadIdx.x / kWarpSize{i};
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = warp_sum{i}(i < n ? in[i] : 0.0f);
    if (lane == 0) partial[warp] = v;
    __syncthreads();
    if (threadIdx.x == 0) {{
        float s = 0.0f;
        for (int w = 0; w < 256 / kWarpSize{i}; ++w) s += partial[w];
        out[blockIdx.x] = s;
    }}
}}

__global__ void accumulate{i}(const double* in, double* total, int n) {{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(total, in[i]);
}}
"""


def _big_file(copies: int) -> bytes:
    return _ATOMIC_ADD + b"\n" + b"\n".join(_COPY.format(i=i).encode() for i in range(copies))


def _key(findings):
    return [(f.rule, f.line, f.column, f.end_line, f.end_column, f.message, f.fix) for f in findings]


@pytest.fixture
def small_regions(monkeypatch):
    """Files over 4 kB are big (parsed by regions of about 1 kB), and a scan keeps no region tree
    for the file's size (SCAN_KEEPS_BYTES lowered to 0): what a file over 6 MB gets."""
    monkeypatch.setattr(source_index, "BIG_BYTES", 4 << 10)
    monkeypatch.setattr(source_index, "REGION_BYTES", 1 << 10)
    monkeypatch.setattr(engine, "SCAN_KEEPS_BYTES", 0)


def _scan_counting(source: bytes, path: str = "big.cu"):
    """The findings of a region-by-region scan, its index, and how many times each region was parsed;
    also the most region trees the index held when a parse began (tests/findings/test_file_checks_served.py
    uses it too)."""
    index = index_source(source)
    assert index.big and len(index.regions) > 20
    starts = [s for s, _e in index.regions]
    parses: dict[int, int] = {}
    held = [0]

    def observe(start: int, end: int) -> None:
        assert (start, end) != (0, len(source)), "the whole file was parsed"
        k = bisect.bisect_right(starts, start) - 1
        parses[k] = parses.get(k, 0) + 1
        held[0] = max(held[0], len(index._region_trees))

    parse.PARSE_OBSERVERS.append(observe)
    try:
        found = scan(source, path, index=index)
    finally:
        parse.PARSE_OBSERVERS.remove(observe)
    return found, index, parses, held[0]


def test_each_region_is_parsed_once_and_the_findings_are_those_of_a_whole_parse(small_regions, monkeypatch):
    source = _big_file(40)
    found, index, parses, _held = _scan_counting(source)
    regions = index.regions
    rules = {f.rule for f in found}
    assert {"PORT015", "PORT170"} <= rules  # both file checks looked at trees after the query pass
    again = {k: n for k, n in parses.items() if n > 1}
    assert not again, f"regions parsed more than once (region: times): {again}"
    assert len(parses) == len(regions)  # (every region holds a trigger: the query pass parsed each)

    monkeypatch.setattr(source_index, "BIG_BYTES", 10 ** 9)  # not big: one tree for the whole file
    assert _key(found) == _key(scan(source, "big.cu"))


def test_the_trees_kept_for_the_file_checks_are_bounded(small_regions, monkeypatch):
    """With room for the trees of about 3 kB of source only, the scan holds at most those and the
    region it is at, parses the rest again where a check asks (never the whole file), and finds the
    same."""
    source = _big_file(40)
    monkeypatch.setattr(engine, "FILE_CHECK_KEEPS_BYTES", 3 << 10)
    found, index, parses, held = _scan_counting(source)
    regions = index.regions
    biggest = max(e - s for s, e in regions)
    assert held <= (3 << 10) // min(e - s for s, e in regions) + 1
    assert held * biggest < len(source) // 4  # far from every region's tree
    assert any(n > 1 for n in parses.values())  # past the room, a check parses again
    monkeypatch.setattr(source_index, "BIG_BYTES", 10 ** 9)
    assert _key(found) == _key(scan(source, "big.cu"))


def test_the_sample_sources_in_one_big_file_are_parsed_once_per_region(monkeypatch):
    """Every sample project's sources in one file (the README's benchmark input, here cut into 2 kB
    regions), scanned past SCAN_KEEPS_BYTES: no region is parsed twice, the findings are unchanged."""
    from tests.findings.test_findings_big_files import _amalgamation

    source = _amalgamation()
    monkeypatch.setattr(source_index, "BIG_BYTES", 4 << 10)
    monkeypatch.setattr(source_index, "REGION_BYTES", 2 << 10)
    monkeypatch.setattr(engine, "SCAN_KEEPS_BYTES", 0)
    found, _index, parses, _held = _scan_counting(source)
    again = {k: n for k, n in parses.items() if n > 1}
    assert not again, f"regions parsed more than once (region: times): {again}"
    monkeypatch.setattr(source_index, "BIG_BYTES", 10 ** 9)
    assert _key(found) == _key(scan(source, "big.cu"))
