"""Separable compilation and a ``static __constant__`` variable a kernel reads before host code names it
(NVIDIA's binomialOptions and quasirandomGenerator samples: CUDA_SEPARABLE_COMPILATION ON).  With -fgpu-rdc
clang (15 and 19) renames such a variable for the runtime only when it meets the host code, after the kernel,
so the device link fails: "undefined symbol: c_Table", with no file or line.  porter build puts that error at
the declaration (PORT195); ``porter convert --fix`` deletes `static` and the port links, for gfx942 and gfx90a.

The project is written from CUDA's semantics (nvcc -rdc=true compiles and links it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from porter.build import BuildOptions, run_build
from porter.findings import scan
from porter.project.convert import ConvertOptions, convert_tree

CMAKE = """cmake_minimum_required(VERSION 3.20)
project(table LANGUAGES CXX CUDA)
add_executable(table main.cu table.cu)
set_target_properties(table PROPERTIES CUDA_SEPARABLE_COMPILATION ON)
"""
MAIN = """#include <cuda_runtime.h>
void fill(float* out, const float* table, int n);
int main() {
  float host[64] = {1.0f}, *out = nullptr;
  cudaMalloc(&out, 64 * sizeof(float));
  fill(out, host, 64);
  cudaFree(out);
  return 0;
}
"""
TABLE = """#include <cuda_runtime.h>
static __constant__ float c_Table[64];

__global__ void lookup(float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = c_Table[i % 64] * 2.0f;
}

void fill(float* out, const float* table, int n) {
  cudaMemcpyToSymbol(c_Table, table, 64 * sizeof(float));
  lookup<<<(n + 63) / 64, 64>>>(out, n);
}
"""


def _project(root: Path, fix: bool) -> Path:
    src = root / "cuda"
    src.mkdir()
    (src / "CMakeLists.txt").write_text(CMAKE)
    (src / "main.cu").write_text(MAIN)
    (src / "table.cu").write_text(TABLE)
    out = root / "hip"
    convert_tree(src, out, ConvertOptions(fix=fix))
    return out


def test_the_finding_is_at_the_declaration_only_when_the_build_asks_for_rdc(tmp_path):
    (tmp_path / "rdc").mkdir()
    (tmp_path / "rdc" / "CMakeLists.txt").write_text(CMAKE)
    (tmp_path / "rdc" / "table.cu").write_text(TABLE)
    (tmp_path / "whole").mkdir()
    (tmp_path / "whole" / "CMakeLists.txt").write_text(CMAKE.replace("CUDA_SEPARABLE_COMPILATION ON",
                                                                     "CUDA_STANDARD 17"))
    (tmp_path / "whole" / "table.cu").write_text(TABLE)
    found = [f for f in scan(TABLE.encode(), "table.cu", file=tmp_path / "rdc" / "table.cu") if f.rule == "PORT195"]
    assert [(f.line, f.fix.safe) for f in found] == [(2, True)], [f.message for f in found]
    assert "CMakeLists.txt" in found[0].message and "lookup" in found[0].message
    assert not [f for f in scan(TABLE.encode(), "table.cu", file=tmp_path / "whole" / "table.cu")
                if f.rule == "PORT195"]


@pytest.mark.parametrize("arch", ["gfx942", "gfx90a"])
def test_the_link_error_is_put_at_the_declaration_and_the_fix_links(tmp_path, arch, toolchain_for):
    toolchain = toolchain_for(arch)
    (tmp_path / "before").mkdir()
    report = run_build(_project(tmp_path / "before", fix=False), BuildOptions(arch=arch, system="per-file"),
                       toolchain=toolchain)
    assert not report.ok
    (error,) = [d for d in report.diagnostics if d.severity == "error" and "c_Table" in d.message]
    assert (error.rule, error.line, error.source_line) == ("PORT195", 2, 2), error.one_line()
    assert error.file.endswith("table.cu") and "delete `static`" in error.hint
    # the driver's "amdgcn-link command failed" after it follows from it
    (stopped,) = [d for d in report.diagnostics if "command failed" in d.message]
    assert stopped.cause == f"{error.file}:{error.line}" and stopped.rule == "PORT195", stopped.one_line()

    (tmp_path / "after").mkdir()
    fixed = _project(tmp_path / "after", fix=True)
    assert "static" not in (fixed / "table.cu").read_text()
    report = run_build(fixed, BuildOptions(arch=arch, system="per-file"), toolchain=toolchain)
    assert report.ok, [d.one_line() for d in report.diagnostics]
    (program,) = report.outputs
    assert report.code_objects[program] == [f"amdgcn-amd-amdhsa--{arch}"], report.code_objects
