"""atomicInc_system / atomicDec_system (NVIDIA's systemWideAtomics sample): no HIP header declares them, so
their port stops with "use of undeclared identifier" on both compilers.  PORT175 rewrites them into
``__builtin_amdgcn_atomic_inc32/dec32(p, v, __ATOMIC_RELAXED, "")``: CUDA's wrap-around increment and
decrement (CUDA Programming Guide: ``((old >= val) ? 0 : (old + 1))`` and ``(((old == 0) || (old > val)) ? val :
(old - 1))``) at the system scope, atomic for the CPU and other devices too.  clang spells LLVM's system
scope as the empty string: the tests read the LLVM IR each compiler emits for the fixed port (clang-19 for
gfx942: an ``atomicrmw uinc_wrap/udec_wrap`` with no ``syncscope``, which is the system scope; hipcc 5.2
for gfx90a: the intrinsic's scope operand 1, LLVM's ``SyncScope::System``), beside a device-wide call
whose scope is "agent".  One finding stands at each call: PORT030 ("no HIP equivalent", no fix) yields to
PORT175, whose message says HIP has no such function and offers the fix."""

from __future__ import annotations

import os
import re

import pytest

import killable
from porter.findings import apply_fixes, scan
from porter.translate import TranslateOptions, translate

# the shape of systemWideAtomics.cu's kernel: system-wide wrap counters beside a device-wide one
SYSTEM = b"""#include <cuda_runtime.h>
__global__ void atomicKernel(unsigned int* atom_arr, unsigned int* dev_only)
{
    unsigned int tid = blockDim.x * blockIdx.x + threadIdx.x;
    atomicInc_system((unsigned int *)&atom_arr[0], 17);
    atomicDec_system((unsigned int *)&atom_arr[1], 137);
    dev_only[tid] = atomicInc(dev_only + 64, 5u);
}
"""
TARGETS = (TranslateOptions(), TranslateOptions(target_rocm="5.2"))


def _fixed_port(src: bytes, options: TranslateOptions) -> bytes:
    """``porter convert --fix``: the safe fixes applied to the CUDA, then the translation."""
    return translate(apply_fixes(src, scan(src, "t.cu", options=options)), "t.cu", options).output


@pytest.mark.parametrize("options", TARGETS, ids=["default", "rocm5.2"])
def test_one_error_with_the_fix_at_each_system_call(options):
    found = [f for f in scan(SYSTEM, "t.cu", options=options) if f.line in (5, 6)]
    assert [(f.rule, f.line, f.severity) for f in found] == [("PORT175", 5, "error"), ("PORT175", 6, "error")]
    for f, name in zip(found, ("atomicInc_system", "atomicDec_system")):
        assert f"HIP has no `{name}`" in f.message and f.fix is not None and f.fix.safe
    fixed = _fixed_port(SYSTEM, options)
    assert b'__builtin_amdgcn_atomic_inc32((unsigned int *)&atom_arr[0], 17, __ATOMIC_RELAXED, "")' in fixed
    assert b'__builtin_amdgcn_atomic_dec32((unsigned int *)&atom_arr[1], 137, __ATOMIC_RELAXED, "")' in fixed
    assert b"_system" not in fixed


def test_where_porter175_does_not_apply_port030_still_reports():
    # a call of another arity is nobody's atomicInc_system: PORT030's finding stays, with no fix
    src = b"__global__ void k(unsigned* p) { atomicInc_system(p); }\n"
    found = [(f.rule, f.fix) for f in scan(src, "t.cu") if f.rule in ("PORT030", "PORT175")]
    assert found == [("PORT030", None)]


# ---------------------------------------------------------------- compiled: both compilers, and the IR
def _ir(tmp_path, libs: str, source: bytes, name: str) -> dict[str, tuple[int, str]]:
    """{arch: (returncode, LLVM IR or the compiler's output)} of the device code: hipcc 5.2 for gfx90a,
    clang-19 for gfx942 (``libs``: porter's device-library folder)."""
    src = tmp_path / f"{name}.hip"
    src.write_bytes(source)
    cmds = {
        "gfx90a": ["hipcc", "--offload-arch=gfx90a", "-x", "hip", "-O2"],
        "gfx942": ["clang++-19", "-x", "hip", "--offload-arch=gfx942", "--rocm-path=/usr",
                   f"--rocm-device-lib-path={libs}", "-std=c++17", "-O2"],
    }
    env = dict(os.environ, HIP_PLATFORM="amd")
    out = {}
    for arch, cmd in cmds.items():
        ll = tmp_path / f"{name}-{arch}.ll"
        rc, text = killable.run([*cmd, "-S", "-emit-llvm", "--cuda-device-only", str(src), "-o", str(ll)], 300, env,
                                f"{cmd[0]} -emit-llvm")
        if rc == 0:  # and the whole program links (the device link is where atomicInc once failed)
            rc, text = killable.run([*cmd, str(src), "-o", str(tmp_path / f"{name}-{arch}"),
                                     *(["-L/usr/lib/x86_64-linux-gnu", "-lamdhip64"] if arch == "gfx942" else [])],
                                    300, env, f"{cmd[0]} link")
            text = ll.read_text() if rc == 0 else text
        out[arch] = (rc, text)
    return out


def test_the_port_did_not_compile_before_the_fix(tmp_path, gfx942_device_libs):
    port = translate(SYSTEM, "t.cu", TranslateOptions(target_rocm="5.2")).output + b"\nint main() { return 0; }\n"
    for arch, (rc, out) in _ir(tmp_path, gfx942_device_libs, port, "unfixed").items():
        assert rc != 0 and "use of undeclared identifier 'atomicInc_system'" in out, (arch, out[-1500:])


@pytest.mark.parametrize("options", TARGETS, ids=["default", "rocm5.2"])
def test_the_fixed_port_links_and_its_atomics_have_the_system_scope(tmp_path, gfx942_device_libs, options):
    port = _fixed_port(SYSTEM, options) + b"\nint main() { return 0; }\n"
    results = _ir(tmp_path, gfx942_device_libs, port, "fixed")
    bad = {arch: out[-2000:] for arch, (rc, out) in results.items() if rc != 0}
    assert not bad, bad
    # clang-19: uinc_wrap / udec_wrap; the system ones carry no syncscope, the device-wide one "agent"
    rmw = []
    for line in re.findall(r"atomicrmw (?:uinc_wrap|udec_wrap) [^\n]*", results["gfx942"][1]):
        scope = re.search(r'syncscope\("(\w+)"\)', line)
        rmw.append((line.split()[1], scope.group(1) if scope else "system"))
    assert sorted(rmw) == [("udec_wrap", "system"), ("uinc_wrap", "agent"), ("uinc_wrap", "system")], rmw
    # hipcc 5.2 (LLVM 15): llvm.amdgcn.atomic.inc/dec.i32(ptr, value, ordering, scope, volatile); scope 1 is
    # SyncScope::System (LLVM's LLVMContext.h: SingleThread = 0, System = 1), any named scope gets another id
    calls = re.findall(r"call i32 @llvm\.amdgcn\.atomic\.(inc|dec)\.i32\.p1\([^,]+, i32 %?\w+, i32 (\d+), i32 (\d+)",
                       results["gfx90a"][1])
    assert sorted((op, int(scope) == 1) for op, _order, scope in calls) == [("dec", True), ("inc", False),
                                                                           ("inc", True)], calls
