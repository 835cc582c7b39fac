"""Fixes that must not break the port: a fix adds the #include its replacement needs
(the PTX cvt.rn.f16.f32 idiom: __float2half_rn is declared by <hip/hip_fp16.h>), and
the __CUDA_ARCH__ fix (PORT100) neither writes `defined(X) && defined(X)` nor sends
AMD device code into an inline-PTX branch that an unset __CUDA_ARCH__ (read as 0)
keeps it out of today.  Checked in the app's path too (FileReview.apply_fix, write,
porter build for gfx90a and gfx942) where the toolchains are installed."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from porter.findings import apply_fixes, scan
from porter.translate import translate

CVT = b'''#include <cuda_runtime.h>
#include <cstdio>

__device__ unsigned short to_half_bits(float f) {
    unsigned short h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
    return h;
}

__device__ unsigned short twice(float f) {
    unsigned short h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(2.0f * f));
    return h;
}

__global__ void k(const float *in, unsigned short *out) {
    out[threadIdx.x] = to_half_bits(in[threadIdx.x]) ^ twice(in[threadIdx.x]);
}
'''

NANOSLEEP = b'''#include <cuda_runtime.h>

__device__ void backoff(unsigned ns) {
#if __CUDA_ARCH__ >= 700
    asm volatile("nanosleep.u32 %0;" :: "r"(ns));
#else
    for (volatile unsigned i = 0; i < ns; ++i) {}
#endif
}

__global__ void k(unsigned ns) { backoff(ns); }
'''


def _fixed(src: bytes, rule: str) -> tuple[list, bytes]:
    findings = [f for f in scan(src, "t.cu") if f.rule == rule]
    return findings, apply_fixes(src, findings, safe_only=False)


def test_the_cvt_f16_fix_includes_cuda_fp16_once_after_the_last_include():
    findings, fixed = _fixed(CVT, "PORT001")
    assert len(findings) == 2 and all(f.fix for f in findings)
    text = fixed.decode()
    assert text.count("#include <cuda_fp16.h>") == 1  # two fixes, one include
    lines = text.splitlines()
    assert lines.index("#include <cuda_fp16.h>") == lines.index("#include <cstdio>") + 1
    assert "__float2half_rn(f)" in text and "asm(" not in text
    hip = translate(fixed, "t.cu").output.decode()
    assert hip.count("#include <hip/hip_fp16.h>") == 1
    assert hip.index("#include <hip/hip_fp16.h>") < hip.index("__float2half_rn")


@pytest.mark.parametrize("already", [b"#include <cuda_fp16.h>\n", b"#include <hip/hip_fp16.h>\n"])
def test_the_cvt_f16_fix_adds_no_include_a_file_already_has(already):
    src = already + CVT
    findings, fixed = _fixed(src, "PORT001")
    assert all(len(f.fix.edits) == 1 for f in findings)  # the statement only
    assert fixed.count(b"fp16.h>") == 1


def test_the_cvt_f16_fix_in_a_file_without_includes_puts_it_at_the_top():
    body = CVT.split(b"\n", 2)[2]
    _, fixed = _fixed(body, "PORT001")
    assert fixed.startswith(b"#include <cuda_fp16.h>\n")


def test_the_arch_test_after_defined_is_rewritten_whole():
    src = (b"__device__ float f(float x) {\n#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700\n"
           b"    return x * 2.0f;\n#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 600\n    return x * 3.0f;\n"
           b"#else\n    return x;\n#endif\n}\n")
    findings, fixed = _fixed(src, "PORT100")
    assert len(findings) == 2 and all(f.fix for f in findings)
    text = fixed.decode()
    assert "#if defined(__HIP_DEVICE_COMPILE__)\n" in text  # device code of a recent arch: MI300X is one
    assert "#elif 0\n" in text  # device code of an arch before sm_60: an AMD device never is
    hip = translate(fixed, "t.cu").output.decode()
    assert "defined(__HIP_DEVICE_COMPILE__) && defined(__HIP_DEVICE_COMPILE__)" not in hip
    assert "__CUDA_ARCH__" not in hip


@pytest.mark.parametrize("src", [
    NANOSLEEP,
    NANOSLEEP.replace(b"#if __CUDA_ARCH__ >= 700", b"#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700"),
    # the PTX sits in the branch the device would take once `< 700` reads as "host only"
    NANOSLEEP.replace(b"#if __CUDA_ARCH__ >= 700", b"#if __CUDA_ARCH__ < 700").replace(
        b'    asm volatile("nanosleep.u32 %0;" :: "r"(ns));\n#else\n    for (volatile unsigned i = 0; i < ns; ++i) {}',
        b'    for (volatile unsigned i = 0; i < ns; ++i) {}\n#else\n    asm volatile("nanosleep.u32 %0;" :: "r"(ns));'),
], ids=["ge", "defined-and-ge", "lt-with-ptx-in-else"])
def test_no_arch_fix_sends_device_code_into_inline_ptx(src):
    findings = [f for f in scan(src, "t.cu") if f.rule == "PORT100"]
    assert findings  # still reported: the test reads 0 on AMD
    assert all(f.fix is None for f in findings), [f.fix.description for f in findings if f.fix]


def test_an_empty_barrier_asm_does_not_block_the_arch_fix():
    src = NANOSLEEP.replace(b'asm volatile("nanosleep.u32 %0;" :: "r"(ns));', b'asm volatile("" ::: "memory");')
    findings = [f for f in scan(src, "t.cu") if f.rule == "PORT100"]
    assert findings and findings[0].fix is not None


# ---------------------------------------------------------------- compiled, in the app's path

def _build(out: Path, arch: str, cache: Path) -> dict:
    env = dict(os.environ, PORTER_CACHE_DIR=str(cache))
    r = subprocess.run([sys.executable, "-m", "porter", "build", str(out), "--arch", arch, "--json"],
                       capture_output=True, text=True, timeout=600, env=env,
                       cwd=Path(__file__).resolve().parents[2])
    line = next(ln for ln in r.stdout.splitlines() if ln.startswith("{"))
    return json.loads(line)


@pytest.mark.hipcc
@pytest.mark.parametrize("arch", ["gfx90a", "gfx942"])
def test_the_cvt_fix_applied_in_the_app_compiles(tmp_path, arch, amd_compilers):
    from porter.project.review_project import ReviewProject

    root = tmp_path / "proj"
    root.mkdir()
    (root / "half.cu").write_bytes(CVT)
    project = ReviewProject(root, tmp_path / "proj-hip")
    fr = project.files[0]
    project.load_file(fr)
    for f in [f for f in fr.findings if f.rule == "PORT001"]:
        assert fr.apply_fix(f)
    fr.accept_all()
    assert not project.write().errors
    rep = _build(project.output, arch, tmp_path / "cache")
    assert rep["ok"], rep.get("diagnostics")
    # without the include the same port does not compile: the include is what the fix needs
    written = project.output / "half.cu"
    written.write_text(written.read_text().replace("#include <hip/hip_fp16.h>\n", ""))
    rep = _build(project.output, arch, tmp_path / "cache")
    assert not rep["ok"] and any("__float2half_rn" in d.get("message", "") for d in rep["diagnostics"])


@pytest.mark.hipcc
@pytest.mark.parametrize("arch", ["gfx90a", "gfx942"])
def test_the_unfixed_nanosleep_guard_compiles_and_the_rejected_rewrite_would_not(tmp_path, arch, amd_compilers):
    # why PORT100 offers no fix here: its rewrite would compile the PTX branch for the device
    out = tmp_path / "out"
    out.mkdir()
    (out / "sleep.cu").write_bytes(translate(NANOSLEEP, "sleep.cu").output)
    assert _build(out, arch, tmp_path / "cache")["ok"]
    (out / "sleep.cu").write_bytes(translate(NANOSLEEP.replace(b"__CUDA_ARCH__ >= 700",
                                                               b"defined(__HIP_DEVICE_COMPILE__)"), "sleep.cu").output)
    assert not _build(out, arch, tmp_path / "cache")["ok"]


FIXTURES = Path(__file__).with_name("fixtures")


@pytest.mark.hipcc
@pytest.mark.parametrize("which", ["safe", "every"])
def test_the_fixes_of_every_fixture_applied_in_the_app_compile_for_gfx90a_and_gfx942(tmp_path, which, amd_compilers):
    """The positive C++ fixture of every rule with a fix, through the review app's engine path
    (FileReview.apply_fixes: F applies the safe ones; f any one), written and built by porter build."""
    from porter.project.review_project import ReviewProject

    root = tmp_path / "fixtures"
    root.mkdir()
    for folder in sorted(FIXTURES.iterdir()):
        kinds = ("fixed.cu",) if which == "safe" else ("fixed.cu", "suggested.cu")
        if any((folder / k).exists() for k in kinds):
            shutil.copy(folder / "positive.cu", root / f"{folder.name}.cu")
    project = ReviewProject(root, tmp_path / "fixtures-hip")
    applied = 0
    for fr in project.files:
        project.load_file(fr)
        chosen = fr.safe_fixes() if which == "safe" else [f for f in fr.findings if f.fix and f.fix.edits]
        applied += fr.apply_fixes(chosen) if chosen else 0
        fr.accept_all()
    assert applied >= len(project.files)  # every file got fixes
    assert not project.write().errors
    for arch in ("gfx90a", "gfx942"):
        rep = _build(project.output, arch, tmp_path / "cache")
        failed = [u["file"] for u in rep["units"] if u.get("status") != "compiled"]
        errors = [f"{d.get('file')}:{d.get('line')}: {d.get('message')}" for d in rep["diagnostics"]
                  if d.get("severity") == "error"]
        assert rep["ok"] and not failed, (arch, failed, errors[:10])
