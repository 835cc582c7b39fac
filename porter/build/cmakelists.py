"""What porter build's per-file build reads of a (migrated) CMakeLists.txt, in one place: its text without
comments, and the name of its one executable target, so that the per-file program is named as CMake would name
it (``add_executable(warp_reduce ...)`` in a port folder named ``warp_reduce-hip``).  The compile flags
(runner's ``_build_file_flags``) and the units' languages (``unit_languages``) read the same text."""

from __future__ import annotations

import re
from pathlib import Path

NAME = "CMakeLists.txt"
_EXECUTABLE = re.compile(r"(?i)(?<![\w$])(?:add_executable|(?:hip|cuda)_add_executable)\s*\(\s*([^\s()#]+)")
_PROJECT = re.compile(r"(?i)(?<![\w$])project\s*\(\s*([A-Za-z_][\w.+-]*)")
_COMMENT = re.compile(r"#[^\n]*")


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
