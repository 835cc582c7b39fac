"""With relocatable device code (CUDA_SEPARABLE_COMPILATION ON) clang assembles inline assembly at the device
link, so PTX left in a kernel fails there: "<inline asm>:1:2: invalid instruction", no file, no line (NVIDIA's
stereoDisparity: one `asm("vabsdiff4.u32.u32.u32.add ...")`).  porter build puts the error at the project's
asm statement when there is one, and the driver's "amdgcn-link command failed" after it follows from it.

The project is written from CUDA's semantics (nvcc -rdc=true builds it)."""

from __future__ import annotations


import pytest

from porter.build import BuildOptions, run_build
from porter.project.convert import convert_tree

CMAKE = """cmake_minimum_required(VERSION 3.20)
project(absdiff LANGUAGES CXX CUDA)
add_executable(absdiff main.cu)
set_target_properties(absdiff PROPERTIES CUDA_SEPARABLE_COMPILATION ON)
"""
MAIN = """#include <cuda_runtime.h>
// the sum of absolute byte differences, in one PTX instruction
__device__ unsigned absdiff4(unsigned a, unsigned b) {
  unsigned s;
  asm("vabsdiff4.u32.u32.u32.add %0, %1, %2, %3;" : "=r"(s) : "r"(a), "r"(b), "r"(0));
  return s;
}
__global__ void sad(const unsigned* a, const unsigned* b, unsigned* out) {
  out[threadIdx.x] = absdiff4(a[threadIdx.x], b[threadIdx.x]);
}
int main() {
  unsigned* d = nullptr;
  cudaMalloc(&d, 3 * 64 * sizeof(unsigned));
  sad<<<1, 64>>>(d, d + 64, d + 128);
  cudaFree(d);
  return 0;
}
"""


@pytest.mark.parametrize("arch", ["gfx942", "gfx90a"])
def test_ptx_assembled_at_the_device_link_is_put_at_its_asm_statement(tmp_path, arch, request):
    toolchain = request.getfixturevalue("toolchain942" if arch == "gfx942" else "toolchain90a")
    src = tmp_path / "cuda"
    src.mkdir()
    (src / "CMakeLists.txt").write_text(CMAKE)
    (src / "main.cu").write_text(MAIN)
    convert_tree(src, tmp_path / "hip")
    report = run_build(tmp_path / "hip", BuildOptions(arch=arch, system="per-file"), toolchain=toolchain)
    assert not report.ok
    errors = [d for d in report.diagnostics if d.severity == "error"]
    asm = [d for d in errors if "<inline asm>" in d.message]
    assert asm and all((d.file, d.source_line, d.rule) == ("main.cu", 5, "PORT001") for d in asm), \
        [d.one_line() for d in errors]
    stopped = [d for d in errors if "command failed" in d.message]
    assert stopped and all(d.cause == f"main.cu:{asm[0].line}" for d in stopped), [d.one_line() for d in errors]


def test_several_asm_statements_leave_the_error_where_it_is(tmp_path):
    from porter.build.diagnostics import Diagnostic
    from porter.build.link_places import locate_inline_asm

    def error():
        return Diagnostic("", 0, 0, "error", "ld-temp.o <inline asm>:1:2: invalid instruction")

    (tmp_path / "a.cu").write_text('// asm("old") in a comment\n__device__ void f() { asm("nop;"); }\n')
    one = [error()]
    locate_inline_asm(one, tmp_path, tmp_path)
    assert (one[0].file, one[0].line) == ("a.cu", 2)
    (tmp_path / "b.cuh").write_text('__device__ void g() { asm volatile("exit;"); }\n')
    two = [error()]
    locate_inline_asm(two, tmp_path, tmp_path)
    assert (two[0].file, two[0].line) == ("", 0)
