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


# longest first: a UTF-32LE mark begins with the UTF-16LE one
_WIDE_BOMS = ((b"\x00\x00\xfe\xff", "UTF-32BE"), (b"\xff\xfe\x00\x00", "UTF-32LE"),
              (b"\xfe\xff", "UTF-16BE"), (b"\xff\xfe", "UTF-16LE"))


class UnreadableText(ValueError):
    """A source file porter cannot read as text (one line for the user)."""


def wide_encoding(data: bytes) -> str | None:
    """``UTF-16LE``... when ``data`` starts with a UTF-16 or UTF-32 byte-order mark, else None."""
    return next((enc for bom, enc in _WIDE_BOMS if data.startswith(bom)), None)


def to_utf8(data: bytes) -> tuple[bytes, str | None]:
    """A source file's bytes as UTF-8, and the encoding it was read from (None: ``data`` as it was).

    UTF-16 and UTF-32 files with a byte-order mark (what Visual Studio writes) are decoded; the
    mark becomes the UTF-8 one, so ``from_utf8`` gives back the same encoding with its mark.
    Raises UnreadableText when the file has such a mark but does not decode."""
    enc = wide_encoding(data)
    if enc is None:
        return data, None
    try:
        text = data.decode(enc.lower().replace("utf", "utf-"))  # the mark stays, as U+FEFF
    except UnicodeDecodeError as exc:
        raise UnreadableText(f"starts with a {enc} byte-order mark but is not {enc} text "
                             f"(byte {exc.start}: {exc.reason})") from None
    return text.encode("utf-8", "surrogatepass"), enc


def from_utf8(data: bytes, encoding: str | None) -> bytes:
    """``data`` (UTF-8) back in the ``encoding`` ``to_utf8`` read it from."""
    if encoding is None:
        return data
    return data.decode("utf-8", "surrogatepass").encode(encoding.lower().replace("utf", "utf-"), "surrogatepass")


def read_regular(path: str | os.PathLike) -> bytes:
    return read_with_mode(path)[0]
