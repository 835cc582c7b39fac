"""What the build-file findings name: the nvcc option itself, never the CMake or Make syntax
around it (issue 32: PORT147 read `-G"): NVIDIA-only nvcc option ...`)."""

from __future__ import annotations

from porter.buildfiles import migrate

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
            out.setdefault(f.line, []).append(f.message.split(": ", 1)[0])
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
