"""PORT071's safe fix for ``cg::reduce(group, value, op)``, checked by executing it.

HIP has no cooperative_groups::reduce (no ROCm release through 6.3), so porter rewrites each call
with one of CUDA's six operators (cg::plus/less/greater/bit_and/bit_or/bit_xor<T>) as an
immediately-invoked lambda: a shfl_xor butterfly where the group is a thread_block_tile<N> of the
function, a fold over the ranks (g.shfl(v, r)) for any other group.  The kernels below are written
from CUDA semantics (CUDA Programming Guide, "cooperative_groups::reduce": every thread of the group
gets op folded over the group's values, of the operator's type T); tests/warpmodel runs the CUDA
original on 32-lane warps and porter's port (safe fixes, then the translation) on 64-lane gfx942
waves, and memory must agree with no undefined behaviour.  Blocks of 64 and 128 threads put two
32-thread tiles in each HIP wave.  A port with shfl_down in place of shfl_xor is caught; the fixed
port compiles with hipcc 5.2 (gfx90a) and clang-19 (gfx942).
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
from warpmodel import CompileError, run, run_pair  # noqa: E402

from porter.findings import apply_fixes, scan  # noqa: E402
from porter.translate import translate  # noqa: E402
from required_tools import require  # noqa: E402


def port(cuda: str) -> tuple[str, list]:
    """porter convert --fix: the safe fixes applied, then the CUDA -> HIP translation."""
    data = cuda.encode()
    findings = scan(data, "k.cu")
    return translate(apply_fixes(data, findings), "k.cu").output.decode(), findings


def both(cuda: str, kernel: str, block: int, args: dict, hip: str | None = None):
    if hip is None:
        hip, _ = port(cuda)
    return run_pair(cuda, hip, kernel, block, args)


def _ints(n, seed, lo=-1000, hi=1000):
    rng = random.Random(seed)
    return [rng.randint(lo, hi) for _ in range(n)]


def _floats(n, seed):
    rng = random.Random(seed)
    return [rng.uniform(-4.0, 4.0) for _ in range(n)]


# HeCBench softmax-cuda's shape: the alias inside the kernel, a 32-thread tile declared with its type
SOFTMAX = """
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
__global__ void softmax(const float* in, float* out)
{
    namespace cg = cooperative_groups;
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    float x = in[threadIdx.x];
    float max_ = x;
    max_ = cg::reduce(warp, max_, cg::greater<float>{});
    float e = expf(x - max_);
    float sum = e;
    sum = cg::reduce(warp, sum, cg::plus<float>{});
    out[threadIdx.x] = e / sum;
}
"""


@pytest.mark.parametrize("block", [32, 64, 128])
@pytest.mark.parametrize("seed", range(4))
def test_softmax_over_a_32_tile_computes_what_cuda_computes(block, seed):
    hip, findings = port(SOFTMAX)
    assert "reduce" not in hip and "shfl_xor" in hip  # the butterfly, the header gone
    assert all(f.fix and f.fix.safe for f in findings if f.rule == "PORT071")
    c, h = both(SOFTMAX, "softmax", block, {"in": _floats(block, seed), "out": [0.0] * block})
    assert c.memory["out"] == h.memory["out"]


def test_the_cuda_original_does_not_compile_as_hip():
    with pytest.raises(CompileError):
        run(SOFTMAX, "softmax", platform="hip", block=(64,), args={"in": [0.0] * 64, "out": [0.0] * 64})


SUM = """
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;
__global__ void k(const int* in, int* out)
{
    auto block = cg::this_thread_block();
    cg::thread_block_tile<N> tile = cg::tiled_partition<N>(block);
    int s = cg::reduce(tile, in[threadIdx.x], cg::plus<int>());
    out[threadIdx.x] = s * 1000 + (int)tile.thread_rank();
}
"""


@pytest.mark.parametrize("n", [1, 2, 4, 8, 16, 32])
@pytest.mark.parametrize("block", [64, 128])
def test_an_int_sum_over_tiles_of_every_size(n, block):
    src = SUM.replace("<N>", f"<{n}>")
    data = _ints(block, n)
    c, h = both(src, "k", block, {"in": data, "out": [0] * block})
    assert c.memory["out"] == h.memory["out"]
    assert c.memory["out"][0] // 1000 == sum(data[:n]) or n == 1  # the model's CUDA reduce is the tile's sum


OPS = """
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;
__global__ void k(const T* in, T* out)
{
    auto block = cg::this_thread_block();
    auto tile = cg::tiled_partition<16>(block);
    out[threadIdx.x] = cg::reduce(tile, in[threadIdx.x], cg::OP<T>());
}
"""


@pytest.mark.parametrize("op, t", [("less", "int"), ("greater", "int"), ("bit_and", "unsigned int"),
                                   ("bit_or", "unsigned int"), ("bit_xor", "int"), ("less", "float"),
                                   ("greater", "double"), ("plus", "long long")])
def test_min_max_and_bit_operators(op, t):
    src = OPS.replace("OP", op).replace("T*", f"{t}*").replace("<T>", f"<{t}>")
    for seed in range(3):
        data = _floats(128, seed) if t in ("float", "double") else _ints(128, seed, 0 if "unsigned" in t else -99, 99)
        c, h = both(src, "k", 128, {"in": data, "out": [0] * 128})
        assert c.memory["out"] == h.memory["out"]


def test_min_and_max_give_every_lane_the_same_value_with_nan_and_signed_zeros():
    """The butterfly combines the lower rank's value with the higher rank's, so less/greater, which
    are not commutative for NaN and -0.0/+0.0, still leave one value in the whole tile."""
    src = OPS.replace("OP", "greater").replace("T*", "float*").replace("<T>", "<float>")
    hip, _ = port(src)
    data = [float("nan") if i % 7 == 3 else (-0.0 if i % 2 else 0.0) for i in range(64)]
    h = run(hip, "k", platform="hip", block=(64,), args={"in": data, "out": [0.0] * 64})
    for t in range(0, 64, 16):
        assert len({repr(x) for x in h.memory["out"][t:t + 16]}) == 1, h.memory["out"][t:t + 16]


# NVIDIA's reduction sample's shape: the group is a template parameter, so its kind is not known
FOLD = """
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;
template <typename T, typename Group>
__device__ T cg_reduce_n(T in, Group &threads) {
  return cg::reduce(threads, in, cg::OPER<T>());
}
__global__ void k(const float* in, float* out, int* count)
{
    cg::thread_block cta = cg::this_thread_block();
    auto tile = cg::tiled_partition<N>(cta);
    float v = in[threadIdx.x];
    out[threadIdx.x] = cg_reduce_n(v, tile);
    count[threadIdx.x] = cg_reduce_n(1, tile);
}
"""


@pytest.mark.parametrize("n, oper", [(32, "plus"), (8, "greater"), (4, "less")])
def test_a_group_of_unknown_kind_gets_the_rank_fold(n, oper):
    src = FOLD.replace("<N>", f"<{n}>").replace("OPER", oper)
    hip, findings = port(src)
    assert ".shfl(porter_v, porter_k)" in hip and "shfl_xor" not in hip
    for block in (64, 128):
        # small integers as floats: every order of the fold gives the same sum
        data = [float(x) for x in _ints(block, n, -20, 20)]
        c, h = both(src, "k", block, {"in": data, "out": [0.0] * block, "count": [0] * block}, hip)
        assert c.memory == h.memory
        assert h.memory["count"] == [n if oper == "plus" else 1] * block


# a broken variant of porter's port must be caught: the checker checks
BROKEN_VARIANTS = {
    # shfl_down in place of shfl_xor: lanes get partial sums
    "shfl_down butterfly": (lambda: SUM.replace("<N>", "<32>"), "shfl_xor", "shfl_down", 1),
    # less's butterfly written greater's way: the maximum
    "min with swapped operands": (lambda: OPS.replace("OP", "less").replace("T*", "int*").replace("<T>", "<int>"),
                                  "porter_b < porter_a ? porter_b : porter_a",
                                  "porter_a < porter_b ? porter_b : porter_a", 2),
}


@pytest.mark.parametrize("variant", sorted(BROKEN_VARIANTS))
def test_a_broken_port_is_caught(variant):
    source, old, new, seed = BROKEN_VARIANTS[variant]
    src = source()
    hip, _ = port(src)
    broken = hip.replace(old, new)
    assert broken != hip
    data = _ints(64, seed)
    c = run(src, "k", platform="cuda", block=(64,), args={"in": list(data), "out": [0] * 64})
    h = run(broken, "k", platform="hip", block=(64,), args={"in": list(data), "out": [0] * 64})
    assert c.memory["out"] != h.memory["out"]


# ------------------------------------------------------------------ what gets no fix, and the header
def _port071(src: str):
    return [f for f in scan(src.encode(), "k.cu") if f.rule == "PORT071"]


def test_no_fix_for_a_user_operator_and_then_the_header_stays():
    src = SOFTMAX.replace("cg::plus<float>{}", "[](float a, float b) { return a + b; }")
    found = _port071(src)
    by_line = {f.line: f for f in found}
    assert by_line[3].fix is None  # the include: a use --fix leaves needs it
    assert by_line[14].fix is None and by_line[11].fix is not None


def test_no_fix_where_the_group_is_an_expression():
    src = SUM.replace("<N>", "<8>").replace("cg::reduce(tile,", "cg::reduce(cg::tiled_partition<8>(block),")
    found = {f.line: f for f in _port071(src)}
    assert found[9].fix is None and found[3].fix is None


def test_the_header_becomes_cooperative_groups_h_when_the_file_has_no_other_include():
    src = SUM.replace("<N>", "<8>").replace("#include <cooperative_groups.h>\n", "")
    hip, _ = port(src)
    assert "reduce" not in hip and hip.count("hip_cooperative_groups.h") == 1


def test_the_fix_converges():
    hip_once = apply_fixes(SOFTMAX.encode(), scan(SOFTMAX.encode(), "k.cu"))
    assert not [f for f in scan(hip_once, "k.cu") if f.rule == "PORT071"]


# ------------------------------------------------------------------ the fixed port compiles
@pytest.mark.hipcc
def test_the_fixed_softmax_compiles_for_gfx90a_and_gfx942(hipcc_compile, tmp_path):
    hip = (port(SOFTMAX)[0] + port(FOLD.replace("<N>", "<16>").replace("OPER", "plus"))[0]).encode()
    rc, out = hipcc_compile(hip, "softmax", syntax_only=True)
    assert rc == 0, out[-3000:]
    clang = shutil.which("clang++-19")
    require(clang is not None, "clang++-19 not installed")
    src = tmp_path / "softmax942.hip"
    src.write_bytes(hip)
    r = subprocess.run([clang, "-x", "hip", "--offload-arch=gfx942", "-nogpulib", "-std=c++17", "-fsyntax-only", str(src)],
                       capture_output=True, text=True, timeout=300, env=dict(os.environ, HIP_PLATFORM="amd"))
    assert r.returncode == 0, r.stderr[-3000:]
    # and without the fix neither compiles: the check can fail
    unfixed = translate(SOFTMAX.encode(), "k.cu").output
    assert hipcc_compile(unfixed, "unfixed", syntax_only=True)[0] != 0
