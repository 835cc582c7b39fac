"""An undeclared name clang corrects to another declared one, and the error about the call's arguments
that follows from it.

NVIDIA's graphMemoryNodes sample ported for a HIP without graph memory nodes (HIP 5.2 declares no
``hipGraphAddMemFreeNode``): clang says "use of undeclared identifier 'cudaGraphAddMemFreeNode'; did you mean
'hipGraphAddMemsetNode'?", checks the call's arguments against hipGraphAddMemsetNode, and reports the pointer
argument (on the next line) as a second error.  That error is the first one's consequence: the build says so,
with the first error's place (``cause``), instead of a second, unexplained error.
"""

from __future__ import annotations

from porter.build import BuildOptions, run_build

# the sample's shape: a free node whose dependency list and pointer are on the line below the name
_PROGRAM = """#include <hip/hip_runtime.h>

int main() {
  hipGraph_t graph;
  hipGraphNode_t freeNode, kernelNode;
  float *d_input = nullptr;
  hipGraphCreate(&graph, 0);
  hipError_t status = cudaGraphAddMemFreeNode(&freeNode, graph,
                                              &kernelNode, 1, d_input);
  return status == hipSuccess ? 0 : 1;
}
"""


def _line(text: str, program: str = _PROGRAM) -> int:
    return next(i for i, ln in enumerate(program.splitlines(), 1) if text in ln)


def test_the_argument_error_follows_from_the_corrected_name(tmp_path, toolchain942):
    (tmp_path / "g.cpp").write_text(_PROGRAM)
    report = run_build(tmp_path, BuildOptions(arch="gfx942"), toolchain=toolchain942)
    first = next(d for d in report.errors if "undeclared identifier 'cudaGraphAddMemFreeNode'" in d.message)
    later = next(d for d in report.errors if "cannot initialize a parameter of type" in d.message)
    assert first.line == _line("cudaGraphAddMemFreeNode(") and later.line == _line("&kernelNode, 1, d_input")
    assert later.cause == f"g.cpp:{first.line}" and first.cause == ""
    assert "clang took the undeclared `cudaGraphAddMemFreeNode` for `hipGraphAddMemsetNode`" in later.one_line()
    listed = [d for d in report.as_dict()["diagnostics"] if d["line"] == later.line and d["message"] == later.message]
    assert [d.get("cause") for d in listed] == [f"g.cpp:{first.line}"]


def test_an_error_of_another_statement_is_not_blamed_on_the_name(tmp_path, toolchain942):
    # the corrected call's arguments fit hipGraphAddMemsetNode (a null pointer), so clang has nothing to say of
    # them; the next error is another call's (to a function of the project), a few lines below
    text = _PROGRAM.replace("&kernelNode, 1, d_input);", "&kernelNode, 1, nullptr);\n"
                            "  int pick(int a, int b);\n  int x = pick(1);")
    (tmp_path / "g.cpp").write_text(text)
    report = run_build(tmp_path, BuildOptions(arch="gfx942"), toolchain=toolchain942)
    lone = next(d for d in report.errors if "too few arguments to function call" in d.message)
    assert lone.line == _line("pick(1)", text) and lone.cause == ""
