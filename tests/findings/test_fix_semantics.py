"""Every warp fix porter marks safe, checked by executing the before and the after.

Each kernel below is written from CUDA semantics (CUDA Programming Guide: warp shuffle, vote
and match functions; PTX ISA: %laneid).  porter scans it, applies its *safe* fixes only (what
``porter convert --fix`` does) and translates it to HIP; tests/warpmodel then runs the CUDA
original on 32-lane warps and the port on 64-lane gfx942 waves (HIP's amd_warp_functions.h
semantics) over generated inputs, block sizes and active lanes, and the results must agree:

* code that keeps 32-lane logical warps must compute exactly what it computed on NVIDIA;
* code written for the native wave (``warpSize``) must compute the same wave-independent
  result (a total, a sorted compaction), which is what it computes on any wave width.

The last tests check the checker: a port that gives a ``warpSize / 2`` loop width 32 (what
porter did before) is caught, and every rule that offers a safe fix on the warp fixtures is
covered here.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/, for warpmodel
from warpmodel import run, run_pair  # noqa: E402

from porter.findings import apply_fixes, scan  # noqa: E402
from porter.translate import translate  # noqa: E402

FIXTURES = Path(__file__).with_name("fixtures")
SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
# the rules whose safe fixes the kernels below exercise (test_every_safe_warp_fix_is_executed)
COVERED: set[str] = set()


def port(cuda: str, name: str = "k.cu") -> tuple[str, list]:
    """porter's port: the safe fixes applied to the source, then the CUDA->HIP translation."""
    data = cuda.encode()
    findings = scan(data, name)
    fixed = apply_fixes(data, findings)
    return translate(fixed, name).output.decode(), findings


def safe_rules(findings) -> set[str]:
    return {f.rule for f in findings if f.fix is not None and f.fix.safe}


def both(cuda: str, kernel: str, block: int, args: dict, hip: str | None = None):
    """(CUDA result, HIP result) of running the original and its port on copies of ``args``."""
    if hip is None:
        hip, findings = port(cuda)
        COVERED.update(safe_rules(findings))
    return run_pair(cuda, hip, kernel, block, args)


ints = st.integers(min_value=-50, max_value=50)
blocks32 = st.sampled_from([32, 64, 96, 128, 256])  # whole 32-lane warps (a partial warp breaks a full mask)
blocks64 = st.sampled_from([64, 128, 256])  # whole waves: the native-wave kernels assume them


# ------------------------------------------------------------------ 32-lane logical warps: exact results
LOGICAL_DOWN = """
#include <cuda_runtime.h>
__global__ void k(const int* in, int* out)
{
    int v = in[threadIdx.x];
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);
    if ((threadIdx.x & 31) == 0) out[threadIdx.x >> 5] = v;
}
"""

LOGICAL_XOR_MACRO = """
#include <cuda_runtime.h>
#define FULL_MASK 0xffffffff
#define SHFL_XOR(v, m) __shfl_xor_sync(FULL_MASK, v, m)
__global__ void k(const int* in, int* out)
{
    int v = in[threadIdx.x];
    for (int m = 16; m >= 1; m /= 2) v = max(v, SHFL_XOR(v, m));
    out[threadIdx.x] = v;
}
"""

LOGICAL_SCAN = """
#include <cuda_runtime.h>
__global__ void k(const int* in, int* out)
{
    const int lane = threadIdx.x & 31;
    int v = in[threadIdx.x];
    for (int d = 1; d < 32; d *= 2) {
        int n = __shfl_up_sync(0xffffffff, v, d);
        if (lane >= d) v += n;
    }
    out[threadIdx.x] = v;
}
"""

LOGICAL_READS = """
#include <cuda_runtime.h>
__device__ int rotate(int v, int by)
{
    const int lane = threadIdx.x % 32;
    return __shfl_sync(0xffffffff, v, (lane + by) & 31);
}
__global__ void k(const int* in, int* out, int by)
{
    int v = in[threadIdx.x];
    int first = __shfl_sync(0xffffffff, v, 0);
    out[threadIdx.x] = rotate(v, by) * 1000 + first;
}
"""

SUBGROUPS = """
#include <cuda_runtime.h>
__global__ void k(const int* in, int* out)
{
    int v = in[threadIdx.x];
    for (int m = 4; m > 0; m >>= 1) v += __shfl_xor_sync(0xffffffff, v, m, 8);
    out[threadIdx.x] = v;
}
"""

VOTES = """
#include <cuda_runtime.h>
__global__ void k(const int* in, int* out)
{
    const unsigned lane = threadIdx.x & 31;
    const int x = in[threadIdx.x];
    const unsigned b = __ballot_sync(0xffffffff, x > 0);
    const int rank = __popc(b & ((1u << lane) - 1));
    const int any = __any_sync(0xffffffff, x > 40);
    const int all = __all_sync(0xffffffff, x > -45);
    out[threadIdx.x] = __popc(b) * 10000 + rank * 100 + any * 10 + all;
}
"""

ACTIVE = """
#include <cuda_runtime.h>
__global__ void k(const int* in, int* out)
{
    if (in[threadIdx.x] > 0) {
        unsigned m = __activemask();
        out[threadIdx.x] = __popc(m) * 100 + (__ffs(m) - 1);
    } else {
        out[threadIdx.x] = -1;
    }
}
"""

SYNCWARP = """
#include <cuda_runtime.h>
__global__ void k(const int* in, int* out)
{
    __shared__ int s[256];
    s[threadIdx.x] = in[threadIdx.x];
    __syncwarp();
    out[threadIdx.x] = s[threadIdx.x ^ 1] - s[threadIdx.x];
}
"""

LANEID = """
#include <cuda_runtime.h>
__global__ void k(const int* in, int* out)
{
    unsigned lane;
    asm("mov.u32 %0, %%laneid;" : "=r"(lane));
    int v = in[threadIdx.x];
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o);
    if (lane == 0) out[threadIdx.x / 32] = v;
}
"""

LOGICAL = [("down", LOGICAL_DOWN, 8), ("xor-macro", LOGICAL_XOR_MACRO, 256), ("scan", LOGICAL_SCAN, 256),
           ("reads", LOGICAL_READS, 256), ("subgroups", SUBGROUPS, 256), ("votes", VOTES, 256),
           ("activemask", ACTIVE, 256), ("syncwarp", SYNCWARP, 256), ("laneid", LANEID, 8)]


@pytest.mark.parametrize("name, cuda, out_len", LOGICAL, ids=[c[0] for c in LOGICAL])
@SETTINGS
@given(data=st.data())
def test_a_safe_fix_keeps_what_32_lane_code_computes(name, cuda, out_len, data):
    block = data.draw(blocks32)
    values = data.draw(st.lists(ints, min_size=block, max_size=block))
    args = {"in": values, "out": [0] * out_len}
    if name == "reads":
        args["by"] = data.draw(st.integers(min_value=0, max_value=40))
    c, h = both(cuda, "k", block, args)
    assert c.memory["out"] == h.memory["out"]


# ------------------------------------------------------------------ native wave: wave-independent results
NATIVE_SUM = """
#include <cuda_runtime.h>
__global__ void k(const int* a, const int* b, int* out, int n)
{
    int res = 0;
    for (int i = threadIdx.x; i < n; i += blockDim.x) res += a[i] * b[i];
#pragma unroll
    for (int i = warpSize/2; i > 0; i /= 2) res += __shfl_down_sync(0xffffffff, res, i);
    if (threadIdx.x % warpSize == 0) atomicAdd(out, res);
}
"""

NATIVE_MAX = """
#include <cuda_runtime.h>
__device__ int wave_max(int v)
{
    for (int m = warpSize >> 1; m > 0; m >>= 1) v = max(v, __shfl_xor_sync(0xffffffff, v, m));
    return v;
}
__global__ void k(const int* in, int* out)
{
    const int lane = threadIdx.x % warpSize;
    int v = wave_max(in[threadIdx.x]);
    if (lane == 0) atomicMax(out, v);
    if (v < in[threadIdx.x]) out[1] = 1;
}
"""

NATIVE_COMPACT = """
#include <cuda_runtime.h>
__global__ void k(const int* in, int* out, int* count)
{
    const int lane = threadIdx.x % warpSize;
    const int v = in[threadIdx.x];
    const bool keep = v > 0;
    unsigned long long bits = __ballot_sync(0xffffffff, keep);
    int base = 0;
    if (lane == 0) base = atomicAdd(count, __popcll(bits));
    base = __shfl_sync(0xffffffff, base, 0);
    if (keep) out[base + __popcll(bits & ((1ull << lane) - 1))] = v;
}
"""

NATIVE_ANY = """
#include <cuda_runtime.h>
__global__ void k(const int* in, int* out)
{
    const int lane = threadIdx.x % warpSize;
    const int v = in[threadIdx.x];
    out[threadIdx.x] = 0;
    if (__any_sync(0xffffffff, v > 30)) {
        if (v > 30) out[threadIdx.x] = v + lane - lane;
    }
    if (__all_sync(0xffffffff, v > -100)) out[threadIdx.x] += 1;
}
"""


@SETTINGS
@given(data=st.data())
def test_the_warpsize_half_loop_keeps_its_total_on_a_64_lane_wave(data):
    """The issue's 8-line pattern: `for (i = warpSize/2; ...) r += __shfl_down_sync(0xffffffff, r, i)`."""
    block = data.draw(blocks64)
    n = data.draw(st.integers(min_value=1, max_value=300))
    a = data.draw(st.lists(ints, min_size=n, max_size=n))
    b = data.draw(st.lists(ints, min_size=n, max_size=n))
    c, h = both(NATIVE_SUM, "k", block, {"a": a, "b": b, "out": [0], "n": n})
    assert c.memory["out"] == h.memory["out"] == [sum(x * y for x, y in zip(a, b))]


@SETTINGS
@given(data=st.data())
def test_a_native_wave_butterfly_keeps_its_maximum(data):
    block = data.draw(blocks64)
    values = data.draw(st.lists(ints, min_size=block, max_size=block))
    c, h = both(NATIVE_MAX, "k", block, {"in": values, "out": [-1000, 0]})
    assert c.memory["out"] == h.memory["out"] == [max(values), 0]


@SETTINGS
@given(data=st.data())
def test_a_native_wave_compaction_keeps_its_elements(data):
    block = data.draw(blocks64)
    values = data.draw(st.lists(ints, min_size=block, max_size=block))
    c, h = both(NATIVE_COMPACT, "k", block, {"in": values, "out": [0] * block, "count": [0]})
    kept = sorted(v for v in values if v > 0)
    assert c.memory["count"] == h.memory["count"] == [len(kept)]
    assert sorted(c.memory["out"][:len(kept)]) == sorted(h.memory["out"][:len(kept)]) == kept


@SETTINGS
@given(data=st.data())
def test_native_wave_votes_keep_their_results(data):
    block = data.draw(blocks64)
    values = data.draw(st.lists(ints, min_size=block, max_size=block))
    c, h = both(NATIVE_ANY, "k", block, {"in": values, "out": [0] * block})
    assert c.memory["out"] == h.memory["out"]


# ------------------------------------------------------------------ fixes of HIP-spelled code
HIP_LOOP16 = """
#include <hip/hip_runtime.h>
__global__ void k(const int* in, int* out)
{
    int v = in[threadIdx.x];
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down(v, o);
    if ((threadIdx.x & 31) == 0) out[threadIdx.x >> 5] = v;
}
"""

HIP_POPC = """
#include <hip/hip_runtime.h>
__global__ void k(const int* in, int* out)
{
    const int n = __popc(__ballot(in[threadIdx.x] > 0));
    if (threadIdx.x % warpSize == 0) atomicAdd(out, n);
}
"""

CUDA_POPC = """
#include <cuda_runtime.h>
__global__ void k(const int* in, int* out)
{
    const int n = __popc(__ballot_sync(0xffffffff, in[threadIdx.x] > 0));
    if (threadIdx.x % warpSize == 0) atomicAdd(out, n);
}
"""


@SETTINGS
@given(data=st.data())
def test_the_width_fix_of_a_hip_loop_from_16_gives_cudas_result(data):
    block = data.draw(blocks32)
    values = data.draw(st.lists(ints, min_size=block, max_size=block))
    fixed, findings = port(HIP_LOOP16)
    assert "PORT012" in safe_rules(findings)
    COVERED.update(safe_rules(findings))
    c, h = both(LOGICAL_DOWN, "k", block, {"in": values, "out": [0] * 8}, hip=fixed)
    assert c.memory["out"] == h.memory["out"]


@SETTINGS
@given(data=st.data())
def test_the_64_bit_count_of_a_ballot_gives_the_native_total(data):
    block = data.draw(blocks64)
    values = data.draw(st.lists(ints, min_size=block, max_size=block))
    fixed, findings = port(HIP_POPC)
    assert "PORT024" in safe_rules(findings)
    COVERED.update(safe_rules(findings))
    c, h = both(CUDA_POPC, "k", block, {"in": values, "out": [0]}, hip=fixed)
    assert c.memory["out"] == h.memory["out"] == [sum(v > 0 for v in values)]


# ------------------------------------------------------------------ the checker catches wrong ports
def test_width_32_on_a_warpsize_half_loop_is_caught():
    """What porter's fix did before: width 32 on offsets from warpSize / 2 (32 on gfx942)."""
    hip, findings = port(NATIVE_SUM)
    assert "__shfl_down(res, i)" in hip and "__shfl_down(res, i, 32)" not in hip
    wrong = hip.replace("__shfl_down(res, i)", "__shfl_down(res, i, 32)")
    a, b = list(range(1, 129)), [1] * 128
    args = {"a": a, "b": b, "out": [0], "n": 128}
    c = run(NATIVE_SUM, "k", platform="cuda", block=(128,), args=dict(args, a=list(a), out=[0]))
    h = run(wrong, "k", platform="hip", block=(128,), args=dict(args, a=list(a), out=[0]))
    assert c.memory["out"] == [sum(a)] and h.memory["out"] != [sum(a)]


def test_a_mixed_kernel_gets_no_safe_fix():
    """Lanes from `& 31` beside a warpSize loop: wrong on MI300X whatever the port keeps."""
    mixed = NATIVE_SUM.replace("threadIdx.x % warpSize == 0", "(threadIdx.x & 31) == 0")
    hip, findings = port(mixed)
    shuffle = [f for f in findings if f.rule == "PORT020"]
    assert shuffle and not any(f.fix.safe for f in shuffle)
    assert any(f.rule == "PORT011" and f.severity == "error" for f in findings)


WARP_RULES = {"PORT001", "PORT010", "PORT011", "PORT012", "PORT013", "PORT014", "PORT015", "PORT016", "PORT017",
              "PORT019", "PORT020", "PORT021", "PORT022", "PORT023", "PORT024", "PORT025", "PORT026", "PORT072"}


def test_every_safe_warp_fix_is_executed():
    """Every warp rule that offers a safe fix on its fixtures or the samples is run above."""
    offered = set()
    for folder in sorted(FIXTURES.iterdir()):
        if folder.name not in WARP_RULES:
            continue
        for f in sorted(folder.glob("positive*")):
            if f.suffix in (".cu", ".cuh", ".hip", ".cpp", ".h"):
                offered |= safe_rules(scan(f.read_bytes(), f.name)) & WARP_RULES
    samples = Path(__file__).resolve().parents[2] / "sample_projects"
    for f in sorted(samples.rglob("*.cu")):
        offered |= safe_rules(scan(f.read_bytes(), str(f))) & WARP_RULES
    # the kernels above, scanned here too so that this test stands alone
    for src in [c[1] for c in LOGICAL] + [NATIVE_SUM, NATIVE_MAX, NATIVE_COMPACT, NATIVE_ANY, HIP_LOOP16, HIP_POPC]:
        COVERED.update(safe_rules(scan(src.encode(), "k.cu")))
    missing = offered - COVERED
    assert not missing, f"safe warp fixes no executed test covers: {sorted(missing)}"
