"""With relocatable device code (CUDA_SEPARABLE_COMPILATION ON) clang assembles inline assembly at the device
link, so PTX left in a kernel fails there: "<inline asm>:1:2: invalid instruction", no file, no line (NVIDIA's
stereoDisparity: one `asm("vabsdiff4.u32.u32.u32.add ...")`).  porter build puts the error at the project's
asm statement when there is one, and the driver's "amdgcn-link command failed" after it follows from it.

The project is written from CUDA's semantics (nvcc -rdc=true builds it)."""

from __future__ import annotations

import pytest

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
def test_ptx_assembled_at_the_device_link_is_put_at_its_asm_statement(tmp_path, arch, build_port):
    src = tmp_path / "cuda"
    src.mkdir()
    (src / "CMakeLists.txt").write_text(CMAKE)
    (src / "main.cu").write_text(MAIN)
    _, report = build_port(src, arch, system="per-file")
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


# A kernel declared in a header and launched, but defined nowhere (scale) or defined with another parameter list
# (shift takes a double: another function to C++).  Written from CUDA's semantics: nvcc compiles each unit and its
# link fails too ("hidden symbol `_Z5scalePff' isn't defined"); clang's host link says "undefined reference to
# `__device_stub__scale(float*, float)'", with no line and words that read like a file that did not compile.
KERNELS_H = """#pragma once
#include <cuda_runtime.h>
__global__ void scale(float *x, float a);
__global__ void shift(float *x, float b);
"""
KERNELS_CU = """#include "kernels.h"
// takes a double: another function than the shift kernels.h declares
__global__ void shift(float *x, double b) { x[threadIdx.x] += b; }
"""
LAUNCHES = """#include "kernels.h"
int main() {
  float *x = nullptr;
  cudaMalloc(&x, 64 * sizeof(float));
  scale<<<1, 64>>>(x, 2.0f);
  shift<<<1, 64>>>(x, 1.0f);
  cudaDeviceSynchronize();
  cudaFree(x);
  return 0;
}
"""
MAKEFILE = """CC = nvcc
ARCH = sm_60
program = main
obj = kernels.o main.o

$(program): $(obj)
\t$(CC) -arch=$(ARCH) $(obj) -o $@

%.o: %.cu kernels.h
\t$(CC) -arch=$(ARCH) -c $< -o $@
"""


@pytest.mark.parametrize("arch", ["gfx942", "gfx90a"])
def test_a_kernel_launched_but_not_defined_is_put_at_its_launch(tmp_path, arch, build_port):
    src = tmp_path / "cuda"
    src.mkdir()
    for name, text in {"kernels.h": KERNELS_H, "kernels.cu": KERNELS_CU, "main.cu": LAUNCHES,
                       "Makefile": MAKEFILE}.items():
        (src / name).write_text(text)
    port, report = build_port(src, arch)
    assert not report.ok
    errors = {d.message.rsplit("__device_stub__", 1)[-1][:5]: d for d in report.errors if "__device_stub__" in d.message}
    assert set(errors) == {"scale", "shift"}, [d.one_line() for d in report.errors]
    launch = {k: next(i for i, ln in enumerate(LAUNCHES.splitlines(), 1) if ln.lstrip().startswith(k + "<<<"))
              for k in ("scale", "shift")}
    for kernel, d in errors.items():
        assert (d.file, d.source_line) == ("main.cu", launch[kernel]), d.one_line()
    assert "no source of the project defines the kernel scale(float*, float)" in errors["scale"].hint
    # (the hint names the places of the port, the files this build compiled)
    def port_line(name, text):
        return next(i for i, ln in enumerate((port / name).read_text().splitlines(), 1) if text in ln)

    assert f"declared at kernels.h:{port_line('kernels.h', 'void scale(')} `scale(float *x, float a)`" \
        in errors["scale"].hint, errors["scale"].hint
    assert f"defines shift at kernels.cu:{port_line('kernels.cu', 'void shift(')} `shift(float *x, double b)`" \
        in errors["shift"].hint, errors["shift"].hint
