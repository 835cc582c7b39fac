"""Fixtures of the review-app tests (helpers live in tui_helpers.py)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tui_helpers import SAMPLE, fake_scan


@pytest.fixture(autouse=True)
def no_user_keymap(tmp_path, monkeypatch):
    """The tests press the default keys, whatever keymap the person running them keeps."""
    monkeypatch.setenv("PORTER_KEYMAP", str(tmp_path / "no-keymap.toml"))


@pytest.fixture
def project_dir(tmp_path) -> Path:
    dst = tmp_path / "warp_reduce"
    shutil.copytree(SAMPLE, dst)
    return dst


@pytest.fixture
def with_findings(monkeypatch):
    import porter.findings

    monkeypatch.setattr(porter.findings, "scan", fake_scan, raising=False)
    return fake_scan


MINI = {
    "kernels.cu": """// kernels.cu - a small CUDA file whose port is stable across mapping updates
#include <cstdio>
#include <cuda_runtime.h>

__device__ float warp_sum(float v) {
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(0xffffffff, v, offset);
    return v;
}

__global__ void reduce(const float *in, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? in[i] : 0.0f;
    v = warp_sum(v);
    if ((threadIdx.x % warpSize) == 0)
        atomicAdd(out, v);
}

int main() {
    const int n = 1 << 20;
    float *d_in = nullptr, *d_out = nullptr;
    cudaMalloc(&d_in, n * sizeof(float));
    cudaMalloc(&d_out, sizeof(float));
    cudaMemset(d_in, 0, n * sizeof(float));
    cudaMemset(d_out, 0, sizeof(float));
    reduce<<<(n + 255) / 256, 256>>>(d_in, d_out, n);
    cudaDeviceSynchronize();
    float sum = 0.0f;
    cudaMemcpy(&sum, d_out, sizeof(float), cudaMemcpyDeviceToHost);
    printf("sum = %f\\n", sum);
    cudaFree(d_in);
    cudaFree(d_out);
    return 0;
}
""",
    "include/util.h": """#pragma once
#include <cuda_runtime.h>

inline void check(cudaError_t err) {
    if (err != cudaSuccess) {
        fprintf(stderr, "%s\\n", cudaGetErrorString(err));
    }
}
""",
    "README.md": "A small project for the review-app snapshots.\n",
}


@pytest.fixture
def mini_project(tmp_path, with_findings) -> Path:
    """A small fixed CUDA project (stable snapshots), with the fake findings scan."""
    root = tmp_path / "mini"
    for rel, text in MINI.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return root
