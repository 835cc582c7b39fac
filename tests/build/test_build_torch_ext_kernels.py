"""torch_ext's kernels, forward and backward, as `porter convert --fix` converts them, compile for gfx90a with Debian's hipcc.

The sample build (test_build_samples.py) stops at the port's first line here: Debian 12's HIP is 5.2, which has
hip/hip_bfloat16.h but not hip/hip_bf16.h (HIP 5.7+), and that error is explained by a named library.  So the
kernels' own code never reached the compiler.  This test gives hipcc a stand-in hip_bf16.h over HIP 5.2's
hip_bfloat16.h (the type name and the two conversions the kernels use, nothing else), so that everything else in
the converted kernels.cu is compiled: the RMSNorm and bias+GELU backward kernels the smoke fine-tune trains with.
"""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from porter.project.convert import ConvertOptions, convert_tree

ROOT = Path(__file__).resolve().parents[2]

STANDIN = """// test stand-in for HIP 5.7+'s hip_bf16.h, over HIP 5.2's hip_bfloat16.h
#pragma once
#include <hip/hip_bfloat16.h>
typedef hip_bfloat16 __hip_bfloat16;
__host__ __device__ inline float __bfloat162float(__hip_bfloat16 v) { return static_cast<float>(v); }
__host__ __device__ inline __hip_bfloat16 __float2bfloat16(float v) { return __hip_bfloat16(v); }
"""


def test_converted_torch_ext_kernels_compile_with_hipcc(need_hipcc, tmp_path):
    out = tmp_path / "torch_ext_hip"
    # --fix, as a user builds a port: the warp shuffles of block_sum get the wave64-safe form HIP 5.2 compiles
    report = convert_tree(ROOT / "sample_projects" / "torch_ext", out, ConvertOptions(fix=True, jobs=1))
    assert report.exit_code == 0
    src = (out / "kernels.cu").read_text()
    assert "#include <hip/hip_bf16.h>" in src and "cudaStream_t" not in src and "__nv_bfloat16" not in src
    inc = tmp_path / "inc"
    (inc / "hip").mkdir(parents=True)
    (inc / "hip" / "hip_bf16.h").write_text(STANDIN)
    hipcc = shutil.which("hipcc") or "/opt/rocm/bin/hipcc"
    obj = tmp_path / "kernels.o"
    # HIP_PLATFORM=amd: a machine with nvcc too would otherwise have hipcc hand the file to nvcc
    p = subprocess.run([hipcc, "--offload-arch=gfx90a", "-O2", "-std=c++17", "-fPIC", "-I", str(inc), "-c",
                        str(out / "kernels.cu"), "-o", str(obj)], capture_output=True, text=True, timeout=300,
                       cwd=out, env=dict(os.environ, HIP_PLATFORM="amd"))
    assert p.returncode == 0, p.stderr[-3000:]
    code = obj.read_bytes()
    assert b"amdgcn-amd-amdhsa--gfx90a" in code  # device code for the arch is in the object
    for kernel in (b"rmsnorm_forward_kernel", b"rmsnorm_backward_kernel", b"rmsnorm_backward_weight_kernel",
                   b"bias_gelu_kernel", b"bias_gelu_backward_kernel", b"bias_gelu_backward_bias_kernel"):
        assert kernel in code, kernel
