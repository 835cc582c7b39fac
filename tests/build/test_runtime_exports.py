"""A link that fails on a HIP function the toolchain's runtime library does not export.

HIP 5.2's hip_runtime_api.h (Debian 12's libamdhip64-dev) declares hipLaunchHostFunc, but that release's
libamdhip64.so exports no such symbol (NVIDIA's simpleCudaGraphs sample, ported, fails to link there).  The
linker's "undefined reference" reads like a file that did not compile; porter reads the library's exports
and says what is missing, at the call.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from porter.build import BuildOptions, run_build
from porter.build.runtime_exports import exported, missing_note, runtime_library
from required_tools import require


def _library(tmp_path: Path, source: str) -> Path:
    """A shared library built from C ``source`` (clang-19, as the gfx942 toolchain's)."""
    require(shutil.which("clang-19") and shutil.which("nm"), "clang-19 and binutils' nm needed")
    lib = tmp_path / "rocm" / "lib" / "libamdhip64.so"
    lib.parent.mkdir(parents=True)
    (tmp_path / "rt.c").write_text(source)
    subprocess.run(["clang-19", "-shared", "-fPIC", "-o", str(lib), str(tmp_path / "rt.c")], check=True, timeout=120)
    return lib


def test_a_function_the_runtime_lacks_is_named_and_one_it_has_is_not(tmp_path):
    lib = _library(tmp_path, "int hipMalloc(void **p, unsigned long n) { return 0; }\nint helper_data = 1;\n")
    assert runtime_library(str(tmp_path / "rocm")) == str(lib.resolve())
    assert {"hipMalloc", "helper_data"} <= exported(str(lib))
    note = missing_note("hipLaunchHostFunc", str(lib), "5.2.21153")
    assert note and "hipLaunchHostFunc" in note and "not exported" in note and "HIP 5.2.21153" in note
    assert missing_note("hipMalloc", str(lib), "5.2.21153") is None
    # not a HIP runtime function (a project's own, a C++ mangled name): the runtime is not the reason
    assert missing_note("myKernelLauncher", str(lib), "5.2") is None
    assert missing_note("_Z3fooi", str(lib), "5.2") is None
    # a file that is no library: nothing is claimed
    (tmp_path / "not_a_lib.so").write_text("text\n")
    assert missing_note("hipLaunchHostFunc", str(tmp_path / "not_a_lib.so"), "5.2") is None


_PROGRAM = """#include <hip/hip_runtime.h>
#include <cstdio>

static void done(void *) { std::puts("done"); }

int main() {
  hipStream_t s;
  hipStreamCreate(&s);
  hipLaunchHostFunc(s, done, nullptr);
  hipStreamSynchronize(s);
  return 0;
}
"""


def test_the_build_says_the_runtime_lacks_it_at_the_call(tmp_path, toolchain942):
    lib = runtime_library(toolchain942.rocm_path, toolchain942.hip_lib_dir)
    names = exported(lib)
    assert names and "hipMalloc" in names, lib
    if "hipLaunchHostFunc" in names:
        pytest.skip(f"{lib} exports hipLaunchHostFunc: this runtime cannot show the failure")
    (tmp_path / "graph.cpp").write_text(_PROGRAM)
    report = run_build(tmp_path, BuildOptions(arch="gfx942"), toolchain=toolchain942)
    assert not report.ok
    [error] = [d for d in report.errors if "hipLaunchHostFunc" in d.message]
    call_line = next(i for i, ln in enumerate(_PROGRAM.splitlines(), 1) if "hipLaunchHostFunc(" in ln)
    assert (error.file, error.line) == ("graph.cpp", call_line)
    assert re.search(r"hipLaunchHostFunc is declared by this HIP's headers but not exported by its runtime "
                     r"library libamdhip64\.so", error.hint), error.hint


_CUDA_PROGRAM = _PROGRAM.replace("hip/hip_runtime.h", "cuda_runtime.h").replace("hipStream", "cudaStream") \
    .replace("hipLaunchHostFunc", "cudaLaunchHostFunc")


def test_a_target_before_5_4_is_told_before_the_build(tmp_path, toolchain942):
    """hipLaunchHostFunc is exported from ROCm 5.4 (alpaka-group/alpaka#1883; Debian's 5.2 runtime lacks it): at
    --target-rocm 5.2 the call is a finding (PORT032) on the line the link fails for, and it is not renamed; at
    5.4 it is renamed and nothing is said."""
    from porter.findings import scan
    from porter.translate import TranslateOptions, translate

    lib = runtime_library(toolchain942.rocm_path, toolchain942.hip_lib_dir)
    names = exported(lib)
    assert names and "hipStreamAddCallback" in names  # the alternative the finding names links here
    call_line = next(i for i, ln in enumerate(_CUDA_PROGRAM.splitlines(), 1) if "cudaLaunchHostFunc(" in ln)
    for target in ("5.2", "5.3"):
        found = [f for f in scan(_CUDA_PROGRAM, "graph.cu", options=TranslateOptions(target_rocm=target))
                 if f.rule == "PORT032"]
        assert [(f.line, "5.4" in f.message) for f in found] == [(call_line, True)], target
    port = translate(_CUDA_PROGRAM.encode(), "graph.cu", TranslateOptions(target_rocm="5.4")).output
    assert b"hipLaunchHostFunc(s, done" in port
    assert not [f for f in scan(_CUDA_PROGRAM, "graph.cu", options=TranslateOptions(target_rocm="5.4"))
                if f.rule == "PORT032"]
