"""Atomic file writes: a file is either complete or untouched, never half-written."""

from __future__ import annotations

import contextlib
import functools
import itertools
import os
import stat

_counter = itertools.count()
_made_dirs: set[str] = set()


def atomic_write(path: str | os.PathLike, data: bytes, mode: int | None = None, durable: bool = False) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder and
    ``os.replace``, so readers and crashes see the old file or the new one.

    ``durable=True`` also fsyncs before the rename (survives power loss: used
    for the review session).  ``mode`` is applied before the rename."""
    with atomic_writer(path, mode, durable) as out:
        out.write(data)


class AtomicWriter:
    """The open temporary file of ``atomic_writer``: ``write`` pieces to it (bytes-like), a
    megabyte at a time reaching the disk, so that a big output is never held whole."""

    __slots__ = ("fd", "_buffer")
    BUFFER = 1 << 20

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self._buffer = bytearray()

    def write(self, data) -> None:
        if len(data) >= self.BUFFER:
            self.flush()
            _write_all(self.fd, data)
            return
        self._buffer += data
        if len(self._buffer) >= self.BUFFER:
            self.flush()

    def flush(self) -> None:
        if self._buffer:
            _write_all(self.fd, self._buffer)
            self._buffer.clear()


def _write_all(fd: int, data) -> None:
    with memoryview(data) as view:
        done, n = 0, len(view)
        while done < n:
            done += os.write(fd, view[done:])


@contextlib.contextmanager
def atomic_writer(path: str | os.PathLike, mode: int | None = None, durable: bool = False):
    """``atomic_write`` for an output made a piece at a time: yields an ``AtomicWriter`` on a
    temporary file beside ``path``; leaving the block normally renames it over ``path``, an
    exception (a full disk, a failed conversion, Ctrl-C) removes it and leaves ``path`` untouched."""
    path = os.fspath(path)
    if _special(path):  # /dev/null, /dev/stdout, a FIFO: renaming over it would replace the device with a file
        fd = os.open(path, os.O_WRONLY)
        try:
            out = AtomicWriter(fd)
            yield out
            out.flush()
        finally:
            os.close(fd)
        return
    parent, name = os.path.split(path)
    parent = parent or "."
    if parent not in _made_dirs:
        os.makedirs(parent, exist_ok=True)
        _made_dirs.add(parent)
    tail = f".{os.getpid()}.{next(_counter)}.tmp"
    # the temporary name must fit NAME_MAX (255 bytes) where the file's own name does: a long name is cut
    # (by bytes, as the file system counts), so that a legal 254-byte name can be written
    head = os.fsdecode(os.fsencode(name)[:255 - 1 - len(tail)])
    tmp = f"{parent}/.{head}{tail}"
    flags, perms = os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600 if mode is None else mode & 0o777
    try:
        try:
            fd = os.open(tmp, flags, perms)
        except FileNotFoundError:  # the folder was removed since we made it (the cache is per process)
            os.makedirs(parent, exist_ok=True)
            fd = os.open(tmp, flags, perms)
        try:
            out = AtomicWriter(fd)
            yield out
            out.flush()
            if durable:
                os.fsync(fd)
        finally:
            os.close(fd)
        if mode is not None:
            if mode & 0o7000 or mode & _umask():  # open() applied the umask: set the exact bits
                os.chmod(tmp, mode)
        elif os.path.exists(path):
            os.chmod(tmp, os.stat(path).st_mode & 0o7777)
        else:
            os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


@functools.cache
def _umask() -> int:
    """The process umask (read once: reading it means setting it, which is not thread-safe to repeat)."""
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _special(path: str) -> bool:
    """``path`` exists and is not a regular file or a folder (a character device, a FIFO, a socket)."""
    try:
        st = os.stat(path)
    except OSError:
        return False
    return not (stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode))


def atomic_write_text(path: str | os.PathLike, text: str, mode: int | None = None, durable: bool = False) -> None:
    atomic_write(path, text.encode("utf-8"), mode, durable)
