"""The out-parameters HIP declares only as `void**` (rules.toml, kind "void-pointer"): CUDA's runtime header
adds `template<class T> f(T **p, ...)` overloads for a typed pointer's address, HIP has no template for
these, so the translator casts the argument as CUDA's template does.  The list is what the header snapshots
say (CUDA 13's runtime, HIP 5.2's): a CUDA function with a `T **` template parameter whose HIP function
the floor declares with no template overload."""

from __future__ import annotations

from header_signatures import template_parameters_hip_lacks, wrap_rule

from porter.translate import translate


def test_the_functions_are_those_the_header_snapshots_give():
    assert template_parameters_hip_lacks(r"(?:const\s+)?T\s*\*\s*\*", r"T\s*\*") == wrap_rule("void-pointer")["functions"]


def test_a_typed_pointer_address_is_cast_and_a_cast_one_is_left():
    src = (b"#include <cuda_runtime.h>\nvoid f(float* h, void* raw) {\n  float* d; size_t pitch; void* v;\n"
           b"  cudaHostGetDevicePointer(&d, h, 0);\n  cudaHostGetDevicePointer(&v, raw, 0);\n"
           b"  cudaMallocPitch((void **) &d, &pitch, 4, 4);\n  cudaMallocPitch(reinterpret_cast<void**>(&d), &pitch, 4, 4);\n}\n")
    out = translate(src, "t.cu").output.decode()
    assert "hipHostGetDevicePointer(reinterpret_cast<void**>(&d), h, 0);" in out
    assert "hipHostGetDevicePointer(reinterpret_cast<void**>(&v), raw, 0);" in out  # void* too: the same call
    assert "hipMallocPitch((void **) &d, &pitch, 4, 4);" in out
    assert "hipMallocPitch(reinterpret_cast<void**>(&d), &pitch, 4, 4);" in out
    assert out.count("reinterpret_cast") == 3
