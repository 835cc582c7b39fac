"""The graph API's symbol arguments (rules.toml, kind "symbol-address"): CUDA's runtime header adds
`template<class T> f(..., const T &symbol, ...)` overloads that pass `(const void*)&symbol`, HIP declares
these functions with `const void* symbol` only and HIP_SYMBOL(X) is X on AMD, so a bare variable name
gets the address CUDA's template takes.  The list is what the header snapshots say (CUDA's runtime, HIP
5.2's): a CUDA function with a `const T &` parameter whose HIP function has no template overload."""

from __future__ import annotations

import os
import shutil

import pytest
from header_signatures import template_parameters_hip_lacks, wrap_rule

import killable
from porter.translate import translate
from required_tools import require

# written from CUDA's runtime API: a scalar and an array `__device__` variable, a namespaced one, and the
# forms CUDA's non-template overload takes (a `const void*` variable, an explicit cast)
SOURCE = b"""#include <cuda_runtime.h>
__device__ int counter;
__device__ float image[16];
namespace ns { __device__ float table[4]; }
void graphs(cudaGraph_t g, cudaGraphNode_t n, cudaGraphExec_t e, const void* sym, float* hi, int h) {
  cudaGraphAddMemcpyNodeToSymbol(&n, g, nullptr, 0, counter, &h, sizeof h, 0, cudaMemcpyHostToDevice);
  cudaGraphAddMemcpyNodeFromSymbol(&n, g, nullptr, 0, hi, image, 64, 0, cudaMemcpyDeviceToHost);
  cudaGraphMemcpyNodeSetParamsToSymbol(n, ns::table, hi, 16, 0, cudaMemcpyHostToDevice);
  cudaGraphMemcpyNodeSetParamsFromSymbol(n, hi, sym, 16, 0, cudaMemcpyDeviceToHost);
  cudaGraphExecMemcpyNodeSetParamsToSymbol(e, n, (const void*)&counter, &h, 4, 0, cudaMemcpyHostToDevice);
  cudaGraphExecMemcpyNodeSetParamsFromSymbol(e, n, hi, image, 64, 0, cudaMemcpyDeviceToHost);
}
"""


def test_the_functions_are_those_the_header_snapshots_give():
    assert template_parameters_hip_lacks(r"const\s+T\s*&", r"const\s+T\s*&") == wrap_rule("symbol-address")["functions"]


def test_a_variable_name_gets_its_address_and_the_non_template_forms_are_left():
    out = translate(SOURCE, "g.cu").output.decode()
    assert "hipGraphAddMemcpyNodeToSymbol(&n, g, nullptr, 0, &counter, &h," in out
    assert "hipGraphAddMemcpyNodeFromSymbol(&n, g, nullptr, 0, hi, &image, 64," in out
    assert "hipGraphMemcpyNodeSetParamsToSymbol(n, &ns::table, hi," in out
    assert "hipGraphMemcpyNodeSetParamsFromSymbol(n, hi, sym, 16," in out  # const void*: CUDA took it as is
    assert "hipGraphExecMemcpyNodeSetParamsToSymbol(e, n, (const void*)&counter, &h," in out
    assert "hipGraphExecMemcpyNodeSetParamsFromSymbol(e, n, hi, &image, 64," in out


@pytest.mark.hipcc
def test_the_port_compiles_with_hip(tmp_path):
    hipcc = shutil.which("hipcc")
    require(hipcc is not None, "hipcc missing: the port is not compile-checked")
    src = tmp_path / "graphs.hip"
    src.write_bytes(translate(SOURCE, "g.cu").output)
    rc, out = killable.run([hipcc, "--offload-arch=gfx90a", "-fsyntax-only", "-x", "hip", str(src)], 180,
                           dict(os.environ, HIP_PLATFORM="amd"), "hipcc on the graph symbol port")
    assert rc == 0, out[-3000:]
