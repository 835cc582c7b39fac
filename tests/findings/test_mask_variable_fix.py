"""PORT020's fix for a full-warp mask held in a local variable, checked by executing it.

NVIDIA's simpleVoteIntrinsics writes ``int mask = 0xffffffff; r = __any_sync(mask, p);``: in CUDA
the int -1 converts back to the ``unsigned int`` mask 0xffffffff, so the call is a full-warp vote,
exactly like ``__any_sync(0xffffffff, p)`` (CUDA Programming Guide, warp vote functions).  porter
gave the literal a safe fix and the variable only a suggestion ("the mask is not the full warp"),
so ``--fix`` left the *_sync calls in place and the port did not compile on ROCm before 6.2.

The kernels below are written from CUDA semantics.  Where the variable provably holds the full mask
(one declaration, only read), the safe fixes plus the translation must compute what CUDA computes on
32-lane warps, run on 64-lane waves (tests/warpmodel).  Where another value can reach the call
(assigned in a branch or a loop, a parameter, a global, written through a pointer or a reference,
handed to a function) the fix must stay a suggestion to review.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/, for warpmodel
from warpmodel import run_pair  # noqa: E402

from porter.findings import apply_fixes, scan  # noqa: E402
from porter.translate import translate  # noqa: E402

SETTINGS = settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def port(cuda: str) -> tuple[str, list]:
    """What `porter convert --fix` does: the safe fixes, then the CUDA->HIP translation."""
    data = cuda.encode()
    findings = scan(data, "k.cu")
    return translate(apply_fixes(data, findings), "k.cu").output.decode(), findings


def port020(findings) -> list:
    return [f for f in findings if f.rule == "PORT020"]


# ------------------------------------------------------------------ the full mask in a variable: safe
ANY_INT = """
#include <cuda_runtime.h>
__global__ void k(const unsigned int* in, unsigned int* out)
{
    int tx = threadIdx.x;
    int mask = 0xffffffff;
    out[tx] = __any_sync(mask, in[tx]);
}
"""

ALL_INT = """
#include <cuda_runtime.h>
__global__ void k(const unsigned int* in, unsigned int* out)
{
    int tx = threadIdx.x;
    int mask = 0xffffffff;
    out[tx] = __all_sync(mask, in[tx]);
}
"""

# the sample's third kernel's shape: an unsigned mask, a vote stored through a pointer and one in a condition
DIRECTED = """
#include <cuda_runtime.h>
__global__ void k(const unsigned int* in, unsigned int* out)
{
    int tx = threadIdx.x;
    unsigned int mask = 0xffffffff;
    unsigned int* slot = out + tx * 2;
    *slot = __any_sync(mask, in[tx] > 1);
    if (__all_sync(mask, in[tx] != 0)) {
        *(slot + 1) = 7;
    }
}
"""

BALLOT = """
#include <cuda_runtime.h>
__global__ void k(const unsigned int* in, unsigned int* out)
{
    int mask = 0xffffffff;
    unsigned int b = __ballot_sync(mask, in[threadIdx.x]);
    out[threadIdx.x] = b ^ (unsigned int)__popc(b);
}
"""

# other spellings porter evaluates to the full mask, and a shuffle reduction that uses one
SHUFFLE_NOT_ZERO = """
#include <cuda_runtime.h>
__global__ void k(const unsigned int* in, unsigned int* out)
{
    const unsigned all = ~0u;
    unsigned int mask = all;
    int minus_one = -1;
    unsigned int v = in[threadIdx.x];
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(mask, v, o);
    out[threadIdx.x] = __any_sync(minus_one, in[threadIdx.x]) * 1000 + ((threadIdx.x & 31) == 0 ? v : 0);
}
"""

SAFE = [("any-int", ANY_INT, 1), ("all-int", ALL_INT, 1), ("directed", DIRECTED, 2), ("ballot-int", BALLOT, 1),
        ("shuffle-and-others", SHUFFLE_NOT_ZERO, 1)]


@st.composite
def warp_inputs(draw):
    """A block of 32..128 threads (whole warps), one warp's predicate all true, one mixed, the rest any."""
    warps = draw(st.integers(min_value=1, max_value=4))
    shapes = ["true", "mixed"][:warps] + [draw(st.sampled_from(["true", "false", "mixed"])) for _ in range(warps - 2)]
    shapes = draw(st.permutations(shapes))
    values = []
    for shape in shapes:
        if shape == "true":
            values += draw(st.lists(st.integers(min_value=1, max_value=9), min_size=32, max_size=32))
        elif shape == "false":
            values += [0] * 32
        else:
            lanes = draw(st.lists(st.integers(min_value=0, max_value=9), min_size=32, max_size=32))
            lanes[draw(st.integers(min_value=0, max_value=31))] = 0  # mixed: some lane false ...
            lanes[draw(st.integers(min_value=0, max_value=31)) ^ 1] = 3  # ... and some lane true
            values += lanes
    return values


@pytest.mark.parametrize("name, cuda, per_thread", SAFE, ids=[s[0] for s in SAFE])
def test_a_variable_holding_the_full_mask_gets_the_safe_fix(name, cuda, per_thread):
    hip, findings = port(cuda)
    calls = port020(findings)
    assert calls and all(f.fix is not None and f.fix.safe for f in calls), [f.message for f in calls]
    assert not any("not the full warp" in f.message for f in calls)
    assert "_sync" not in hip  # applied: nothing ROCm 5.2 lacks is left


@pytest.mark.parametrize("name, cuda, per_thread", SAFE, ids=[s[0] for s in SAFE])
@SETTINGS
@given(values=warp_inputs())
def test_the_port_computes_what_cuda_computes(name, cuda, per_thread, values):
    hip, _findings = port(cuda)
    block = len(values)
    c, h = run_pair(cuda, hip, "k", block, {"in": values, "out": [0] * (block * per_thread)})
    assert c.memory["out"] == h.memory["out"]


def test_the_votes_are_per_warp_on_both_sides():
    """The oracle itself: a warp of all-true lanes votes 1, a mixed one 1 for any and 0 for all."""
    values = [1] * 32 + [0, 5] * 16
    for cuda, want in ((ANY_INT, [1] * 64), (ALL_INT, [1] * 32 + [0] * 32)):
        hip, _ = port(cuda)
        c, h = run_pair(cuda, hip, "k", 64, {"in": values, "out": [9] * 64})
        assert c.memory["out"] == h.memory["out"] == want


# ------------------------------------------------------------------ another value may reach the call: a suggestion
NOT_PROVEN = {
    "assigned in a branch": """
__global__ void k(const unsigned int* in, unsigned int* out)
{
    int mask = 0xffffffff;
    if (in[0] > 5) mask = 0x0000ffff;
    out[threadIdx.x] = __any_sync(mask, in[threadIdx.x]);
}
""",
    "a parameter": """
__global__ void k(const unsigned int* in, unsigned int* out, unsigned int mask)
{
    out[threadIdx.x] = __any_sync(mask, in[threadIdx.x]);
}
""",
    "a global": """
__device__ unsigned int mask = 0xffffffff;
__global__ void k(const unsigned int* in, unsigned int* out)
{
    out[threadIdx.x] = __all_sync(mask, in[threadIdx.x]);
}
""",
    "changed in a loop after the call": """
__global__ void k(const unsigned int* in, unsigned int* out)
{
    unsigned int mask = 0xffffffff;
    for (int i = 0; i < 2; ++i) {
        out[threadIdx.x + i] = __ballot_sync(mask, in[threadIdx.x]);
        mask &= 0x0000ffff;
    }
}
""",
    "written through a pointer": """
__global__ void k(const unsigned int* in, unsigned int* out)
{
    unsigned int mask = 0xffffffff;
    unsigned int* p = &mask;
    *p = 0x0000ffff;
    out[threadIdx.x] = __any_sync(mask, in[threadIdx.x]);
}
""",
    "bound to a reference": """
__global__ void k(const unsigned int* in, unsigned int* out)
{
    unsigned int mask = 0xffffffff;
    unsigned int& r = mask;
    r = 3;
    out[threadIdx.x] = __any_sync(mask, in[threadIdx.x]);
}
""",
    "handed to a function": """
__device__ void narrow(unsigned int& m) { m = 0x0000ffff; }
__global__ void k(const unsigned int* in, unsigned int* out)
{
    unsigned int mask = 0xffffffff;
    narrow(mask);
    out[threadIdx.x] = __any_sync(mask, in[threadIdx.x]);
}
""",
    "an asm output": """
__global__ void k(const unsigned int* in, unsigned int* out)
{
    unsigned int mask = 0xffffffff;
    asm("mov.u32 %0, 65535;" : "=r"(mask));
    out[threadIdx.x] = __any_sync(mask, in[threadIdx.x]);
}
""",
    "incremented": """
__global__ void k(const unsigned int* in, unsigned int* out)
{
    unsigned int mask = 0xffffffff;
    ++mask;
    out[threadIdx.x] = __any_sync(mask, in[threadIdx.x]);
}
""",
    "a narrow type": """
__global__ void k(const unsigned int* in, unsigned int* out)
{
    unsigned short mask = 0xffffffff;
    out[threadIdx.x] = __any_sync(mask, in[threadIdx.x]);
}
""",
    "declared in another block": """
__device__ unsigned int mask = 0x0000ffff;
__global__ void k(const unsigned int* in, unsigned int* out)
{
    if (in[0]) { unsigned int mask = 0xffffffff; out[0] = mask; }
    out[threadIdx.x] = __any_sync(mask, in[threadIdx.x]);
}
""",
    "set by a macro": """
#define HALF_WARP() mask = 0x0000ffff
__global__ void k(const unsigned int* in, unsigned int* out)
{
    unsigned int mask = 0xffffffff;
    HALF_WARP();
    out[threadIdx.x] = __any_sync(mask, in[threadIdx.x]);
}
""",
    "another value": """
__global__ void k(const unsigned int* in, unsigned int* out)
{
    unsigned int mask = 0x0000ffff;
    out[threadIdx.x] = __any_sync(mask, in[threadIdx.x]);
}
""",
}


@pytest.mark.parametrize("case", sorted(NOT_PROVEN))
def test_a_mask_that_may_hold_another_value_keeps_the_suggestion(case):
    cuda = "#include <cuda_runtime.h>\n" + NOT_PROVEN[case]
    hip, findings = port(cuda)
    calls = port020(findings)
    assert calls and all(f.fix is not None and not f.fix.safe for f in calls), [f.message for f in calls]
    assert all("not the full warp" in f.message for f in calls)
    assert "_sync(mask" in hip  # --fix leaves it for a human



# A name is the declaration it refers to, not the text: a const full mask in one function says nothing about a
# parameter of the same name in another, and a conventional name (full_mask) the function declares itself is
# that variable.  Both were taken as full, and --fix dropped a partial mask.
SCOPES = """#include <cuda_runtime.h>
__global__ void a(float* v) {
    const unsigned mask = 0xffffffff;
    v[threadIdx.x] = __shfl_sync(mask, v[threadIdx.x], 0);
}
__device__ float partial(float x, unsigned mask) {
    return __shfl_down_sync(mask, x, 1);
}
__global__ void b(float* v) {
    unsigned full_mask = __ballot_sync(0xffffffff, v[threadIdx.x] > 0.0f);
    if (v[threadIdx.x] > 0.0f) v[threadIdx.x] = __shfl_sync(full_mask, v[threadIdx.x], 0);
}
"""


def test_a_mask_is_the_declaration_its_name_refers_to():
    safe = {f.line: f.fix is not None and f.fix.safe for f in scan(SCOPES.encode(), "k.cu") if f.rule == "PORT020"}
    assert safe == {4: True, 7: False, 10: True, 11: False}
