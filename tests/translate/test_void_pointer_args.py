"""The out-parameters HIP declares only as `void**` (rules.toml, kind "void-pointer"): CUDA's runtime header
adds `template<class T> f(T **p, ...)` overloads for a typed pointer's address, HIP has no template for
these, so the translator casts the argument as CUDA's template does.  The list is what the header snapshots
say (CUDA 13's runtime, HIP 5.2's): a CUDA function with a `T **` template parameter whose HIP function
the floor declares with no template overload."""

from __future__ import annotations

import json
import re
from pathlib import Path

from porter.mapping import load_database
from porter.mapping import truth as truth_mod
from porter.translate import translate
from porter.translate.engine import structure_rules

SNAPSHOTS = Path(truth_mod.__file__).with_name("sources") / "snapshots"


def _void_pointer_rule() -> dict:
    (rule,) = [w for w in structure_rules()["wrap_argument"] if w["kind"] == "void-pointer"]
    return rule


def test_the_functions_are_those_the_header_snapshots_give():
    cuda = json.loads((SNAPSHOTS / "cuda_cudart.json").read_text(encoding="utf-8"))["signatures"]
    hip = json.loads((SNAPSHOTS / "hip_hip.json").read_text(encoding="utf-8"))["signatures"]
    db = load_database()
    expected = {}
    for name, overloads in cuda.items():
        entry = db.identifiers.get(name)
        if entry is None or not entry.renames or entry.hip not in hip:
            continue
        for o in overloads:
            for i, p in enumerate(o["params"]):
                if re.match(r"(?:const\s+)?T\s*\*\s*\*", p):
                    hip_params = [h["params"][i] for h in hip[entry.hip] if i < len(h["params"])]
                    if hip_params and not any(re.match(r"T\s*\*", h) for h in hip_params):
                        expected[name] = i
    assert expected == _void_pointer_rule()["functions"]


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
