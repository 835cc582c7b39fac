"""``porter build --flag=-Idir`` with a path relative to where the user typed it.

A build compiles in the project's folder (make, per file), so a relative include folder given from the
folder above named nothing by the time the compiler read it: "'extra.h' file not found" for a header that
is there.  The project below compiles only when its header, kept outside the project, is found."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from porter.build.user_flags import anchor_paths

MAKEFILE = """HIPCC ?= hipcc
HIP_ARCH ?= gfx942

app: main.o
\t$(HIPCC) --offload-arch=$(HIP_ARCH) main.o -o app

main.o: main.cu
\t$(HIPCC) --offload-arch=$(HIP_ARCH) -O2 -c main.cu -o main.o
"""
SOURCE = """#include <hip/hip_runtime.h>
#include "extra.h"
__global__ void k(int* x) { x[0] = EXTRA_VALUE; }
int main() { return 0; }
"""


def _porter_build(cwd: Path, *args: str) -> tuple[int, dict]:
    r = subprocess.run([sys.executable, "-m", "porter", "build", "--json", *args], cwd=cwd, capture_output=True,
                       text=True, timeout=600)
    return r.returncode, json.loads(r.stdout.strip().splitlines()[-1])


def _layout(tmp_path: Path, makefile: bool) -> Path:
    (tmp_path / "third_party" / "inc").mkdir(parents=True)
    (tmp_path / "third_party" / "inc" / "extra.h").write_text("#define EXTRA_VALUE 7\n")
    project = tmp_path / "port"
    project.mkdir()
    (project / "main.cu").write_text(SOURCE)
    if makefile:
        (project / "Makefile").write_text(MAKEFILE)
    return project


@pytest.mark.hipcc
@pytest.mark.parametrize("makefile", [True, False], ids=["make", "per-file"])
def test_a_relative_include_folder_is_the_one_beside_the_caller(tmp_path, toolchain942, makefile):
    _layout(tmp_path, makefile)
    rc, report = _porter_build(tmp_path, "--arch", "gfx942", "--flag=-Ithird_party/inc", "port")
    assert rc == 0 and report["ok"], report
    # the same flag from inside the project names a folder that is not there: the build says what is missing
    rc, report = _porter_build(tmp_path / "port", "--arch", "gfx942", "--flag=-Ithird_party/inc", ".")
    assert rc != 0 and not report["ok"]
    assert any("extra.h" in d["message"] for d in report["diagnostics"]), report["diagnostics"]


def test_only_paths_that_exist_from_the_caller_are_anchored(tmp_path):
    (tmp_path / "inc").mkdir()
    (tmp_path / "pre.h").write_text("")
    flags = anchor_paths(["-Iinc", "-isysteminc", "-include", "-includepre.h", "-Inot_here", "-I/abs",
                          "-DI=inc", "--include-directory=inc", "-O2"], tmp_path)
    assert flags == (f"-I{tmp_path}/inc", f"-isystem{tmp_path}/inc", "-include", f"-include{tmp_path}/pre.h",
                     "-Inot_here", "-I/abs", "-DI=inc", f"--include-directory={tmp_path}/inc", "-O2")
