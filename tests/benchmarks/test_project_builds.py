"""benchmarks/project_builds.py: HeCBench-shaped projects (an nvcc Makefile, `CC = nvcc`, `-arch=$(ARCH)`)
are converted, scanned and built through their migrated Makefile for gfx942 and gfx90a; an error on a line a
finding covers is predicted, others are counted unflagged."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("project_builds", ROOT / "benchmarks" / "project_builds.py")
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)

# HeCBench's Makefile shape, written from nvcc's rules (not copied)
MAKEFILE = """CC        = nvcc
ARCH      = sm_60
program   = main
source    = main.cu
obj       = $(source:.cu=.o)
CFLAGS   := -std=c++17 -Xcompiler -Wall -arch=$(ARCH) -O3
$(program): $(obj)
\t$(CC) $(CFLAGS) $(obj) -o $@
%.o: %.cu
\t$(CC) $(CFLAGS) -c $< -o $@
clean:
\trm -rf $(program) $(obj)
"""
GOOD = """#include <cstdio>
__global__ void twice(float* x) { x[threadIdx.x] *= 2.0f; }
int main() { float* d; cudaMalloc(&d, 64 * sizeof(float)); twice<<<1, 64>>>(d); cudaFree(d); return 0; }
"""
# a wave-native ballot kept in an int (PORT023 flags it, no safe fix) and, three lines down, an error no
# finding is about (an undeclared name, as in CUDA too)
MIXED = """#include <cstdio>
__global__ void k(int* out, const float* in) {
  int m = __ballot_sync(0xffffffff, in[threadIdx.x] > 0.0f) & (warpSize - 1);
  out[threadIdx.x] = m;
  out[0] = not_declared_anywhere;
}
int main() { return 0; }
"""


@pytest.mark.hipcc
def test_projects_are_built_through_their_makefiles_and_errors_counted(tmp_path, capsys, gfx942_device_libs):
    src = tmp_path / "src"
    for name, code in (("good", GOOD), ("mixed", MIXED)):
        (src / f"{name}-cuda").mkdir(parents=True)
        (src / f"{name}-cuda" / "Makefile").write_text(MAKEFILE)
        (src / f"{name}-cuda" / "main.cu").write_text(code)
    out = tmp_path / "json"
    assert bench.main([str(src), "--out", str(tmp_path / "out"), "--json", str(out)]) == 0
    results = json.loads(out.read_text())
    for arch in ("gfx942", "gfx90a"):
        good, mixed = results["good-cuda"][arch], results["mixed-cuda"][arch]
        assert good["ok"] and good["errors"] == 0 and good["code_objects"] == [f"amdgcn-amd-amdhsa--{arch}"]
        assert not mixed["ok"]
        assert [u.split(":")[1] for u in mixed["unflagged"]] == ["5"], mixed  # line 3's error is predicted
    assert (tmp_path / "out" / "good-hip" / "Makefile").is_file()
    printed = capsys.readouterr().out
    assert "gfx942: 1 of 2 built" in printed and "gfx90a: 1 of 2 built" in printed
