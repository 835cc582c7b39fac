"""``porter build --flag`` reaches every build system, for both toolchains.

The projects are the migrated shapes porter builds: a Makefile whose recipes call ``$(HIPCC)`` with
``--offload-arch=$(HIP_ARCH)`` (make's command-line variables set both), and a CMake project.  Their one
source stops compiling (``#error``) unless the flag given with ``--flag`` is defined, so a flag that is
dropped on the way is a failed build, not a silent "build ok".  A rebuild with other flags must compile
again: make compares file times, not the flags an object was built with.

CMake's HIP language cannot configure on Debian 12 (its hip-lang package is under
lib/x86_64-linux-gnu/cmake/, where CMake does not look; the build falls back to per file, which always
took the flags), so the CMake build here is a HIP project whose C++ compiler is hipcc (CXX language);
for the HIP language the test checks what porter hands CMake.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from porter.build import BuildOptions, hipdriver, run_build
from porter.build.runner import cmake_configure_argv, cmake_flags_file, _Runner

ROOT = Path(__file__).resolve().parents[2]
FLAG = "-DPORTER_TEST_FLAG=1"
# spaces, a ';' (a shell's command separator, CMake's list separator), a '$' (a shell's and make's
# variables), quotes: hipcc pastes its HIPCC_COMPILE_FLAGS_APPEND into a command line /bin/sh reads
TEXT = "two words; $HOME 'q' \"d\" a,b>c"
TEXT_FLAG = f"-DPORTER_TEST_TEXT={TEXT}"

NEEDS_FLAG = """#include <hip/hip_runtime.h>
#ifndef PORTER_TEST_FLAG
#error "PORTER_TEST_FLAG is not defined: --flag did not reach this compile"
#endif
__global__ void k(int* x) { x[0] = PORTER_TEST_FLAG; }
int main() { return 0; }
"""
# the macro's text, as one token sequence, against the text given: a flag split or expanded by a shell
# on the way is another text, or no compile at all
TEXT_CHECK = """#define PORTER_STR2(...) #__VA_ARGS__
#define PORTER_STR(...) PORTER_STR2(__VA_ARGS__)
constexpr bool same(const char* a, const char* b) { return *a == *b && (*a == 0 || same(a + 1, b + 1)); }
static_assert(same(PORTER_STR(PORTER_TEST_TEXT), "two words; $HOME 'q' \\"d\\" a,b>c"), "the flag's text changed");
"""
NEEDS_TEXT = ("#include <hip/hip_runtime.h>\n" + TEXT_CHECK
              + "__global__ void k(int* x) { x[0] = 1; }\nint main() { return 0; }\n")
FORBIDS_FLAG = """#include <hip/hip_runtime.h>
#ifdef PORTER_FORBID
#error "built with PORTER_FORBID"
#endif
__global__ void k(int* x) { x[0] = 1; }
int main() { return 0; }
"""
MAKEFILE = """HIPCC ?= hipcc
HIP_ARCH ?= gfx942
export HIP_PLATFORM ?= amd

app: main.o
\t$(HIPCC) --offload-arch=$(HIP_ARCH) main.o -o app

main.o: main.cu
\t$(HIPCC) --offload-arch=$(HIP_ARCH) -O2 -c main.cu -o main.o
"""
# a HIP project of the older kind: hipcc is the C++ compiler (it compiles .cpp as HIP, for
# HCC_AMDGPU_TARGET, which porter sets to the arch)
CMAKE_CXX = """cmake_minimum_required(VERSION 3.18)
set(CMAKE_CXX_COMPILER hipcc)
project(app LANGUAGES CXX)
add_executable(app main.cpp)
"""
CMAKE_HIP = """cmake_minimum_required(VERSION 3.21)
project(app LANGUAGES CXX HIP)
add_executable(app main.hip)
"""

TOOLCHAINS = [pytest.param("gfx942", id="gfx942-clang19"), pytest.param("gfx90a", id="gfx90a-hipcc5.2")]


@pytest.fixture
def toolchain(request, toolchain90a, toolchain942):
    return {"gfx90a": toolchain90a, "gfx942": toolchain942}[request.param]


def _make_project(root: Path, source: str) -> Path:
    root.mkdir(parents=True)
    (root / "Makefile").write_text(MAKEFILE)
    (root / "main.cu").write_text(source)
    return root


def _build(root: Path, tc, *flags: str):
    return run_build(root, BuildOptions(arch=tc.arch, extra_flags=tuple(flags), jobs=2), toolchain=tc)


def _errors(report) -> list[str]:
    return [d.one_line() for d in report.errors] + report.messages


# ---------------------------------------------------------------- the front for a plain clang

def test_driver_adds_the_extra_flags_to_each_compile_and_not_to_a_link_of_objects():
    cfg = {"clang": "/usr/bin/clang++-19", "flags": ["--rocm-path=/usr"], "link": ["-lamdhip64"],
           "compile_flags": ["-isystem", "/opt/inc", "-DA=two words"]}
    compile_ = hipdriver.argv_for(cfg, ["-O2", "-DA=1", "-c", "k.cu", "-o", "k.o"])
    # after porter's own flags, before the Makefile's (where hipcc puts HIPCC_COMPILE_FLAGS_APPEND)
    assert compile_[:6] == ["/usr/bin/clang++-19", "--rocm-path=/usr", "-isystem", "/opt/inc", "-DA=two words", "-O2"]
    both = hipdriver.argv_for(cfg, ["-o", "app", "main.cu", "k.o"])  # compiles a source, then links
    assert "-DA=two words" in both and both[1] == "--hip-link"
    link = hipdriver.argv_for(cfg, ["-o", "app", "main.o", "k.o"])
    assert not any(f in link for f in cfg["compile_flags"])
    # a config written before the key existed: no extra flags
    old = {k: v for k, v in cfg.items() if k != "compile_flags"}
    assert hipdriver.argv_for(old, ["-c", "k.cu"]) == ["/usr/bin/clang++-19", "--rocm-path=/usr", "-O3", "-c", "-x",
                                                       "hip", "k.cu"]


def test_driver_optimizes_as_hipcc_does_when_the_command_names_no_level():
    # hipcc (hipcc.pl: "Set default optimization level to -O3 for hip-clang") compiles and links at -O3 unless
    # told otherwise; the front does the same, and leaves a level the Makefile names alone
    cfg = {"clang": "clang++-19", "flags": [], "link": ["-lamdhip64"]}
    assert hipdriver.argv_for(cfg, ["-c", "k.cu", "-o", "k.o"]).count("-O3") == 1
    assert hipdriver.argv_for(cfg, ["-o", "app", "k.o"]).count("-O3") == 1
    for level in ("-O0", "-O2", "-Os", "-Ofast"):
        argv = hipdriver.argv_for(cfg, [level, "-c", "k.cu"])
        assert "-O3" not in argv and level in argv


# ---------------------------------------------------------------- make

@pytest.mark.hipcc
@pytest.mark.parametrize("toolchain", TOOLCHAINS, indirect=True)
def test_make_build_fails_without_the_flag_and_builds_with_it(tmp_path, toolchain):
    root = _make_project(tmp_path / "p", NEEDS_FLAG)
    r = _build(root, toolchain)
    assert not r.ok and r.system == "make"
    assert any("PORTER_TEST_FLAG is not defined" in d.message for d in r.errors), _errors(r)
    r = _build(root, toolchain, FLAG)
    assert r.ok, _errors(r)
    assert r.outputs == ["app"] and r.code_objects["app"] == [f"amdgcn-amd-amdhsa--{toolchain.arch}"]


@pytest.mark.hipcc
@pytest.mark.parametrize("toolchain", TOOLCHAINS, indirect=True)
def test_make_flag_with_spaces_quotes_and_shell_characters_arrives_as_given(tmp_path, toolchain):
    root = _make_project(tmp_path / "p", NEEDS_TEXT)
    r = _build(root, toolchain, TEXT_FLAG)
    assert r.ok, _errors(r)
    assert not (root / "words;").exists() and not (tmp_path / "HOME").exists()


@pytest.mark.hipcc
@pytest.mark.parametrize("toolchain", TOOLCHAINS, indirect=True)
def test_make_rebuild_with_a_flag_added_does_not_reuse_the_objects_built_without_it(tmp_path, toolchain):
    root = _make_project(tmp_path / "p", FORBIDS_FLAG)
    assert _build(root, toolchain).ok
    r = _build(root, toolchain, "-DPORTER_FORBID")
    assert not r.ok and any("built with PORTER_FORBID" in d.message for d in r.errors), _errors(r)
    assert any("other extra flags (--flag)" in m for m in r.messages)
    again = _build(root, toolchain)
    assert again.ok, _errors(again)
    assert "app" in again.outputs


@pytest.mark.hipcc
@pytest.mark.parametrize("toolchain", TOOLCHAINS, indirect=True)
def test_make_rebuild_with_a_flag_taken_away_does_not_reuse_the_objects_built_with_it(tmp_path, toolchain):
    root = _make_project(tmp_path / "p", NEEDS_FLAG)
    assert _build(root, toolchain, FLAG).ok
    assert _build(root, toolchain, FLAG).units[0].status == "up-to-date"  # the same flags: nothing to do
    r = _build(root, toolchain)
    assert not r.ok and any("PORTER_TEST_FLAG is not defined" in d.message for d in r.errors), _errors(r)
    assert _build(root, toolchain, FLAG).ok


# ---------------------------------------------------------------- cmake

@pytest.mark.hipcc
def test_cmake_build_gets_the_flags_and_a_rebuild_with_others_compiles_again(tmp_path, toolchain90a):
    if not shutil.which("cmake"):
        pytest.skip("cmake not installed")
    root = tmp_path / "p"
    root.mkdir()
    (root / "CMakeLists.txt").write_text(CMAKE_CXX)
    (root / "main.cpp").write_text(NEEDS_FLAG + "#ifdef PORTER_TEST_TEXT\n" + TEXT_CHECK + "#endif\n")
    r = _build(root, toolchain90a)
    assert not r.ok and r.system == "cmake", _errors(r)
    assert any("PORTER_TEST_FLAG is not defined" in d.message for d in r.errors), _errors(r)
    r = _build(root, toolchain90a, FLAG, TEXT_FLAG)
    assert r.ok and r.system == "cmake", _errors(r)
    assert r.code_objects[r.outputs[0]] == ["amdgcn-amd-amdhsa--gfx90a"]
    r = _build(root, toolchain90a, TEXT_FLAG)  # one flag taken away: configured again, compiled again
    assert not r.ok and any("PORTER_TEST_FLAG is not defined" in d.message for d in r.errors), _errors(r)
    assert _build(root, toolchain90a, FLAG, TEXT_FLAG).ok


def test_cmake_hip_language_project_is_configured_to_add_the_flags_to_its_hip_compiles(tmp_path, toolchain942):
    """A migrated CMakeLists (CMake's HIP language): the flags go to HIP compiles, through a file CMake reads
    after project(); the project's C++ files (the host compiler's) do not get them, as under make."""
    root = tmp_path / "p"
    root.mkdir()
    (root / "CMakeLists.txt").write_text(CMAKE_HIP)
    bdir = tmp_path / "b"
    run = _Runner(root, BuildOptions(arch="gfx942", extra_flags=(FLAG,)), toolchain942, "gfx942", None, None)
    argv = cmake_configure_argv(run, bdir)
    assert f"-DCMAKE_PROJECT_INCLUDE={bdir / 'porter-flags.cmake'}" in argv
    assert f"-DCMAKE_HIP_COMPILER={toolchain942.compiler}" in argv
    text = cmake_flags_file([FLAG, TEXT_FLAG], "HIP")
    assert "add_compile_options([=[$<$<COMPILE_LANGUAGE:HIP>:-DPORTER_TEST_FLAG=1>]=])" in text
    # ';' stays in the flag (not a CMake list separator), ',' and '>' stay out of the generator expression's syntax
    assert "-DPORTER_TEST_TEXT=two words\\; $HOME 'q' \"d\" a$<COMMA>b$<ANGLE-R>c>]=]" in text
    # no extra flags now, but the folder was configured with some: the file is named again (it will be empty)
    plain = _Runner(root, BuildOptions(arch="gfx942"), toolchain942, "gfx942", None, None)
    assert not any("CMAKE_PROJECT_INCLUDE" in a for a in cmake_configure_argv(plain, bdir))
    assert any("CMAKE_PROJECT_INCLUDE" in a for a in cmake_configure_argv(plain, bdir, [FLAG]))


# ---------------------------------------------------------------- the command line

def test_an_empty_flag_is_refused_in_one_line(tmp_path):
    root = _make_project(tmp_path / "p", NEEDS_FLAG)
    p = subprocess.run([sys.executable, "-m", "porter", "build", str(root), "--flag="], capture_output=True,
                       text=True, timeout=120, cwd=ROOT)
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr.strip().splitlines() == ["porter: error: --flag needs a compiler flag (e.g. --flag=-DUSE_X), "
                                             "not an empty value"]
    assert not (root / ".porter").exists()


def test_help_says_where_the_flags_go():
    p = subprocess.run([sys.executable, "-m", "porter", "build", "--help"], capture_output=True, text=True,
                       timeout=120, cwd=ROOT)
    text = " ".join(p.stdout.split())
    assert "for per-file builds" not in text
    assert "HIPCC_COMPILE_FLAGS_APPEND" in text and "CMake" in text
