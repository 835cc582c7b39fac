"""PORT071 at a tile of a tile, ``cg::tiled_partition<N>(t)`` with t a thread_block_tile<M>, and its fix, checked by
executing it.

HIP's tiled_partition<N> is defined for a thread_block parent only (amd_hip_cooperative_groups.h: no
impl::tiled_partition_internal for a tile, in every ROCm release through 6.3; hipcc 5.2: "implicit
instantiation of undefined template").  CUDA Programming Guide, "tiled_partition": the tiles of a tile are a
row-major tiling of its ranks, so sub-tile j of tile k (block ranks k*M .. k*M+M-1) is tile k*M/N+j of
tiled_partition<N>(block), with the same thread_rank() (the rank mod N), size() N and shuffles; only
meta_group_rank()/meta_group_size() differ (j and M/N under the tile).  The kernels below are written from that;
tests/warpmodel runs the CUDA original on 32-lane warps and porter's port (safe fixes, then the translation) on
64-lane waves, and memory must agree with no undefined behaviour.  Where the sub-tile's meta_group_rank() is
read, the fix is only a suggestion.  The fixed port compiles with hipcc 5.2 (gfx90a) and clang-19 (gfx942).
"""

from __future__ import annotations

import os
import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/, for warpmodel
import killable  # noqa: E402
from warpmodel import CompileError, run, run_pair  # noqa: E402

from porter.findings import apply_fixes, scan  # noqa: E402
from porter.translate import translate  # noqa: E402


def port(cuda: str, safe_only: bool = True) -> tuple[str, list]:
    """porter convert --fix: the fixes applied (the safe ones only, by default), then the CUDA -> HIP translation."""
    data = cuda.encode()
    findings = scan(data, "k.cu")
    return translate(apply_fixes(data, findings, safe_only=safe_only), "k.cu").output.decode(), findings


def _port071(src: str) -> list:
    return [f for f in scan(src.encode(), "k.cu") if f.rule == "PORT071"]


def _ints(n, seed):
    rng = random.Random(seed)
    return [rng.randint(-1000, 1000) for _ in range(n)]


# sub-tile reductions: a shfl_down sum broadcast with shfl, a shfl_xor maximum, shfl_up, the rank and size
SUB = """
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void k(const int* in, int* sum, int* most, int* up, int* rank)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<M> tile = cg::tiled_partition<M>(block);
    cg::thread_block_tile<N> sub = cg::tiled_partition<N>(tile);
    unsigned int me = block.thread_rank();
    int v = in[me];
    for (int o = sub.size() / 2; o > 0; o /= 2)
        v += sub.shfl_down(v, o);
    sum[me] = sub.shfl(v, 0);
    int x = in[me];
    for (int o = 1; o < (int)sub.size(); o *= 2) {
        int y = sub.shfl_xor(x, o);
        x = y > x ? y : x;
    }
    most[me] = x;
    up[me] = sub.shfl_up(in[me], 1);
    rank[me] = sub.thread_rank() * 1000 + sub.size();
}
"""

SIZES = [(32, 4), (32, 8), (32, 16), (32, 32), (16, 2), (8, 1), (64, 16), (64, 32)]


def _sub(m: int, n: int) -> str:
    return SUB.replace("<M>", f"<{m}>").replace("<N>", f"<{n}>")


def _args(block: int, seed: int) -> dict:
    return {"in": _ints(block, seed), "sum": [0] * block, "most": [0] * block, "up": [0] * block, "rank": [0] * block}


@pytest.mark.parametrize("m, n", SIZES)
@pytest.mark.parametrize("block", [64, 128])
def test_sub_tile_reductions_compute_what_cuda_computes(m, n, block):
    src = _sub(m, n)
    hip, findings = port(src)
    found = [f for f in findings if f.rule == "PORT071"]
    assert [f.line for f in found] == [8] and found[0].fix and found[0].fix.safe
    assert f"tiled_partition<{n}>(block)" in hip and f"tiled_partition<{n}>(tile)" not in hip
    args = _args(block, m * n + block)
    c, h = run_pair(src, hip, "k", block, args)
    assert c.memory == h.memory
    # and the model's CUDA is the guide's: sub-tiles of N consecutive block ranks
    data = args["in"]
    assert c.memory["sum"] == [sum(data[i // n * n:i // n * n + n]) for i in range(block)]
    assert c.memory["most"] == [max(data[i // n * n:i // n * n + n]) for i in range(block)]
    assert c.memory["rank"] == [i % n * 1000 + n for i in range(block)]


# a chain block -> 32 -> 8 -> 2 through tiles of the function, auto and this_thread_block() in place, a macro size,
# and a sub-tile used straight away
CHAIN = """
#include <cooperative_groups.h>
using namespace cooperative_groups;
#define QUAD 8
__global__ void k(const int* in, int* pair, int* quad, int* odd)
{
    auto warp = tiled_partition<32>(this_thread_block());
    thread_block_tile<QUAD> q = tiled_partition<QUAD>(warp);
    auto p = tiled_partition<2>(q);
    unsigned int me = this_thread_block().thread_rank();
    pair[me] = in[me] + p.shfl_xor(in[me], 1);
    quad[me] = q.shfl(in[me], 7) * 10 + (int)tiled_partition<4>(warp).thread_rank();
    odd[me] = tiled_partition<16>(warp).shfl_down(in[me], 3);
}
"""


@pytest.mark.parametrize("block", [64, 128])
def test_a_chain_of_tiles_and_unnamed_sub_tiles(block):
    hip, findings = port(CHAIN)
    found = [f for f in findings if f.rule == "PORT071"]
    assert [f.line for f in found] == [8, 9, 12, 13] and all(f.fix and f.fix.safe for f in found)
    assert "(warp)" not in hip and "(q)" not in hip and hip.count("(this_thread_block())") == 5
    args = {"in": _ints(block, block), "pair": [0] * block, "quad": [0] * block, "odd": [0] * block}
    c, h = run_pair(CHAIN, hip, "k", block, args)
    assert c.memory == h.memory
    assert c.memory["pair"] == [args["in"][i] + args["in"][i ^ 1] for i in range(block)]


# ------------------------------------------------------------------ meta_group_rank of the sub-tile: a suggestion
META = """
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void k(const int* in, int* sum, unsigned long long* which)
{
    auto block = cg::this_thread_block();
    auto tile = cg::tiled_partition<32>(block);
    auto sub = cg::tiled_partition<8>(tile);
    unsigned int me = block.thread_rank();
    int v = in[me];
    for (int o = 4; o > 0; o /= 2)
        v += sub.shfl_xor(v, o);
    sum[me] = v;
    which[me] = sub.meta_group_rank() * 100 + sub.meta_group_size();
}
"""


def test_a_sub_tile_whose_meta_group_rank_is_read_gets_a_suggestion_only():
    found = _port071(META)
    assert [f.line for f in found] == [8] and found[0].fix is not None and not found[0].fix.safe
    assert "tile.thread_rank() / 8 and 4" in found[0].message  # CUDA's values, to write by hand
    hip, _ = port(META)
    assert "tiled_partition<8>(tile)" in hip  # no safe fix: --fix leaves it
    # why: with the block as the parent (the suggestion, run as CUDA) the sums agree but the meta group does not
    suggested = apply_fixes(META.encode(), _port071(META), safe_only=False).decode()
    args = {"in": _ints(128, 5), "sum": [0] * 128, "which": [0] * 128}
    c = run(META, "k", platform="cuda", block=(128,), args={k: list(v) for k, v in args.items()})
    s = run(suggested, "k", platform="cuda", block=(128,), args={k: list(v) for k, v in args.items()})
    assert c.memory["sum"] == s.memory["sum"]
    assert c.memory["which"] == [i % 32 // 8 * 100 + 4 for i in range(128)]
    assert s.memory["which"] != c.memory["which"]
    # and the message's values written by hand give CUDA's
    by_hand = suggested.replace("sub.meta_group_rank()", "((unsigned long long)tile.thread_rank() / 8)") \
                       .replace("sub.meta_group_size()", "4ull")
    b = run(by_hand, "k", platform="cuda", block=(128,), args={k: list(v) for k, v in args.items()})
    assert b.memory == c.memory


USES = ("#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n"
        "__device__ int f(cg::thread_block_tile<8> g) { return g.meta_group_rank(); }\n"
        "__global__ void k(int* o) { auto block = cg::this_thread_block(); auto tile = cg::tiled_partition<32>(block); "
        "cg::thread_block_tile<8> sub = cg::tiled_partition<8>(tile); o[0] = USE; }\n")


def _fix_at(src: str, text: str):
    at = src.index(text)
    found = [f for f in _port071(src) if f.start_byte == at]
    assert len(found) == 1, [(f.line, f.column) for f in _port071(src)]
    return found[0].fix


@pytest.mark.parametrize("use", ["f(sub)", "[sub]() { return 0; }()", "(sub = cg::tiled_partition<8>(block)).thread_rank()",
                                 "(int)(&sub)->thread_rank()"])
def test_no_safe_fix_where_the_sub_tile_may_be_read_otherwise(use):
    fix = _fix_at(USES.replace("USE", use), "cg::tiled_partition<8>(tile);")
    assert fix is not None and not fix.safe


@pytest.mark.parametrize("use, at, safe", [
    ("sub.thread_rank() + cg::reduce(sub, 1, cg::plus<int>())", "cg::tiled_partition<8>(tile);", True),
    ("cg::tiled_partition<2>(sub).thread_rank()", "cg::tiled_partition<8>(tile);", True),
    ("cg::tiled_partition<8>(tile).meta_group_size()", "cg::tiled_partition<8>(tile).", False),
    ("cg::tiled_partition<8>(tile).thread_rank()", "cg::tiled_partition<8>(tile).", True)])
def test_what_may_read_the_sub_tile(use, at, safe):
    fix = _fix_at(USES.replace("USE", use), at)
    assert fix is not None and fix.safe == safe


# ------------------------------------------------------------------ no fix where the block is not certain
NO_FIX = {
    "a tile parameter": "__device__ int g(cg::thread_block_tile<32> const& t) { return cg::tiled_partition<4>(t).thread_rank(); }",
    "a template size": ("template <int S> __global__ void k(int* o) { auto b = cg::this_thread_block(); "
                        "auto t = cg::tiled_partition<32>(b); o[0] = cg::tiled_partition<S>(t).thread_rank(); }"),
    "a tile too small": ("__global__ void k(int* o) { auto b = cg::this_thread_block(); auto t = cg::tiled_partition<4>(b); "
                         "o[0] = cg::tiled_partition<8>(t).thread_rank(); }"),
    "a tile assigned again": ("__global__ void k(int* o) { auto b = cg::this_thread_block(); auto t = cg::tiled_partition<32>(b); "
                              "t = cg::tiled_partition<32>(b); o[0] = cg::tiled_partition<4>(t).thread_rank(); }"),
    "a block assigned again": ("__global__ void k(int* o) { cg::thread_block b = cg::this_thread_block(); "
                               "auto t = cg::tiled_partition<32>(b); b = cg::this_thread_block(); "
                               "o[0] = cg::tiled_partition<4>(t).thread_rank(); }"),
    "a tile declared twice": ("__global__ void k(int* o) { auto b = cg::this_thread_block(); { auto t = cg::tiled_partition<16>(b); "
                              "o[1] = t.thread_rank(); } auto t = cg::tiled_partition<32>(b); "
                              "o[0] = cg::tiled_partition<4>(t).thread_rank(); }"),
    "in a lambda": ("__global__ void k(int* o) { auto b = cg::this_thread_block(); auto t = cg::tiled_partition<32>(b); "
                    "o[0] = [t]() { return cg::tiled_partition<4>(t).thread_rank(); }(); }"),
    "a tiled_partition call": ("__global__ void k(int* o) { auto b = cg::this_thread_block(); "
                               "o[0] = cg::tiled_partition<4>(cg::tiled_partition<32>(b)).thread_rank(); }"),
    "a parent of a tile of 128": ("__global__ void k(int* o) { auto b = cg::this_thread_block(); "
                                  "auto t = cg::tiled_partition<128>(b); o[0] = cg::tiled_partition<4>(t).thread_rank(); }"),
}


@pytest.mark.parametrize("case", sorted(NO_FIX))
def test_no_fix_where_the_block_or_the_sizes_are_not_certain(case):
    src = "#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n" + NO_FIX[case] + "\n"
    found = [f for f in _port071(src) if "a tile of the tile" in f.message]
    assert len(found) == 1 and found[0].fix is None, [(f.message, f.fix) for f in found]
    assert "partition the thread_block that" in found[0].message  # what to write


def test_a_partition_of_a_block_or_of_someone_elses_tile_is_not_reported():
    src = ("#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n"
           "namespace mine { template <int N, class T> int tiled_partition(T) { return N; } }\n"
           "__global__ void k(int* o) { cg::thread_block b = cg::this_thread_block(); auto t = cg::tiled_partition<32>(b);\n"
           "  auto u = cg::tiled_partition<4>(cg::this_thread_block()); int warp = 3;\n"
           "  o[0] = mine::tiled_partition<4>(t) + cg::tiled_partition<2>(b).thread_rank() + u.thread_rank() + warp; }\n")
    assert _port071(src) == []


# ------------------------------------------------------------------ a broken port is caught, the fix converges
def test_a_port_shuffling_over_the_parent_tile_is_caught():
    src = _sub(32, 4)
    hip, _ = port(src)
    broken = hip.replace("sub.shfl", "tile.shfl")  # the sub-tile's shuffles over the tile it came from
    assert broken != hip
    args = _args(64, 3)
    c = run(src, "k", platform="cuda", block=(64,), args={k: list(v) for k, v in args.items()})
    h = run(broken, "k", platform="hip", block=(64,), args={k: list(v) for k, v in args.items()})
    assert c.memory["sum"] != h.memory["sum"]


def test_the_fix_converges_and_only_the_fixed_port_runs_as_hip():
    src = _sub(32, 4)
    with pytest.raises(CompileError, match="tiled_partition_internal"):  # what hipcc 5.2 says (below)
        run(translate(src.encode(), "k.cu").output.decode(), "k", platform="hip", block=(64,), args=_args(64, 0))
    for cuda in (src, CHAIN):
        once = apply_fixes(cuda.encode(), scan(cuda.encode(), "k.cu"))
        assert once != cuda.encode() and not [f for f in scan(once, "k.cu") if f.rule == "PORT071"]
    run(translate(once, "k.cu").output.decode(), "k", platform="hip", block=(64,),
        args={"in": [1] * 64, "pair": [0] * 64, "quad": [0] * 64, "odd": [0] * 64})


def test_the_rules_fixture_fixes_what_it_can():
    fixture = Path(__file__).with_name("fixtures") / "PORT071" / "positive_tile_of_tile.cu"
    found = _port071(fixture.read_text(encoding="utf-8"))
    assert [(f.line, f.fix is not None and f.fix.safe) for f in found] == [(9, True), (10, False), (18, False)]


# ------------------------------------------------------------------ the fixed port compiles
@pytest.mark.hipcc
def test_the_fixed_port_compiles_for_gfx90a_and_gfx942(hipcc_compile, gfx942_device_libs, tmp_path):
    hip = (port(_sub(32, 8))[0] + port(CHAIN.replace("void k(", "void kc("))[0]).encode()
    rc, out = hipcc_compile(hip, "tile_of_tile")
    assert rc == 0, out[-3000:]
    src = tmp_path / "tile_of_tile942.hip"
    src.write_bytes(hip)
    rc, out = killable.run(["clang++-19", "-x", "hip", "--offload-arch=gfx942", "--rocm-path=/usr",
                            f"--rocm-device-lib-path={gfx942_device_libs}", "-std=c++17", "-O2", "--cuda-device-only",
                            "-c", str(src), "-o", str(tmp_path / "tile_of_tile942.o")],
                           300, dict(os.environ, HIP_PLATFORM="amd"), "clang++-19 gfx942")
    assert rc == 0, out[-3000:]
    # and without the fix it does not compile: the check can fail
    unfixed = translate(_sub(32, 8).encode(), "k.cu").output
    rc, out = hipcc_compile(unfixed, "unfixed", syntax_only=True)
    assert rc != 0 and "tiled_partition_internal" in out
