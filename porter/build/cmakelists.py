"""What porter build's per-file build reads of a (migrated) CMakeLists.txt, in one place: its text without
comments, and the name of its one executable target, so that the per-file program is named as CMake would name
it (``add_executable(warp_reduce ...)`` in a port folder named ``warp_reduce-hip``), and the definitions and
include folders each unit is compiled with.  The units' languages (``unit_languages``) read the same text."""

from __future__ import annotations

import re
from pathlib import Path

NAME = "CMakeLists.txt"
_EXECUTABLE = re.compile(r"(?i)(?<![\w$])(?:add_executable|(?:hip|cuda)_add_executable)\s*\(\s*([^\s()#]+)")
_PROJECT = re.compile(r"(?i)(?<![\w$])project\s*\(\s*([A-Za-z_][\w.+-]*)")
_COMMENT = re.compile(r"#[^\n]*")
_DEFINITIONS = re.compile(r"(?is)\b(?:add_compile_definitions|target_compile_definitions)\s*\(([^)]*)\)")
_INCLUDES = re.compile(r"(?is)\b(include_directories|target_include_directories)\s*\(([^)]*)\)")
_DEFINITION = re.compile(r"^[A-Za-z_]\w*(=\S+)?$")
_SCOPES = ("PRIVATE", "PUBLIC", "INTERFACE")


def text(root: Path) -> str | None:
    """``root/CMakeLists.txt`` with its ``#`` comments cut; None: none there, or unreadable."""
    try:
        return _COMMENT.sub("", (root / NAME).read_text(errors="replace"))
    except OSError:
        return None


def executable_name(root: Path) -> str | None:
    """The name of the one executable target ``root/CMakeLists.txt`` adds (``${PROJECT_NAME}`` read from its
    ``project()``); None: no CMakeLists.txt, no executable or several, or a name made of other variables."""
    body = text(root)
    if body is None:
        return None
    names = {m.group(1).strip('"') for m in _EXECUTABLE.finditer(body)}
    if len(names) != 1:
        return None
    (name,) = names
    project = _PROJECT.search(body)
    if project is not None:
        name = name.replace("${PROJECT_NAME}", project.group(1))
    return None if "$" in name or not name else name


def compile_flags(root: Path, body: str) -> tuple[list[str], list[str]]:
    """(-D flags, -I flags) of the CMakeLists text ``body`` (from :func:`text`): its (target_)compile
    definitions, and its (target_)include folders that exist under ``root`` (named plainly or from
    ``${CMAKE_CURRENT_SOURCE_DIR}``/``${PROJECT_SOURCE_DIR}``; other variables are not read)."""
    defines, incs = [], []
    for m in _DEFINITIONS.finditer(body):
        words = m.group(1).split()
        if m.group(0).lower().startswith("target_"):
            words = words[1:]
        defines += ["-D" + w for w in words if w.upper() not in _SCOPES and _DEFINITION.match(w)]
    for m in _INCLUDES.finditer(body):
        words = m.group(2).split()[1 if m.group(1).lower().startswith("target_") else 0:]
        for w in words:
            w = w.strip('"').replace("${CMAKE_CURRENT_SOURCE_DIR}/", "").replace("${PROJECT_SOURCE_DIR}/", "")
            if w and "$" not in w and w.upper() not in (*_SCOPES, "SYSTEM", "BEFORE") and (root / w).is_dir():
                incs.append("-I" + w)
    return defines, incs
