"""Issue 30, defect 6: compile failures of ported public code that no finding pointed at.  Each shape is
written from CUDA's semantics and the HIP 5.2 headers; porter now converts it (the build compiles) or a
finding says it will not compile (with a fix where one is safe).  The compile checks build the port with
hipcc 5.2 for gfx90a and clang-19 for gfx942 against the same HIP 5.2 headers, compile and link (the
atomicInc failure is a device-link one), as `porter convert --target-rocm 5.2 --fix` would leave it."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from porter.findings import apply_fixes, catalogue, scan
from porter.translate import TranslateOptions, translate

R52 = TranslateOptions(target_rocm="5.2")


def _rules(findings, *rules):
    return [(f.rule, f.line) for f in findings if f.rule in rules]


def _fixed_port(src: bytes, options=R52, safe_only: bool = True) -> bytes:
    """``porter convert --fix``: the safe fixes applied to the CUDA, then the translation."""
    fixed = apply_fixes(src, scan(src, "t.cu", options=options), safe_only=safe_only)
    return translate(fixed, "t.cu", options).output


# ---------------------------------------------------------------- the two compilers
@pytest.fixture
def build(tmp_path, gfx942_device_libs):
    """build(hip_source, name) -> {arch: (returncode, output)}: compiled and linked into a program with
    hipcc 5.2 (gfx90a) and clang-19 (gfx942, porter's device-library folder)."""
    libs = gfx942_device_libs

    def run(source: bytes, name: str, libs_: tuple[str, ...] = ()) -> dict[str, tuple[int, str]]:
        src = tmp_path / f"{name}.hip"
        src.write_bytes(source + b"\nint main() { return 0; }\n")
        cmds = {
            "gfx90a": ["hipcc", "--offload-arch=gfx90a", "-x", "hip", str(src), "-o", str(tmp_path / f"{name}90a"), *libs_],
            "gfx942": ["clang++-19", "-x", "hip", "--offload-arch=gfx942", "--rocm-path=/usr",
                       f"--rocm-device-lib-path={libs}", "-std=c++17", "-O2", str(src), "-o", str(tmp_path / f"{name}942"),
                       "-L/usr/lib/x86_64-linux-gnu", "-lamdhip64", *libs_],
        }
        out = {}
        for arch, cmd in cmds.items():
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=dict(os.environ, HIP_PLATFORM="amd"))
            out[arch] = (r.returncode, r.stdout + r.stderr)
        return out

    return run


def _ok(results) -> None:
    bad = {arch: out[-2000:] for arch, (rc, out) in results.items() if rc != 0}
    assert not bad, bad


def _fails_where_flagged(build, rule: str, name: str, variant: str = "") -> bytes:
    """The rule's positive fixture (``positive{variant}.cu``): flagged at --target-rocm 5.2 on exactly its
    ``expect:`` lines, its port fails with both compilers on exactly those lines, and its negative's port
    compiles; the fixture back."""
    fixtures = Path(__file__).with_name("fixtures") / rule
    src = (fixtures / f"positive{variant}.cu").read_bytes()
    flagged = {line for _rule, line in _rules(scan(src, "t.cu", options=R52), rule)}
    assert flagged == {i for i, line in enumerate(src.decode().splitlines(), 1) if f"expect: {rule}" in line}
    port = translate(src, "t.cu", R52).output
    assert port.count(b"\n") == src.count(b"\n")  # (the lines of the port are the fixture's)
    for arch, (rc, out) in build(port, name).items():
        failing = {int(m) for m in re.findall(rf"{name}\.hip:(\d+):\d+: error:", out)}
        assert rc != 0 and failing == flagged, (arch, sorted(failing), sorted(flagged), out[-1500:])
    _ok(build(translate((fixtures / f"negative{variant}.cu").read_bytes(), "t.cu", R52).output, f"{name}_negative"))
    return src


# ---------------------------------------------------------------- umin / umax, __grid_constant__
MINMAX = b"""#include <cuda_runtime.h>
struct Params { float scale[16]; unsigned count; };
__global__ void k(const __grid_constant__ Params p, unsigned* out, int n, long long big)
{
    const Params* q = &p;
    unsigned last = umin(q->count, blockDim.x - 1);
    out[threadIdx.x] = umax(last, n) + (unsigned)llmin(big, (long long)n) + (unsigned)ullmax(2ull, 3ull);
}
"""


def test_umin_and_grid_constant_are_found_and_fixed(build):
    found = _rules(scan(MINMAX, "t.cu", options=R52), "PORT030", "PORT177")
    assert found == [("PORT030", 3), ("PORT177", 6), ("PORT177", 7), ("PORT177", 7), ("PORT177", 7)]
    port = _fixed_port(MINMAX)
    assert b"__grid_constant__" not in port and b"umin" not in port
    assert b"min((unsigned int)(q->count), (unsigned int)(blockDim.x - 1))" in port
    _ok(build(port, "minmax"))
    unfixed = build(translate(MINMAX, "t.cu", R52).output, "minmax_unfixed")
    assert all(rc != 0 and "__grid_constant__" in out for rc, out in unfixed.values())


# ---------------------------------------------------------------- typed out-pointers (void** in HIP)
HOSTPTR = b"""#include <cuda_runtime.h>
void setup(float* host, size_t w, size_t h)
{
    float* dev = nullptr;
    float* pitched = nullptr;
    size_t pitch = 0;
    cudaHostGetDevicePointer(&dev, host, 0);
    cudaMallocPitch(&pitched, &pitch, w * sizeof(float), h);
    cudaMallocPitch((void**)&pitched, &pitch, w * sizeof(float), h);
}
"""


def test_typed_out_pointers_are_cast_to_void_pointers(build):
    port = translate(HOSTPTR, "t.cu", R52).output
    assert b"hipHostGetDevicePointer(reinterpret_cast<void**>(&dev), host, 0)" in port
    assert b"hipMallocPitch(reinterpret_cast<void**>(&pitched), &pitch" in port
    assert b"hipMallocPitch((void**)&pitched, &pitch" in port  # already a void**: left alone
    _ok(build(port, "hostptr"))
    raw = port.replace(b"reinterpret_cast<void**>(&dev)", b"&dev").replace(b"reinterpret_cast<void**>(&pitched)", b"&pitched")
    assert all(rc != 0 and "no matching function" in out for rc, out in build(raw, "hostptr_raw").values())


# ---------------------------------------------------------------- CUDART_VERSION
def test_the_version_test_names_the_branch_hip_compiles():
    src = b"#if CUDART_VERSION >= 12040\nint a;\n#else\nint b;\n#endif\n"
    (f,) = [f for f in scan(src, "t.cu") if f.rule == "PORT173"]
    assert "the test is false, so HIP skips this branch and compiles the #else at line 3" in f.message
    # CUDA 12.0 to 12.3 compile the #else, 12.4 and later the #if: which one HIP is, is the user's choice
    assert f.fix is not None and not f.fix.safe
    assert apply_fixes(src, [f]) == src
    assert b"#if (defined(__HIP_PLATFORM_AMD__) || CUDART_VERSION >= 12040)" in apply_fixes(src, [f], safe_only=False)


# NVIDIA's threadFenceReduction sample: `#if CUDART_VERSION >= 2020` (CUDA 2.2) guards the include of its
# kernels, and its #else calls a CUDA 2.x SDK helper.  Every CUDA release porter translates (12.0 on: porter
# reads cudaGraphInstantiate with CUDA 12's meaning) compiles the first branch; HIP defines no CUDART_VERSION,
# reads 0 and compiled the #else: "use of undeclared identifier" at lines no finding named.
VERSIONED = b"""#include <cuda_runtime.h>
#include <cstdio>
#if CUDART_VERSION >= 2020
__device__ unsigned int retirementCount = 0;
cudaError_t setRetirementCount(unsigned int n)
{
    return cudaMemcpyToSymbol(retirementCount, &n, sizeof(unsigned int), 0, cudaMemcpyHostToDevice);
}
#else
#pragma comment(user, "CUDA 2.2 is required")
#endif
#if CUDART_VERSION < 2020
void reduce() { puts("compiler not supported"); }
#endif
#if __CUDACC_VER_MAJOR__ > 11 || CUDA_VERSION <= 11080
#define USE_NEW_API 1
#endif
void run()
{
#if CUDART_VERSION >= 2020
    setRetirementCount(0);
#else
    print_NVCC_min_spec("threadFenceReduction", "2.2", "Version 185");
#endif
}
"""


def test_a_version_test_every_cuda_12_takes_the_same_way_is_fixed_safely(build):
    found = {f.line: f for f in scan(VERSIONED, "t.cu", options=R52) if f.rule == "PORT173"}
    assert sorted(found) == [3, 12, 15, 20]
    assert found[3].fix.safe and found[12].fix.safe and found[20].fix.safe
    # `__CUDACC_VER_MAJOR__ > 11` is true from CUDA 12 on (safe); `CUDA_VERSION <= 11080` false: one finding per
    # directive, for its first name
    assert found[15].fix.safe
    port = _fixed_port(VERSIONED)
    assert b"#if (defined(__HIP_PLATFORM_AMD__) || CUDART_VERSION >= 2020)" in port
    assert b"#if (!defined(__HIP_PLATFORM_AMD__) && CUDART_VERSION < 2020)" in port
    _ok(build(port, "versioned"))
    unfixed = build(translate(VERSIONED, "t.cu", R52).output, "versioned_unfixed")
    assert all(rc != 0 and "undeclared identifier 'print_NVCC_min_spec'" in out for rc, out in unfixed.values())


# HeCBench's bscan: `#if CUDART_VERSION >= 9000` guards `__ballot_sync`, its #else `__ballot`.  ROCm 5.2 has no
# _sync intrinsics (HIP 6.2 release notes; absent from the 5.2 headers), so at that target the #else is the branch
# that builds and the rewrite stays a suggestion; from ROCm 6.2 on HIP has them and the branch CUDA 12 compiles is
# chosen (its 32-bit mask is PORT020's, whose fix takes the 32-lane half of __ballot).
BALLOT = b"""#include <cuda_runtime.h>
__global__ void flags(unsigned* out, const int* v)
{
#if CUDART_VERSION >= 9000
    unsigned m = __ballot_sync(0xffffffff, v[threadIdx.x] > 0);
#else
    unsigned m = __ballot(v[threadIdx.x] > 0);
#endif
    out[threadIdx.x] = m;
}
"""


def test_a_version_test_whose_branch_the_target_lacks_stays_a_suggestion(build):
    (f,) = [f for f in scan(BALLOT, "t.cu", options=R52) if f.rule == "PORT173"]
    assert not f.fix.safe and "`__ballot_sync`, which HIP 5.2 lacks" in f.fix.description
    port = _fixed_port(BALLOT)
    assert b"#if CUDART_VERSION >= 9000" in port  # --fix leaves the test: HIP 5.2 compiles the #else
    _ok(build(port, "ballot"))
    (f,) = [f for f in scan(BALLOT, "t.cu", options=TranslateOptions(target_rocm="6.2")) if f.rule == "PORT173"]
    assert f.fix.safe
    asm = BALLOT.replace(b"__ballot_sync(0xffffffff, v[threadIdx.x] > 0)", b"0;\n    asm(\"activemask.b32 %0;\" : \"=r\"(m))")
    (f,) = [f for f in scan(asm, "t.cu") if f.rule == "PORT173"]
    assert not f.fix.safe and "inline PTX" in f.fix.description


# ---------------------------------------------------------------- allocFlags, cuda_fp8.h, cusparseGetErrorString
SPARSE = b"""#include <cstdio>
#include <cusparse.h>
#define CHECK_CUSPARSE(call) do { cusparseStatus_t s_ = (call); if (s_ != CUSPARSE_STATUS_SUCCESS) printf("%s\\n", cusparseGetErrorString(s_)); } while (0)
void run()
{
    cusparseHandle_t h;
    CHECK_CUSPARSE(cusparseCreate(&h));
    puts(cusparseGetErrorString(CUSPARSE_STATUS_INVALID_VALUE));
}
"""


def test_status_strings_get_a_switch_over_the_codes_the_target_has(build):
    found = [f for f in scan(SPARSE, "t.cu", options=R52) if f.rule == "PORT032"]
    assert [f.line for f in found] == [3, 8] and all(f.fix and not f.fix.safe for f in found)
    assert "porter_cusparseGetErrorString" in found[0].message
    port = _fixed_port(SPARSE, safe_only=False)
    assert port.count(b"static inline const char* porter_cusparseGetErrorString(hipsparseStatus_t status)") == 1
    assert b'case HIPSPARSE_STATUS_INVALID_VALUE: return "CUSPARSE_STATUS_INVALID_VALUE";' in port
    _ok(build(port, "sparse", ("-lhipsparse",)))  # Debian 12's libhipsparse-dev (ROCm 5.2)
    # a target that has hipsparseGetErrorString gets no finding and no helper
    assert not [f for f in scan(SPARSE, "t.cu", options=TranslateOptions(target_rocm="6.0")) if f.rule == "PORT032"]


def test_fp8_is_a_target_fact_like_bf16():
    src = b"#include <cuda_fp8.h>\n#include <cuda_bf16.h>\n"
    assert _rules(scan(src, "t.cu", options=R52), "PORT032") == [("PORT032", 1), ("PORT032", 2)]
    assert _rules(scan(src, "t.cu", options=TranslateOptions(target_rocm="6.2")), "PORT032") == []
    assert b"#include <cuda_fp8.h>" in translate(src, "t.cu", R52).output  # not emitted for 5.2


def test_alloc_flags_is_newer_than_rocm_52():
    src = b"#include <cuda.h>\nvoid f() { CUmemAllocationProp p = {}; p.allocFlags.gpuDirectRDMACapable = 1; }\n"
    (f,) = [f for f in scan(src, "t.cu", options=R52) if f.rule == "PORT032"]
    assert "allocFlags" in f.message and "compressionType and usage as direct members" in f.message


DEVICE_PROPS = b"""#include <cstdio>
#include <cuda_runtime.h>
int main()
{
    cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    printf("%d %d\\n", prop.multiProcessorCount, prop.warpSize);
    printf("%d\\n", prop.deviceOverlap);
    return prop.major >= 2 && prop.asyncEngineCount > 1;
}
"""


def test_device_properties_rocm_6_added_are_reported_before_it(build):
    """NVIDIA's simpleMultiCopy prints cudaDeviceProp::deviceOverlap and asyncEngineCount: HIP 5.2's
    hipDeviceProp_t has neither (ROCm 6.0's layout has both).  At 5.2 the port fails with both compilers on
    exactly the lines PORT032 flags; at 6.0 nothing is reported."""
    flagged = {line for _r, line in _rules(scan(DEVICE_PROPS, "t.cu", options=R52), "PORT032")}
    assert flagged == {8, 9}
    assert not _rules(scan(DEVICE_PROPS, "t.cu", options=TranslateOptions(target_rocm="6.0")), "PORT032")
    port = translate(DEVICE_PROPS, "t.cu", R52).output.replace(b"int main()", b"int main2()")
    assert port.count(b"\n") == DEVICE_PROPS.count(b"\n")
    for arch, (rc, out) in build(port, "device_props").items():
        failing = {int(m) for m in re.findall(r"device_props\.hip:(\d+):\d+: error:", out)}
        assert rc != 0 and failing == flagged, (arch, sorted(failing), out[-1500:])


# ---------------------------------------------------------------- min(unsigned, blockDim.x)
def test_min_of_a_coordinate_is_an_error_for_older_targets_and_an_info_after():
    src = b"__global__ void k(unsigned* o, unsigned n) { o[0] = min(n, blockDim.x); }\n"
    (old,) = [f for f in scan(src, "t.cu", options=R52) if f.rule == "PORT174"]
    (new,) = [f for f in scan(src, "t.cu", options=TranslateOptions(target_rocm="6.1")) if f.rule == "PORT174"]
    assert old.severity == "error" and new.severity == "info" and old.fix.safe and new.fix.safe
    assert "6.1" in new.message


# ---------------------------------------------------------------- project vector operators
def test_a_header_operator_is_reported_at_its_uses_in_the_including_file(tmp_path):
    (tmp_path / "helper_math.h").write_text(
        "#pragma once\n#include <cuda_runtime.h>\n"
        "inline __host__ __device__ void operator+=(float4 &a, float4 b)\n"
        "{\n    a.x += b.x; a.y += b.y; a.z += b.z; a.w += b.w;\n}\n")
    cu = tmp_path / "k.cu"
    cu.write_bytes(b'#include "helper_math.h"\n__global__ void k(float4* o, const float4* in)\n'
                   b"{\n    float4 s = o[0];\n    s += in[1];\n    o[0] = s;\n}\n")
    (use,) = [f for f in scan(cu.read_bytes(), str(cu)) if f.rule == "PORT176"]
    assert use.line == 5 and "helper_math.h:3" in use.message and use.fix is None
    (defn,) = [f for f in scan((tmp_path / "helper_math.h").read_bytes(), "helper_math.h") if f.rule == "PORT170"]
    assert defn.fix.safe  # component by component: HIP's member does the same


# ---------------------------------------------------------------- atomicInc on the clang-19 path
ATOMIC = b"""#include <cuda_runtime.h>
__global__ void ring(unsigned* head, unsigned* slots, unsigned size)
{
    unsigned slot = atomicInc(head, size - 1);
    slots[slot] = atomicDec(head + 1, size - 1);
}
"""


def test_atomic_inc_links_for_gfx942_after_the_fix(build):
    assert _rules(scan(ATOMIC, "t.cu", options=R52), "PORT175") == [("PORT175", 4), ("PORT175", 5)]
    unfixed = build(translate(ATOMIC, "t.cu", R52).output, "atomic_unfixed")
    assert unfixed["gfx90a"][0] == 0  # hipcc 5.2 (LLVM 15) still has the intrinsic
    assert unfixed["gfx942"][0] != 0 and "llvm.amdgcn.atomic.inc.i32" in unfixed["gfx942"][1]
    _ok(build(_fixed_port(ATOMIC), "atomic"))


def test_bit_scans_of_another_type_compile_after_the_fix(build):
    """HeCBench's langford: ``__ffsll(openings[d])`` with ``int64_t* openings`` (a long on Linux) is ambiguous
    between HIP's two overloads; the fixture's port fails with both compilers on exactly the lines PORT186
    flags, and compiles (and links) once --fix casts each argument to CUDA's parameter type."""
    fixtures = Path(__file__).with_name("fixtures") / "PORT186"
    src = (fixtures / "positive.cu").read_bytes()
    flagged = {line for _rule, line in _rules(scan(src, "t.cu", options=R52), "PORT186")}
    unfixed = build(translate(src, "t.cu", R52).output, "ffs_unfixed")
    for arch, (rc, out) in unfixed.items():
        failing = {int(m) for m in re.findall(r"ffs_unfixed\.hip:(\d+):\d+: error: call to '__ffs(?:ll)?' is ambiguous", out)}
        assert rc != 0 and failing == flagged, (arch, sorted(failing), sorted(flagged), out[-1500:])
    _ok(build(_fixed_port(src), "ffs"))
    _ok(build(translate((fixtures / "negative.cu").read_bytes(), "t.cu", R52).output, "ffs_negative"))


def test_tile_shuffles_of_composite_values_fail_where_port188_says(build):
    """NVIDIA's shfl_scan: ``tile.shfl_xor(result.y, 1)`` on a ``uint4`` member. HIP's tile shuffles
    static_assert an integer or floating type; the fixture's port fails (the assertion, instantiated from
    each call) on exactly the lines PORT188 flags, with both compilers, and its negative compiles."""
    fixtures = Path(__file__).with_name("fixtures") / "PORT188"
    src = (fixtures / "positive.cu").read_bytes()
    assert len(_rules(scan(src, "t.cu", options=R52), "PORT188")) == src.count(b"expect: PORT188")
    port = translate(src, "t.cu", R52).output
    marked = {i for i, line in enumerate(port.decode().splitlines(), 1) if "expect: PORT188" in line}
    for arch, (rc, out) in build(port, "tile_shfl").items():
        failing = {int(m) for m in re.findall(r"tile_shfl\.hip:(\d+):\d+: (?:error|note: in instantiation)", out)}
        assert rc != 0 and "Neither an integer or float type" in out and failing == marked, (arch, sorted(failing), out[-1500:])
    _ok(build(translate((fixtures / "negative.cu").read_bytes(), "t.cu", R52).output, "tile_shfl_negative"))


def test_host_half_arithmetic_fails_where_port189_says(build):
    """HeCBench's nlll (ROCm/hip issue 3690): a host reference computed with ``half``. HIP's __half operators
    are __device__ only before ROCm 6.4; the fixture's port fails with both compilers (HIP 5.2 headers) on
    exactly the lines PORT189 flags at --target-rocm 5.2, a template's through its instantiation with half;
    the negative (device code, float on the host, a template instantiated with float) compiles; at 6.4 the
    rule says nothing."""
    src = _fails_where_flagged(build, "PORT189", "host_half")
    assert not _rules(scan(src, "t.cu", options=TranslateOptions(target_rocm="6.4")), "PORT189")


def test_device_addresses_used_as_integers_fail_where_port190_says(build):
    """NVIDIA's matrixMulDrv: a size_t stored through ``CUdeviceptr*`` into the kernel's argument buffer, and
    byte offsets added to device addresses. CUdeviceptr is an unsigned long long, the port's hipDeviceptr_t a
    void*: the fixture's port fails with both compilers on exactly the lines PORT190 flags, compiles once
    --fix has cast them, and its negative (addresses kept as addresses) compiles as it is."""
    src = _fails_where_flagged(build, "PORT190", "devptr")
    _ok(build(_fixed_port(src), "devptr_fixed"))


def test_a_header_template_instantiated_with_half_is_reported_at_the_call(tmp_path):
    """nlll's shape: the host template is in a project header, the instantiation with half (through another
    template) in the .cu; the finding is at the call and names the header's lines, the ones the compilers
    stop at (the same operators as the fixture's template)."""
    (tmp_path / "reference.h").write_text(
        "template <typename scalar_t, typename acc_t, typename index_t>\n"
        "void reference(const scalar_t* in, const index_t* t, scalar_t* out, int n)\n"
        "{\n"
        "  acc_t acc = 0;\n"
        "  for (int i = 0; i < n; i++)\n"
        "    if (t[i] != 0) acc += static_cast<acc_t>(in[i] * in[i]);\n"
        "  *out = static_cast<scalar_t>(acc);\n"
        "}\n")
    cu = tmp_path / "main.cu"
    cu.write_bytes(b'#include <cuda_fp16.h>\n#include "reference.h"\n'
                   b"template <typename scalar_t, typename index_t>\n"
                   b"void driver(const scalar_t* in, const index_t* t, int n)\n{\n  scalar_t r;\n"
                   b"  reference<scalar_t, scalar_t, index_t>(in, t, &r, n);\n}\n"
                   b"int main() { half h[2]; int t[2]; driver<half, int>(h, t, 2);\n"
                   b"  float f[2]; driver<float, int>(f, t, 2); return 0; }\n")
    (call,) = [f for f in scan(cu.read_bytes(), str(cu), options=R52) if f.rule == "PORT189"]
    assert call.line == 7 and "line 6 of reference.h" in call.message and "driver<half, int>" in call.message
    float_only = cu.read_bytes().replace(b"driver<half, int>(h, t, 2);", b"")
    assert not [f for f in scan(float_only, str(cu), options=R52) if f.rule == "PORT189"]


def test_the_build_error_names_the_rule():
    from porter.build.diagnostics import known_problems

    problems, _libs = known_problems()
    messages = {
        "lld: error: undefined hidden symbol: llvm.amdgcn.atomic.inc.i32.p0i32": "PORT175",
        "call to 'min' is ambiguous": "PORT174",
        "call to '__ffsll' is ambiguous": "PORT186",
        "static assertion failed due to requirement 'integral_constant<bool, false>::value': Neither an integer or float type.": "PORT188",
        "use of overloaded operator '+=' is ambiguous (with operand types 'float4')": "PORT176",
        "use of undeclared identifier 'umin'": "PORT177",
        "unknown type name '__grid_constant__'": "PORT030",
        "use of undeclared identifier 'CUDART_VERSION'": "PORT173",
        "no member named 'allocFlags' in 'hipMemAllocationProp'": "PORT032",
        "no template named 'block_tile_memory' in namespace 'cooperative_groups'": "PORT071",
        "no member named 'ballot' in 'cooperative_groups::thread_block_tile<32>'": "PORT194",
        "no member named 'any' in 'cooperative_groups::coalesced_group'": "PORT194",
        "no member named 'experimental' in namespace 'cooperative_groups'": "PORT071",
        "no namespace named 'experimental' in namespace 'cooperative_groups'": "PORT071",
        "redefinition of 'atomicMax'": "PORT170",
        # (hipcc 5.2's message for nlll's reference.h, with its note)
        "invalid operands to binary expression ('const __half' and '__half')\nnote: candidate function not viable: "
        "call to __device__ function from __host__ function": "PORT189",
        # (both compilers' message for the PORT191 fixture's port)
        "no matching function for call to 'hipMemcpyHtoDAsync'": "PORT191",
    }
    for message, rule in messages.items():
        hit = next((p for p in problems if p.regex.search(message)), None)
        assert hit is not None and hit.rule == rule, message
        assert rule in catalogue()


# ---------------------------------------------------------------- the mapping facts
def test_cooperative_groups_experimental_fails_where_port071_says(build):
    """NVIDIA's reduction sample reduces with cg::experimental::tiled_partition<N> of
    cg::experimental::this_thread_block(scratch): HIP has no experimental namespace, and the tile's line was
    the one error of the sample no finding pointed at.  Any name in it, and an alias to it, fail with both
    compilers on exactly the lines PORT071 flags; the same tiles outside it compile."""
    _fails_where_flagged(build, "PORT071", "cg_experimental", "_experimental")


def test_group_votes_fail_where_port194_says(build):
    """NVIDIA's cdpQuadtree votes with tile32.ballot/any, cdpAdvancedQuicksort with a coalesced group's
    ballot: HIP 5.2's groups have no votes, and those lines were errors no finding pointed at.  They fail with
    both compilers on exactly the lines PORT194 flags; a project's own any/ballot members compile."""
    src = _fails_where_flagged(build, "PORT194", "cg_votes")
    # the tile's votes written as the messages say (the tile's size and predicate filled in) compile
    tile = [f for f in scan(src, "t.cu", options=R52) if f.rule == "PORT194" and "packed by rank" not in f.message]
    assert len(tile) == 3
    lines = src.decode().splitlines()
    for f in tile:
        written = re.search(r"`([^`]*__ballot\((?!p\))[^`]*)`", f.message).group(1)
        call = f.message.split("`")[1]
        assert call in lines[f.line - 1], (call, lines[f.line - 1])
        lines[f.line - 1] = lines[f.line - 1].replace(call, written)
    rewritten = "\n".join(lines[:16]) + "\n"  # (the tiles' kernel, not the coalesced group's)
    _ok(build(translate(rewritten.encode(), "t.cu", R52).output, "cg_votes_written"))


def test_cooperative_groups_reduce_is_in_no_rocm_porter_knows():
    from porter.mapping import load_database

    db = load_database()
    for header in ("cooperative_groups/reduce.h", "cooperative_groups/scan.h"):
        entry = db.headers[header]
        assert entry.status == "unsupported" and not entry.available_in("6.3") and "#3625" in entry.source
    src = b"#include <cooperative_groups.h>\n#include <cooperative_groups/reduce.h>\n"
    assert b"#include <cooperative_groups/reduce.h>" in translate(src, "t.cu").output  # not a header without it
    assert _rules(scan(src, "t.cu"), "PORT071", "PORT030", "PORT032") == [("PORT071", 2)]


def test_grid_constant_is_in_the_database_and_umin_a_rule_of_its_own():
    from porter.mapping import load_database

    db = load_database()
    assert db.identifiers["__grid_constant__"].status == "unsupported"
    # umin & co. are words a project may use for its own things: PORT177 reports the calls, no database entry
    assert not any(name in db.identifiers for name in ("umin", "umax", "llmin", "llmax", "ullmin", "ullmax"))
    fixtures = Path(__file__).with_name("fixtures")
    assert (fixtures / "PORT177" / "fixed.cu").read_text().count("min((unsigned int)(") == 1


def test_const_host_sources_fail_where_port191_says(build):
    """cuMemcpyHtoD / cuMemcpyHtoDAsync take `const void *srcHost` (cuda.h); HIP's forms take `void* src` before
    HIP 7.0 (HIP 5.2's hip_runtime_api.h, read here): the fixture's port (const parameters, a const vector's
    data(), const tables, a string literal) fails with both compilers on exactly the lines PORT191 flags,
    compiles once --fix has cast them, and its negative (data that is not const) compiles; at 7.0 the rule
    says nothing."""
    header = Path("/usr/include/hip/hip_runtime_api.h").read_text()
    assert re.search(r"hipMemcpyHtoD\(hipDeviceptr_t dst, void\* src,", header)  # the premise
    src = _fails_where_flagged(build, "PORT191", "htod")
    assert not _rules(scan(src, "t.cu", options=TranslateOptions(target_rocm="7.0")), "PORT191")
    _ok(build(_fixed_port(src), "htod_fixed"))


# ---------------------------------------------------------------- CUDA math functions in host code (PORT192)
# CUDA's host rsqrtf, printed by nvcc 13.0 (V13.0.88) host code on this project's machine (2026-12-07): input bits ->
# result bits.  CUDA computes it as (float)(1.0 / sqrt((double)x)) (no difference on 4,000,012 inputs there).
CUDA_HOST_RSQRTF = {
    0x3f800000: 0x3f800000, 0x40800000: 0x3f000000, 0x00000000: 0x7f800000, 0x80000000: 0xff800000,
    0x7f800000: 0x00000000, 0xff800000: 0xffc00000, 0x7fc00000: 0x7fc00000, 0x00000001: 0x64b504f3,
    0x00800000: 0x5f000000, 0x7f7fffff: 0x1f800000, 0x3e800000: 0x40000000, 0x3fb504f3: 0x3f5744fd,
    0x40490fdb: 0x3f106eba, 0x3a83126f: 0x41fcfb72, 0x501502f9: 0x3727c5ac, 0x2edbe6ff: 0x47c35000,
    0xbf800000: 0xffc00000, 0x3f7fffff: 0x3f800000, 0x3f800001: 0x3f7fffff, 0x4b000001: 0x39b504f2,
}


def test_host_math_fails_where_port192_says(build):
    _fails_where_flagged(build, "PORT192", "hostmath")
    more = Path(__file__).with_name("fixtures") / "PORT192"
    # with <math.h> the global classification compiles: nothing to report, and nothing fails
    math_h = (more / "negative_math_h.cu").read_bytes()
    assert not _rules(scan(math_h, "t.cu", options=R52), "PORT192")
    _ok(build(translate(math_h, "t.cu", R52).output, "hostmath_math_h"))
    # in a __host__ __device__ function std::isfinite changes the device side too: a fix to review, not a safe one
    hd = (more / "positive_host_device.cu").read_bytes()
    (classify,) = [f for f in scan(hd, "t.cu", options=R52) if f.rule == "PORT192" and "isfinite" in f.message]
    assert classify.fix is not None and not classify.fix.safe
    (host,) = [f for f in scan(b"bool ok(float x) { return isfinite(x); }\n", "t.cu", options=R52) if f.rule == "PORT192"]
    assert host.fix.safe
    # __host__ __device__ functions the host compile never emits (inline, static, template; device callers only)
    unemitted = (more / "negative_host_device.cu").read_bytes()
    assert not _rules(scan(unemitted, "t.cu", options=R52), "PORT192")
    _ok(build(translate(unemitted, "t.cu", R52).output, "hostmath_hd"))
    # the functions with no C++ library counterpart fail where they are flagged too, in a host lambda as well
    # (clang's "reference to __device__ function", a deferred error it prints only when nothing else failed)
    for fixture in ("positive_more", "positive_lambda", "positive_host_device"):
        src = (more / f"{fixture}.cu").read_bytes()
        flagged = {line for _r, line in _rules(scan(src, "t.cu", options=R52), "PORT192")}
        assert flagged
        for arch, (rc, out) in build(translate(src, "t.cu", R52).output, fixture).items():
            failing = {int(m) for m in re.findall(rf"{fixture}\.hip:(\d+):\d+: error:", out)}
            assert rc != 0 and failing == flagged, (arch, sorted(failing), sorted(flagged), out[-1500:])


def test_the_rsqrtf_fix_gives_cudas_host_result(tmp_path):
    """The fix's expression, compiled for the host as the port has it, against CUDA's host rsqrtf's results."""
    from host_programs import run_host_program

    findings = [f for f in scan(b"float r(float x) { return rsqrtf(x); }\n", "t.cu") if f.rule == "PORT192"]
    [edit] = findings[0].fix.edits
    expression = edit.replacement.replace("(x)", "(v)")
    program = ("#include <cmath>\n#include <cstdio>\n#include <cstring>\n#include <cstdint>\nint main() {\n"
               f"  const uint32_t in[] = {{{', '.join(hex(k) + 'u' for k in CUDA_HOST_RSQRTF)}}};\n"
               "  for (uint32_t u : in) { float v; std::memcpy(&v, &u, 4); float r = " + expression + ";\n"
               "    uint32_t b; std::memcpy(&b, &r, 4); std::printf(\"%08x %08x\\n\", u, b); }\n}\n")
    got = {int(a, 16): int(b, 16) for a, b in (line.split() for line in run_host_program(program, "rsqrtf", tmp_path).split("\n") if line.strip())}
    assert got == CUDA_HOST_RSQRTF


# ---------------------------------------------------------------- the `register` storage class (PORT193)
def test_register_fails_where_port193_says_and_compiles_without_it(build):
    """HeCBench's ntt declares its butterflies' samples `register`: nvcc 13 compiles that as C++17, clang
    rejects it in C++17 (HIP's language: clang-19's default, and the -std=c++17 the project passes hipcc 5.2).
    The port fails with both on exactly the lines PORT193 flags; with the safe fix it compiles."""
    fixtures = Path(__file__).with_name("fixtures") / "PORT193"
    src = (fixtures / "positive.cu").read_bytes()
    flagged = {line for _r, line in _rules(scan(src, "t.cu", options=R52), "PORT193")}
    assert flagged == {i for i, line in enumerate(src.decode().splitlines(), 1) if "expect: PORT193" in line}
    for arch, (rc, out) in build(translate(src, "t.cu", R52).output, "register", ("-std=c++17",)).items():
        failing = {int(m) for m in re.findall(r"register\.hip:(\d+):\d+: error:", out)}
        assert rc != 0 and failing == flagged, (arch, sorted(failing), sorted(flagged), out[-1500:])
    _ok(build(_fixed_port(src), "register_fixed", ("-std=c++17",)))
    _ok(build(translate((fixtures / "negative.cu").read_bytes(), "t.cu", R52).output, "register_negative", ("-std=c++17",)))


def test_register_is_left_where_it_means_something():
    # a GNU explicit register variable: the keyword goes with the asm label (removing it makes another declaration)
    explicit = b"void f() { register unsigned long sp asm(\"rsp\"); (void)sp; }\n"
    assert not _rules(scan(explicit, "t.cu", options=R52), "PORT193")
    # a C source: C keeps `register` (and the address of such a variable cannot be taken there)
    c_code = b"int sum(const int* v, int n) { register int s = 0; for (int i = 0; i < n; i++) s += v[i]; return s; }\n"
    assert not _rules(scan(c_code, "sum.c", options=R52), "PORT193")
    assert _rules(scan(c_code, "sum.cpp", options=R52), "PORT193") == [("PORT193", 1)]


def test_register_in_a_c_file_a_cuda_source_includes_is_reported(tmp_path):
    # HeCBench's heat2d: main.cu does `#include "lapl_ss.c"`, so the C file is compiled as C++ (HIP)
    c_code = b"static int sum(const int* v, int n) { register int s = 0; for (int i = 0; i < n; i++) s += v[i]; return s; }\n"
    (tmp_path / "lapl_ss.c").write_bytes(c_code)
    (tmp_path / "other.c").write_bytes(c_code)
    (tmp_path / "main.cu").write_text('#include "lapl_ss.c"\nint main() { int v[2] = {1, 2}; return sum(v, 2); }\n')
    assert _rules(scan(c_code, str(tmp_path / "lapl_ss.c"), options=R52), "PORT193") == [("PORT193", 1)]
    assert not _rules(scan(c_code, str(tmp_path / "other.c"), options=R52), "PORT193")
