"""One conversion at a time per folder: an advisory lock on ``FOLDER/.porter/lock``.

Two ``porter convert`` runs writing into the same output folder would mix their files and
overwrite each other's manifest; the second one is refused at once with the first one's pid.
The lock is ``flock``'s: the kernel drops it when its holder ends, however it ends, so a killed
run never leaves the folder locked.  The lock file is removed when the run is done.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
from pathlib import Path

LOCK = ".porter/lock"


class FolderLocked(Exception):
    """Another process holds the folder's lock, or the lock cannot be made (one line for the user)."""


@contextlib.contextmanager
def folder_lock(folder: str | os.PathLike, what: str = "folder"):
    """Hold ``folder``'s lock for the ``with`` block, or raise FolderLocked at once."""
    path = Path(folder) / LOCK
    made_dir = not path.parent.is_dir()
    while True:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise FolderLocked(f"cannot lock {what} {folder}: {exc.strerror or exc}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            holder = os.read(fd, 32).decode("ascii", "replace").strip()
            os.close(fd)
            if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise
            who = f" (pid {holder})" if holder.isdigit() else ""
            raise FolderLocked(f"{what} {folder} is being written by another porter convert{who}; "
                               "wait for it to finish or choose another folder") from None
        try:  # the holder before us may have removed the file after we opened it: lock the one in place
            same = os.fstat(fd).st_ino == os.stat(path).st_ino
        except FileNotFoundError:
            same = False
        if same:
            break
        os.close(fd)
    try:
        with contextlib.suppress(OSError):  # the pid only tells a refused run who holds the folder
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()}\n".encode())
        yield
    finally:
        with contextlib.suppress(OSError):
            os.unlink(path)
        os.close(fd)
        if made_dir:
            with contextlib.suppress(OSError):
                path.parent.rmdir()  # only if empty: an in-place run leaves no .porter folder in the source
