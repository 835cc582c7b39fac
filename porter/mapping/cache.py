"""The built mapping database, kept between runs (a cache; the data files stay the truth).

Building the database reads and checks 3 MB of generated JSON and the curated TOML: about 50 ms,
paid by every ``porter`` process and every worker.  The built tables are kept as one ``marshal``
file under porter's cache folder (``mapping/<key>.marshal``), about 20 ms to read back.  The key
hashes what the tables are made from and the code that reads them: the interpreter version
(``marshal``'s format is its own), ``Entry``'s fields, and the name, size and modification time of
each data file and of the loader (what Python's own bytecode cache checks).  A changed file gives
another key, so a stale copy is never read; a file that cannot be read, written or decoded is
ignored and the database is built from the data files, as without a cache.  The tables are kept with
their SHA-256 (a damaged copy is built again, never used), and only in a folder that is the user's own
and writable by nobody else (porter.cachedir.untrusted): a copy planted in a shared folder would decide
every port.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import sys
import tempfile
from pathlib import Path

from porter.cachedir import private_dir, untrusted

FORMAT = 2  # bump when the layout written below changes (2: the tables' bytes with their SHA-256)
KEEP = 4  # copies kept in the folder, the current one included


def key(files: list[Path], fields: tuple[str, ...]) -> str:
    """The cache key of a database built from ``files`` with ``Entry`` fields ``fields``."""
    h = hashlib.sha256(f"{FORMAT} {sys.version} {fields}".encode())
    for path in files:
        st = os.stat(path)
        h.update(f"\0{path.name}\0{st.st_size}\0{st.st_mtime_ns}".encode())
    return h.hexdigest()[:32]


def read(folder: Path, name: str, width: int) -> tuple[list[tuple], list[tuple], list[tuple]] | None:
    """The (identifier, header, namespace) rows saved under ``name``, or None when there is no usable copy:
    none, in a folder another user could write (porter.cachedir.untrusted), damaged (the SHA-256 kept
    with the tables differs: one flipped bit is a wrong port, not a crash), or of another shape."""
    if untrusted(folder):
        return None
    try:
        outer = marshal.loads((folder / f"{name}.marshal").read_bytes())  # marshal.load(file) reads it piecemeal, 6x slower
        if not (isinstance(outer, tuple) and len(outer) == 2 and isinstance(outer[0], bytes)
                and isinstance(outer[1], bytes) and hashlib.sha256(outer[1]).digest() == outer[0]):
            return None
        doc = marshal.loads(outer[1])
    except (OSError, EOFError, ValueError, TypeError):
        return None
    if not (isinstance(doc, tuple) and len(doc) == 3 and all(isinstance(t, list) for t in doc)):
        return None
    if not all(type(row) is tuple and len(row) == width for t in doc for row in t):
        return None
    return doc


def write(folder: Path, name: str, tables: tuple[list[tuple], list[tuple], list[tuple]]) -> None:
    """Save the rows under ``name`` (atomically) and remove older copies; any failure is ignored."""
    if private_dir(folder):
        return  # not ours alone: nothing is written there (and nothing is read: read())
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=".marshal")
        try:
            payload = marshal.dumps(tables)
            with os.fdopen(fd, "wb") as f:
                f.write(marshal.dumps((hashlib.sha256(payload).digest(), payload)))
            os.replace(tmp, folder / f"{name}.marshal")
        except BaseException:
            os.unlink(tmp)
            raise
    except OSError:
        return
    # older copies (another data version): the newest few stay, for two installs sharing the folder
    try:
        others = sorted((p for p in folder.glob("*.marshal") if p.stem != name and not p.name.startswith(".tmp-")),
                        key=lambda p: p.stat().st_mtime_ns, reverse=True)
    except OSError:
        return
    for old in others[KEEP - 1:]:
        try:
            old.unlink()
        except OSError:
            pass
