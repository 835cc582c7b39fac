"""Issue 29's remaining wave64 classes, from CUDA semantics and the gfx942 wave (warpSize 64):

* a __shared__ array sized for 32 lanes that a helper indexes by lane (PORT019 through a call):
  the helper's index stays below the extent when warpSize is 32 and passes it when it is 64;
* a lane test against 31 or 32 on a variable that holds a lane by its definition, whatever its
  name (PORT011): ``pair = tid & 63`` (two 32-lane warps) tested ``pair == 32``.

Both directions: each construct is flagged, and the same shapes that are right on a 64-lane wave
(or say nothing about warps) stay quiet."""

from __future__ import annotations

from porter.findings import scan


def _rules_at(src: str, rule: str) -> dict[int, object]:
    findings = scan(src.encode(), "t.cu")
    assert not [f for f in findings if f.rule == "PORT900"], [f.message for f in findings if f.rule == "PORT900"]
    return {f.line: f for f in findings if f.rule == rule}


def _line_of(src: str, needle: str) -> int:
    return next(i for i, line in enumerate(src.splitlines(), 1) if needle in line)


# A helper that keeps two slots per lane: slot lane (cleared) and slot lane + warpSize (the value).
# 32 lanes need 64 slots, a 64-lane wave needs 128.
_HELPER = """
__device__ int pair_slots(int v, volatile int *s)
{
  int k = 2 * threadIdx.x - (threadIdx.x & (warpSize - 1));
  s[k] = 0;
  k += warpSize;
  s[k] = v;
  return s[k - 1];
}
"""


def test_a_shared_array_a_helper_indexes_past_its_end_on_wave64_is_an_error():
    src = _HELPER + """
__global__ void k(int *out)
{
  __shared__ int slots[SLOTS];
  if (threadIdx.x < warpSize) {
    out[threadIdx.x] = pair_slots(out[threadIdx.x], slots);
  }
}
"""
    wrong = src.replace("SLOTS", "64")
    hits = _rules_at(wrong, "PORT019")
    decl = _line_of(wrong, "__shared__ int slots")
    assert list(hits) == [decl]
    f = hits[decl]
    assert f.severity == "error"
    # threads 0..63 pass the guard on gfx942: the last writes slot 63 + 64 = 127
    assert "reaches 127" in f.message and "`pair_slots`" in f.message
    assert f"line {_line_of(wrong, 's[k] = v;')}" in f.message
    # 128 slots hold both waves: nothing to report
    assert not _rules_at(src.replace("SLOTS", "128"), "PORT019")


def test_a_helper_whose_lanes_follow_warpsize_without_a_guard():
    """No guard at the call: every thread of the block calls it, but `% warpSize` bounds the slot."""
    src = """
__device__ void stash(float v, float *row)
{
  const int slot = threadIdx.x % warpSize + warpSize;
  row[slot] = v;
}

__global__ void k(float *out)
{
  __shared__ float row[64];
  stash(out[threadIdx.x], row);
  __syncthreads();
  out[threadIdx.x] = row[threadIdx.x & 31];
}
"""
    hits = _rules_at(src, "PORT019")
    assert list(hits) == [_line_of(src, "__shared__ float row")]
    assert "reaches 127" in hits[_line_of(src, "__shared__ float row")].message


def test_helpers_that_are_right_on_both_waves_stay_quiet():
    # 32-lane logical warps throughout: the slot never passes 63, whatever the wave
    logical = """
__device__ void stash(float v, float *row)
{
  const int slot = (threadIdx.x & 31) + 32;
  row[slot] = v;
}
__global__ void k(float *out)
{
  __shared__ float row[64];
  stash(out[threadIdx.x], row);
  if (warpSize > 0) out[threadIdx.x] = row[threadIdx.x & 31];
}
"""
    assert not _rules_at(logical, "PORT019")
    # indexed by the block's thread number: past 64 on NVIDIA too, so not a wave-width question
    blockwide = """
__device__ void stash(float v, float *row)
{
  row[threadIdx.x] = v;
}
__global__ void k(float *out)
{
  __shared__ float row[64];
  stash(out[threadIdx.x], row);
  out[threadIdx.x] = row[threadIdx.x % warpSize];
}
"""
    assert not _rules_at(blockwide, "PORT019")
    # a helper with a loop is not run (porter does not guess)
    looped = """
__device__ void stash(float v, float *row)
{
  for (int i = 0; i < 2; ++i) row[threadIdx.x % warpSize + i * warpSize] = v;
}
__global__ void k(float *out)
{
  __shared__ float row[64];
  stash(out[threadIdx.x], row);
}
"""
    assert not _rules_at(looped, "PORT019")


_GROUP_OF_TWO = """
__global__ void pack(const int *in, unsigned long long *bits, int n)
{
  __shared__ unsigned int half[1024];
  const int tid = threadIdx.x;
  const int pair = tid & 63;
  unsigned int b = __ballot_sync(0xffffffff, in[blockIdx.x * blockDim.x + tid] != 0);
  if (pair == 32) half[tid] = b;
  __syncthreads();
  if (pair == 0) bits[(blockIdx.x * blockDim.x + tid) / 64] = ((unsigned long long)half[tid + 32] << 32) | b;
}
"""


def test_a_lane_test_is_found_by_what_the_variable_holds():
    """`pair` numbers 64 threads (two 32-lane warps); `pair == 32` picks the second warp's first lane."""
    hits = _rules_at(_GROUP_OF_TWO, "PORT011")
    line = _line_of(_GROUP_OF_TWO, "if (pair == 32)")
    assert line in hits
    assert "pair == warpSize" in hits[line].message  # 32 on NVIDIA, 64 (never a lane of `& 63`... one wave) here
    # a 32-lane lane under another name: `c = threadIdx.x % 32`, then `c == 31` is the warp's last lane
    src = """
__global__ void scan32(int *out)
{
  const int c = threadIdx.x % 32;
  int v = out[threadIdx.x];
  for (int d = 1; d < 32; d *= 2) { int t = __shfl_up_sync(0xffffffff, v, d, 32); if (c >= d) v += t; }
  if (c == 31) out[blockIdx.x] = v;
}
"""
    assert _line_of(src, "if (c == 31)") in _rules_at(src, "PORT011")


def test_tests_on_variables_that_are_no_lanes_stay_quiet():
    # a 64-wide tile split in halves, in a function with no warp primitive (the file has one elsewhere)
    src = """
__device__ float red(float v) { return v + __shfl_xor_sync(0xffffffff, v, 1, 32); }
__global__ void tile(float *a)
{
  const int col = threadIdx.x & 63;
  if (col < 32) a[threadIdx.x] *= 2.0f;
}
__global__ void two(float *a)
{
  int col = threadIdx.x & 31;
  col = col * 2;
  if (col == 32) a[threadIdx.x] = 0.0f;
}
"""
    hits = _rules_at(src, "PORT011")
    assert _line_of(src, "if (col < 32)") not in hits
    assert _line_of(src, "if (col == 32)") not in hits  # defined twice: not followed
    # wave-agnostic code: no warp words at all
    plain = """
__global__ void tile(float *a)
{
  const int col = threadIdx.x & 63;
  if (col == 32) a[threadIdx.x] = 0.0f;
}
"""
    assert not _rules_at(plain, "PORT011")
