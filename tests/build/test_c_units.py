"""C files in a CUDA project's Makefile, as nvcc compiles them and as hipcc does.

nvcc hands a ``.c`` file to the host C compiler, and compiles one as CUDA only when told ``-x cu``.  hipcc does
the same in its own words: a ``.c`` file is C (hipcc.pl 5.2 and ROCm 6's hipBin: ``-x c``) and gets no GPU target,
and an explicit ``-x`` is the command's to choose.  porter's hipcc-like front for clang-19 (the gfx942 build)
compiled every source as HIP, so valid C that C++ rejects (``float *p = malloc(...)``) failed there only; and the
migration kept nvcc's ``-x cu``, which clang reads as CUDA for NVIDIA GPUs (hipcc passes it on and gives the
command no AMD target: it compiled against a CUDA installation, or failed).

The fixture (projects/c_units_make) is written from nvcc's rules (nvcc builds it: ``make ARCH=sm_80``): a C file
that is not C++, a ``.c`` file of CUDA compiled with ``-x cu``, and main.cu calling both.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from porter.build import hipdriver
from porter.build.diagnostics import Diagnostic, classify
from porter.buildfiles import migrate

PROJECT = Path(__file__).parent / "projects" / "c_units_make"
CFG = {"clang": "/usr/bin/clang++-19", "flags": ["--rocm-path=/usr", "--rocm-device-lib-path=/c/dl"],
       "link": ["-L/usr/lib", "-lamdhip64"], "compile_flags": ["-isystem/extra"]}


def test_the_front_gives_each_source_hipccs_language():
    # a C compile: C, with no GPU target and no ROCm paths (hipcc gives it none; clang would warn they are unused)
    c = hipdriver.argv_for(CFG, ["-O2", "--offload-arch=gfx942", "-c", "util.c", "-o", "util.o"])
    assert c == ["/usr/bin/clang++-19", "-isystem/extra", "-O2", "-c", "-x", "c", "util.c", "-o", "util.o"]
    # HIP sources as before
    k = hipdriver.argv_for(CFG, ["-O2", "--offload-arch=gfx942", "-c", "k.cu", "-o", "k.o"])
    assert k[1:3] == CFG["flags"] and k[-5:] == ["-x", "hip", "k.cu", "-o", "k.o"] and "--offload-arch=gfx942" in k
    # the command's own -x: no guess
    x = hipdriver.argv_for(CFG, ["--offload-arch=gfx942", "-x", "hip", "-c", "kern.c", "-o", "kern.o"])
    assert x[-6:] == ["-x", "hip", "-c", "kern.c", "-o", "kern.o"] and x.count("-x") == 1 and x[1:3] == CFG["flags"]
    # a link with a C source keeps the GPU target (the device link of the objects after it needs it)
    link = hipdriver.argv_for(CFG, ["--offload-arch=gfx942", "main.c", "k.o", "-o", "app"])
    assert "--offload-arch=gfx942" in link and link[link.index("main.c") - 2:link.index("main.c") + 3] == \
        ["-x", "c", "main.c", "-x", "none"]


def test_nvcc_x_cu_becomes_x_hip():
    m = migrate("Makefile", "k.o: k.c\n\tnvcc -x cu -c k.c -o k.o\n\tnvcc --x=cu -c k.c\nX = -x cuda -x c++\n")
    lines = m.output.splitlines()[-3:]  # (after the lines the migration adds at the top)
    assert lines[0].endswith("-x hip -c k.c -o k.o") and lines[1].endswith("-x hip -c k.c"), lines
    assert lines[2] == "X = -x cuda -x c++"  # (other languages are not nvcc's -x cu)
    assert any("flag.language-cu" in c.rules for c in m.changes)


def test_a_cpp_dialect_on_a_c_file_says_why():
    d = Diagnostic("", 0, 0, "error", "invalid argument '-std=c++17' not allowed with 'C'")
    classify(d)
    assert "compiles a .c file as C" in d.hint and "nvcc let it pass" in d.hint


@pytest.mark.parametrize("arch", ["gfx942", "gfx90a"])
def test_c_units_build_through_the_migrated_makefile(arch, build_port):
    out, report = build_port(PROJECT, arch)
    assert report.ok, [d.one_line() for d in report.diagnostics if d.severity == "error"]
    assert report.code_objects.get("main") == [f"amdgcn-amd-amdhsa--{arch}"], report.code_objects
    nm = shutil.which("nm")
    if nm:  # util.c was compiled as C: its function keeps its C name (C++ would mangle it: _Z9make_onesi)
        symbols = subprocess.run([nm, str(out / "util.o")], capture_output=True, text=True, timeout=60).stdout
        assert " T make_ones" in symbols, symbols
