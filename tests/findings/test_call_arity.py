"""PORT034: a call whose argument count HIP's declaration does not accept.

CUDA facts the expectations are written from (CUDA 13.0 cuda_runtime_api.h / cuda_runtime.h):
``cudaStreamWaitEvent(stream, event, flags = 0)``; ``cudaMemcpyToSymbolAsync(symbol, src,
count, offset = 0, kind = cudaMemcpyHostToDevice, stream = 0)``; the C++ overload
``cudaEventCreate(event, flags)`` calls ``cudaEventCreateWithFlags``; since CUDA 12
``cudaGraphInstantiate(exec, graph, flags = 0)`` means ``cudaGraphInstantiateWithFlags``.
HIP facts (HIP 5.2 hip_runtime_api.h, installed by Debian's libamdhip64-dev): hipStreamWaitEvent
takes three arguments, hipMemcpyToSymbolAsync five or six, hipEventCreate one,
hipGraphInstantiate five, hipStreamGetCaptureInfo three (the last a pointer)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from porter.findings import apply_fixes, scan
from porter.mapping import load_call_arities
from porter.translate import TranslateOptions, translate

SOURCE = b"""#include <cuda_runtime.h>
__constant__ float table[16];
void f(cudaStream_t s, cudaEvent_t e, float* host, cudaGraph_t g) {
    cudaStreamWaitEvent(s, e);
    cudaStreamWaitEvent(s, e, 0);
    cudaMemcpyToSymbolAsync(table, host, sizeof(table));
    cudaEvent_t t;
    cudaEventCreate(&t, cudaEventDisableTiming);
    cudaEventCreate(&t);
    cudaGraphExec_t x;
    cudaGraphInstantiate(&x, g, 0);
    cudaGraphInstantiate(&x, g);
    cudaStreamCaptureStatus st;
    cudaStreamGetCaptureInfo(s, &st);
}
"""
OLD = TranslateOptions(target_rocm="5.2")


def _port034(data: bytes, options=OLD):
    return [f for f in scan(data, "t.cu", options=options) if f.rule in ("PORT034", "PORT900")]


def test_each_call_hip_52_rejects_is_reported_at_its_line_and_no_other():
    found = _port034(SOURCE)
    assert [(f.line, f.severity) for f in found] == [(4, "error"), (6, "error"), (12, "error"), (14, "error")]
    wait, symbol = found[:2]
    assert "`cudaStreamWaitEvent` with 2 arguments" in wait.message
    assert "hipStreamWaitEvent(hipStream_t stream, hipEvent_t event, unsigned int flags)" in wait.message
    assert "hipStream_t stream = 0)` (5 or 6 arguments)" in symbol.message


def test_a_count_that_means_another_cuda_function_is_translated_to_its_hip_name():
    lines = translate(SOURCE, "t.cu", OLD).output.decode().splitlines()
    assert lines[7] == "    hipEventCreateWithFlags(&t, hipEventDisableTiming);"
    assert lines[8] == "    hipEventCreate(&t);"
    assert lines[10] == "    hipGraphInstantiateWithFlags(&x, g, 0);"
    assert lines[11] == "    hipGraphInstantiate(&x, g);"  # PORT034: CUDA's default flags must be written


def test_above_the_floor_it_is_a_warning_not_an_error():
    found = _port034(SOURCE, TranslateOptions())
    assert len(found) == 4 and {f.severity for f in found} == {"warning"}


def test_the_safe_fixes_give_the_same_cuda_calls_with_every_argument_written():
    fixed = apply_fixes(SOURCE, _port034(SOURCE), safe_only=True)
    lines = fixed.decode().splitlines()
    assert lines[3] == "    cudaStreamWaitEvent(s, e, 0);"
    assert lines[5] == "    cudaMemcpyToSymbolAsync(table, host, sizeof(table), 0, cudaMemcpyHostToDevice);"
    assert lines[11] == "    cudaGraphInstantiate(&x, g, 0);"  # CUDA 12's three-argument form
    assert lines[13] == "    cudaStreamGetCaptureInfo(s, &st);"  # a null pId: a suggestion to review, not safe
    assert [f.line for f in _port034(fixed)] == [14]
    reviewed = apply_fixes(fixed, _port034(fixed), safe_only=False)
    assert reviewed.decode().splitlines()[13] == "    cudaStreamGetCaptureInfo(s, &st, 0);"
    assert _port034(reviewed) == []


def test_the_finding_predicts_hipccs_failures_and_the_fix_compiles(hipcc_compile):
    plain = translate(SOURCE, "t.cu", OLD).output
    rc, out = hipcc_compile(plain, "unfixed")
    assert rc != 0
    failing = sorted({int(m) for m in re.findall(r"unfixed\.hip:(\d+):\d+: error", out)})
    assert failing == [f.line for f in _port034(SOURCE)]
    fixed = apply_fixes(SOURCE, _port034(SOURCE), safe_only=False)
    rc, out = hipcc_compile(translate(fixed, "t.cu", OLD).output, "fixed")
    assert rc == 0, out


def test_the_users_own_function_and_text_are_left_alone():
    src = (b"static int cudaStreamWaitEvent(int a, int b) { return a + b; }\n"
           b"int g() { return cudaStreamWaitEvent(1, 2); }\n"
           b"// cudaEventCreate(&t, 0);\n"
           b"const char* s = \"cudaStreamWaitEvent(s, e)\";\n")
    assert _port034(src) == []


def test_calls_with_qualified_names_and_in_a_checking_macro_are_found():
    src = (b"#define CHECK(x) do { if ((x) != cudaSuccess) return; } while (0)\n"
           b"void f(cudaStream_t s, cudaEvent_t e) {\n"
           b"    CHECK(::cudaStreamWaitEvent(s, e));\n"
           b"    CHECK(cudaStreamWaitEvent(s,\n                              e));\n}\n")
    found = _port034(src)
    assert [f.line for f in found] == [3, 4]
    fixed = apply_fixes(src, found).decode()
    assert "CHECK(::cudaStreamWaitEvent(s, e, 0));" in fixed and "e, 0));" in fixed.splitlines()[4]


def test_the_facts_agree_with_the_installed_hip_headers():
    """The shipped counts come from HIP 5.2's headers; where those are installed, read them again."""
    header = Path("/usr/include/hip/hip_runtime_api.h")
    if not header.exists():
        pytest.skip("HIP headers not installed (apt-get install libamdhip64-dev)")
    text = header.read_text(errors="replace")
    floor, facts = load_call_arities()
    assert floor == "5.2"
    assert re.search(r"hipError_t hipStreamWaitEvent\(hipStream_t stream, hipEvent_t event, unsigned int flags\);", text)
    assert facts["cudaStreamWaitEvent"].hip_accepts == {3}
    assert re.search(r"hipError_t hipEventCreate\(hipEvent_t\* event\);", text)
    assert facts["cudaEventCreate"].hip_accepts == {1}
    # every function the facts name is declared in the installed headers
    everything = "\n".join(p.read_text(errors="replace") for p in Path("/usr/include/hip").rglob("*.h")
                           if "nvidia_detail" not in p.parts)
    for fact in facts.values():
        assert re.search(rf"\b{fact.hip}\s*\(", everything), fact.hip
