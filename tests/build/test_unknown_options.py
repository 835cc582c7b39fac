"""An nvcc-only option left in a project's Makefile (NVIDIA's driver-API samples build a device image for
cuModuleLoad with ``nvcc -fatbin``): the compiler driver's "unknown argument: '-fatbin'" names no file, so
porter build puts it at the line of the build file that passes it, maps that line back to the CUDA Makefile
(the migration adds lines above it), and ties it to the finding ``porter scan`` reports there (PORT147).
The Makefile is written in HeCBench's shape from make's and nvcc's documented options."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

MAKEFILE = """\
CC        = nvcc
ARCH      = sm_60
program   = main

all: $(program) kernel.fatbin

$(program): main.cu
\t$(CC) -arch=$(ARCH) main.cu -o $(program)

kernel.fatbin: kernel.cu
\t$(CC) -arch=$(ARCH) -o $@ -fatbin kernel.cu

clean:
\trm -f $(program) kernel.fatbin
"""
MAIN = """#include <cuda_runtime.h>
__global__ void twice(float* x) { x[threadIdx.x] *= 2.0f; }
int main() { float* d = nullptr; (void)cudaMalloc(&d, 256); twice<<<1, 64>>>(d); return (int)cudaDeviceSynchronize(); }
"""
KERNEL = 'extern "C" __global__ void scale(float* x, float s) { x[threadIdx.x] *= s; }\n'


def _porter(*args, timeout=600) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "porter", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout)


@pytest.mark.hipcc
@pytest.mark.parametrize("arch, toolchain", [("gfx942", "clang"), ("gfx90a", "hipcc")])
def test_an_unknown_nvcc_option_is_reported_at_its_makefile_line_with_its_finding(tmp_path, arch, toolchain,
                                                                                  need_hipcc, need_clang19):
    src = tmp_path / "src"
    src.mkdir()
    (src / "Makefile").write_text(MAKEFILE)
    (src / "main.cu").write_text(MAIN)
    (src / "kernel.cu").write_text(KERNEL)
    fatbin_line = MAKEFILE.splitlines().index("\t$(CC) -arch=$(ARCH) -o $@ -fatbin kernel.cu") + 1
    out = tmp_path / "out"
    assert _porter("convert", "-q", src, "-o", out).returncode == 0
    ported = (out / "Makefile").read_text().splitlines()
    assert ported.index(next(ln for ln in ported if "-fatbin" in ln)) + 1 > fatbin_line  # lines were added above

    r = _porter("build", "--json", "--arch", arch, "--toolchain", toolchain, out)
    report = json.loads(r.stdout.strip().splitlines()[-1])
    assert not report["ok"]
    (error,) = [d for d in report["diagnostics"] if d["severity"] == "error"]
    assert "unknown argument" in error["message"] and "-fatbin" in error["message"]
    assert (error["file"], ported[error["line"] - 1].count("-fatbin")) == ("Makefile", 1)
    assert (Path(error["source_file"]).name, error["source_line"], error["rule"]) == ("Makefile", fatbin_line, "PORT147")
    assert (out / "main").exists()  # make -k built the program beside it

    scan = json.loads(_porter("scan", "--format", "json", src).stdout)
    assert ("Makefile", fatbin_line) in {(f["file"], f["line"]) for f in scan["findings"] if f["rule"] == "PORT147"}
