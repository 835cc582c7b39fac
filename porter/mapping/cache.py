"""Data porter builds from its own data files, kept between runs (a cache; the data files stay the truth).

The mapping database: building it reads and checks 3 MB of generated JSON and the curated TOML:
about 50 ms, paid by every ``porter`` process and every worker.  The built tables are kept as one
``marshal`` file under porter's cache folder (``mapping/<key>.marshal``), about 10 ms to read back.
The key hashes what the tables are made from and the code that reads them: the interpreter version
(``marshal``'s format is its own), ``Entry``'s fields, and the name, size and modification time of
each data file and of the loader (what Python's own bytecode cache checks).

porter's own TOML data files (``load_toml``: the translator's rules, the GPU targets): each kept
parsed (``toml/<file>-<key>.marshal``, the key made the same way from the file's path, size and
modification time), so that a run whose files are cached does not import the TOML parser at all
(7 ms of a 1-line convert's start-up).

A changed file gives another key, so a stale copy is never read; a file that cannot be read, written
or decoded is ignored and the data is built from the data files, as without a cache.  Each copy is
kept with the SHA-256 of its bytes (a damaged copy is built again, never used), and only in a folder
that is the user's own and writable by nobody else (porter.cachedir.untrusted): a copy planted in a
shared folder would decide every port.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import sys
import tempfile
from pathlib import Path

from porter.cachedir import cache_root, private_dir, untrusted

FORMAT = 3  # bump when the layout written below changes (3: the SHA-256 of the tables' bytes, then those bytes)
KEEP = 4  # copies kept in the folder (of one TOML file, for load_toml), the current one included
_DIGEST = 32  # bytes of a SHA-256


def key(files: list[Path], fields: tuple[str, ...]) -> str:
    """The cache key of a database built from ``files`` with ``Entry`` fields ``fields``."""
    h = hashlib.sha256(f"{FORMAT} {sys.version} {fields}".encode())
    for path in files:
        st = os.stat(path)
        h.update(f"\0{path.name}\0{st.st_size}\0{st.st_mtime_ns}".encode())
    return h.hexdigest()[:32]


def _load(folder: Path, name: str):
    """What was saved under ``name`` (write()), or None: no copy, a folder another user could write, or a
    damaged copy (the SHA-256 kept with it differs: one flipped bit is a wrong port, not a crash)."""
    if untrusted(folder):
        return None
    try:
        raw = (folder / f"{name}.marshal").read_bytes()  # marshal.load(file) reads it piecemeal, 6x slower
        if len(raw) <= _DIGEST or hashlib.sha256(memoryview(raw)[_DIGEST:]).digest() != raw[:_DIGEST]:
            return None
        return marshal.loads(memoryview(raw)[_DIGEST:])
    except (OSError, EOFError, ValueError, TypeError):
        return None


def read(folder: Path, name: str, width: int) -> tuple[list[tuple], list[tuple], list[tuple]] | None:
    """The (identifier, header, namespace) rows saved under ``name``, or None when there is no usable copy:
    none, in a folder another user could write (porter.cachedir.untrusted), damaged, or of another shape."""
    doc = _load(folder, name)
    if not (isinstance(doc, tuple) and len(doc) == 3 and all(isinstance(t, list) for t in doc)):
        return None
    if not all(type(row) is tuple and len(row) == width for t in doc for row in t):
        return None
    return doc


def write(folder: Path, name: str, tables, prune: str = "") -> None:
    """Save ``tables`` (what ``marshal`` can write) under ``name`` (atomically) and remove older copies of
    the folder whose names start with ``prune``; any failure is ignored."""
    if private_dir(folder):
        return  # not ours alone: nothing is written there (and nothing is read: read())
    try:
        payload = marshal.dumps(tables)
    except ValueError:  # a value marshal cannot write (a TOML date): not kept
        return
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=".marshal")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(hashlib.sha256(payload).digest())
                f.write(payload)
            os.replace(tmp, folder / f"{name}.marshal")
        except BaseException:
            os.unlink(tmp)
            raise
    except OSError:
        return
    # older copies (another data version): the newest few stay, for two installs sharing the folder
    try:
        others = sorted((p for p in folder.glob(f"{prune}*.marshal") if p.stem != name and not p.name.startswith(".tmp-")),
                        key=lambda p: p.stat().st_mtime_ns, reverse=True)
    except OSError:
        return
    for old in others[KEEP - 1:]:
        try:
            old.unlink()
        except OSError:
            pass


def load_toml(path: Path) -> dict:
    """The TOML file ``path`` (one of porter's own data files) parsed: as ``tomllib.loads`` of its text,
    read back from the cache when the file is unchanged (no TOML parser imported).  A file that cannot be
    read or parsed raises what tomllib and reading raise (OSError, UnicodeDecodeError, TOMLDecodeError)."""
    path = Path(path)
    folder = cache_root() / "toml"
    try:
        st = os.stat(path)
        absolute = os.path.abspath(path)
    except OSError:
        name = None  # reading it below says why
    else:
        digest = hashlib.sha256(f"{FORMAT} {sys.version}\0{absolute}\0{st.st_size}\0{st.st_mtime_ns}".encode())
        name = f"{path.stem}-{digest.hexdigest()[:32]}"
        doc = _load(folder, name)
        if type(doc) is dict:
            return doc
    import tomllib

    doc = tomllib.loads(path.read_text(encoding="utf-8"))
    if name is not None:
        write(folder, name, doc, prune=f"{path.stem}-")
    return doc
