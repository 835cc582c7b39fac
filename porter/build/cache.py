"""Content-hash cache for incremental builds, kept in DIR/.porter/build/cache.json.

A unit is rebuilt when its command line, its source or any header it includes
(from the compiler's -MD depfile) changed content.  File hashes are memoised
by (mtime_ns, size) and trusted only when the file was older than the
recording by more than a second (a file rewritten within the same timestamp
tick is hashed again)."""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import threading
import time
from pathlib import Path

VERSION = 2  # 2: unit ids name the arch (runner.py)
_TRUST_S = 1.0


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class Cache:
    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        self._lock = threading.Lock()
        data = {}
        try:
            with open(self.path, encoding="utf-8") as fh:
                data = json.load(fh)
        except (OSError, ValueError):
            data = {}
        if not isinstance(data, dict) or data.get("version") != VERSION:
            data = {}
        self.files: dict[str, list] = data.get("files", {})
        self.units: dict[str, dict] = data.get("units", {})
        self.extra: dict[str, object] = data.get("extra", {})
        self.dirty = False

    # ---------------------------------------------------------- file hashes
    def file_hash(self, path: str) -> str | None:
        """Content hash of ``path``; None when it does not exist."""
        try:
            st = os.stat(path)
        except OSError:
            return None
        with self._lock:
            memo = self.files.get(path)
        if memo and memo[0] == st.st_mtime_ns and memo[1] == st.st_size and memo[3] - st.st_mtime_ns / 1e9 > _TRUST_S:
            return memo[2]
        try:
            with open(path, "rb") as fh:
                digest = sha256_bytes(fh.read())
        except OSError:
            return None
        with self._lock:
            self.files[path] = [st.st_mtime_ns, st.st_size, digest, time.time()]
            self.dirty = True
        return digest

    # ---------------------------------------------------------- units
    def unit_key(self, argv: list[str], source: str) -> str | None:
        h = self.file_hash(source)
        if h is None:
            return None
        return sha256_bytes(json.dumps([argv, h]).encode())

    def up_to_date(self, rel: str, key: str, output: str) -> bool:
        with self._lock:
            entry = self.units.get(rel)
        if not entry or entry.get("key") != key or not os.path.exists(output):
            return False
        for dep, digest in entry.get("deps", {}).items():
            if self.file_hash(dep) != digest:
                return False
        return True

    def record(self, rel: str, key: str, deps: list[str], **extra) -> None:
        dep_hashes = {}
        for d in deps:
            h = self.file_hash(d)
            if h is not None:
                dep_hashes[d] = h
        with self._lock:
            self.units[rel] = {"key": key, "deps": dep_hashes, **extra}
            self.dirty = True

    def forget(self, rel: str) -> None:
        with self._lock:
            if self.units.pop(rel, None) is not None:
                self.dirty = True

    def save(self) -> None:
        if not self.dirty:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(self.path.name + f".{os.getpid()}.tmp")
        with self._lock:
            data = {"version": VERSION, "files": self.files, "units": self.units, "extra": self.extra}
        try:
            with open(tmp, "w", encoding="utf-8") as fh:
                json.dump(data, fh)
            os.replace(tmp, self.path)
        except OSError as exc:  # a full disk: no half-written file left; the error names cache.json
            try:
                os.unlink(tmp)
            except OSError:
                pass
            if exc.filename is None or os.fspath(exc.filename) == os.fspath(tmp):
                exc.filename = str(self.path)
            raise
        self.dirty = False


def read_depfile(path: str, cwd: str) -> list[str]:
    """Prerequisites listed in a make-style depfile (``-MD -MF``), absolute."""
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            text = fh.read()
    except OSError:
        return []
    text = text.replace("\\\r\n", " ").replace("\\\n", " ")
    deps: list[str] = []
    for line in text.splitlines():
        if ":" not in line:
            continue
        _, _, rest = line.partition(": ")
        if not rest and line.endswith(":"):
            continue  # phony target line
        try:
            words = shlex.split(rest.replace("\\ ", "\0"))
        except ValueError:
            words = rest.split()
        for w in words:
            w = w.replace("\0", " ").replace("$$", "$")  # make's escape for a $ in a name
            p = os.path.normpath(w if os.path.isabs(w) else os.path.join(cwd, w))
            if p not in deps:
                deps.append(p)
    return deps
