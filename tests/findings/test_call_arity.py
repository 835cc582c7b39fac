"""PORT034: a call whose argument count HIP's declaration does not accept.

CUDA facts the expectations are written from (CUDA 13.0 cuda_runtime_api.h / cuda_runtime.h):
``cudaStreamWaitEvent(stream, event, flags = 0)``; ``cudaMemcpyToSymbolAsync(symbol, src,
count, offset = 0, kind = cudaMemcpyHostToDevice, stream = 0)``; the C++ overload
``cudaEventCreate(event, flags)`` calls ``cudaEventCreateWithFlags``; since CUDA 12
``cudaGraphInstantiate(exec, graph, flags = 0)`` means ``cudaGraphInstantiateWithFlags``.
HIP facts (HIP 5.2 hip_runtime_api.h, installed by Debian's libamdhip64-dev): hipStreamWaitEvent
takes three arguments, hipMemcpyToSymbolAsync five or six, hipEventCreate one,
hipGraphInstantiate five, hipStreamGetCaptureInfo three (the last a pointer).

Occupancy (CUDA 13.0 cuda.h; CUDA Driver API reference, Occupancy):
``cuOccupancyMaxPotentialBlockSize(int*, int*, CUfunction, CUoccupancyB2DSize
blockSizeToDynamicSMemSize, size_t dynamicSMemSize, int blockSizeLimit)`` and its WithFlags form
(the same plus ``unsigned int flags``); a null blockSizeToDynamicSMemSize means dynamicSMemSize is
used for every block size, otherwise the callback gives it per block size.  HIP 5.2 declares
``hipModuleOccupancyMaxPotentialBlockSize(int*, int*, hipFunction_t, size_t, int)`` and the
WithFlags form with ``unsigned int flags`` last: no callback parameter.  CUDA 12's
``cudaGraphInstantiateWithFlags(exec, graph, flags = 0)``; HIP 5.2's takes the three."""

from __future__ import annotations

import json
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


# --------------------------------------------------------------- names with another fact's name as a prefix

PREFIXED = b"""#include <cuda.h>
#include <cuda_runtime.h>
void f(CUfunction function, size_t bytes, unsigned int flags, cudaGraph_t graph) {
    int g, b;
    cuOccupancyMaxPotentialBlockSizeWithFlags(&g, &b, function, 0, bytes, 0, flags);
    cudaGraphExec_t x;
    cudaGraphInstantiateWithFlags(&x, graph);
}
"""


def test_a_call_whose_name_has_a_shorter_fact_name_as_prefix_is_found():
    found = _port034(PREFIXED)
    assert [(f.line, f.severity) for f in found] == [(5, "error"), (7, "error")]
    assert "`cuOccupancyMaxPotentialBlockSizeWithFlags` with 7 arguments" in found[0].message
    assert "`cudaGraphInstantiateWithFlags` with 2 arguments" in found[1].message
    fixed = apply_fixes(PREFIXED, found).decode().splitlines()
    assert fixed[4] == "    cuOccupancyMaxPotentialBlockSizeWithFlags(&g, &b, function, bytes, 0, flags);"
    assert fixed[6] == "    cudaGraphInstantiateWithFlags(&x, graph, 0);"  # CUDA 12's default flags written
    # the translator's count-selected renames (cudaGraphInstantiate with 3 -> WithFlags) look up whole names
    hip = translate(apply_fixes(PREFIXED, found), "t.cu", OLD).output.decode().splitlines()
    assert hip[4] == "    hipModuleOccupancyMaxPotentialBlockSizeWithFlags(&g, &b, function, bytes, 0, flags);"
    assert hip[6] == "    hipGraphInstantiateWithFlags(&x, graph, 0);"


def test_every_fact_name_with_another_as_prefix_is_found():
    """Whatever the data holds: a call, with a count CUDA declares and HIP lacks, of each fact whose
    name begins with another fact's name is reported under its own name."""
    import porter.mapping

    facts = json.loads((Path(porter.mapping.__file__).parent / "data" / "calls" / "arity.json").read_text())["functions"]
    longer = sorted(n for n in facts if any(o != n and n.startswith(o) for o in facts))
    assert {"cuOccupancyMaxPotentialBlockSizeWithFlags", "cudaGraphInstantiateWithFlags"} <= set(longer)
    for name in longer:
        count = min(facts[name]["cuda_only"])  # a count CUDA's signature takes and HIP's does not
        src = f"void f() {{\n    {name}({', '.join(f'a{i}' for i in range(count))});\n}}\n".encode()
        found = _port034(src)
        assert [f.line for f in found] == [2], name
        assert f"`{name}` with {count} argument" in found[0].message


# --------------------------------------------------------------- the occupancy calls' callback parameter

OCCUPANCY = b"""#include <cuda.h>
#include <cstddef>
void occupancy(CUfunction kernel, size_t shared, unsigned int flags) {
    int grid = 0, block = 0;
    cuOccupancyMaxPotentialBlockSize(&grid, &block, kernel, 0, shared, 0);
    cuOccupancyMaxPotentialBlockSizeWithFlags(&grid, &block, kernel, NULL, shared, 256, flags);
    cuOccupancyMaxPotentialBlockSize(&grid, &block, kernel, nullptr, shared, 0);
    cuOccupancyMaxPotentialBlockSize(&grid, &block, kernel, (CUoccupancyB2DSize)0, shared, 0);
    cuOccupancyMaxPotentialBlockSize(&grid, &block, kernel, ((CUoccupancyB2DSize) NULL), shared, 0);
    cuOccupancyMaxPotentialBlockSizeWithFlags(&grid, &block, kernel, static_cast<CUoccupancyB2DSize>(nullptr),
                                              shared, 0, flags);
    cuOccupancyMaxPotentialBlockSize(&grid, &block, kernel, /* no callback */ 0L, shared, 0);
}
"""


def test_a_null_shared_memory_callback_is_removed_by_a_safe_fix():
    found = _port034(OCCUPANCY)
    assert [f.line for f in found] == [5, 6, 7, 8, 9, 10, 12]
    assert all(f.fix and f.fix.safe for f in found)
    assert "dynamicSMemSize for every block size" in found[0].fix.description
    lines = apply_fixes(OCCUPANCY, found).decode().splitlines()
    assert lines[4:12] == [
        "    cuOccupancyMaxPotentialBlockSize(&grid, &block, kernel, shared, 0);",
        "    cuOccupancyMaxPotentialBlockSizeWithFlags(&grid, &block, kernel, shared, 256, flags);",
        "    cuOccupancyMaxPotentialBlockSize(&grid, &block, kernel, shared, 0);",
        "    cuOccupancyMaxPotentialBlockSize(&grid, &block, kernel, shared, 0);",
        "    cuOccupancyMaxPotentialBlockSize(&grid, &block, kernel, shared, 0);",
        "    cuOccupancyMaxPotentialBlockSizeWithFlags(&grid, &block, kernel,",
        "                                              shared, 0, flags);",
        "    cuOccupancyMaxPotentialBlockSize(&grid, &block, kernel, shared, 0);",
    ]
    assert _port034(apply_fixes(OCCUPANCY, found)) == []


@pytest.mark.parametrize("callback", [b"smem_for_block", b"&smem_for_block", b"(CUoccupancyB2DSize)smem_for_block",
                                      b"use_callback ? smem_for_block : 0", b"reinterpret_cast<CUoccupancyB2DSize>(0)"])
def test_a_shared_memory_callback_gets_no_fix_and_the_message_says_why(callback):
    src = (b"#include <cuda.h>\nsize_t smem_for_block(int block) { return block * 8; }\n"
           b"void f(CUfunction k, bool use_callback) {\n    int g, b;\n"
           b"    cuOccupancyMaxPotentialBlockSize(&g, &b, k, " + callback + b", 0, 0);\n}\n")
    found = _port034(src)
    assert [(f.line, f.fix) for f in found] == [(5, None)]
    assert "callback (dynamic shared memory as a function of the block size) cannot be ported" in found[0].message
    assert "hipModuleOccupancyMaxActiveBlocksPerMultiprocessor" in found[0].message
    assert ("declares `hipModuleOccupancyMaxPotentialBlockSize(int* gridSize, int* blockSize, hipFunction_t f, "
            "size_t dynSharedMemPerBlk, int blockSizeLimit)` (5 arguments)") in found[0].message


def test_the_occupancy_messages_name_only_functions_hips_headers_declare():
    if not Path("/usr/include/hip/hip_runtime_api.h").exists():
        pytest.skip("HIP headers not installed (apt-get install libamdhip64-dev)")
    everything = "\n".join(p.read_text(errors="replace") for p in Path("/usr/include/hip").rglob("*.h")
                           if "nvidia_detail" not in p.parts)
    texts = [" ".join(f.drop_if_null[2:]) for f in load_call_arities()[1].values() if f.drop_if_null]
    assert len(texts) == 2
    for name in set(re.findall(r"\bhip[A-Z]\w*", " ".join(texts))):
        assert re.search(rf"\b{name}\s*\(", everything), name


def test_the_fixed_occupancy_calls_compile_with_hipcc_and_the_unfixed_ones_do_not(hipcc_compile):
    rc, out = hipcc_compile(translate(OCCUPANCY, "t.cu", OLD).output, "unfixed")
    assert rc != 0
    failing = sorted({int(m) for m in re.findall(r"unfixed\.hip:(\d+):\d+: error", out)})
    assert failing == [f.line for f in _port034(OCCUPANCY)]
    fixed = apply_fixes(OCCUPANCY, _port034(OCCUPANCY))
    rc, out = hipcc_compile(translate(fixed, "t.cu", OLD).output, "fixed")
    assert rc == 0, out


def test_the_committed_facts_are_what_the_generator_makes_of_the_conventions(tmp_path):
    """The drop-when-null facts live in conventions.toml ([[arity_drop_null]]); arity.json is the
    generator's output, so an edit to either one alone is caught."""
    import importlib.util

    repo = Path(__file__).resolve().parents[2]
    spec = importlib.util.spec_from_file_location("porter_gen_mappings_arity", repo / "scripts" / "gen_mappings.py")
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    gen.transform(repo / "porter" / "mapping" / "sources", tmp_path)
    committed = repo / "porter" / "mapping" / "data" / "calls" / "arity.json"
    assert (tmp_path / "calls" / "arity.json").read_text() == committed.read_text(), "run scripts/gen_mappings.py"


# CUDA 13's unified-memory calls (cuda_runtime_api.h 13.0): cudaMemPrefetchAsync(devPtr, count, cudaMemLocation
# location, unsigned flags, cudaStream_t stream = 0) and cudaMemAdvise(devPtr, count, advice, cudaMemLocation
# location); nvcc 13 compiles this.  HIP's hipMemPrefetchAsync and hipMemAdvise take an int device there.
_LOCATION_SOURCE = b"""#include <cuda_runtime.h>
void prefetch(float* data, size_t bytes, int device, cudaStream_t s) {
    cudaMemLocation where;
    where.type = cudaMemLocationTypeDevice;
    where.id = device;
    cudaMemPrefetchAsync(data, bytes, where, 0, s);
    cudaMemPrefetchAsync(data, bytes, where, 0);
    cudaMemAdvise(data, bytes, cudaMemAdviseSetPreferredLocation, where);
    cudaMemPrefetchAsync(data, bytes, device, s);
    cudaMemAdvise(data, bytes, cudaMemAdviseSetReadMostly, device);
}
"""


def test_a_memory_location_where_hip_takes_the_device_is_reported_whatever_the_count():
    found = _port034(_LOCATION_SOURCE)
    # the three calls passing the cudaMemLocation (5 and 4 arguments); the int device calls (CUDA 12's form,
    # HIP's) are not reported
    assert [f.line for f in found] == [6, 7, 8]
    assert "argument 3 is a cudaMemLocation (CUDA 13's signature)" in found[1].message
    assert "pass the location's `id` for a device location, hipCpuDeviceId for the host" in found[1].message
    assert "argument 4 is a cudaMemLocation" in found[2].message and "hipMemAdvise(" in found[2].message
    assert all(f.fix is None for f in found)


def test_the_memory_location_finding_predicts_hipccs_failures_and_its_advice_compiles(hipcc_compile):
    rc, out = hipcc_compile(translate(_LOCATION_SOURCE, "t.cu", OLD).output, "location")
    failing = sorted({int(m) for m in re.findall(r"location\.hip:(\d+):\d+: error", out)})
    assert rc != 0 and failing == [f.line for f in _port034(_LOCATION_SOURCE)]
    # the message's advice: the location's id for a device location, no flags
    advised = (_LOCATION_SOURCE.replace(b"where, 0, s)", b"where.id, s)").replace(b"where, 0)", b"where.id)")
               .replace(b"SetPreferredLocation, where)", b"SetPreferredLocation, where.id)"))
    assert _port034(advised) == []
    rc, out = hipcc_compile(translate(advised, "t.cu", OLD).output, "advised")
    assert rc == 0, out
