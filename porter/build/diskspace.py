"""A build that cannot write (a full disk above all): which file, and which file system is full, in one line.

The compilers say "No space left on device" in their own words (clang: "IO failure on output stream: No space
left on device"; GNU ld: "final link failed: No space left on device"); porter's own writes raise OSError
ENOSPC / EDQUOT.  Either way the build's report gets one line naming the path that could not be written and
the file system that is full (its mount point, its type, what is free on it)."""

from __future__ import annotations

import errno
import os

NO_SPACE_ERRNOS = (errno.ENOSPC, errno.EDQUOT)
# how the C library words them (compilers run under LC_ALL=C: runner._env)
NO_SPACE_TEXTS = (os.strerror(errno.ENOSPC), os.strerror(errno.EDQUOT))


def says_no_space(text: str) -> bool:
    """A tool's output says a write failed for lack of space (or quota)."""
    return any(t in text for t in NO_SPACE_TEXTS)


def mount_point(path: str) -> str:
    """The mount point of the file system ``path`` is on (of its nearest existing folder)."""
    p = os.path.abspath(path)
    while not os.path.exists(p) and os.path.dirname(p) != p:
        p = os.path.dirname(p)
    try:
        dev = os.stat(p).st_dev
        while os.path.dirname(p) != p and os.stat(os.path.dirname(p)).st_dev == dev:
            p = os.path.dirname(p)
    except OSError:
        pass
    return p


def _fs_type(mount: str) -> str:
    try:
        with open("/proc/self/mounts", encoding="utf-8", errors="replace") as fh:
            rows = [line.split() for line in fh]
    except OSError:
        return ""
    types = [r[2] for r in rows if len(r) > 2 and r[1].replace("\\040", " ") == mount]
    return types[-1] if types else ""  # the last mount on a folder is the one in use


def _size(n: int) -> str:
    for unit, div in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= div:
            return f"{n / div:.1f} {unit}".replace(".0 ", " ")
    return f"{n} bytes"


def full_disk(path: str) -> str:
    """"the file system at /mnt (tmpfs, 256 KiB) filled up (4 KiB free now)" for the one holding ``path``
    (what is free now: a compiler removes its half-written output when the write fails)."""
    mount = mount_point(path)
    facts = [_fs_type(mount)]
    free = ""
    try:
        st = os.statvfs(mount)
        facts.append(_size(st.f_blocks * st.f_frsize))
        free = f" ({_size(st.f_bavail * st.f_frsize)} free now)"
    except OSError:
        pass
    facts = ", ".join(f for f in facts if f)
    return f"the file system at {mount}" + (f" ({facts})" if facts else "") + f" filled up{free}"


def shown(path: str, root: str) -> str:
    """``path`` relative to the build folder when inside it, else as it is."""
    try:
        rel = os.path.relpath(path, root)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel.replace(os.sep, "/")


def write_failure_line(path: str, root: str, why: str, no_space: bool) -> str:
    """One line: what could not be written and why; for a full disk, which file system and what to do."""
    if no_space:
        return (f"no space left on device: cannot write {shown(path, root)}: {full_disk(path)}; "
                "free some space there and build again")
    return f"cannot write {shown(path, root)}: {why}"


def line_for_error(exc: OSError, fallback: str, root: str) -> str:
    """``write_failure_line`` for an OSError porter's own write raised (its path, else ``fallback``)."""
    path = os.fsdecode(exc.filename) if exc.filename is not None else fallback
    return write_failure_line(path, root, exc.strerror or str(exc), exc.errno in NO_SPACE_ERRNOS)
