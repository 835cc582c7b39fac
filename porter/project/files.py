"""Which files of a project porter converts, and how the tree is walked.

Walking never follows symlinked folders (no loops), skips the output folder
when it lies inside the input, and skips version-control and build folders.
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path

SOURCE_EXTENSIONS = frozenset({".cu", ".cuh", ".hip", ".cpp", ".cc", ".cxx", ".c", ".h", ".hpp", ".hh", ".hxx", ".inl", ".inc"})
BUILD_FILE_NAMES = frozenset({"CMakeLists.txt", "Makefile", "makefile", "GNUmakefile"})
BUILD_FILE_SUFFIXES = frozenset({".cmake", ".mk"})
SKIP_DIRS = frozenset({".git", ".hg", ".svn", "__pycache__", ".porter", ".venv", "node_modules"})


@dataclass(frozen=True, slots=True)
class ProjectFile:
    path: Path  # absolute path in the source tree
    rel: str  # POSIX path relative to the project root
    kind: str  # "source" (translated), "build" (build file migration), "other" (copied)


def classify(path: Path) -> str:
    if path.suffix.lower() in SOURCE_EXTENSIONS:
        return "source"
    if path.name in BUILD_FILE_NAMES or path.suffix.lower() in BUILD_FILE_SUFFIXES:
        return "build"
    return "other"


def discover(root: str | os.PathLike, exclude: list[str | os.PathLike] = ()) -> list[ProjectFile]:
    """All files under ``root`` in a stable (sorted) order.

    ``exclude``: folders not to enter (e.g. the output folder inside the input)."""
    root = Path(root).resolve()
    excluded = {Path(e).resolve() for e in exclude}
    out: list[ProjectFile] = []
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        here = Path(dirpath)
        keep = []
        for d in sorted(dirnames):
            full = here / d
            if d in SKIP_DIRS or full.is_symlink() or full.resolve() in excluded:
                continue
            keep.append(d)
        dirnames[:] = keep
        for name in sorted(filenames):
            full = here / name
            if full.is_symlink() and not full.exists():
                continue  # dangling link
            rel = full.relative_to(root).as_posix()
            out.append(ProjectFile(full, rel, classify(full)))
    return out


def read_with_mode(path: str | os.PathLike) -> tuple[bytes, int]:
    """A regular file's bytes and permission bits (one open, one fstat).  Anything else (a
    FIFO, a socket, a device) raises OSError at once instead of blocking the run."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(errno.EINVAL, "not a regular file")
        chunks = []
        while chunk := os.read(fd, max(info.st_size + 1, 65536)):
            chunks.append(chunk)
        return b"".join(chunks), info.st_mode & 0o7777
    finally:
        os.close(fd)


def read_regular(path: str | os.PathLike) -> bytes:
    return read_with_mode(path)[0]
