"""benchmarks/project_builds.py: HeCBench-shaped projects (an nvcc Makefile, `CC = nvcc`, `-arch=$(ARCH)`)
are converted, scanned and built through their migrated Makefile for gfx942 and gfx90a; an error on a line a
finding covers is predicted, others are counted unflagged."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("project_builds", ROOT / "benchmarks" / "project_builds.py")
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)

# HeCBench's Makefile shape, written from nvcc's rules (not copied)
MAKEFILE = """CC        = nvcc
ARCH      = sm_60
program   = main
source    = main.cu
obj       = $(source:.cu=.o)
CFLAGS   := -std=c++17 -Xcompiler -Wall -arch=$(ARCH) -O3
$(program): $(obj)
\t$(CC) $(CFLAGS) $(obj) -o $@
%.o: %.cu
\t$(CC) $(CFLAGS) -c $< -o $@
clean:
\trm -rf $(program) $(obj)
"""
GOOD = """#include <cstdio>
__global__ void twice(float* x) { x[threadIdx.x] *= 2.0f; }
int main() { float* d; cudaMalloc(&d, 64 * sizeof(float)); twice<<<1, 64>>>(d); cudaFree(d); return 0; }
"""
# a wave-native ballot kept in an int (PORT023 flags it, no safe fix) and, three lines down, an error no
# finding is about (an undeclared name, as in CUDA too)
MIXED = """#include <cstdio>
__global__ void k(int* out, const float* in) {
  int m = __ballot_sync(0xffffffff, in[threadIdx.x] > 0.0f) & (warpSize - 1);
  out[threadIdx.x] = m;
  out[0] = not_declared_anywhere;
}
int main() { return 0; }
"""


@pytest.mark.hipcc
def test_projects_are_built_through_their_makefiles_and_errors_counted(tmp_path, capsys, gfx942_device_libs):
    src = tmp_path / "src"
    for name, code in (("good", GOOD), ("mixed", MIXED)):
        (src / f"{name}-cuda").mkdir(parents=True)
        (src / f"{name}-cuda" / "Makefile").write_text(MAKEFILE)
        (src / f"{name}-cuda" / "main.cu").write_text(code)
    out = tmp_path / "json"
    assert bench.main([str(src), "--out", str(tmp_path / "out"), "--json", str(out)]) == 0
    results = json.loads(out.read_text())
    for arch in ("gfx942", "gfx90a"):
        good, mixed = results["good-cuda"][arch], results["mixed-cuda"][arch]
        assert good["ok"] and good["errors"] == 0 and good["code_objects"] == [f"amdgcn-amd-amdhsa--{arch}"]
        assert not mixed["ok"]
        assert [u.split(":")[1] for u in mixed["unflagged"]] == ["5"], mixed  # line 3's error is predicted
    assert (tmp_path / "out" / "good-hip" / "Makefile").is_file()
    printed = capsys.readouterr().out
    assert "gfx942: 1 of 2 built" in printed and "gfx90a: 1 of 2 built" in printed


def test_an_error_in_a_template_counts_where_a_flagged_line_instantiates_it(tmp_path):
    """nlll's shape: the error is in a header's template (reference.h:20), the finding at the call that
    instantiates it with half (main.cu:196, clang's "in instantiation of ... requested here" note)."""
    main = str((tmp_path / "main.cu").resolve())
    header = str((tmp_path / "reference.h").resolve())
    error = {"severity": "error", "message": "invalid operands to binary expression", "source_file": header,
             "source_line": 20, "notes": [{"message": "in instantiation of function template specialization "
                                                      "'reference<__half, __half, int>' requested here",
                                           "source_file": main, "source_line": 196}]}
    assert bench._predicted(error, {(main, 196)})
    assert not bench._predicted(error, {(main, 195)})
    other_note = dict(error, notes=[{"message": "candidate function not viable", "source_file": main,
                                     "source_line": 196}])
    assert not bench._predicted(other_note, {(main, 196)})  # only an instantiation's place counts
    assert bench._predicted(dict(error, notes=[]), {(header, 20)})


def test_the_errors_after_the_first_of_an_instantiation_are_under_its_backtrace(tmp_path):
    """clang prints "in instantiation of ... requested here" with the first error inside an instantiation
    only (nlll: reference.h:20 has it, :21 and :26 do not); a later error of the same unit and file is under
    the same instantiation, an error of another file is not."""
    main = str((tmp_path / "main.cu").resolve())
    header = str((tmp_path / "reference.h").resolve())
    note = {"message": "in instantiation of function template specialization 'reference<__half>' requested here",
            "source_file": main, "source_line": 196}

    def error(file, line, notes=()):
        return {"severity": "error", "message": "invalid operands", "unit": "main.cu", "source_file": file,
                "source_line": line, "line": line, "notes": list(notes)}

    errors = [error(header, 20, [note]), error(header, 21), error(header, 26), error(main, 7)]
    predicted = [bench._predicted(d, {(main, 196)}) for d in bench._with_contexts(errors)]
    assert predicted == [True, True, True, False]
    alone = [bench._predicted(d, {(main, 196)}) for d in errors]
    assert alone == [True, False, False, False]  # (what the errors say without the context carried)


def test_a_tree_of_projects_lists_the_topmost_folders_with_a_build_file(tmp_path):
    """cuda-samples' shape: a shared Common/ with no build file, Samples/CAT/NAME each with its own; a build
    file below a project's (a sub-folder it adds) is part of that project, not another."""
    files = {"Samples/A/CMakeLists.txt": "project(a)\nadd_executable(a a.cu)\n", "Samples/A/a.cu": "",
             "Samples/B/Makefile": "b: b.cu\n\thipcc -o $@ $<\n", "Samples/B/b.cu": "",
             "Samples/B/lib/CMakeLists.txt": "project(l)\nadd_library(l l.cu)\n", "Samples/B/lib/l.cu": "",
             "Common/helper.h": "", "Samples/B/.porter/x/Makefile": "x: x.cu\n\thipcc -o $@ $<\n"}
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    assert [s.rel for s in bench.find_subprojects(tmp_path)] == ["Samples/A", "Samples/B"]


@pytest.mark.hipcc
def test_a_tree_is_converted_once_and_each_project_built_on_its_own(tmp_path, capsys, gfx942_device_libs):
    """Two projects sharing a header in Common/ (found through their Makefiles' -I../../Common): each is built
    with porter build --project, and an error no finding covers is counted for the project it is in."""
    src = tmp_path / "samples"
    (src / "Common").mkdir(parents=True)
    (src / "Common" / "helper.h").write_text("#pragma once\n#define SCALE 2.0f\n")
    include = '#include "helper.h"\n'
    for name, code in (("good", GOOD.replace("*= 2.0f", "*= SCALE")), ("mixed", MIXED)):
        folder = src / "Samples" / name
        folder.mkdir(parents=True)
        (folder / "Makefile").write_text(MAKEFILE.replace("-O3", "-O3 -I../../Common"))
        (folder / "main.cu").write_text(include + code)
    out = tmp_path / "json"
    assert bench.main(["--tree", str(src), "--out", str(tmp_path / "out"), "--json", str(out)]) == 0
    results = json.loads(out.read_text())
    assert sorted(results) == ["Samples/good", "Samples/mixed"]
    for arch in ("gfx942", "gfx90a"):
        good, mixed = results["Samples/good"][arch], results["Samples/mixed"][arch]
        assert good["ok"] and good["code_objects"] == [f"amdgcn-amd-amdhsa--{arch}"], good
        assert not mixed["ok"]
        assert [u.split(":")[1] for u in mixed["unflagged"]] == ["6"], mixed  # MIXED's line 5, below the include
    printed = capsys.readouterr().out
    assert "gfx942: 1 of 2 built" in printed and "gfx90a: 1 of 2 built" in printed


def test_an_error_naming_a_file_the_cuda_project_lacks_is_counted_apart(tmp_path):
    """A corpus fetched in part (HeCBench's adamw: its Makefile's pattern rule needs a reference.h the folder
    has not got) fails in CUDA as in HIP: counted as absent, not as an error porter failed to predict; a file
    the CUDA folder has (the port lost it), an angle-bracket include (a header left unconverted) and an object
    make has no rule for with no word of why stay unflagged."""
    cuda = tmp_path / "cuda"
    cuda.mkdir()
    (cuda / "main.cu").write_text('#include "util.h"\n#include <cuda_fp8.h>\n#include "kernels.h"\n')
    (cuda / "kernels.h").write_text("")
    main = str(cuda / "main.cu")

    def absent(message, hint="", line=0):
        d = {"message": message, "hint": hint, "source_file": main if line else None, "source_line": line}
        return bench._absent(d, cuda, {})

    no_rule = "make failed (exit 2): make: *** No rule to make target 'main.o', needed by 'main'."
    assert absent(no_rule, "Makefile:54 `%.o: %.cu kernels.h reference.h` makes main.o only when its "
                           "prerequisites exist, and reference.h is not there")
    assert not absent(no_rule, "Makefile:54 `%.o: %.cu kernels.h` makes main.o only when its prerequisites "
                               "exist, and kernels.h is not there")  # (the CUDA folder has it: the port lost it)
    assert not absent(no_rule)
    assert absent("make failed (exit 2): make: *** No rule to make target '../bfs-sycl/util.h', needed by 'bfs.o'.")
    assert absent("'util.h' file not found", line=1)
    assert not absent("'cuda_fp8.h' file not found", line=2)
    assert not absent("'kernels.h' file not found", line=3)
    assert not absent("use of undeclared identifier 'c'", line=1)
    assert not bench._absent({"message": "'util.h' file not found", "source_file": main, "source_line": 1},
                             None, {})  # (no CUDA folder to look in: nothing is counted apart)
