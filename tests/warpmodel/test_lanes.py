"""The intrinsic semantics of lanes.py, checked against the rules their sources state."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from warpmodel import UNDEFINED, Trap, lanes as L

FULL32, FULL64 = (1 << 32) - 1, (1 << 64) - 1
WIDTHS = [1, 2, 4, 8, 16, 32]
ints32 = st.lists(st.integers(-2**31, 2**31 - 1), min_size=64, max_size=64)
fast = settings(max_examples=60, deadline=None)


def cuda_tree_sum(vals, offsets=(16, 8, 4, 2, 1)):
    v = list(vals)
    for o in offsets:
        got = L.shfl_down_sync(FULL32, v, o, 32, FULL32)
        v = [a + b for a, b in zip(v, got)]
    return v


# ------------------------------------------------------------------ CUDA shuffles

def test_cuda_tree_reduction_with_shfl_down_gives_the_warp_sum_in_lane_0():
    vals = [3 * i + 1 for i in range(32)]
    assert cuda_tree_sum(vals)[0] == sum(vals)


def test_cuda_shfl_down_leaves_the_upper_delta_lanes_of_each_segment_unchanged():
    vals = list(range(100, 132))
    got = L.shfl_down_sync(FULL32, vals, 3, 8, FULL32)
    for i in range(32):
        assert got[i] == (vals[i + 3] if i % 8 < 5 else vals[i])


def test_cuda_shfl_up_leaves_the_lower_delta_lanes_of_each_segment_unchanged():
    vals = list(range(100, 132))
    got = L.shfl_up_sync(FULL32, vals, 2, 16, FULL32)
    assert got == [vals[i] if i % 16 < 2 else vals[i - 2] for i in range(32)]


def test_cuda_shfl_reads_srclane_modulo_width_within_the_callers_segment():
    vals = list(range(32))
    assert L.shfl_sync(FULL32, vals, 3, 16, FULL32) == [3] * 16 + [19] * 16
    assert L.shfl_sync(FULL32, vals, 35, 16, FULL32) == [3] * 16 + [19] * 16
    assert L.shfl_sync(FULL32, vals, 0, 32, FULL32) == [0] * 32


def test_cuda_shfl_xor_may_read_earlier_segments_but_not_later_ones():
    vals = list(range(32))
    got = L.shfl_xor_sync(FULL32, vals, 16, 16, FULL32)
    assert got[:16] == vals[:16]  # lane ^ 16 is in a later group: own value
    assert got[16:] == vals[:16]  # lane ^ 16 is in an earlier group: read it


def test_cuda_shfl_from_an_inactive_lane_is_undefined():
    active = 0x0000FFFF
    got = L.shfl_down_sync(active, list(range(32)), 8, 32, active)
    assert got[:8] == list(range(8, 16))
    assert got[8:16] == [UNDEFINED] * 8  # sources 16..23 do not take part
    assert got[16:] == [None] * 16


def test_cuda_mask_naming_a_diverged_lane_or_omitting_the_caller_is_undefined():
    half = 0x0000FFFF
    assert L.shfl_xor_sync(FULL32, list(range(32)), 1, 32, half)[:16] == [UNDEFINED] * 16
    assert L.shfl_xor_sync(0xFFFF0000, list(range(32)), 1, 32, half)[:16] == [UNDEFINED] * 16
    # exited lanes named in the mask are allowed for votes
    assert L.ballot_sync(FULL32, [1] * 32, half, exited=~half & FULL32)[:16] == [half] * 16


def test_cuda_width_that_is_not_a_power_of_two_is_undefined():
    assert set(L.shfl_down_sync(FULL32, list(range(32)), 1, 12, FULL32)) == {UNDEFINED}


@fast
@given(st.sampled_from(WIDTHS), st.integers(0, 31), ints32)
def test_cuda_shfl_down_equals_hip_shfl_down_on_each_half_wave(width, delta, vals):
    hip = L.hip_shfl_down(vals, delta, width, FULL64)
    assert L.shfl_down_sync(FULL32, vals[:32], delta, width, FULL32) == hip[:32]
    assert L.shfl_down_sync(FULL32, vals[32:], delta, width, FULL32) == hip[32:]


@fast
@given(st.sampled_from(WIDTHS), st.integers(0, 31), ints32)
def test_cuda_shfl_up_and_xor_equal_hip_on_each_half_wave(width, arg, vals):
    for cuda, hip in ((L.shfl_up_sync, L.hip_shfl_up), (L.shfl_xor_sync, L.hip_shfl_xor)):
        h = hip(vals, arg, width, FULL64)
        assert cuda(FULL32, vals[:32], arg, width, FULL32) == h[:32]
        assert cuda(FULL32, vals[32:], arg, width, FULL32) == h[32:]


@fast
@given(st.sampled_from(WIDTHS), st.data(), ints32)
def test_cuda_shfl_equals_hip_shfl_for_a_source_lane_below_width(width, data, vals):
    src = data.draw(st.integers(0, width - 1))
    h = L.hip_shfl(vals, src, width, FULL64)
    assert L.shfl_sync(FULL32, vals[:32], src, width, FULL32) == h[:32]
    assert L.shfl_sync(FULL32, vals[32:], src, width, FULL32) == h[32:]


# ------------------------------------------------------------------ HIP shuffles (amd_warp_functions.h)

def test_hip_shfl_down_by_32_with_width_32_returns_each_lanes_own_value():
    vals = list(range(64))
    assert L.hip_shfl_down(vals, 32, 32, FULL64) == vals  # (self & 31) + 32 >= 32: own value


def test_hip_shfl_xor_by_32_with_width_32_is_own_value_only_in_the_lower_half():
    # index = self ^ 32; own value only when index >= ((self + 32) & ~31): true for lanes 0..31
    # (index in the next segment), false for lanes 32..63, which read the earlier segment (as
    # CUDA's __shfl_xor_sync lets a group read earlier groups)
    vals = list(range(64))
    got = L.hip_shfl_xor(vals, 32, 32, FULL64)
    assert got[:32] == vals[:32]
    assert got[32:] == vals[:32]


def test_hip_shfl_down_with_the_default_width_crosses_the_half_wave():
    vals = list(range(64))
    got = L.hip_shfl_down(vals, 1, 64, FULL64)
    assert got[31] == 32 and got[63] == 63
    assert L.hip_shfl_down(vals, 1, 32, FULL64)[31] == 31
    assert L.hip_shfl_down(vals, 32, 64, FULL64)[:32] == vals[32:]


def test_hip_shfl_broadcasts_lane_0_of_the_wave_or_of_each_width_segment():
    vals = [100 + i for i in range(64)]
    assert L.hip_shfl(vals, 0, 64, FULL64) == [100] * 64
    assert L.hip_shfl(vals, 0, 32, FULL64) == [100] * 32 + [132] * 32


def test_hip_shfl_does_not_reduce_src_lane_modulo_width():
    vals = list(range(64))
    assert L.hip_shfl(vals, 40, 32, FULL64)[0] == 40  # CUDA's __shfl_sync would read lane 8
    assert L.shfl_sync(FULL32, vals[:32], 40, 32, FULL32)[0] == 8
    assert L.hip_shfl(vals, 40, 32, FULL64)[63] == 8  # index 40 + 32 = 72; ds_bpermute takes 72 & 63


def test_hip_shfl_up_keeps_the_first_lanes_and_reading_inactive_lanes_is_undefined():
    vals = list(range(64))
    assert L.hip_shfl_up(vals, 1, 64, FULL64) == [0] + vals[:63]
    active = (1 << 40) - 1
    got = L.hip_shfl_down(vals, 8, 64, active)
    assert got[31] == 39 and got[32] is UNDEFINED and got[45] is None


def test_hip_ballot_is_64_bit_and_popc_counts_only_its_low_32_bits():
    pred = [1] * 64
    b = L.hip_ballot(pred, FULL64)
    assert b[0] == b[63] == FULL64
    assert L.popc(b[0]) == 32 and L.popcll(b[0]) == 64
    assert L.hip_ballot([i % 2 for i in range(64)], FULL64)[5] == int("10" * 32, 2)


def test_hip_any_all_and_activemask():
    active = 0xF0
    assert L.hip_any([0, 0, 0, 0, 0, 1, 0, 0] + [0] * 56, active)[4] == 1
    assert L.hip_all([0] * 4 + [1] * 4 + [0] * 56, active)[7] == 1
    assert L.hip_activemask(active)[4] == 0xF0
    assert L.hip_lane_id(active)[6] == 6


def test_the_ballot_rewrite_equals_cuda_ballot_on_each_half():
    pred = [(i * 7) % 3 == 0 for i in range(64)]
    hip = [(b >> (lane & 32)) & FULL32 for lane, b in enumerate(L.hip_ballot(pred, FULL64))]
    assert hip[:32] == L.ballot_sync(FULL32, pred[:32], FULL32)
    assert hip[32:] == L.ballot_sync(FULL32, pred[32:], FULL32)


def test_hip_sync_forms_trap_on_a_mask_other_than_the_active_lanes():
    vals = list(range(64))
    assert L.hip_shfl_sync("down", FULL64, vals, 1, 64, FULL64)[0] == 1
    with pytest.raises(Trap):
        L.hip_shfl_sync("down", FULL32, vals, 1, 64, FULL64)
    with pytest.raises(Trap):
        L.hip_ballot_sync(0, [1] * 64, FULL64)
    lo, hi = FULL32, FULL32 << 32  # two groups, each naming itself: allowed (waterfall)
    got = L.hip_ballot_sync([lo] * 32 + [hi] * 32, [1] * 64, FULL64)
    assert got[0] == lo and got[63] == hi
    assert L.hip_all_sync(FULL64, [1] * 64, FULL64)[0] == 1


def test_match_any_and_match_all():
    vals = [i % 3 for i in range(32)]
    got = L.match_any_sync(FULL32, vals, FULL32)
    assert got[0] == sum(1 << j for j in range(0, 32, 3))
    res, pred = L.match_all_sync(FULL32, [7] * 32, FULL32)
    assert res[0] == FULL32 and pred[0] == 1
    res, pred = L.match_all_sync(FULL32, vals, FULL32)
    assert res[0] == 0 and pred[0] == 0
    h = L.hip_match_any_sync(FULL64, [i % 2 for i in range(64)], FULL64)
    assert h[1] == int("10" * 32, 2)


def test_syncwarp_and_activemask_cuda():
    assert L.syncwarp(FULL32, FULL32)
    assert not L.syncwarp(FULL32, 0xFF)
    assert L.syncwarp(0xFF, 0xFF)
    assert L.activemask(0x0F0F)[8] == 0x0F0F


# ------------------------------------------------------------------ integer intrinsics and atomics

def test_integer_intrinsics():
    assert L.popc((1 << 40) | 1) == 1 and L.popc(-1) == 32
    assert L.popcll(-1) == 64
    assert (L.ffs(0), L.ffs(8), L.ffs(-2**31), L.ffsll(1 << 40)) == (0, 4, 32, 41)
    assert (L.clz(0), L.clz(1), L.clz(-1), L.clzll(1)) == (32, 31, 0, 63)
    assert (L.brev(1), L.brevll(1), L.brev(0xF0)) == (1 << 31, 1 << 63, 0x0F000000)


def test_atomics_apply_in_lane_order_and_return_the_old_values():
    mem = [10, 0]
    old = L.atomic("atomicAdd", [(mem, 0)] * 4, [1, 2, 3, 4], 0b1111)
    assert old == [10, 11, 13, 16] and mem[0] == 20
    old = L.atomic("atomicMax", [(mem, 1)] * 3, [5, 2, 9], 0b101)
    assert old == [0, None, 5] and mem[1] == 9
    L.atomic("atomicCAS", [(mem, 1)], [1], 1, compare=[9])
    assert mem[1] == 1


def test_undefined_is_a_singleton_that_refuses_truth():
    assert type(UNDEFINED)() is UNDEFINED
    with pytest.raises(TypeError):
        bool(UNDEFINED)
