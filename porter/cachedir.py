"""Where porter keeps what it can make again (device-library folders, the built mapping database,
smoke-test extension builds), and whether a cache folder may be trusted.

$PORTER_CACHE_DIR, else $XDG_CACHE_HOME/porter, else ~/.cache/porter.  Nothing in it is needed:
a missing, unwritable or damaged cache only costs the time to make its contents again.

What a cache holds is run (a device library clang links, an extension porter imports) or decides a
port (the mapping tables), so a folder another user can write is not used: ``untrusted(path)``
says why when the folder (or a cache root above it) is not the current user's own, is writable by
its group or by others, or is a symbolic link (someone else's folder behind a name of ours).
``private_dir(path)`` makes a folder (mode 0700) and returns that reason, or "".
"""

from __future__ import annotations

import os
import stat
from pathlib import Path


def cache_root() -> Path:
    """porter's cache folder (not created here)."""
    if os.environ.get("PORTER_CACHE_DIR"):
        return Path(os.environ["PORTER_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "porter"


def untrusted(path: str | os.PathLike, upto: str | os.PathLike | None = None) -> str:
    """Why the existing folder ``path`` may not hold what porter runs or reads back ("" when it may):
    each folder from ``upto`` (default: the folder itself) down to ``path`` must be a real folder (not
    a link) owned by this user and not writable by its group or by others."""
    path = Path(path)
    chain = [path]
    if upto is not None:
        top = Path(upto)
        p = path
        while p != top and p.parent != p and top in p.parents:
            p = p.parent
            chain.append(p)
    uid = os.getuid() if hasattr(os, "getuid") else None
    for p in chain:
        try:
            st = os.lstat(p)
        except OSError as exc:
            return f"{p}: {exc.strerror or exc}"
        if stat.S_ISLNK(st.st_mode):
            return f"{p} is a symbolic link (a cache folder must be a folder of its own)"
        if not stat.S_ISDIR(st.st_mode):
            return f"{p} is not a folder"
        if uid is not None and st.st_uid != uid:
            return f"{p} belongs to another user (uid {st.st_uid})"
        if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
            return f"{p} is writable by {'others' if st.st_mode & stat.S_IWOTH else 'its group'} (mode {stat.S_IMODE(st.st_mode):o})"
    return ""


def private_dir(path: str | os.PathLike, upto: str | os.PathLike | None = None) -> str:
    """Make ``path`` (and the folders above it, mode 0700 for those made here); "" when the folder is
    then one porter may trust (``untrusted``), else why not, or why it could not be made."""
    path = Path(path)
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as exc:
        return f"cannot make {path}: {exc.strerror or exc}"
    return untrusted(path, upto)
