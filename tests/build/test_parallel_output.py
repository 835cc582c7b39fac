"""A parallel build's compiler messages reach the report whole.

clang writes one message in many small writes (the file, the line, "error: " and the text each on
their own: seen with strace on clang 15 and 19), so two compiles that make (or CMake's Makefiles) runs
side by side can interleave mid-line in the one pipe porter reads, and the messages come out broken: a
CI run lost the one error of a failed gfx942 build that way (the other compile printed a warning at
that moment), and the report said "failed" without saying where.

When that happens is a matter of timing, so the compiler here is a stand-in that writes its message
in clang's pieces and waits for the other compile to have written its piece before the next one (the
worst timing, every time): without make's --output-sync each line comes out broken, with it whole."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from porter.build import BuildOptions, run_build

# compiles NAME.cpp "failing" with clang's message, written in clang's pieces, each after the other
# compile (PEER) has written its piece of the same rank (or 60 s have passed: make ran them one by one)
STAND_IN = r'''import os, sys, time
name, peer, out = sys.argv[1], sys.argv[2], sys.argv[3]
pieces = [f"{name}.cpp", ":", "3", ":", "2", ":", " ", "error: ", f"{name} stops here", "\n"]
for rank, piece in enumerate(pieces):
    os.write(2, piece.encode())
    open(f"{name}.{rank}", "w").close()
    deadline = time.monotonic() + 60
    while not os.path.exists(f"{peer}.{rank}") and time.monotonic() < deadline:
        time.sleep(0.005)
sys.exit(1)
'''
UNIT = "// a unit\nint f();\nint g() { return f(); }\n"
MAKEFILE = f"""all: one.o two.o

one.o: one.cpp
\t{sys.executable} standin.py one two one.o

two.o: two.cpp
\t{sys.executable} standin.py two one two.o
"""
CMAKE = f"""cmake_minimum_required(VERSION 3.18)
project(app LANGUAGES NONE)
add_custom_target(one ALL COMMAND {sys.executable} standin.py one two one.o WORKING_DIRECTORY ${{CMAKE_SOURCE_DIR}})
add_custom_target(two ALL COMMAND {sys.executable} standin.py two one two.o WORKING_DIRECTORY ${{CMAKE_SOURCE_DIR}})
"""


def _project(root: Path, build_file: str, text: str) -> Path:
    root.mkdir(parents=True)
    (root / build_file).write_text(text)
    (root / "standin.py").write_text(STAND_IN)
    for name in ("one", "two"):
        (root / f"{name}.cpp").write_text(UNIT)
    return root


def _check_whole(report) -> None:
    errors = {(Path(d.file).name, d.line, d.column, d.message) for d in report.diagnostics if d.severity == "error"}
    assert ("one.cpp", 3, 2, "one stops here") in errors and ("two.cpp", 3, 2, "two stops here") in errors, \
        sorted(errors)
    assert not report.ok


@pytest.mark.hipcc
def test_two_compiles_of_a_parallel_make_keep_their_messages_whole(tmp_path, toolchain90a):
    if not toolchain90a.make:
        pytest.skip("make not installed")
    root = _project(tmp_path / "p", "Makefile", MAKEFILE)
    report = run_build(root, BuildOptions(arch="gfx90a", jobs=2), toolchain=toolchain90a)
    assert report.system == "make"
    _check_whole(report)


@pytest.mark.hipcc
def test_two_steps_of_a_parallel_cmake_build_keep_their_messages_whole(tmp_path, toolchain90a):
    if not (shutil.which("cmake") and toolchain90a.make):
        pytest.skip("cmake or make not installed")
    root = _project(tmp_path / "p", "CMakeLists.txt", CMAKE)
    report = run_build(root, BuildOptions(arch="gfx90a", jobs=2), toolchain=toolchain90a)
    assert report.system == "cmake", report.messages
    _check_whole(report)


# a step that fails without a message porter reads (here a recipe that is no compiler) still says why

GENERATOR = "import sys\nprint('generator: input table missing')\nsys.exit(3)\n"
QUIET_MAKEFILE = f"""all:
\t{sys.executable} gen.py
"""
QUIET_CMAKE = f"""cmake_minimum_required(VERSION 3.18)
project(app LANGUAGES NONE)
add_custom_target(gen ALL COMMAND {sys.executable} gen.py WORKING_DIRECTORY ${{CMAKE_SOURCE_DIR}})
"""


@pytest.mark.hipcc
@pytest.mark.parametrize("build_file,text,step", [("Makefile", QUIET_MAKEFILE, "make"),
                                                  ("CMakeLists.txt", QUIET_CMAKE, "cmake --build")],
                         ids=["make", "cmake"])
def test_a_failed_build_with_no_compiler_message_says_what_it_printed(tmp_path, toolchain90a, build_file, text, step):
    if not toolchain90a.make or (step != "make" and not shutil.which("cmake")):
        pytest.skip("make or cmake not installed")
    root = tmp_path / "p"
    root.mkdir()
    (root / build_file).write_text(text)
    (root / "gen.py").write_text(GENERATOR)
    report = run_build(root, BuildOptions(arch="gfx90a", jobs=2), toolchain=toolchain90a)
    assert not report.ok
    (error,) = [d.message for d in report.diagnostics if d.severity == "error"]
    assert error.startswith(f"{step} failed (exit 2): ") and "generator: input table missing" in error, error
