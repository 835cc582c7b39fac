"""The cooperative-groups part of the model (groups.py), written from its sources: CUDA Programming
Guide "Cooperative Groups" and "cooperative_groups::reduce"; HIP 5.2's amd_hip_cooperative_groups.h."""

from __future__ import annotations

import pytest

from warpmodel import CompileError, Unsupported, run

TILES = """
namespace cg = cooperative_groups;
__global__ void k(const int* in, int* rank, int* size, int* x, int* down, int* idx)
{
    cg::thread_block block = cg::this_thread_block();
    auto t = cg::tiled_partition<16>(block);
    int v = in[block.thread_rank()];
    rank[threadIdx.x] = t.thread_rank();
    size[threadIdx.x] = t.size() + block.size() * 1000;
    x[threadIdx.x] = t.shfl_xor(v, 5);
    down[threadIdx.x] = t.shfl_down(v, 3);
    idx[threadIdx.x] = t.shfl(v, 2);
}
"""


@pytest.mark.parametrize("platform", ["cuda", "hip"])
def test_a_16_tile_is_16_consecutive_threads_on_both_platforms(platform):
    n = 128
    data = list(range(100, 100 + n))
    out = {name: [0] * n for name in ("rank", "size", "x", "down", "idx")}
    r = run(TILES, "k", platform=platform, block=(n,), args={"in": data, **out})
    assert not r.undefined
    m = r.memory
    assert m["rank"] == [i % 16 for i in range(n)]
    assert m["size"] == [16 + n * 1000] * n
    assert m["x"] == [data[i ^ 5] for i in range(n)]  # within the tile: 5 < 16
    assert m["down"] == [data[i + 3] if i % 16 < 13 else data[i] for i in range(n)]  # the tile's top lanes keep theirs
    assert m["idx"] == [data[i // 16 * 16 + 2] for i in range(n)]


REDUCE = """
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;
__global__ void k(const T* in, T* out)
{
    auto t = cg::tiled_partition<8>(cg::this_thread_block());
    out[threadIdx.x] = cg::reduce(t, in[threadIdx.x], cg::OP<T>());
}
"""


@pytest.mark.parametrize("op, expect", [
    ("plus", sum), ("less", min), ("greater", max),
    ("bit_and", lambda xs: __import__("functools").reduce(lambda a, b: a & b, xs)),
    ("bit_or", lambda xs: __import__("functools").reduce(lambda a, b: a | b, xs)),
    ("bit_xor", lambda xs: __import__("functools").reduce(lambda a, b: a ^ b, xs))])
def test_cuda_reduce_gives_every_thread_of_the_tile_the_fold(op, expect):
    src = REDUCE.replace("OP", op).replace("T*", "int*").replace("<T>", "<int>")
    data = [(i * 37) % 23 - 7 for i in range(32)]
    r = run(src, "k", platform="cuda", block=(32,), args={"in": data, "out": [0] * 32})
    assert not r.undefined
    assert r.memory["out"] == [expect(data[i // 8 * 8:i // 8 * 8 + 8]) for i in range(32)]


def test_reduce_converts_the_value_to_the_operators_type():
    src = REDUCE.replace("OP", "plus").replace("T*", "float*").replace("<T>", "<int>")
    r = run(src, "k", platform="cuda", block=(8,), args={"in": [1.75] * 8, "out": [0.0] * 8})
    assert r.memory["out"] == [8.0] * 8  # each 1.75 becomes int 1


def test_hip_has_no_reduce():
    src = REDUCE.replace("OP", "plus").replace("T*", "int*").replace("<T>", "<int>")
    with pytest.raises(CompileError):
        run(src, "k", platform="hip", block=(64,), args={"in": [0] * 64, "out": [0] * 64})


def test_reduce_by_part_of_a_tile_is_undefined():
    src = REDUCE.replace("OP", "plus").replace("T*", "int*").replace("<T>", "<int>").replace(
        "    out[threadIdx.x] = cg::reduce", "    if (threadIdx.x != 3) out[threadIdx.x] = cg::reduce")
    r = run(src, "k", platform="cuda", block=(32,), args={"in": [1] * 32, "out": [0] * 32})
    assert r.undefined and "collective" in r.events[0]


def test_hip_tiles_are_at_most_a_wave():
    src = TILES.replace("<16>", "<128>")
    with pytest.raises(CompileError):
        run(src, "k", platform="hip", block=(128,), args={k: [0] * 128 for k in ("in", "rank", "size", "x", "down", "idx")})


LAMBDA = """
__global__ void k(const int* in, int* out)
{
    int base = 10;
    out[threadIdx.x] = [&](int v) -> int { base += 1; return v * base; }(in[threadIdx.x]);
    out[threadIdx.x] += base;
}
"""


def test_an_immediately_invoked_lambda_sees_the_callers_variables_by_reference():
    r = run(LAMBDA, "k", platform="hip", block=(64,), args={"in": list(range(64)), "out": [0] * 64})
    assert r.memory["out"] == [i * 11 + 11 for i in range(64)]


META = """
namespace cg = cooperative_groups;
__global__ void k(unsigned long long* rank, unsigned long long* count, unsigned long long* sub, long long* neg)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<N> t = cg::tiled_partition<N>(block);
    auto q = cg::tiled_partition<4>(t);
    rank[block.thread_rank()] = t.meta_group_rank();
    count[block.thread_rank()] = t.meta_group_size();
    sub[block.thread_rank()] = q.meta_group_rank() * 100 + q.meta_group_size();
    neg[block.thread_rank()] = -t.meta_group_rank();
}
"""


@pytest.mark.parametrize("n, block", [(8, (32,)), (32, (96,)), (64, (96,)), (16, (8, 6))])
def test_cuda_meta_group_rank_and_size_count_the_parents_tiles(n, block):
    """CUDA guide: the tile's linear rank among the tiles its parent was partitioned into, and how many
    (a last partial tile counts), unsigned long long; a tile of a tile counts within its parent tile."""
    threads = block[0] * (block[1] if len(block) > 1 else 1)
    out = {"rank": [0] * threads, "count": [0] * threads, "sub": [0] * threads, "neg": [0] * threads}
    r = run(META.replace("<N>", f"<{n}>"), "k", platform="cuda", block=block, args=out)
    assert not r.undefined
    assert r.memory["rank"] == [i // n for i in range(threads)]
    assert r.memory["count"] == [(threads + n - 1) // n] * threads
    assert r.memory["sub"] == [i % n // 4 * 100 + n // 4 for i in range(threads)]
    assert r.memory["neg"] == [-(i // n) for i in range(threads)]  # -(unsigned long long) as long long


def test_hip_5_2_tiles_have_no_meta_group_members():
    src = META.replace("<N>", "<16>").replace("    auto q = cg::tiled_partition<4>(t);\n", "").replace(
        "q.meta_group_rank() * 100 + q.meta_group_size()", "0")
    out = {k: [0] * 64 for k in ("rank", "count", "sub", "neg")}
    with pytest.raises(CompileError, match="no member named 'meta_group_rank'"):
        run(src, "k", platform="hip", block=(64,), args=out)
    with pytest.raises(CompileError, match="no member named 'meta_group_size'"):
        run(src.replace("t.meta_group_rank()", "0"), "k", platform="hip", block=(64,), args=out)


def test_hip_5_2_cannot_partition_a_tile():
    src = META.replace("<N>", "<16>").replace("t.meta_group_rank()", "0").replace("t.meta_group_size()", "0").replace(
        "q.meta_group_rank() * 100 + q.meta_group_size()", "q.size()")
    out = {k: [0] * 64 for k in ("rank", "count", "sub", "neg")}
    with pytest.raises(CompileError, match="tiled_partition_internal"):
        run(src, "k", platform="hip", block=(64,), args=out)
    r = run(src, "k", platform="cuda", block=(64,), args={k: [0] * 64 for k in out})
    assert r.memory["sub"] == [4] * 64


def test_a_cuda_tile_of_64_has_ranks_but_its_shuffles_are_not_modelled():
    src = TILES.replace("<16>", "<64>")
    out = {k: [0] * 128 for k in ("rank", "size", "x", "down", "idx")}
    with pytest.raises(Unsupported):
        run(src, "k", platform="cuda", block=(128,), args={"in": list(range(128)), **out})
    src = src.replace("t.shfl_xor(v, 5)", "0").replace("t.shfl_down(v, 3)", "0").replace("t.shfl(v, 2)", "0")
    r = run(src, "k", platform="cuda", block=(128,), args={"in": list(range(128)), **out})
    assert r.memory["rank"] == [i % 64 for i in range(128)] and r.memory["size"] == [64 + 128 * 1000] * 128
