"""A CMake project's .cpp and .c files are compiled by its C++ / C compiler, not as CUDA: under CUDA they never
see ``__CUDACC__`` (NVIDIA's convolutionFFT2D: ``#ifdef __CUDACC__ typedef float2 fComplex; #else`` a struct,
and .cpp files that include no CUDA header).  porter build's per-file build of the migrated CMakeLists compiles
them the same way (C++ with HIP's host headers), so that the port's ``#ifdef __HIPCC__`` picks what CUDA's
build picked; a .cpp the CMakeLists marks ``LANGUAGE CUDA`` stays HIP.

The project is written from CUDA's and CMake's semantics (nvcc and g++ build it)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from porter.build import BuildOptions, run_build
from porter.build.cmakelists import executable_name
from porter.build.report import code_object_notes
from porter.project.convert import convert_tree

CMAKE = """cmake_minimum_required(VERSION 3.20)
project(spectrum LANGUAGES C CXX CUDA)
set_source_files_properties(scale.cpp PROPERTIES LANGUAGE CUDA)
add_executable(spectrum main.cpp gold.cpp checksum.c kernel.cu scale.cpp)
"""
COMMON = """#ifndef COMMON_H
#define COMMON_H
#ifdef __CUDACC__
typedef float2 fComplex;
#else
typedef struct { float x; float y; } fComplex;
#endif
#endif
"""
GOLD = """#include "common.h"
float gold_energy(const fComplex* v, int n) {
  float e = 0.0f;
  for (int i = 0; i < n; i++) e += v[i].x * v[i].x + v[i].y * v[i].y;
  return e;
}
"""
CHECKSUM = """unsigned checksum(const unsigned char* p, int n) {
  unsigned s = 0;
  for (int i = 0; i < n; i++) s = s * 31u + p[i];
  return s;
}
"""
KERNEL = """#include "common.h"
__global__ void energy(const fComplex* v, float* e, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) e[i] = v[i].x * v[i].x + v[i].y * v[i].y;
}
extern "C" void launch_energy(const fComplex* v, float* e, int n) { energy<<<(n + 63) / 64, 64>>>(v, e, n); }
"""
SCALE = """__global__ void scale(float* e, float f, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) e[i] *= f;
}
void launch_scale(float* e, float f, int n) { scale<<<(n + 63) / 64, 64>>>(e, f, n); }
"""
MAIN = """#include <cuda_runtime.h>
#include "common.h"
float gold_energy(const fComplex* v, int n);
extern "C" unsigned checksum(const unsigned char* p, int n);
extern "C" void launch_energy(const fComplex* v, float* e, int n);  // (two types of one layout: C linkage)
void launch_scale(float* e, float f, int n);
int main() {
  fComplex h[64] = {};
  fComplex* v = nullptr;
  float* e = nullptr;
  cudaMalloc(&v, sizeof(h));
  cudaMalloc(&e, 64 * sizeof(float));
  cudaMemcpy(v, h, sizeof(h), cudaMemcpyHostToDevice);
  launch_energy(v, e, 64);
  launch_scale(e, 2.0f, 64);
  cudaFree(v);
  cudaFree(e);
  return (int)gold_energy(h, 64) + (int)(checksum((const unsigned char*)h, 8) & 0);
}
"""


def _project(root: Path) -> Path:
    src = root / "cuda"
    src.mkdir()
    for name, text in {"CMakeLists.txt": CMAKE, "common.h": COMMON, "gold.cpp": GOLD, "checksum.c": CHECKSUM,
                       "kernel.cu": KERNEL, "scale.cpp": SCALE, "main.cpp": MAIN}.items():
        (src / name).write_text(text)
    out = root / "hip"
    convert_tree(src, out)
    return out


@pytest.mark.parametrize("arch", ["gfx942", "gfx90a"])
def test_host_units_compile_as_the_cmakelists_says(tmp_path, arch, toolchain_for):
    toolchain = toolchain_for(arch)
    port = _project(tmp_path)
    assert "__HIPCC__" in (port / "common.h").read_text()  # the port's name for __CUDACC__
    report = run_build(port, BuildOptions(arch=arch, system="per-file"), toolchain=toolchain)
    assert report.ok, [d.one_line() for d in report.diagnostics]
    (program,) = report.outputs
    assert program == f".porter/build/{arch}/bin/spectrum"  # add_executable's name, as CMake names it (not "hip")
    assert report.code_objects[program] == [f"amdgcn-amd-amdhsa--{arch}"], report.code_objects
    commands = {c["file"]: c["arguments"] for c in json.loads((port / "compile_commands.json").read_text())}
    language = {f: a[a.index("-x") + 1] if "-x" in a else "hip (hipcc)" for f, a in commands.items()}
    hip = "hip" if arch == "gfx942" else "hip (hipcc)"
    assert language == {"main.cpp": "c++", "gold.cpp": "c++", "checksum.c": "c", "kernel.cu": hip,
                        "scale.cpp": hip}, language
    assert not any(a.startswith("--offload-arch") for a in commands["gold.cpp"])


@pytest.mark.parametrize("arch", ["gfx942", "gfx90a"])
def test_a_project_of_host_units_only_links_without_a_device_link(tmp_path, arch, toolchain_for):
    """NVIDIA's simpleCUBLAS and matrixMulCUBLAS: CUDA_SEPARABLE_COMPILATION ON and .cpp files only.  Nothing
    is compiled for the device, so the link has no relocatable device code to link (hipcc 5.2's device link of
    none fails: "target emulation unknown: -m or at least one .o file required")."""
    toolchain = toolchain_for(arch)
    src = tmp_path / "cuda"
    src.mkdir()
    (src / "CMakeLists.txt").write_text("cmake_minimum_required(VERSION 3.20)\nproject(hostonly LANGUAGES CXX CUDA)\n"
                                        "add_executable(hostonly main.cpp)\n"
                                        "set_target_properties(hostonly PROPERTIES CUDA_SEPARABLE_COMPILATION ON)\n")
    (src / "main.cpp").write_text("#include <cuda_runtime.h>\nint main() { void* p = nullptr;\n"
                                  "  if (cudaMalloc(&p, 64) != cudaSuccess) return 1;\n  return cudaFree(p) == cudaSuccess ? 0 : 1; }\n")
    convert_tree(src, tmp_path / "hip")
    report = run_build(tmp_path / "hip", BuildOptions(arch=arch, system="per-file"), toolchain=toolchain)
    assert report.ok, [d.one_line() for d in report.diagnostics]
    # built, and said to hold no GPU code: nothing in it is for the arch (porter build's note, the app's too)
    (program,) = report.outputs
    assert report.code_objects == {program: []}, report.code_objects
    (note,) = code_object_notes(report.outputs, report.code_objects, arch)
    assert note.startswith(f"{program} holds no GPU code of its own") and arch in note, note


def test_which_units_are_host_units(tmp_path):
    """Without a compile: what CMake's rules say, and where porter cannot read them it keeps HIP."""
    from porter.build.unit_languages import host_languages

    units = ["main.cpp", "gold.cpp", "checksum.c", "kernel.cu", "scale.cpp"]
    (tmp_path / "CMakeLists.txt").write_text(CMAKE)
    assert host_languages(tmp_path, units) == {"main.cpp": "c++", "gold.cpp": "c++", "checksum.c": "c"}
    for own in ("set(SOURCES main.cpp gold.cpp)\nset_source_files_properties(${SOURCES} PROPERTIES LANGUAGE HIP)\n",
                "set(CMAKE_CXX_COMPILER hipcc)\n", "hip_add_executable(spectrum main.cpp)\n"):
        (tmp_path / "CMakeLists.txt").write_text(CMAKE + own)
        assert host_languages(tmp_path, units) == {}, own
    (tmp_path / "CMakeLists.txt").write_text(CMAKE)
    (tmp_path / "Makefile").write_text("all:\n\thipcc -o spectrum *.cpp *.cu\n")  # porter runs make: not its rules
    assert host_languages(tmp_path, units) == {}


@pytest.mark.parametrize("text, name", [
    ("project(spectrum LANGUAGES CXX HIP)\nadd_executable(spectrum main.cpp)\n", "spectrum"),
    ("project(fft CXX)\nadd_executable(${PROJECT_NAME} main.cpp)\n", "fft"),
    ("project(fft CXX)\n# add_executable(old main.cpp)\nadd_executable( \"fft_test\"\n  main.cpp)\n", "fft_test"),
    ("add_executable(a a.cpp)\nadd_executable(b b.cpp)\n", None),  # two programs: each main's own name
    ("add_executable(${TARGET} main.cpp)\n", None),  # a variable porter does not read
    ("add_library(k STATIC k.cpp)\n", None),
])
def test_the_per_file_program_is_named_after_the_executable_target(tmp_path, text, name):
    (tmp_path / "CMakeLists.txt").write_text(text)
    assert executable_name(tmp_path) == name
