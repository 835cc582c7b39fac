"""Build state as a user meets it (issue 30, defects 2, 4 and 5), through the command line:

- a port built for gfx90a (hipcc 5.2) and then for gfx942 (clang-19) holds gfx942 code, not the
  gfx90a objects left on disk; switching back finds the first build's objects; a build whose program
  lacks the arch asked for is not ok, and says which arch it holds;
- `porter build` on a CUDA source tree refuses in one line (exit 2) and writes nothing there;
- a tree converted with --target-rocm 5.2 is built as a 5.2 port without the flag.

The programs' offload bundles are read with LLVM's own tools (clang-offload-bundler-19), not only
with porter's reader."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from porter.build import fatbin
from required_tools import require

ROOT = Path(__file__).resolve().parents[2]

KERNEL = """#include <cuda_runtime.h>
#include "vec.h"

__global__ void axpy(float a, const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

cudaError_t run_axpy(float a, const float* x, float* y, int n) {
    axpy<<<(n + 255) / 256, 256>>>(a, x, y, n);
    return cudaGetLastError();
}
"""
HEADER = """#pragma once
#include <cuda_runtime.h>
cudaError_t run_axpy(float a, const float* x, float* y, int n);
"""
MAIN = """#include <cstdio>
#include <cuda_runtime.h>
#include "vec.h"

int main() {
    float* x = nullptr;
    if (cudaMalloc(&x, 1024 * sizeof(float)) != cudaSuccess) { std::printf("no GPU\\n"); return 0; }
    cudaError_t e = run_axpy(2.0f, x, x, 1024);
    cudaFree(x);
    return e == cudaSuccess ? 0 : 1;
}
"""
MAKEFILE = """NVCC := nvcc
NVCCFLAGS := -O2 -std=c++17 -arch=sm_80

app: main.o axpy.o
\t$(NVCC) -arch=sm_80 -o $@ $^

%.o: %.cu vec.h
\t$(NVCC) $(NVCCFLAGS) -c $< -o $@

clean:
\trm -f app *.o
"""


def _cuda_project(root: Path, makefile: bool = True) -> Path:
    root.mkdir(parents=True)
    files = {"axpy.cu": KERNEL, "vec.h": HEADER, "main.cu": MAIN}
    if makefile:
        files["Makefile"] = MAKEFILE
    for name, text in files.items():
        (root / name).write_text(text)
    return root


def _porter(*args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "porter", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT)


def _convert(src: Path, out: Path, *flags: str) -> Path:
    p = _porter("convert", src, "-o", out, "--fix", *flags, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    return out


def _build(out: Path, *flags: str) -> tuple[int, dict]:
    p = _porter("build", out, "--json", *flags)
    try:
        return p.returncode, json.loads(p.stdout)
    except ValueError:
        raise AssertionError(f"exit {p.returncode}: {p.stdout[-2000:]} {p.stderr[-2000:]}") from None


def _errors(report: dict) -> list[str]:
    return [d["message"] for d in report["diagnostics"] if d["severity"] == "error"]


def _bundle(program: Path, tmp: Path) -> list[str]:
    """The GPUs in the program's offload bundle as clang-offload-bundler-19 lists them (host entry left out)."""
    sec = tmp / (program.name + ".fatbin")
    subprocess.run(["llvm-objcopy-19", f"--dump-section=.hip_fatbin={sec}", str(program), str(tmp / "scratch.o")],
                   check=True, timeout=60)
    r = subprocess.run(["clang-offload-bundler-19", "--list", "--type=o", f"--input={sec}"], capture_output=True,
                       text=True, check=True, timeout=60)
    return sorted(t.rsplit("--", 1)[-1] for t in r.stdout.split() if t.startswith(("hip", "amdgcn")))


def _need_llvm_tools():
    require(shutil.which("llvm-objcopy-19") and shutil.which("clang-offload-bundler-19"), "llvm-19 not installed (apt-get install llvm-19 clang-19)")


# ---------------------------------------------------------------- defect 2: builds keyed by arch

@pytest.mark.hipcc
@pytest.mark.slow
def test_make_port_built_for_gfx90a_then_gfx942_holds_gfx942_code_and_back(tmp_path, toolchain90a, toolchain942):
    _need_llvm_tools()
    out = _convert(_cuda_project(tmp_path / "src"), tmp_path / "out")
    program = out / "app"
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    seen = []
    for arch in ("gfx90a", "gfx942", "gfx90a"):
        rc, report = _build(out, "--arch", arch)
        assert rc == 0 and report["ok"] is True, _errors(report)
        assert report["system"] == "make" and report["arch"] == arch
        assert report["code_objects"]["app"] == [f"amdgcn-amd-amdhsa--{arch}"]
        assert _bundle(program, scratch) == [arch]  # what is really in the program, read by LLVM
        for obj in ("main.o", "axpy.o"):  # and every object make left on disk
            assert fatbin.targets(str(out / obj)) in ([], [f"amdgcn-amd-amdhsa--{arch}"])
        seen.append(report)
    assert any("built for gfx90a" in m and "gfx942" in m for m in seen[1]["messages"])  # said why it rebuilt
    # no change, same arch: make has nothing to do, and says the same
    rc, again = _build(out, "--arch", "gfx90a")
    assert rc == 0 and again["ok"] and again["code_objects"]["app"] == ["amdgcn-amd-amdhsa--gfx90a"]
    assert not any("make -B" in m for m in again["messages"])
    assert {u["status"] for u in again["units"] if u["kind"] == "compile"} == {"up-to-date"}


@pytest.mark.hipcc
@pytest.mark.slow
def test_per_file_build_for_another_arch_recompiles_and_switching_back_reuses(tmp_path, toolchain90a, toolchain942):
    _need_llvm_tools()
    out = _convert(_cuda_project(tmp_path / "src", makefile=False), tmp_path / "out")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    statuses = {}
    for step, arch in enumerate(("gfx90a", "gfx942", "gfx90a", "gfx942")):
        rc, report = _build(out, "--arch", arch)
        assert rc == 0 and report["ok"] is True, _errors(report)
        assert report["system"] == "per-file"
        (program,) = report["outputs"]
        assert report["code_objects"][program] == [f"amdgcn-amd-amdhsa--{arch}"]
        assert _bundle(out / program, scratch) == [arch]
        statuses[step] = {u["file"]: u["status"] for u in report["units"]}
    assert set(statuses[1].values()) <= {"compiled", "linked"}  # the gfx90a objects were not taken for gfx942
    assert set(statuses[2].values()) == {"cached"}  # back to gfx90a: its objects and program are still there
    assert set(statuses[3].values()) == {"cached"}


@pytest.mark.hipcc
@pytest.mark.slow
def test_a_failed_build_for_another_arch_leaves_no_object_of_the_old_one(tmp_path, toolchain90a, toolchain942):
    """gfx90a builds; gfx942 fails in one file only (its device code): the next gfx942 build after the
    fix must not take the gfx90a object of that file for up to date, even when its source's time says so."""
    out = _convert(_cuda_project(tmp_path / "src"), tmp_path / "out")
    rc, report = _build(out, "--arch", "gfx90a")
    assert rc == 0 and report["ok"], _errors(report)
    kernel = out / "axpy.cu"
    good = kernel.read_text()
    st = kernel.stat()
    kernel.write_text(good.replace("__global__", "#if defined(__gfx942__)\n#error no gfx942 yet\n#endif\n__global__", 1))
    os.utime(kernel, ns=(st.st_atime_ns, st.st_mtime_ns))  # as old as before: only the arch differs
    rc, report = _build(out, "--arch", "gfx942")
    assert rc == 1 and report["ok"] is False
    assert any("no gfx942 yet" in e for e in _errors(report)), _errors(report)  # (test_parallel_output: once lost)
    for name in ("app", "axpy.o", "main.o"):  # nothing of gfx90a is left to be taken for gfx942
        path = out / name
        assert not path.exists() or fatbin.targets(str(path)) in ([], ["amdgcn-amd-amdhsa--gfx942"]), name
    kernel.write_text(good)
    os.utime(kernel, ns=(st.st_atime_ns, st.st_mtime_ns))
    rc, report = _build(out, "--arch", "gfx942")
    assert rc == 0 and report["ok"], _errors(report)
    assert report["code_objects"]["app"] == ["amdgcn-amd-amdhsa--gfx942"]
    assert fatbin.targets(str(out / "axpy.o")) == ["amdgcn-amd-amdhsa--gfx942"]


@pytest.mark.hipcc
@pytest.mark.slow
def test_a_program_without_code_for_the_arch_asked_for_is_not_ok(tmp_path, toolchain942):
    """A Makefile that names its own GPU (here gfx90a) ignores --arch gfx942: the build compiles, but the
    program cannot run on an MI300X, so the build fails with one line naming both archs."""
    out = _convert(_cuda_project(tmp_path / "src"), tmp_path / "out")
    makefile = out / "Makefile"
    text = makefile.read_text()
    assert "$(HIP_ARCH)" in text
    makefile.write_text(text.replace("$(HIP_ARCH)", "gfx90a"))
    p = _porter("build", out, "--arch", "gfx942", "--toolchain", "clang")
    assert p.returncode == 1, p.stdout + p.stderr
    lines = p.stdout.splitlines()
    assert "note: app holds amdgcn-amd-amdhsa--gfx90a" in lines
    (error,) = [ln for ln in lines if "error: app holds" in ln]
    assert "gfx90a" in error and "gfx942" in error
    assert lines[-1].startswith("build FAILED: make for gfx942")
    rc, report = _build(out, "--arch", "gfx942", "--toolchain", "clang")
    assert rc == 1 and report["ok"] is False
    assert any(e.startswith("app holds gfx90a code, not gfx942") for e in _errors(report))


# ---------------------------------------------------------------- defect 4: the CUDA tree is never written

def _snapshot(root: Path) -> dict:
    """Every name under root (folders too) with its size and modification time, and the folder's own."""
    snap = {".": os.stat(root).st_mtime_ns}
    for p in sorted(root.rglob("*")):
        st = os.lstat(p)
        snap[p.relative_to(root).as_posix()] = (p.is_dir(), st.st_size, st.st_mtime_ns)
    return snap


def _cmake_project(root: Path) -> Path:
    root.mkdir(parents=True)
    (root / "CMakeLists.txt").write_text("cmake_minimum_required(VERSION 3.18)\nproject(app LANGUAGES CXX CUDA)\n"
                                         "add_executable(app main.cu)\n")
    # nvcc includes cuda_runtime.h by itself: a .cu that only calls the runtime is CUDA all the same
    (root / "main.cu").write_text("__global__ void k(float* x) { x[0] = 1; }\n"
                                  "int main() { float* x; cudaMalloc(&x, 4); k<<<1, 1>>>(x); return 0; }\n")
    return root


@pytest.mark.parametrize("shape", ["makefile", "sources only", "cmake"])
@pytest.mark.parametrize("flags", [(), ("--json",), ("--per-file", "--arch", "gfx90a")])
def test_build_of_a_cuda_source_tree_refuses_in_one_line_and_writes_nothing(tmp_path, shape, flags):
    src = (_cmake_project(tmp_path / "src") if shape == "cmake"
           else _cuda_project(tmp_path / "src", makefile=shape == "makefile"))
    before = _snapshot(src)
    p = _porter("build", src, *flags, timeout=120)
    assert p.returncode == 2, p.stdout + p.stderr
    assert p.stdout == ""
    err = p.stderr.strip().splitlines()
    assert len(err) == 1, err
    assert f"{src} is CUDA source" in err[0] and f"porter convert {src} -o " in err[0]
    assert _snapshot(src) == before  # no .porter/, no compile_commands.json, nothing touched


def test_the_converted_tree_of_the_same_project_is_not_refused(tmp_path):
    """The refusal is about CUDA source, not about .cu files: the port (porter convert's output, or a
    hand-written HIP folder) goes on to the build (here with an arch name that stops it right after)."""
    src = _cuda_project(tmp_path / "src")
    out = _convert(src, tmp_path / "out")
    hip = tmp_path / "hip"
    hip.mkdir()
    (hip / "k.cu").write_text("#include <hip/hip_runtime.h>\n__global__ void k(float* x) { x[0] = 1; }\n")
    for tree in (out, hip):
        p = _porter("build", tree, "--arch", "sm_80", timeout=120)
        assert p.returncode == 2 and "CUDA source" not in p.stderr and "'sm_80' is not an AMD GPU" in p.stderr
    p = _porter("build", src, "--arch", "gfx90a", timeout=120)  # a good arch on the CUDA tree: refused first
    assert p.returncode == 2 and "is CUDA source" in p.stderr


# ---------------------------------------------------------------- defect 5: the target ROCm is kept

@pytest.mark.hipcc
def test_a_tree_converted_for_rocm_5_2_is_built_as_a_5_2_port_without_the_flag(tmp_path, toolchain90a):
    src = _cuda_project(tmp_path / "src", makefile=False)
    out = _convert(src, tmp_path / "out", "--target-rocm", "5.2")
    rc, report = _build(out, "--arch", "gfx90a", "--no-link")
    assert rc == 0 and report["ok"], _errors(report)
    assert report["target_rocm"] == "5.2"
    assert any("targets ROCm 5.2" in m for m in report["messages"])
    assert not any("6.3" in m for m in report["messages"])  # not the newest release
    p = _porter("build", out, "--arch", "gfx90a", "--no-link")
    assert p.returncode == 0
    assert any(ln.startswith("note: the port targets ROCm 5.2") for ln in p.stdout.splitlines()), p.stdout
    # the command line still wins
    rc, report = _build(out, "--arch", "gfx90a", "--no-link", "--target-rocm", "6.1")
    assert report["target_rocm"] == "6.1" and any("targets ROCm 6.1" in m for m in report["messages"])
    # converted again without the flag: the newest release, as before
    from porter.mapping import NEWEST_ROCM

    _convert(src, out)
    rc, report = _build(out, "--arch", "gfx90a", "--no-link")
    assert report["target_rocm"] == NEWEST_ROCM
    assert any(f"targets ROCm {NEWEST_ROCM}" in m for m in report["messages"])
