"""Paths a build file names outside the converted folder (``../wordcount-sycl/main.cpp``, ``-I../include``).

porter converts the folder it is given.  A relative path that leaves it resolves from the CUDA project's
place; from the port's it resolves only when the port is written beside the CUDA folder (the default
output), so a port written elsewhere (``-o``) builds against files that are not there.  The warning says
which paths, before a build stops at "No rule to make target" or "file not found"."""

from __future__ import annotations

import os
import re
from pathlib import Path

# a relative path that starts by leaving its folder: at a word's start, or after -I / -L / -isystem
_UP = re.compile(r"(?:(?<=^)|(?<=[\s=:,;\"'(])|(?<=-I)|(?<=-L)|(?<=-isystem))(\.\./[^\s\"'(),;:$]*)", re.M)


def missing_beside_port(text: str, source_file: Path, source_root: Path, port_file: Path) -> list[str]:
    """The ``../`` paths of a build file's ``text`` that lead out of ``source_root``, exist beside the CUDA
    project (from ``source_file``'s folder) and not beside the port (from ``port_file``'s folder)."""
    found = []
    root = source_root.resolve()
    for m in _UP.finditer(re.sub(r"#[^\n]*", "", text)):
        rel = m.group(1).rstrip("/")
        there = Path(os.path.normpath(source_file.parent / rel))
        try:
            there.relative_to(root)
            continue  # inside the converted folder: converted or copied with it
        except ValueError:
            pass
        if rel in found or not there.exists():
            continue
        if not Path(os.path.normpath(port_file.parent / rel)).exists():
            found.append(rel)
    return found


def warning(rel_file: str, paths: list[str], port_root: Path) -> str:
    shown = ", ".join(paths[:4]) + (f" and {len(paths) - 4} more" if len(paths) > 4 else "")
    return (f"{rel_file} names {shown}, outside the converted folder: it is beside the CUDA project, not beside "
            f"the port in {port_root}, so the port's build will not find it; convert to the default output "
            "(beside the CUDA folder) or copy it there")
