"""benchmarks/bench_convert.py --from DIR [DIR ...]: the convert/scan benchmark's tree built from real
projects (whole folders copied with their layout and Makefiles, until the line count is reached),
while the default input stays the sample sources."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import killable

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
_spec = importlib.util.spec_from_file_location("bench_convert", ROOT / "benchmarks" / "bench_convert.py")
bench_convert = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench_convert)

from porter.project.convert import ConvertOptions  # noqa: E402

# a project as users have them: a Makefile, a kernel source under src/, its header under include/
SAXPY_CU = b"""#include <cuda_runtime.h>
#include "saxpy.cuh"

__global__ void saxpy_kernel(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

void saxpy(int n, float a, const float *x, float *y)
{
    float *dx, *dy;
    cudaMalloc(&dx, n * sizeof(float));
    cudaMalloc(&dy, n * sizeof(float));
    cudaMemcpy(dx, x, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dy, y, n * sizeof(float), cudaMemcpyHostToDevice);
    saxpy_kernel<<<(n + 255) / 256, 256>>>(n, a, dx, dy);
    cudaMemcpy(y, dy, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(dx);
    cudaFree(dy);
}
"""
SAXPY_CUH = b"""#ifndef SAXPY_CUH
#define SAXPY_CUH
void saxpy(int n, float a, const float *x, float *y);
#endif
"""
MAKEFILE = b"""NVCC = nvcc
saxpy: src/saxpy.cu
\t$(NVCC) -O3 -arch=sm_80 -Iinclude -o saxpy src/saxpy.cu
"""
# a folder of loose files (one project), twice under folders of the same name
REDUCE_CU = b"""#include <cuda_runtime.h>

__global__ void block_sum(const int *in, int *out)
{
    __shared__ int part[256];
    part[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = part[0];
}
"""


def _lines(data: bytes) -> int:
    return data.count(b"\n")


def _inputs(tmp_path: Path) -> tuple[list[Path], int]:
    """Three source folders: one of projects, two of loose files both named ``cuda``; and the source
    lines of one copy of them all."""
    projects = tmp_path / "in" / "projects"
    (projects / "saxpy" / "src").mkdir(parents=True)
    (projects / "saxpy" / "include").mkdir()
    (projects / "saxpy" / "src" / "saxpy.cu").write_bytes(SAXPY_CU)
    (projects / "saxpy" / "include" / "saxpy.cuh").write_bytes(SAXPY_CUH)
    (projects / "saxpy" / "Makefile").write_bytes(MAKEFILE)
    loose = []
    for name in ("reduce_a", "reduce_b"):
        folder = tmp_path / "in" / name / "cuda"
        folder.mkdir(parents=True)
        (folder / "reduce.cu").write_bytes(REDUCE_CU)
        loose.append(folder)
    per_copy = _lines(SAXPY_CU) + _lines(SAXPY_CUH) + 2 * _lines(REDUCE_CU)
    return [projects, *loose], per_copy


def _source_lines(tree: Path) -> int:
    return sum(_lines(p.read_bytes()) for p in tree.rglob("*") if p.suffix in (".cu", ".cuh"))


def test_tree_from_real_folders_copies_whole_projects_until_the_line_count(tmp_path):
    dirs, per_copy = _inputs(tmp_path)
    dest = tmp_path / "tree"
    n, origin = bench_convert.build_tree(dest, 3 * per_copy + 1, dirs)
    # the count is the source lines written, met with whole files: a fourth copy was begun, not finished
    assert n == _source_lines(dest)
    assert 3 * per_copy < n <= 4 * per_copy
    copies = sorted(dest.glob("libs/l*/mod*/copy*"))
    assert [c.name for c in copies] == ["copy00000", "copy00001", "copy00002", "copy00003"]
    assert "3 folders" in origin
    for copy in copies[:3]:
        # each copy keeps the projects' layout and build files; the two loose folders named cuda stay apart
        assert (copy / "projects" / "saxpy" / "Makefile").is_file()
        assert (copy / "projects" / "saxpy" / "src" / "saxpy.cu").is_file()
        assert (copy / "projects" / "saxpy" / "include" / "saxpy.cuh").is_file()
        assert (copy / "reduce_a-cuda" / "reduce.cu").is_file()
        assert (copy / "reduce_b-cuda" / "reduce.cu").is_file()
    # names the project defines differ per copy; the CUDA API it calls does not
    first = (copies[0] / "projects" / "saxpy" / "src" / "saxpy.cu").read_bytes()
    second = (copies[1] / "projects" / "saxpy" / "src" / "saxpy.cu").read_bytes()
    kernels = {re.search(rb"__global__ void (\w+)", t).group(1) for t in (first, second)}
    assert len(kernels) == 2
    assert first.count(b"cudaMalloc(") == second.count(b"cudaMalloc(") == 2


def test_every_file_of_the_real_tree_converts(tmp_path):
    dirs, per_copy = _inputs(tmp_path)
    src, out = tmp_path / "tree", tmp_path / "out"
    bench_convert.build_tree(src, 2 * per_copy, dirs)
    _seconds, _cpu, report = bench_convert.timed_convert(src, out, ConvertOptions(jobs=1, findings=False))
    assert report.errors == [] and report.problems == []
    inputs = sorted(p.relative_to(src) for p in src.rglob("*") if p.is_file())
    assert len(inputs) == 2 * 5
    for rel in inputs:
        assert (out / rel).is_file(), rel
    # the sources are ported: the runtime calls are HIP's in the output
    port = (out / next(r for r in inputs if r.name == "saxpy.cu")).read_bytes()
    assert b"hipMalloc(" in port and b"cudaMalloc(" not in port


def test_the_script_reports_lines_files_failures_and_findings(tmp_path):
    dirs, per_copy = _inputs(tmp_path)
    expected, _ = bench_convert.build_tree(tmp_path / "expected", 2 * per_copy, dirs)
    work = tmp_path / "work"
    work.mkdir()
    rc, out = killable.run([sys.executable, str(ROOT / "benchmarks" / "bench_convert.py"), "--lines", str(2 * per_copy),
                            "--jobs", "1", "--workdir", str(work), "--from", *map(str, dirs)], timeout=180,
                           what="bench_convert.py --from")
    assert rc == 0, out
    assert f"converted {expected} lines in 10 files" in out
    assert "0 failed" in out
    assert re.search(r"scanned \d+ lines in 10 files .*?\d+ findings", out), out
    assert list(work.iterdir()) == []  # its temporary trees are gone


def test_a_from_folder_that_is_not_there_is_a_usage_error(tmp_path):
    rc, out = killable.run([sys.executable, str(ROOT / "benchmarks" / "bench_convert.py"), "--lines", "10",
                            "--from", str(tmp_path / "missing")], timeout=60, what="bench_convert.py --from missing")
    assert rc == 2
    assert f"--from {tmp_path / 'missing'}: not a folder" in out


def test_without_from_the_tree_is_the_sample_sources_as_before(tmp_path):
    n, origin = bench_convert.build_tree(tmp_path / "tree", 1000)
    assert origin == "sample sources copied as they are"
    samples = ROOT / "sample_projects"
    # the first copy holds the sample sources byte for byte, at their paths in sample_projects
    first = tmp_path / "tree" / "copy0000"
    copied = [p for p in first.rglob("*") if p.is_file()]
    assert copied and all(p.read_bytes() == (samples / p.relative_to(first)).read_bytes() for p in copied)
    assert n == sum(p.read_bytes().count(b"\n") for p in (tmp_path / "tree").rglob("*") if p.is_file())
