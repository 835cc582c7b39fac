"""What the wave model of a big file holds in memory (issue 34: a 200 MB convert's peak), with the same
findings.

The model of a file of many functions used to keep a Python list of every line start (about 40 bytes a
line), an instance dictionary per function, a list per function for its calls, callers and callees, and a
new string per call: on a 20 MB file of real code about 30 MB while the model was built, on top of the
blanked text it reads.  These tests build the model of a file of thousands of functions and tens of
thousands of lines (CUDA written for the test: host helpers, and kernels that mix 32-lane shuffles with
``warpSize``) and check what building it costs, that the evidence keeps its lines, and who calls whom.
"""

from __future__ import annotations

import tracemalloc

from porter.findings import scan
from porter.findings.wave import model as wave_model
from porter.findings.wave.functions import FunctionIndex, link_calls, read_functions

_HELPERS = 3000
_FILLER = 12  # statements per helper


def _big_source() -> bytes:
    """Host helpers that call one another, then kernels that mix a 32-lane shuffle with ``warpSize``."""
    out = ["#include <cuda_runtime.h>\n", "/* a block comment\n   over two lines */\n"]
    for i in range(_HELPERS):
        body = "".join(f"    acc += x[{k}] * {k + 1};\n" for k in range(_FILLER))
        call = f"    acc += helper{i - 1}(x);\n" if i else ""
        out.append(f"static float helper{i}(const float* x) {{\n    float acc = 0.0f;\n{body}{call}    return acc;\n}}\n")
    for k in range(20):
        out.append(
            f"__device__ float lane_sum{k}(float v) {{\n"
            f"    for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffff, v, o, 32);\n"
            f"    return v;\n}}\n"
            f"__global__ void mixed{k}(float* out) {{\n"
            f"    int lane = threadIdx.x % warpSize;\n"
            f"    float v = lane_sum{k}(out[threadIdx.x]);\n"
            f"    if (lane == 0) out[blockIdx.x] = v;\n}}\n")
    out.append("int main() { float x[16] = {0}; return (int)helper%d(x); }\n" % (_HELPERS - 1))
    return "".join(out).encode()


def _model_cost(monkeypatch, source: bytes):
    """(bytes allocated at the peak while the model is built, the model, the scan's findings)."""
    seen = {}
    real = wave_model.model_of

    def traced(ctx):
        if "wave.model" in ctx.cache:
            return real(ctx)
        wave_model.code_of(ctx)  # the blanked text is the values' (built before): not the model's cost
        tracemalloc.start()
        try:
            model = real(ctx)
            seen["peak"] = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        seen["model"] = model
        return model

    monkeypatch.setattr(wave_model, "model_of", traced)
    import porter.findings.wave as wave
    monkeypatch.setattr(wave, "model_of", traced)
    for name in ("porter.findings.wave.passed", "porter.findings.wave.widths"):
        import importlib
        monkeypatch.setattr(importlib.import_module(name), "model_of", traced)
    found = scan(source, "big.cu")
    return seen["peak"], seen["model"], found


def test_building_the_model_of_a_big_file_costs_little_more_than_one_copy_of_its_text(monkeypatch):
    source = _big_source()
    lines = source.count(b"\n")
    assert lines > 40_000
    peak, model, found = _model_cost(monkeypatch, source)
    assert len(model.index.functions) > _HELPERS
    # one transient copy of the text (directives blanked) plus the functions and their calls: no list of
    # line starts, no dictionary per function, no list per function without calls (before: 4.8 bytes
    # per source byte on this file of ~370-byte functions; now 2.7)
    assert peak < 3.5 * len(source), (peak, len(source), peak / len(source))
    assert found  # the scan went through


def test_evidence_lines_are_the_source_lines(monkeypatch):
    source = _big_source()
    _peak, model, _found = _model_cost(monkeypatch, source)
    text = source.decode()
    for k in (0, 19):
        pos = text.index(f"__global__ void mixed{k}(")
        native = model.native_at(text.index("% warpSize", pos))
        assert native is not None
        assert native.line == text.count("\n", 0, text.index("warpSize", pos)) + 1
        logical = model.logical_at(text.index("% warpSize", pos))
        assert logical is not None  # through lane_sum{k}, which it calls
        shfl = text.index(f"float lane_sum{k}(")
        assert logical.line == text.count("\n", 0, shfl) + 2  # the shuffle's line, below the head


def test_calls_and_callees_are_found_once_each():
    code = _big_source()
    functions = read_functions(code, "")
    link_calls(functions, {"": code})
    index = FunctionIndex(functions)
    by_name = {f.name: f for f in functions}
    assert [c[1:] for c in by_name["helper5"].calls] == [("helper4", b"(")]
    assert by_name["helper0"].calls == () or list(by_name["helper0"].calls) == []
    assert [c[1:] for c in by_name["mixed3"].calls] == [("lane_sum3", b"(")]
    pos = code.index(b"acc += x[3]", code.index(b"helper7("))
    assert index.functions[index.at(pos)].name == "helper7"
    assert index.at(0) is None
