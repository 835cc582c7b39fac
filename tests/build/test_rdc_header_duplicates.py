"""Separable compilation with cooperative groups in more than one file (NVIDIA's histogram and sortingNetworks
samples: CUDA_SEPARABLE_COMPILATION ON, cooperative_groups.h in two units).  HIP 5.2's cooperative-groups
header defines cooperative_groups::internal::coalesced_group::masked_bit_count neither static nor inline, so
each unit holds a copy and the -fgpu-rdc device link (lld) rejects the second: "duplicate symbol".  Newer HIP
headers declare it static.  porter build's per-file link tries once more with the device linker keeping one
copy (the copies are the same header code) and says so; a project's own function defined in two units is
still an error (nvcc's device link rejects it too).

The projects are written from CUDA's semantics (each file alone compiles with nvcc -dc)."""

from __future__ import annotations

from pathlib import Path

import pytest

from porter.build import BuildOptions, run_build
from porter.build.diagnostics import Diagnostic, classify
from porter.project.convert import convert_tree

CMAKE = """cmake_minimum_required(VERSION 3.20)
project(cgrdc LANGUAGES CXX CUDA)
add_executable(cgrdc main.cu other.cu)
set_target_properties(cgrdc PROPERTIES CUDA_SEPARABLE_COMPILATION ON)
"""
MAIN = """#include <cooperative_groups.h>
namespace cg = cooperative_groups;
int launch_other(int* out);
__global__ void ranks(int* out) { cg::coalesced_group g = cg::coalesced_threads(); out[threadIdx.x] = g.thread_rank(); }
int main() { int* d = nullptr; cudaMalloc(&d, 256 * sizeof(int)); ranks<<<1, 64>>>(d); launch_other(d); cudaFree(d); return 0; }
"""
OTHER = """#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void sizes(int* out) { cg::coalesced_group g = cg::coalesced_threads(); out[threadIdx.x] = g.size(); }
int launch_other(int* out) { sizes<<<1, 64>>>(out); return 0; }
"""


def _project(root: Path, extra: str = "") -> Path:
    src = root / "cuda"
    src.mkdir()
    (src / "CMakeLists.txt").write_text(CMAKE)
    (src / "main.cu").write_text(MAIN + extra)
    (src / "other.cu").write_text(OTHER + extra)
    out = root / "hip"
    convert_tree(src, out)
    return out


@pytest.mark.parametrize("arch", ["gfx942", "gfx90a"])
def test_hip_header_copies_are_linked_once_and_the_build_says_so(tmp_path, arch, toolchain_for):
    toolchain = toolchain_for(arch)
    report = run_build(_project(tmp_path), BuildOptions(arch=arch, system="per-file"), toolchain=toolchain)
    assert report.ok, [d.one_line() for d in report.diagnostics]
    (program,) = report.outputs
    assert report.code_objects[program] == [f"amdgcn-amd-amdhsa--{arch}"], report.code_objects
    assert any("--allow-multiple-definition" in m and "cooperative-groups header" in m for m in report.messages), \
        report.messages


def test_a_projects_own_function_defined_twice_stays_an_error(tmp_path, toolchain942):
    twice = "__device__ int twice(int x) { return 2 * x; }\n"
    report = run_build(_project(tmp_path, twice), BuildOptions(arch="gfx942", system="per-file"),
                       toolchain=toolchain942)
    assert not report.ok
    assert any("duplicate symbol: twice" in d.message for d in report.diagnostics), \
        [d.one_line() for d in report.diagnostics]
    assert not any("--allow-multiple-definition" in m for m in report.messages)


def test_a_make_build_that_fails_on_them_is_told_why():
    """A Makefile's own link (hipcc, which porter does not run link by link) fails the same way: the message
    names the header's copies and the device-linker flag."""
    d = Diagnostic("", 0, 0, "error", "duplicate symbol: cooperative_groups::internal::coalesced_group::"
                                      "masked_bit_count(unsigned long long, unsigned int)")
    classify(d)
    assert "--allow-multiple-definition" in d.hint and "header" in d.hint
    own = Diagnostic("", 0, 0, "error", "duplicate symbol: twice(int)")
    classify(own)
    assert not own.hint
