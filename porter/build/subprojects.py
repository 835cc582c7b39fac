"""The projects in a folder of several (a samples tree: ``Samples/<group>/<sample>/`` each with its own
Makefile or CMakeLists.txt, headers shared from ``Common/``), found by their build files.

A sub-project is a folder below the root whose own build file compiles sources: a Makefile that names
a source file or compiles ``$<`` (not one that only runs ``$(MAKE) -C`` into other folders), or a
CMakeLists.txt that starts its own CMake project (``project(...)``) and adds a program or a library.
A folder is a folder of several projects when its own build files compile nothing (none, or a Makefile
or CMakeLists that only recurses) and sub-projects lie below it; each is then built on its own, in its
folder, with its own build file and flags (``-I../../../Common``).  A sub-project's subfolders belong to
it: discovery does not look below one.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from porter.build.tree_kind import MAKEFILES, SKIP_DIRS, UNIT_SUFFIXES

_SUFFIXES = "|".join(s.lstrip(".") for s in UNIT_SUFFIXES)
# a Makefile that compiles: a source file named (a rule, a variable, a wildcard) or an automatic input
_MAKE_COMPILES = re.compile(r"[\w*%)}/.-]\.(?:" + _SUFFIXES + r")\b|\$<|\$\(<\)")
_CMAKE_TARGET = re.compile(r"(?i)\b(?:add_executable|add_library|(?:cuda|hip)_add_(?:executable|library))\s*\(")
_CMAKE_PROJECT = re.compile(r"(?i)(?:^|\n)\s*project\s*\(")


@dataclass(frozen=True, slots=True)
class SubProject:
    rel: str  # the folder, relative to the root ("Samples/0_Introduction/vectorAdd")
    build_file: str  # its build file's name (Makefile, CMakeLists.txt)


def _text(path: Path) -> str:
    try:
        return re.sub(r"#[^\n]*", "", path.read_text(errors="replace"))
    except OSError:
        return ""


def _make_compiles(path: Path) -> bool:
    return _MAKE_COMPILES.search(_text(path)) is not None


def _cmake_compiles(path: Path, standalone: bool) -> bool:
    """A CMakeLists.txt that adds a program or a library; ``standalone``: and starts its own project
    (one without ``project()`` is part of its parent's CMake project, not a project of its own)."""
    text = _text(path)
    return _CMAKE_TARGET.search(text) is not None and (not standalone or _CMAKE_PROJECT.search(text) is not None)


def compiling_build_file(folder: Path, standalone: bool = True) -> str | None:
    """The name of ``folder``'s build file that compiles sources (Makefile first), or None."""
    for name in MAKEFILES:
        if (folder / name).is_file() and _make_compiles(folder / name):
            return name
    if (folder / "CMakeLists.txt").is_file() and _cmake_compiles(folder / "CMakeLists.txt", standalone):
        return "CMakeLists.txt"
    return None


def _has_units(folder: Path) -> bool:
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = [d for d in dirnames if d not in SKIP_DIRS and not d.startswith(".")]
        if any(n.endswith(UNIT_SUFFIXES) for n in filenames):
            return True
    return False


def find_subprojects(root: str | os.PathLike) -> list[SubProject]:
    """The sub-projects of ``root`` when it is a folder of several projects, sorted by folder; [] when
    ``root`` is one project (its own build file compiles) or holds no sub-project."""
    root = Path(root)
    # the root's CMakeLists.txt with add_executable compiles, project() or not
    if compiling_build_file(root, standalone=False):
        return []
    found: list[SubProject] = []
    for dirpath, dirnames, _ in os.walk(root):
        here = Path(dirpath)
        if here != root:
            name = compiling_build_file(here)
            if name and _has_units(here):
                found.append(SubProject(here.relative_to(root).as_posix(), name))
                dirnames[:] = []  # its subfolders are its own
                continue
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.startswith("."))
    return sorted(found, key=lambda s: s.rel)


def project_of(subprojects: list[SubProject], rel: str) -> SubProject | None:
    """The sub-project holding ``rel`` (a file or folder relative to the root), or None (a shared
    header in Common/, the root itself)."""
    rel = rel.strip("/")
    for sub in subprojects:
        if rel == sub.rel or rel.startswith(sub.rel + "/"):
            return sub
    return None
