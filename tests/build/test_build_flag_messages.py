"""What the build-file findings name: the nvcc option itself, never the CMake or Make syntax
around it (issue 32: PORT147 read `-G"): NVIDIA-only nvcc option ...`); and `porter scan` of a build file
reports the nvcc-only options its migration reports (one list, the catalogue's PORT147)."""

from __future__ import annotations

import re

from porter.buildfiles import migrate
from porter.findings import scan_build_file

CMAKE = """cmake_minimum_required(VERSION 3.18)
project(x LANGUAGES CXX CUDA)
add_executable(x main.cu)
target_compile_options(x PRIVATE "$<$<COMPILE_LANGUAGE:CUDA>:-G>")
set(CMAKE_CUDA_FLAGS "${CMAKE_CUDA_FLAGS} -G")
set(CMAKE_CUDA_FLAGS "${CMAKE_CUDA_FLAGS} -Xnvlink=--verbose")
set(LINK "-Xnvlink=--suppress-stack-size-warning")
"""

MAKE = """NVCCFLAGS = -G -Xptxas="-v" -Xnvlink="--verbose"
all:
\tnvcc $(NVCCFLAGS) -dlink a.o -o "b.o"
"""


def _named(path: str, text: str) -> dict[int, list[str]]:
    out: dict[int, list[str]] = {}
    for f in migrate(path, text).findings:
        if f.rule == "PORT147":
            out.setdefault(f.line, []).append(re.match(r"`([^`]*)`", f.message).group(1))
    return out


def test_cmake_flag_findings_name_the_option_without_quotes_or_brackets():
    named = _named("CMakeLists.txt", CMAKE)
    assert named[4] == ["-G"] and named[5] == ["-G"]  # not `-G>")` / `-G")`
    assert named[6] == ["-Xnvlink=--verbose"]
    assert named[7] == ["-Xnvlink=--suppress-stack-size-warning"]


def test_make_flag_findings_keep_a_quoted_value_whole():
    named = _named("Makefile", MAKE)
    assert "-G" in named[1] and '-Xnvlink="--verbose"' in named[1]
    assert named[3] == ["-dlink"]


def test_scan_and_migration_report_the_same_nvcc_only_options():
    """Before, -G, -dlink and -Xnvlink were the migration's own findings only (`porter scan` of the CUDA
    Makefile said nothing of them) and --threads, -cubin only the scan's."""
    make = MAKE + "\tnvcc --threads 0 -cubin k.cu\n\tcmake -G Ninja ..\n\tcmake -G \"Unix Makefiles\" ..\n"
    for path, text in (("Makefile", make), ("CMakeLists.txt", CMAKE)):
        scanned = {(f.line, re.match(r"`([^`]*)`", f.message).group(1)) for f in scan_build_file(text, path)
                   if f.rule == "PORT147"}
        migrated = {(line, option) for line, options in _named(path, text).items() for option in options}
        assert scanned >= migrated and migrated, (path, scanned, migrated)
    scanned = {(f.line, f.message.split("`")[1]) for f in scan_build_file(make, "Makefile") if f.rule == "PORT147"}
    assert {(1, "-G"), (3, "-dlink"), (4, "--threads 0"), (4, "-cubin")} <= scanned
    assert not {line for line, _ in scanned} & {5, 6}  # cmake's generator option is not nvcc's -G
