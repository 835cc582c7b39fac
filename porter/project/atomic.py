"""Atomic file writes: a file is either complete or untouched, never half-written."""

from __future__ import annotations

import itertools
import os
from pathlib import Path

_counter = itertools.count()
_made_dirs: set[str] = set()


def atomic_write(path: str | os.PathLike, data: bytes, mode: int | None = None, durable: bool = False) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder and
    ``os.replace``, so readers and crashes see the old file or the new one.

    ``durable=True`` also fsyncs before the rename (survives power loss: used
    for the review session).  ``mode`` is applied before the rename."""
    path = Path(path)
    parent = str(path.parent)
    if parent not in _made_dirs:
        path.parent.mkdir(parents=True, exist_ok=True)
        _made_dirs.add(parent)
    tmp = f"{parent}/.{path.name}.{os.getpid()}.{next(_counter)}.tmp"
    flags, perms = os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600 if mode is None else mode & 0o777
    try:
        try:
            fd = os.open(tmp, flags, perms)
        except FileNotFoundError:  # the folder was removed since we made it (the cache is per process)
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(tmp, flags, perms)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            if durable:
                fh.flush()
                os.fsync(fh.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        elif path.exists():
            os.chmod(tmp, path.stat().st_mode & 0o7777)
        else:
            os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def atomic_write_text(path: str | os.PathLike, text: str, mode: int | None = None, durable: bool = False) -> None:
    atomic_write(path, text.encode("utf-8"), mode, durable)
