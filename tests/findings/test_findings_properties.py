"""Properties over arbitrary edits of real CUDA code: scan never raises or fails a rule,
findings stay inside the file and sorted, and safe fixes converge."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from porter.findings import apply_fixes, scan

FIXTURES = sorted((Path(__file__).with_name("fixtures")).glob("*/positive*.cu"))
SEEDS = [p.read_bytes() for p in FIXTURES]
TOKENS = [b"{", b"}", b"(", b")", b";", b'"', b"'", b"/*", b"*/", b"//", b"\n", b"#if X\n", b"#endif\n",
          b"asm(", b"<<<", b">>>", b"__shfl_down_sync(", b"0xffffffff", b"\\", b"\x00", b"\xff", b"\xc3\xa9"]


@st.composite
def mutated(draw):
    src = bytearray(draw(st.sampled_from(SEEDS)))
    for _ in range(draw(st.integers(0, 6))):
        pos = draw(st.integers(0, len(src)))
        if draw(st.booleans()) and pos < len(src):
            del src[pos:pos + draw(st.integers(1, 12))]
        else:
            src[pos:pos] = draw(st.sampled_from(TOKENS))
    return bytes(src)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
# the mutations the strategy is there to produce, each pinned so that every run covers it:
# a string literal that never ends (the rest of the file is inside it)
@example(b'__device__ float f(float v) { const char* s = "open;\n  return __shfl_down_sync(0xffffffff, v, 16); }\n')
# a block comment that never ends, over a shuffle
@example(b"__device__ float f(float v) { /* unterminated\n  return __shfl_xor_sync(0xffffffff, v, 1); }\n")
# PTX asm cut after its template (no operands, no closing parenthesis)
@example(b'__device__ unsigned lane() { unsigned r; asm volatile("mov.u32 %0, %%laneid;" : "=r"(r)\n  return r; }\n')
# #if without #endif around a warp-size loop, and a stray #endif elsewhere
@example(b"#if X\n__device__ float f(float v) { for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o); return v; }\n"
         b"#endif\n#endif\n")
# CRLF line ends, a NUL byte and bytes that are not UTF-8 around a fixable finding
@example(b"__device__ float f(float v)\r\n{ // \xff\x00\xc3\r\n  return __shfl_xor_sync(0xffffffff, v, 16);\r\n}\r\n")
# a definition HIP provides, whose body's brackets do not balance: once guarded by PORT170's fix it is
# not guarded again (the group is read without its directives, so the guard is found in their text)
@example(b"#include <cuda_runtime.h>\n__device__ double atomicMax(double* a, double v)\n{\n"
         b"    unsigned long long* p = reinterpret_cast<unsigned a);\n    return v;\n}\n")
# a kernel launch cut inside its chevrons
@example(b"__global__ void k(float* x) { x[threadIdx.x] = 0.0f; }\nvoid h(float* x) { k<<<1, 32(x); }\n")
def test_scan_is_total_and_fixes_converge(src):
    findings = scan(src, "m.cu")
    assert not [f for f in findings if f.rule == "PORT900"], [f.message for f in findings if f.rule == "PORT900"]
    assert [f.start_byte for f in findings] == sorted(f.start_byte for f in findings)
    for f in findings:
        assert 0 <= f.start_byte <= f.end_byte <= len(src)
        if f.fix:
            assert all(0 <= e.start_byte <= e.end_byte <= len(src) for e in f.fix.edits)
    once = apply_fixes(src, findings)
    twice = apply_fixes(once, scan(once, "m.cu"))
    thrice = apply_fixes(twice, scan(twice, "m.cu"))
    assert thrice == twice, "safe fixes keep rewriting the same code"


def test_launch_bounds_with_unparsable_arguments_gets_no_fix():
    # found by the property test above (its exact failing example): the fix kept rewriting garbage arguments
    e = b"  // expect: PORT040\n"
    src = (b"#define THREADS 128\n#define MIN_BLOCKS 3\n"
           b"__global__ void __launch_bounds__(256, 4) a(float* x) { x[threadIdx.x] = 0.0f; }" + e +
           b"__global__ void __launch_bounds__({T(HREADS, MIN_BLOCKS) b(float* x) { x[threadIdx.x] = 1.0f; }" + e +
           b"template <int T, int B>\n__global__ void __launch_bounds__(T, B) c(float* x) { x[threadIdx.x] = 2.0f; }" + e +
           b"__global__ void __launch_bounds__(64, 2) d(float* x) { x[threadIdx.x] = 3.0f; }" + e +
           b"template __global__ void c<512, 2>(float*);\n")
    once = apply_fixes(src, scan(src, "m.cu"))
    twice = apply_fixes(once, scan(once, "m.cu"))
    assert apply_fixes(twice, scan(twice, "m.cu")) == twice
