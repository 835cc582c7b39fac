"""PORT032's safe fix for ``tile.meta_group_rank()`` / ``tile.meta_group_size()`` at ROCm 5.2, checked by executing it.

HIP's thread_block_tile has the two members after ROCm 5.2 only (absent from HIP 5.2's
amd_hip_cooperative_groups.h; hipcc 5.2: "no member named").  CUDA Programming Guide, "thread_block_tile":
meta_group_rank() is the tile's linear rank among the tiles its parent was partitioned into, meta_group_size()
how many tiles that is, both unsigned long long; for ``t = tiled_partition<N>(p)`` they are p.thread_rank() / N
and (p.size() + N - 1) / N.  The kernels below are written from that; tests/warpmodel runs the CUDA original on
32-lane warps and porter's port (--target-rocm 5.2: safe fixes, then the translation) on 64-lane waves, with
the HIP 5.2 members absent (a CompileError), and memory must agree with no undefined behaviour.  A port that
uses threadIdx.x for the rank, or does not round the count up, is caught; the fixed port compiles with hipcc
5.2 (gfx90a) and clang-19 (gfx942).  A tile partitioned from a tile gets no fix: HIP 5.2 cannot make one.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/, for warpmodel
from warpmodel import CompileError, run  # noqa: E402
from required_tools import require  # noqa: E402

from porter.findings import apply_fixes, scan  # noqa: E402
from porter.translate import TranslateOptions, translate  # noqa: E402

R52 = TranslateOptions(target_rocm="5.2")


def port(cuda: str, options=R52) -> tuple[str, list]:
    """porter convert --fix --target-rocm 5.2: the safe fixes applied, then the CUDA -> HIP translation."""
    data = cuda.encode()
    findings = scan(data, "k.cu", options=options)
    return translate(apply_fixes(data, findings), "k.cu", options).output.decode(), findings


def _port032(src: str, options=R52):
    return [f for f in scan(src.encode(), "k.cu", options=options) if f.rule == "PORT032"]


def both(cuda: str, hip: str, kernel: str, block, args: dict, grid=(1,)):
    copy = lambda: {k: list(v) if isinstance(v, list) else v for k, v in args.items()}  # noqa: E731
    c = run(cuda, kernel, platform="cuda", block=block, grid=grid, args=copy())
    h = run(hip, kernel, platform="hip", block=block, grid=grid, args=copy())
    assert not c.undefined, c.events
    assert not h.undefined, h.events
    return c, h


# every thread writes its tile's rank and count, and 0 - rank (which shows the unsigned long long type)
TILES = """
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void k(unsigned long long* rank, unsigned long long* count, long long* neg, unsigned int* own)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<N> tile = cg::tiled_partition<N>(block);
    unsigned int me = block.thread_rank();
    rank[me] = tile.meta_group_rank();
    count[me] = tile.meta_group_size();
    neg[me] = 0 - tile.meta_group_rank();
    own[me] = tile.thread_rank();
}
"""

BLOCKS = [(32,), (64,), (128,), (96,), (16, 4), (8, 12), (4, 4, 6)]


def _args(threads: int) -> dict:
    return {"rank": [0] * threads, "count": [0] * threads, "neg": [0] * threads, "own": [0] * threads}


def _threads(block) -> int:
    return block[0] * (block[1] if len(block) > 1 else 1) * (block[2] if len(block) > 2 else 1)


@pytest.mark.parametrize("n", [4, 16, 32, 64])
@pytest.mark.parametrize("block", BLOCKS, ids=lambda b: "x".join(map(str, b)))
def test_a_tile_of_a_block_has_cudas_rank_and_count(n, block):
    src = TILES.replace("<N>", f"<{n}>")
    hip, findings = port(src)
    fixed = [f for f in findings if f.rule == "PORT032"]
    assert len(fixed) == 3 and all(f.fix and f.fix.safe for f in fixed)
    assert "meta_group" not in hip
    threads = _threads(block)
    c, h = both(src, hip, "k", block, _args(threads))
    assert c.memory == h.memory
    # and what the model's CUDA gives is the guide's: the block rank / N, tiles counted rounding up
    assert c.memory["rank"] == [i // n for i in range(threads)]
    assert c.memory["count"] == [(threads + n - 1) // n] * threads
    assert c.memory["neg"] == [-(i // n) for i in range(threads)]


def test_the_cuda_original_does_not_compile_as_hip_5_2():
    with pytest.raises(CompileError, match="no member named 'meta_group_rank'"):
        run(TILES.replace("<N>", "<16>"), "k", platform="hip", block=(64,), args=_args(64))


def test_threadidx_x_for_the_rank_is_caught_with_a_2d_block():
    """The checker checks: the database's old hint, threadIdx.x / N, is wrong for a block of 16 x 4."""
    src = TILES.replace("<N>", "<32>")
    hip, _ = port(src)
    broken = hip.replace("(unsigned long long)block.thread_rank() / 32", "(unsigned long long)threadIdx.x / 32")
    assert broken != hip
    run(broken, "k", platform="hip", block=(32,), args=_args(32))  # one row: the same
    c = run(src, "k", platform="cuda", block=(16, 4), args=_args(64))
    h = run(broken, "k", platform="hip", block=(16, 4), args=_args(64))
    assert c.memory["rank"] != h.memory["rank"]


def test_a_count_that_does_not_round_up_is_caught():
    src = TILES.replace("<N>", "<64>")
    hip, _ = port(src)
    broken = hip.replace("(((unsigned long long)block.size() + 63) / 64)", "((unsigned long long)block.size() / 64)")
    assert broken != hip
    c = run(src, "k", platform="cuda", block=(96,), args=_args(96))
    h = run(broken, "k", platform="hip", block=(96,), args=_args(96))
    assert c.memory["count"] == [2] * 96 and h.memory["count"] == [1] * 96


def test_an_unsigned_int_rank_is_caught():
    """CUDA's members are unsigned long long: 0 - rank is -rank, where an unsigned int would give 2^32 - rank."""
    src = TILES.replace("<N>", "<16>")
    hip, _ = port(src)
    broken = hip.replace("(unsigned long long)block.thread_rank()", "block.thread_rank()")
    c = run(src, "k", platform="cuda", block=(64,), args=_args(64))
    h = run(broken, "k", platform="hip", block=(64,), args=_args(64))
    assert c.memory["neg"] != h.memory["neg"]


# HeCBench softmax-cuda's shape: the alias inside the kernel, a typed 32-thread tile, one slice per tile,
# the slice's index from the tile's rank and count, cg::reduce (PORT071's fix) over the tile
SOFTMAX = """
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
__global__ void softmax(const int slices, const int width, const float* in, float* out)
{
    namespace cg = cooperative_groups;
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    int s = blockIdx.x * warp.meta_group_size() + warp.meta_group_rank();
    if (s >= slices) return;
    float m = in[s * width];
    for (int j = warp.thread_rank(); j < width; j += warp.size())
        m = fmaxf(m, in[s * width + j]);
    m = cg::reduce(warp, m, cg::greater<float>{});
    float sum = 0.0f;
    for (int j = warp.thread_rank(); j < width; j += warp.size())
        sum += expf(in[s * width + j] - m);
    sum = cg::reduce(warp, sum, cg::plus<float>{});
    for (int j = warp.thread_rank(); j < width; j += warp.size())
        out[s * width + j] = expf(in[s * width + j] - m) / sum;
}
"""


@pytest.mark.parametrize("block, grid, slices, width", [((64,), (3,), 5, 40), ((128,), (2,), 7, 33), ((96,), (2,), 6, 20)])
def test_softmax_one_slice_per_tile_computes_what_cuda_computes(block, grid, slices, width):
    hip, findings = port(SOFTMAX)
    assert "meta_group" not in hip and "reduce" not in hip
    rng = random.Random(slices * width)
    data = [rng.uniform(-3.0, 3.0) for _ in range(slices * width)]
    c, h = both(SOFTMAX, hip, "softmax", block,
                {"slices": slices, "width": width, "in": data, "out": [0.0] * (slices * width)}, grid)
    assert c.memory["out"] == h.memory["out"]
    assert all(x > 0 for x in c.memory["out"])  # every slice was written: the tiles covered them all


# a tile from this_thread_block() in place, a macro size, a device function with a thread_block parameter
VARIANTS = """
#include <cooperative_groups.h>
using namespace cooperative_groups;
#define TILE 8
__device__ void mark(thread_block b, unsigned long long* out)
{
    thread_block_tile<TILE> t = tiled_partition<TILE>(b);
    out[b.thread_rank()] += t.meta_group_size() * 1000 + t.meta_group_rank();
}
__global__ void k(unsigned long long* a, unsigned long long* out)
{
    auto t = tiled_partition<4>(this_thread_block());
    a[this_thread_block().thread_rank()] = t.meta_group_rank() * 1000 + t.meta_group_size();
    mark(this_thread_block(), out);
}
"""


@pytest.mark.parametrize("block", [(32,), (96,), (8, 8)], ids=lambda b: "x".join(map(str, b)))
def test_the_other_ways_to_write_the_parent(block):
    hip, findings = port(VARIANTS)
    assert "meta_group" not in hip and "this_thread_block().thread_rank() / 4" in hip
    threads = _threads(block)
    c, h = both(VARIANTS, hip, "k", block, {"a": [0] * threads, "out": [0] * threads})
    assert c.memory == h.memory
    assert c.memory["out"] == [(threads + 7) // 8 * 1000 + i // 8 for i in range(threads)]


# ------------------------------------------------------------------ a tile of a tile: HIP 5.2 cannot make it
TILE_OF_TILE = """
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void k(unsigned long long* rank, unsigned long long* count)
{
    auto block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    auto quad = cg::tiled_partition<4>(warp);
    rank[block.thread_rank()] = quad.meta_group_rank();
    count[block.thread_rank()] = quad.meta_group_size();
}
"""


def test_a_tile_of_a_tile_keeps_its_finding_without_a_fix():
    # CUDA: the rank among the 8 quads of its warp-tile
    c = run(TILE_OF_TILE, "k", platform="cuda", block=(64,), args={"rank": [0] * 64, "count": [0] * 64})
    assert c.memory["rank"] == [i % 32 // 4 for i in range(64)] and c.memory["count"] == [8] * 64
    found = _port032(TILE_OF_TILE)
    assert [f.line for f in found] == [9, 10] and all(f.fix is None for f in found)
    assert "partitioned from a tile, which HIP 5.2 cannot do either" in found[0].message
    hip, _ = port(TILE_OF_TILE)
    with pytest.raises(CompileError, match="tiled_partition_internal"):  # what hipcc 5.2 says (below)
        run(hip, "k", platform="hip", block=(64,), args={"rank": [0] * 64, "count": [0] * 64})


# ------------------------------------------------------------------ where the parent is not known: no fix
NO_FIX = {
    "a tile parameter": ("__device__ unsigned long long r(cg::thread_block_tile<32> t) { return t.meta_group_rank(); }\n"
                         "__global__ void k(unsigned long long* o) { auto t = cg::tiled_partition<32>(cg::this_thread_block()); "
                         "o[0] = r(t); }"),
    "a template size": ("template <int S> __global__ void k(unsigned long long* o) { auto b = cg::this_thread_block(); "
                        "auto t = cg::tiled_partition<S>(b); o[0] = t.meta_group_rank(); }"),
    "a parent assigned again": ("__global__ void k(unsigned long long* o) { cg::thread_block b = cg::this_thread_block(); "
                                "auto t = cg::tiled_partition<32>(b); b = cg::this_thread_block(); o[0] = t.meta_group_rank(); }"),
    "a parent shadowed": ("__global__ void k(unsigned long long* o) { cg::thread_block b = cg::this_thread_block(); "
                          "auto t = cg::tiled_partition<32>(b); { int b = 3; o[b] = t.meta_group_rank(); } }"),
    "a tile assigned again": ("__global__ void k(unsigned long long* o) { auto b = cg::this_thread_block(); "
                              "auto t = cg::tiled_partition<32>(b); t = cg::tiled_partition<32>(b); o[0] = t.meta_group_rank(); }"),
    "a use in a lambda": ("__global__ void k(unsigned long long* o) { auto b = cg::this_thread_block(); "
                          "auto t = cg::tiled_partition<32>(b); o[0] = [t]() { return t.meta_group_rank(); }(); }"),
    "a tile expression": ("__global__ void k(unsigned long long* o) { auto b = cg::this_thread_block(); "
                          "o[0] = cg::tiled_partition<32>(b).meta_group_rank(); }"),
    "a parent that is no thread_block": ("__global__ void k(unsigned long long* o) { cg::thread_group g = cg::this_thread_block(); "
                                         "auto t = cg::tiled_partition<32>(g); o[0] = t.meta_group_rank(); }"),
    "a tile of 128": ("__global__ void k(unsigned long long* o) { auto b = cg::this_thread_block(); "
                      "auto t = cg::tiled_partition<128>(b); o[0] = t.meta_group_rank(); }"),
}


@pytest.mark.parametrize("case", sorted(NO_FIX))
def test_no_fix_where_the_parent_or_size_is_not_certain(case):
    src = "#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n" + NO_FIX[case] + "\n"
    found = _port032(src)
    assert found and all(f.fix is None for f in found), [(f.message, f.fix) for f in found]


def test_the_rules_fixture_fixes_what_it_can():
    fixture = Path(__file__).with_name("fixtures") / "PORT032" / "positive_meta_group.cu"
    found = _port032(fixture.read_text(encoding="utf-8"))
    assert [(f.line, f.fix is not None) for f in found] == [(9, True), (9, True), (18, False), (25, False)]
    assert "p.thread_rank() / N" in found[2].message  # what to write by hand


def test_nothing_changes_at_a_target_that_has_the_members():
    src = TILES.replace("<N>", "<32>")
    assert not _port032(src, TranslateOptions(target_rocm="6.0"))
    hip, _ = port(src, TranslateOptions(target_rocm="6.0"))
    assert hip.count("meta_group_rank()") == 2 and "thread_rank() / 32" not in hip


def test_the_fix_converges():
    once = apply_fixes(SOFTMAX.encode(), scan(SOFTMAX.encode(), "k.cu", options=R52))
    assert b"meta_group" not in once
    assert not [f for f in scan(once, "k.cu", options=R52) if f.rule == "PORT032"]


# ------------------------------------------------------------------ the fixed port compiles
def _clang19(hip: bytes, tmp_path: Path, name: str) -> subprocess.CompletedProcess:
    clang = shutil.which("clang++-19")
    require(clang, "clang++-19 not installed: cannot compile the port for gfx942")
    src = tmp_path / f"{name}.hip"
    src.write_bytes(hip)
    return subprocess.run([clang, "-x", "hip", "--offload-arch=gfx942", "-nogpulib", "-std=c++17", "-fsyntax-only", str(src)],
                          capture_output=True, text=True, timeout=300, env=dict(os.environ, HIP_PLATFORM="amd"))


@pytest.mark.hipcc
def test_the_fixed_softmax_compiles_for_gfx90a_and_gfx942(hipcc_compile, tmp_path):
    hip = (port(SOFTMAX)[0] + port(TILES.replace("<N>", "<64>").replace("void k(", "void k64("))[0]
           + port(VARIANTS.replace("void k(", "void kv(").replace("mark(", "markv("))[0]).encode()
    rc, out = hipcc_compile(hip, "softmax", syntax_only=True)
    assert rc == 0, out[-3000:]
    r = _clang19(hip, tmp_path, "softmax942")
    assert r.returncode == 0, r.stderr[-3000:]
    # and without PORT032's fix (PORT071's applied) it does not compile: the check can fail
    data = SOFTMAX.encode()
    unfixed = translate(apply_fixes(data, [f for f in scan(data, "k.cu", options=R52) if f.rule != "PORT032"]),
                        "k.cu", R52).output
    rc, out = hipcc_compile(unfixed, "unfixed", syntax_only=True)
    assert rc != 0 and "no member named 'meta_group_size'" in out


@pytest.mark.hipcc
def test_hipcc_5_2_cannot_partition_a_tile(hipcc_compile):
    """Why a tile of a tile gets no fix: its port fails at tiled_partition<4>(warp) whatever --fix writes."""
    hip = translate(TILE_OF_TILE.replace("quad.meta_group_rank()", "0").replace("quad.meta_group_size()", "0").encode(),
                    "k.cu", R52).output
    rc, out = hipcc_compile(hip, "tile_of_tile", syntax_only=True)
    assert rc != 0 and "tiled_partition_internal" in out
