"""``--hip-kernel-execution-syntax``: a launch of a template kernel names it through HIP_KERNEL_NAME.

hipLaunchKernelGGL is a macro: a template-id with a comma (``k<T, 4>``) would split into two macro
arguments, so HIP's headers define ``HIP_KERNEL_NAME(...)`` to pass it as one.  The output must
compile with the installed hipcc.
"""

import os
import shutil


import killable

from porter.translate import TranslateOptions, translate
from required_tools import require

SRC = """#include <cuda_runtime.h>
template <typename T, int N> __global__ void scale(T* p) { p[threadIdx.x] *= T(N); }
namespace ns { template <typename A, typename B> __global__ void copy(A* a, const B* b) { a[threadIdx.x] = A(b[threadIdx.x]); } }
template <typename T> void run(T* p, double* q, cudaStream_t s) {
  scale<T, 4><<<1, 32, 0, s>>>(p);
  scale<T, (2 > 1) ? 3 : 5><<<dim3(2), 64>>>(p);
  ns::copy<T, double><<<1, 32>>>(p, q);
}
#define LAUNCH_SCALE(T, P) scale<T, 16><<<1, 1>>>(P)
void go(float* f, double* d) { run(f, d, 0); LAUNCH_SCALE(float, f); }
"""


def _convert() -> str:
    return translate(SRC.encode(), "t.cu", TranslateOptions(kernel_launch_syntax=True)).output.decode()


def test_template_kernel_launches_name_the_kernel_with_hip_kernel_name():
    out = _convert()
    assert "hipLaunchKernelGGL(HIP_KERNEL_NAME(scale<T, 4>), dim3(1), dim3(32), 0, s, p);" in out
    assert "hipLaunchKernelGGL(HIP_KERNEL_NAME(scale<T, (2 > 1) ? 3 : 5>), dim3(2), dim3(64), 0, 0, p);" in out
    assert "hipLaunchKernelGGL(HIP_KERNEL_NAME(ns::copy<T, double>), dim3(1), dim3(32), 0, 0, p, q);" in out
    assert "hipLaunchKernelGGL(HIP_KERNEL_NAME(scale<T, 16>), dim3(1), dim3(1), 0, 0, P)" in out
    assert "<<<" not in out


def test_template_kernel_launches_compile_with_hipcc(tmp_path):
    hipcc = shutil.which("hipcc")
    require(hipcc, "hipcc not installed")
    src = tmp_path / "t.hip"
    src.write_text(_convert())
    code, log = killable.run([hipcc, "--offload-arch=gfx90a", "-c", str(src), "-o", str(tmp_path / "t.o")], 300,
                             env={**os.environ, "HIP_PLATFORM": "amd"}, what="hipcc")
    assert code == 0, src.read_text() + "\n" + log[-3000:]
