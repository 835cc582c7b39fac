"""How a project's own build file compiles its units, as far as a finding depends on it: whether it asks for
relocatable device code (nvcc's ``-rdc=true`` / ``-dc``, CMake's CUDA_SEPARABLE_COMPILATION, clang's
``-fgpu-rdc``).  porter build reads the same words to compile a project's units the way its build file does."""

from __future__ import annotations

import os
import re

MAKEFILES = ("GNUmakefile", "makefile", "Makefile")
BUILD_FILES = (*MAKEFILES, "CMakeLists.txt")
# the words of a build file that ask for relocatable device code (separable compilation)
RELOCATABLE = re.compile(r"(?<![\w-])-fgpu-rdc\b|(?<![\w-])-rdc[ =]true\b|--relocatable-device-code[ =]true\b|"
                         r"(?<![\w-])-dc\b|\b(?:CMAKE_)?(?:CUDA|HIP)_SEPARABLE_COMPILATION\s+(?:ON|TRUE|1|YES)\b",
                         re.I)
# how far up from a source file's folder its build file is looked for (NVIDIA's samples: the project's folder;
# HeCBench: the program's folder; a src/ folder under a project's root)
_LEVELS = 3


def asks_for_relocatable(text: str) -> bool:
    """A build file's text (``#`` comments left out) asks for relocatable device code."""
    return RELOCATABLE.search(re.sub(r"#[^\n]*", "", text)) is not None


def relocatable_build_file(source: str | None) -> str | None:
    """The build file (its path) that compiles the source file ``source`` (a path on disk) with relocatable
    device code, or None (read each time: the rule that asks runs on few files): the nearest folder at or above the file's (at most _LEVELS up) that holds a
    Makefile or CMakeLists.txt decides; None too when there is none or ``source`` is not on disk."""
    if not source or not os.path.isfile(source):
        return None
    return _decides(os.path.dirname(os.path.abspath(source)), _LEVELS)


def _decides(folder: str, levels: int) -> str | None:
    found = False
    for name in BUILD_FILES:
        path = os.path.join(folder, name)
        if not os.path.isfile(path):
            continue
        found = True
        try:
            with open(path, encoding="utf-8", errors="replace") as fh:
                if asks_for_relocatable(fh.read(1 << 20)):
                    return path
        except OSError:
            continue
    parent = os.path.dirname(folder)
    if found or levels == 0 or parent == folder:
        return None
    return _decides(parent, levels - 1)
