"""Which files of a project porter converts, and how the tree is walked.

Walking follows symbolic links that stay inside the tree and reports the ones
that leave it, skips the output folder when it lies inside the input and the
version-control folders, and reports every folder it cannot read.
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


@dataclass(frozen=True, slots=True)
class Skipped:
    """A path under the project that is not converted, and why (one line)."""

    rel: str
    reason: str
    error: bool  # True: content that should be there could not be read (an unreadable folder)


@dataclass
class Walk:
    files: list[ProjectFile]
    skipped: list[Skipped]


def walk(root: str | os.PathLike, exclude: list[str | os.PathLike] = (), follow_links: bool = True) -> Walk:
    """Every file under ``root`` in a stable order (each folder's files, sorted, then its sub-folders,
    sorted), and every path left out with the reason, except the folders porter never enters
    (version control, ``.porter``, the ``exclude`` folders such as an output folder inside the input).

    One rule for symbolic links: a link whose target lies inside the tree is followed (a linked
    folder is walked under the link's name; a link back to a folder that encloses it is a loop,
    skipped); a link that leaves the tree, or leads nowhere, is skipped.  ``follow_links=False``
    (``--inplace``) skips every link: its target is converted where it lies.  A folder that cannot
    be read is skipped as an error."""
    root = Path(root).resolve()
    excluded = {Path(e).resolve() for e in exclude}
    files: list[ProjectFile] = []
    skipped: list[Skipped] = []

    def inside(real: Path) -> bool:
        return real == root or real.is_relative_to(root)

    def visit(folder: Path, rel: str, real: Path, ancestors: frozenset[Path]) -> None:
        try:
            with os.scandir(folder) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            skipped.append(Skipped(rel or ".", f"cannot read folder: {exc.strerror or exc}", True))
            return
        subdirs: list[tuple[str, Path]] = []
        for entry in entries:
            name = entry.name
            child_rel = f"{rel}/{name}" if rel else name
            full = folder / name
            try:
                link = entry.is_symlink()
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError as exc:
                skipped.append(Skipped(child_rel, f"cannot read: {exc.strerror or exc}", True))
                continue
            if is_dir:
                if name in SKIP_DIRS or (real / name) in excluded:
                    continue
                subdirs.append((name, real / name))
                continue
            if not link:
                files.append(ProjectFile(full, child_rel, classify(full)))
                continue
            if name in SKIP_DIRS:
                continue
            target = Path(os.path.realpath(full))
            if not target.exists():
                skipped.append(Skipped(child_rel, "symbolic link that leads nowhere", False))
            elif any(target == e or target.is_relative_to(e) for e in excluded):
                continue  # into the output folder
            elif not inside(target):
                skipped.append(Skipped(child_rel, f"symbolic link to {target}, outside the tree: not followed", False))
            elif not follow_links:
                skipped.append(Skipped(child_rel, "symbolic link: its target is converted where it lies", False))
            elif target.is_dir():
                if target in ancestors or target == real:
                    skipped.append(Skipped(child_rel, "symbolic link to a folder that encloses it (a loop)", False))
                else:
                    subdirs.append((name, target))
            else:
                files.append(ProjectFile(full, child_rel, classify(full)))
        for name, sub_real in subdirs:
            visit(folder / name, f"{rel}/{name}" if rel else name, sub_real, ancestors | {real})

    visit(root, "", root, frozenset())
    return Walk(files, skipped)


def discover(root: str | os.PathLike, exclude: list[str | os.PathLike] = ()) -> list[ProjectFile]:
    """All files under ``root`` in a stable (sorted) order (``walk`` also says what it left out).

    ``exclude``: folders not to enter (e.g. the output folder inside the input)."""
    return walk(root, exclude).files


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
