"""What porter build's per-file build reads of a CMakeLists.txt about the program it makes: the name of its one
executable target, so that the per-file program is named as CMake would name it (``add_executable(warp_reduce
...)`` in a port folder named ``warp_reduce-hip``)."""

from __future__ import annotations

import re
from pathlib import Path

_EXECUTABLE = re.compile(r"(?i)(?<![\w$])(?:add_executable|(?:hip|cuda)_add_executable)\s*\(\s*([^\s()#]+)")
_PROJECT = re.compile(r"(?i)(?<![\w$])project\s*\(\s*([A-Za-z_][\w.+-]*)")
_COMMENT = re.compile(r"#[^\n]*")


def executable_name(root: Path) -> str | None:
    """The name of the one executable target ``root/CMakeLists.txt`` adds (``${PROJECT_NAME}`` read from its
    ``project()``); None: no CMakeLists.txt, no executable or several, or a name made of other variables."""
    path = root / "CMakeLists.txt"
    try:
        text = _COMMENT.sub("", path.read_text(errors="replace"))
    except OSError:
        return None
    names = {m.group(1).strip('"') for m in _EXECUTABLE.finditer(text)}
    if len(names) != 1:
        return None
    (name,) = names
    project = _PROJECT.search(text)
    if project is not None:
        name = name.replace("${PROJECT_NAME}", project.group(1))
    return None if "$" in name or not name else name
