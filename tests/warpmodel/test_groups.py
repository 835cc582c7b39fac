"""The cooperative-groups part of the model (groups.py), written from its sources: CUDA Programming
Guide "Cooperative Groups" and "cooperative_groups::reduce"; HIP 5.2's amd_hip_cooperative_groups.h."""

from __future__ import annotations

import pytest

from warpmodel import CompileError, run

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
