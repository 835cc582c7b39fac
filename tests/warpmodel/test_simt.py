"""The lock-step interpreter, checked on small kernels whose results follow from C++ and the
CUDA/HIP warp rules."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from warpmodel import UNDEFINED, CompileError, Trap, UndefinedBehaviour, Unsupported, run

fast = settings(max_examples=40, deadline=None)

REDUCE_CUDA = r"""
#define FULL_MASK 0xffffffff
__device__ __forceinline__ int warpReduceSum(int v) {
  #pragma unroll
  for (int offset = 16; offset > 0; offset /= 2)
    v += __shfl_down_sync(FULL_MASK, v, offset);
  return v;
}
__global__ void reduce(const int* __restrict__ in, int* out) {
  int v = warpReduceSum(in[threadIdx.x]);
  if ((threadIdx.x & (warpSize - 1)) == 0) out[threadIdx.x / warpSize] = v;
}
"""


def test_cuda_warp_reduction_puts_each_warp_sum_in_its_lane_0():
    data = list(range(1, 65))
    out = [0, 0]
    r = run(REDUCE_CUDA, "reduce", platform="cuda", block=(64,), args={"in": data, "out": out})
    assert out == [sum(data[:32]), sum(data[32:])] and r.memory["out"] is out
    assert not r.undefined


def test_hip_port_with_width_32_reduces_each_half_wave():
    src = REDUCE_CUDA.replace("__shfl_down_sync(FULL_MASK, v, offset)", "__shfl_down(v, offset, 32)") \
                     .replace("threadIdx.x & (warpSize - 1)", "threadIdx.x & 31").replace("/ warpSize", "/ 32")
    data = list(range(1, 65))
    r = run(src, "reduce", platform="hip", block=(64,), args={"in": data, "out": [0, 0]})
    assert r.memory["out"] == [sum(data[:32]), sum(data[32:])]


@fast
@given(st.lists(st.integers(-2**31, 2**31 - 1), min_size=64, max_size=64))
def test_xor_butterfly_gives_every_lane_its_group_sum_on_both_platforms(data):
    src = r"""
    __global__ void k(const int* in, int* out) {
      int v = in[threadIdx.x];
      for (int m = 16; m >= 1; m >>= 1) v += %s;
      out[threadIdx.x] = v;
    }"""
    cuda = run(src % "__shfl_xor_sync(0xffffffff, v, m)", "k", platform="cuda", block=(64,),
               args={"in": list(data), "out": [0] * 64}).memory["out"]
    hip = run(src % "__shfl_xor(v, m, 32)", "k", platform="hip", block=(64,),
              args={"in": list(data), "out": [0] * 64}).memory["out"]
    wrap = [((sum(data[h:h + 32]) + 2**31) % 2**32) - 2**31 for h in (0, 32)]
    assert cuda == hip == [wrap[0]] * 32 + [wrap[1]] * 32


def test_hip_shfl_down_by_32_width_32_is_the_own_value():
    src = "__global__ void k(int* o) { o[threadIdx.x] = __shfl_down((int)threadIdx.x * 10, 32, 32); }"
    assert run(src, "k", platform="hip", block=(64,), args={"o": [0] * 64}).memory["o"] == [10 * i for i in range(64)]


def test_hip_shfl_broadcast_whole_wave_and_per_half():
    src = r"""__global__ void k(int* a, int* b) {
      int v = 100 + threadIdx.x;
      a[threadIdx.x] = __shfl(v, 0);
      b[threadIdx.x] = __shfl(v, 0, 32);
    }"""
    r = run(src, "k", platform="hip", block=(64,), args={"a": [0] * 64, "b": [0] * 64})
    assert r.memory["a"] == [100] * 64 and r.memory["b"] == [100] * 32 + [132] * 32


def test_hip_ballot_is_64_bit_popc_truncates_popcll_does_not():
    src = r"""__global__ void k(unsigned* c32, unsigned* c64, unsigned long long* b) {
      unsigned long long m = __ballot(threadIdx.x % 2 == 0);
      c32[threadIdx.x] = __popc(m);
      c64[threadIdx.x] = __popcll(m);
      b[threadIdx.x] = m;
    }"""
    r = run(src, "k", platform="hip", block=(64,), args={"c32": [0] * 64, "c64": [0] * 64, "b": [0] * 64})
    assert set(r.memory["c32"]) == {16} and set(r.memory["c64"]) == {32}
    assert r.memory["b"][0] == int("01" * 32, 2)


def test_the_ballot_and_activemask_rewrites_match_cuda_per_lane():
    cuda = r"""__global__ void k(unsigned* b, unsigned* a) {
      unsigned lane = threadIdx.x;
      b[lane] = __ballot_sync(0xffffffff, lane % 3 == 0);
      if (lane % 5 != 0) a[lane] = __activemask();
    }"""
    hip = cuda.replace("__ballot_sync(0xffffffff, lane % 3 == 0)",
                       "((unsigned)(__ballot(lane % 3 == 0) >> (__lane_id() & 32)))") \
              .replace("__activemask()", "((unsigned)(__ballot(1) >> (__lane_id() & 32)))")
    c = run(cuda, "k", platform="cuda", block=(64,), args={"b": [0] * 64, "a": [0] * 64})
    h = run(hip, "k", platform="hip", block=(64,), args={"b": [0] * 64, "a": [0] * 64})
    assert c.memory == h.memory and not c.undefined and not h.undefined
    assert c.memory["a"][1] == sum(1 << i for i in range(32) if i % 5) & 0xffffffff


def test_the_syncwarp_rewrite_runs_and_orders_nothing_else():
    src = r"""__global__ void k(int* o) {
      __shared__ int s[64];
      s[threadIdx.x] = threadIdx.x;
      (__builtin_amdgcn_fence(__ATOMIC_RELEASE, "wavefront"), __builtin_amdgcn_wave_barrier(),
       __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "wavefront"));
      o[threadIdx.x] = s[63 - threadIdx.x];
    }"""
    assert run(src, "k", platform="hip", block=(64,), args={"o": [0] * 64}).memory["o"] == list(range(63, -1, -1))


# ------------------------------------------------------------------ undefined behaviour and poison

def test_shift_count_out_of_range_raises_with_the_line():
    src = "__global__ void k(unsigned* o) {\n  unsigned x = 1u;\n  o[0] = x << 40;\n}"
    with pytest.raises(UndefinedBehaviour) as e:
        run(src, "k", platform="cuda", block=(1,), args={"o": [0]})
    assert e.value.line == 3 and "40" in str(e.value)


def test_one_shifted_by_the_lane_is_undefined_on_the_upper_half_wave_but_1ull_is_fine():
    src = "__global__ void k(unsigned long long* o) { o[threadIdx.x] = %s << __lane_id(); }"
    with pytest.raises(UndefinedBehaviour):
        run(src % "1", "k", platform="hip", block=(64,), args={"o": [0] * 64})
    r = run(src % "1ull", "k", platform="hip", block=(64,), args={"o": [0] * 64})
    assert r.memory["o"] == [1 << i for i in range(64)]


def test_integer_division_by_zero_raises():
    with pytest.raises(UndefinedBehaviour):
        run("__global__ void k(int* o) { o[0] = 5 / (int)threadIdx.x; }", "k", platform="cuda", block=(1,), args={"o": [0]})


def test_shuffle_under_divergence_with_a_full_mask_is_undefined_and_reported():
    src = r"""__global__ void k(int* o) {
      int v = threadIdx.x;
      if (threadIdx.x < 16) v = __shfl_down_sync(0xffffffff, v, 1);
      o[threadIdx.x] = v;
    }"""
    r = run(src, "k", platform="cuda", block=(32,), args={"o": [0] * 32})
    assert r.undefined and r.memory["o"][0] is UNDEFINED and r.memory["o"][20] == 20
    assert any("line 4" in e for e in r.events)


def test_hip_shuffle_reading_an_inactive_lane_is_undefined():
    src = r"""__global__ void k(int* o) {
      int v = threadIdx.x;
      if (threadIdx.x < 40) v = __shfl_down(v, 8);
      o[threadIdx.x] = v;
    }"""
    r = run(src, "k", platform="hip", block=(64,), args={"o": [0] * 64})
    assert r.memory["o"][31] == 39 and r.memory["o"][32] is UNDEFINED and r.undefined


def test_guide_broadcast_example_reads_only_lane_0_so_is_defined():
    src = r"""__global__ void bcast(int arg, int* o) {
      int laneId = threadIdx.x & 0x1f;
      int value;
      if (laneId == 0) value = arg;
      value = __shfl_sync(0xffffffff, value, 0);
      o[threadIdx.x] = value;
    }"""
    r = run(src, "bcast", platform="cuda", block=(32,), args={"arg": 1234, "o": [0] * 32})
    assert r.memory["o"] == [1234] * 32 and not r.undefined


def test_branch_on_an_undefined_value_is_recorded():
    src = "__global__ void k(int* o) { int x; if (x > 0) o[0] = 1; }"
    r = run(src, "k", platform="cuda", block=(1,), args={"o": [0]})
    assert r.undefined and "branch on an undefined value" in r.events[0] and r.memory["o"] == [0]


def test_lanes_storing_different_values_to_one_address_store_undefined():
    src = "__global__ void k(int* o) { o[0] = threadIdx.x; o[1] = 7; }"
    r = run(src, "k", platform="cuda", block=(4,), args={"o": [0, 0]})
    assert r.memory["o"] == [UNDEFINED, 7] and r.undefined


def test_out_of_bounds_and_falling_off_a_non_void_function_raise():
    with pytest.raises(UndefinedBehaviour, match="out-of-bounds"):
        run("__global__ void k(int* o) { o[threadIdx.x] = 1; }", "k", platform="cuda", block=(4,), args={"o": [0] * 3})
    src = "__device__ int f(int x) { if (x) return 1; }\n__global__ void k(int* o) { o[threadIdx.x] = f(threadIdx.x); }"
    with pytest.raises(UndefinedBehaviour, match="flowing off"):
        run(src, "k", platform="cuda", block=(2,), args={"o": [0, 0]})


def test_unsupported_constructs_raise_unsupported():
    for body in ("switch (threadIdx.x) { default: break; }", "struct P { int a; } p;", "goto end; end: ;"):
        with pytest.raises(Unsupported):
            run("__global__ void k(int* o) { %s }" % body, "k", platform="cuda", block=(1,), args={"o": [0]})


def test_rocm_sync_forms_need_a_64_bit_mask_and_trap_on_a_wrong_one():
    src = "__global__ void k(int* o) { o[threadIdx.x] = __shfl_down_sync(%s, (int)threadIdx.x, 1); }"
    with pytest.raises(CompileError, match="64-bit"):
        run(src % "0xffffffff", "k", platform="hip", block=(64,), args={"o": [0] * 64})
    r = run(src % "0xffffffffffffffffull", "k", platform="hip", block=(64,), args={"o": [0] * 64})
    assert r.memory["o"][:63] == list(range(1, 64))
    with pytest.raises(Trap):
        run(src % "0xffffffffffffffffull", "k", platform="hip", block=(48,), args={"o": [0] * 48})


# ------------------------------------------------------------------ control flow

def test_divergent_if_else():
    src = "__global__ void k(int* o) { int t = threadIdx.x; if (t % 2) o[t] = -t; else o[t] = t + 100; }"
    assert run(src, "k", platform="cuda", block=(6,), args={"o": [0] * 6}).memory["o"] == [100, -1, 102, -3, 104, -5]


def test_loops_with_per_lane_trip_counts_break_and_continue():
    src = r"""__global__ void k(int* a, int* b, int* c) {
      int t = threadIdx.x, s = 0, i = 0;
      for (int j = 0; j < t; ++j) s += j;
      a[t] = s;
      s = 0;
      while (true) { i++; if (i % 2) continue; if (i > 2 * t) break; s += i; }
      b[t] = s;
      i = 0;
      do { i += 3; } while (i < t);
      c[t] = i;
    }"""
    r = run(src, "k", platform="cuda", block=(40,), args={"a": [0] * 40, "b": [0] * 40, "c": [0] * 40})
    assert r.memory["a"] == [t * (t - 1) // 2 for t in range(40)]
    assert r.memory["b"] == [sum(i for i in range(2, 2 * t + 1, 2)) for t in range(40)]
    assert r.memory["c"] == [max(3, -(-t // 3) * 3) for t in range(40)]


def test_return_in_a_device_function_and_early_exit_from_the_kernel():
    src = r"""__device__ int clampSq(int x) { if (x > 5) return 25; return x * x; }
    __global__ void k(int* o, int n) {
      if (threadIdx.x >= n) return;
      o[threadIdx.x] = clampSq(threadIdx.x);
    }"""
    r = run(src, "k", platform="cuda", block=(8,), args={"o": [-1] * 8, "n": 7})
    assert r.memory["o"] == [0, 1, 4, 9, 16, 25, 25, -1]


def test_exited_lanes_named_in_the_mask_are_allowed_in_a_ballot():
    src = r"""__global__ void k(unsigned* o, int n) {
      if (threadIdx.x >= n) return;
      o[threadIdx.x] = __ballot_sync(0xffffffff, 1);
    }"""
    r = run(src, "k", platform="cuda", block=(32,), args={"o": [0] * 32, "n": 4})
    assert r.memory["o"][:4] == [0xF] * 4 and not r.undefined


# ------------------------------------------------------------------ blocks, shared memory, functions

BLOCK_SUM = r"""
template <int N>
__device__ int warpSum(int v) {
  for (int o = N / 2; o > 0; o >>= 1) v += %s;
  return v;
}
__global__ void blockSum(const int* in, int* out) {
  __shared__ int partial[32];
  int lane = threadIdx.x %% warpSize, warp = threadIdx.x / warpSize;
  int v = warpSum<warpSize>(in[blockIdx.x * blockDim.x + threadIdx.x]);
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    int s = 0;
    for (int w = 0; w < blockDim.x / warpSize; ++w) s += partial[w];
    out[blockIdx.x] = s;
  }
}
"""


@pytest.mark.parametrize("platform,shfl", [("cuda", "__shfl_down_sync(0xffffffff, v, o)"), ("hip", "__shfl_down(v, o)")])
def test_syncthreads_between_warps_through_shared_memory(platform, shfl):
    data = [(i * 37) % 101 for i in range(256)]
    r = run(BLOCK_SUM % shfl, "blockSum", platform=platform, block=(128,), grid=(2,), args={"in": data, "out": [0, 0]})
    assert r.memory["out"] == [sum(data[:128]), sum(data[128:])] and not r.undefined
    assert len(r.shared) == 2


def test_divergent_syncthreads_is_recorded():
    src = "__global__ void k(int* o) { if (threadIdx.x < 8) __syncthreads(); o[threadIdx.x] = 1; }"
    r = run(src, "k", platform="cuda", block=(32,), args={"o": [0] * 32})
    assert r.undefined and "divergent barrier" in r.events[0]


def test_pointers_into_shared_memory_passed_to_a_device_function():
    src = r"""__device__ void addHalves(int* a, const int* b, int i) { a[i] += b[i]; }
    __global__ void k(int* o) {
      __shared__ int s[64];
      s[threadIdx.x] = threadIdx.x;
      s[threadIdx.x + 32] = 1000;
      __syncthreads();
      addHalves(s, &s[32], threadIdx.x);
      int* p = s + 32;
      p[threadIdx.x] = *(s + threadIdx.x) * 2;
      __syncthreads();
      o[threadIdx.x] = s[threadIdx.x + 32];
    }"""
    r = run(src, "k", platform="cuda", block=(32,), args={"o": [0] * 32})
    assert r.memory["o"] == [2 * (1000 + i) for i in range(32)]


def test_template_kernel_two_d_block_and_two_d_shared_array():
    src = r"""template <int TILE, typename T>
    __global__ void transpose(const T* in, T* out) {
      __shared__ T tile[TILE][TILE + 1];
      int x = threadIdx.x, y = threadIdx.y;
      tile[y][x] = in[y * TILE + x];
      __syncthreads();
      out[y * TILE + x] = tile[x][y];
    }"""
    n = 8
    data = [float(i) for i in range(n * n)]
    for platform in ("cuda", "hip"):
        r = run(src, "transpose", platform=platform, block=(n, n), args={"in": data, "out": [0.0] * n * n},
                template_args={"TILE": n, "T": "float"})
        assert r.memory["out"] == [data[x * n + y] for y in range(n) for x in range(n)]


def test_reference_parameters_local_arrays_and_match_all():
    src = r"""__device__ void bump(int& x, int by) { x += by; }
    __global__ void k(int* o, unsigned* m) {
      int a[4] = {1, 2};
      bump(a[3], threadIdx.x);
      o[threadIdx.x] = a[0] + a[1] + a[2] + a[3];
      int pred;
      m[threadIdx.x] = __match_all_sync(0xffffffff, a[0], &pred) + pred;
    }"""
    r = run(src, "k", platform="cuda", block=(32,), args={"o": [0] * 32, "m": [0] * 32})
    assert r.memory["o"] == [3 + t for t in range(32)]
    assert r.memory["m"] == [0] * 32  # 0xffffffff + 1 wraps


def test_atomics_on_shared_and_global_memory():
    src = r"""__global__ void k(int* total, unsigned* bits, int* firsts) {
      __shared__ int count;
      if (threadIdx.x == 0) count = 0;
      __syncthreads();
      int old = atomicAdd(&count, 1);
      atomicOr(bits, 1u << (threadIdx.x % 32));
      atomicMax(total, (int)threadIdx.x);
      __syncthreads();
      if (old == 0) firsts[0] = threadIdx.x;
      if (threadIdx.x == 0) firsts[1] = count;
    }"""
    r = run(src, "k", platform="cuda", block=(64,), args={"total": [-5], "bits": [0], "firsts": [0, 0]})
    assert r.memory == {"total": [63], "bits": [0xFFFFFFFF], "firsts": [0, 64]}


# ------------------------------------------------------------------ C semantics

def test_integer_conversions_and_operators():
    src = r"""
    #define SQ(a) ((a) * (a))
    #ifdef __HIP_PLATFORM_AMD__
    #define WAVE 64
    #else
    #define WAVE 32
    #endif
    __global__ void k(long long* o) {
      unsigned u = 0; u -= 1;
      int n = -7;
      o[0] = u;                          // 4294967295
      o[1] = n >> 1;                     // arithmetic shift: -4
      o[2] = n / 2; o[3] = n % 2;        // truncation: -3, -1
      o[4] = -1 < 1u;                    // usual conversions: false
      o[5] = (unsigned char)300;         // 44
      o[6] = static_cast<int>(3.9f) + (int)-2.5;  // 3 + -2
      o[7] = SQ(n + 1);                  // 36
      o[8] = WAVE;
      int i = 5; o[9] = i++ + ++i;       // 5 + 7
      o[10] = (i > 6 ? 100 : 200), o[11] = sizeof(long long) * 8;
      uint32_t w = 0xFFFFFFFFu; w *= w;  // 1
      o[12] = w;
      o[13] = 2147483647 + 1;            // wraps (signed overflow is not reported)
      o[14] = 0x80000000 > 0;            // unsigned literal
    }"""
    expect = [4294967295, -4, -3, -1, 0, 44, 1, 36, None, 12, 100, 64, 1, -2**31, 1]
    for platform, wave in (("cuda", 32), ("hip", 64)):
        r = run(src, "k", platform=platform, block=(1,), args={"o": [0] * 15})
        assert r.memory["o"] == expect[:8] + [wave] + expect[9:]


def test_float_is_single_precision_and_double_is_not():
    src = "__global__ void k(float* f, double* d) { f[0] = 0.1f + 0.2f; d[0] = 0.1 + 0.2; f[1] = 1.0f / 0.0f; }"
    r = run(src, "k", platform="cuda", block=(1,), args={"f": [0.0, 0.0], "d": [0.0]})
    assert r.memory["f"][0] == pytest.approx(0.3, abs=1e-7) and r.memory["f"][0] != 0.1 + 0.2
    assert r.memory["d"] == [0.1 + 0.2] and r.memory["f"][1] == float("inf")


def test_hip_ffsll_of_a_uint64_t_is_ambiguous_but_cuda_converts():
    src = "__global__ void k(int* o) { uint64_t m = 8; o[0] = __ffsll(m); }"
    assert run(src, "k", platform="cuda", block=(1,), args={"o": [0]}).memory["o"] == [4]
    with pytest.raises(CompileError, match="ambiguous"):
        run(src, "k", platform="hip", block=(1,), args={"o": [0]})


# ------------------------------------------------------------------ a ported idiom end to end

COMPACT_CUDA = r"""
__global__ void compact(const int* in, int* out, int* ctr) {
  int i = threadIdx.x, lane = i % 32;
  if (in[i] > 0) {
    unsigned active = __activemask();
    int leader = __ffs(active) - 1;
    int base;
    if (lane == leader) base = atomicAdd(ctr, __popc(active));
    base = __shfl_sync(active, base, leader);
    out[base + __popc(active & ((1u << lane) - 1))] = in[i];
  }
}
"""
COMPACT_HIP = (COMPACT_CUDA.replace("lane = i % 32", "lane = __lane_id()")
               .replace("unsigned active = __activemask()", "unsigned long long active = __ballot(1)")
               .replace("__ffs(", "__ffsll(").replace("__popc(", "__popcll(").replace("1u << lane", "1ull << lane")
               .replace("__shfl_sync(active, base, leader)", "__shfl(base, leader)"))


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(-3, 3), min_size=64, max_size=64))
def test_warp_aggregated_compaction_matches_its_hip_port(data):
    runs = [run(src, "compact", platform=p, block=(64,), args={"in": list(data), "out": [0] * 64, "ctr": [0]})
            for src, p in ((COMPACT_CUDA, "cuda"), (COMPACT_HIP, "hip"))]
    positives = [x for x in data if x > 0]
    for r in runs:
        assert not r.undefined and r.memory["ctr"] == [len(positives)]
        assert sorted(r.memory["out"][:len(positives)]) == sorted(positives)
    assert runs[0].memory == runs[1].memory  # warps run in order, so even the slots agree


def test_the_unported_compaction_is_caught_on_hip():
    half_ported = COMPACT_HIP.replace("1ull << lane", "1u << lane")
    with pytest.raises(UndefinedBehaviour, match="shift count 32"):
        run(half_ported, "compact", platform="hip", block=(64,), args={"in": [1] * 64, "out": [0] * 64, "ctr": [0]})
    popc32 = COMPACT_HIP.replace("atomicAdd(ctr, __popcll(active))", "atomicAdd(ctr, __popc(active))")
    r = run(popc32, "compact", platform="hip", block=(64,), args={"in": [1] * 64, "out": [0] * 64, "ctr": [0]})
    assert r.memory["ctr"] == [32]  # __popc of the 64-bit ballot counts only lanes 0..31


# ------------------------------------------------------------------ preprocessor, globals, misc

def test_preprocessor_keeps_lines_and_selects_the_platform():
    src = "\n".join([
        "#define STR(x) #x",                      # refused only if used
        "#define MUL(a, b) \\",
        "  ((a) * (b))",
        "#if defined(__HIP_PLATFORM_AMD__) && __AMDGCN_WAVEFRONT_SIZE == 64",
        "#define LANES 64",
        "#elif defined(__CUDACC__)",
        "#define LANES 32",
        "#endif",
        "__constant__ int scale[2] = {3, 5};",
        "__device__ int calls;",
        "__global__ void k(int* o) {",
        "  o[0] = MUL(LANES,",
        "             scale[1]);",
        "  o[1] = 1 << (LANES - 1);",            # line 14: 1 << 63 on hip
        "}"])
    r = run(src, "k", platform="cuda", block=(1,), args={"o": [0, 0]})
    assert r.memory["o"] == [32 * 5, -2**31]
    with pytest.raises(UndefinedBehaviour) as e:
        run(src, "k", platform="hip", block=(1,), args={"o": [0, 0]})
    assert e.value.line == 14
    r = run(src.replace("1 << (", "1ll << ("), "k", platform="hip", block=(1,), args={"o": [0, 0]})
    assert r.memory["o"] == [64 * 5, 0]  # -2**63 converted to int
    with pytest.raises(Unsupported):
        run(src.replace("scale[1]", "STR(a)"), "k", platform="cuda", block=(1,), args={"o": [0, 0]})


def test_hip_sync_forms_partition_by_mask_and_const_refs_bind_temporaries():
    src = r"""__device__ int twice(const int& x) { return 2 * x; }
    __global__ void k(unsigned long long* o) {
      unsigned long long half = threadIdx.x < 32 ? 0xffffffffull : 0xffffffff00000000ull;
      o[threadIdx.x] = __ballot_sync(half, threadIdx.x % 2) + twice(3);
    }"""
    r = run(src, "k", platform="hip", block=(64,), args={"o": [0] * 64})
    assert r.memory["o"][0] == 0xAAAAAAAA + 6 and r.memory["o"][63] == (0xAAAAAAAA << 32) + 6


def test_global_device_variable_is_shared_by_all_blocks_and_extern_shared_is_sized_by_the_caller():
    src = r"""__device__ int blocksDone;
    __global__ void k(int* o) {
      extern __shared__ float buf[];
      buf[threadIdx.x] = threadIdx.x * 0.5f;
      __syncthreads();
      if (threadIdx.x == 0) { atomicAdd(&blocksDone, 1); o[blockIdx.x] = blocksDone + (int)buf[blockDim.x - 1]; }
    }"""
    # blocksDone starts undefined: atomicAdd on it stores UNDEFINED, which the run reports
    r = run(src, "k", platform="cuda", block=(8,), grid=(2,), dynamic_shared=8, args={"o": [0, 0]})
    assert r.undefined and r.memory["o"] == [UNDEFINED, UNDEFINED]
    r = run(src.replace("int blocksDone;", "int blocksDone = 0;"), "k", platform="cuda", block=(8,), grid=(2,),
            dynamic_shared=8, args={"o": [0, 0]})
    assert not r.undefined and r.memory["o"] == [1 + 3, 2 + 3]
