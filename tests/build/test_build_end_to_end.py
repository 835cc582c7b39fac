"""The issue's acceptance check on a small CUDA project nobody tuned porter
for: `porter convert SRC -o OUT --fix`, then `porter build OUT --arch gfx90a
--json` exits 0 with "ok": true, with no hand edit."""

import json
import subprocess
import sys

KERNEL = """#include <cuda_runtime.h>
#include "vec.h"

__global__ void axpy(float a, const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

cudaError_t run_axpy(float a, const float* x, float* y, int n, cudaStream_t s) {
    axpy<<<(n + 255) / 256, 256, 0, s>>>(a, x, y, n);
    return cudaGetLastError();
}
"""
HEADER = """#pragma once
#include <cuda_runtime.h>
cudaError_t run_axpy(float a, const float* x, float* y, int n, cudaStream_t s);
"""
MAIN = """#include <cstdio>
#include <vector>
#include <cuda_runtime.h>
#include "vec.h"

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \\
    std::printf("%s\\n", cudaGetErrorString(e)); return 1; } } while (0)

int main() {
    const int n = 1 << 16;
    std::vector<float> h(n, 1.0f);
    float *x, *y;
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    CHECK(cudaMalloc(&x, n * sizeof(float)));
    CHECK(cudaMalloc(&y, n * sizeof(float)));
    CHECK(cudaMemcpyAsync(x, h.data(), n * sizeof(float), cudaMemcpyHostToDevice, s));
    CHECK(cudaMemcpyAsync(y, h.data(), n * sizeof(float), cudaMemcpyHostToDevice, s));
    CHECK(run_axpy(2.0f, x, y, n, s));
    CHECK(cudaMemcpyAsync(h.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    std::printf("%f\\n", h[0]);
    cudaFree(x); cudaFree(y); cudaStreamDestroy(s);
    return 0;
}
"""
MAKEFILE = """CUDA_HOME ?= /usr/local/cuda
NVCC := $(CUDA_HOME)/bin/nvcc
NVCCFLAGS := -O3 -std=c++17 -gencode arch=compute_80,code=sm_80 -lineinfo -Xcompiler -Wall

app: main.o axpy.o
\t$(NVCC) -arch=sm_80 -o $@ $^ -L$(CUDA_HOME)/lib64 -lcudart

%.o: %.cu vec.h
\t$(NVCC) $(NVCCFLAGS) -c $< -o $@

clean:
\trm -f app *.o
"""
CMAKE = """cmake_minimum_required(VERSION 3.18)
project(app LANGUAGES CXX CUDA)
set(CMAKE_CUDA_ARCHITECTURES 80)
find_package(CUDAToolkit REQUIRED)
add_executable(app main.cu axpy.cu)
target_link_libraries(app PRIVATE CUDA::cudart)
"""


def test_convert_fix_then_build_exits_0(tmp_path, toolchain90a):
    src = tmp_path / "src"
    src.mkdir()
    for name, text in {"axpy.cu": KERNEL, "vec.h": HEADER, "main.cu": MAIN, "Makefile": MAKEFILE,
                       "CMakeLists.txt": CMAKE}.items():
        (src / name).write_text(text)
    out = tmp_path / "out"
    p = subprocess.run([sys.executable, "-m", "porter", "convert", str(src), "-o", str(out), "--fix"],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "hipcc" in (out / "Makefile").read_text() and "HIP" in (out / "CMakeLists.txt").read_text()
    p = subprocess.run([sys.executable, "-m", "porter", "build", str(out), "--arch", "gfx90a", "--json"],
                       capture_output=True, text=True, timeout=600)
    report = json.loads(p.stdout)
    errors = [f"{d['file']}:{d['line']}: {d['message']}" for d in report["diagnostics"] if d["severity"] == "error"]
    assert p.returncode == 0 and report["ok"] is True, errors
    assert report["arch"] == "gfx90a" and report["system"] == "make"
    assert (out / "app").is_file()
    assert {u["file"] for u in report["units"] if u["kind"] == "compile"} == {"main.cu", "axpy.cu"}
