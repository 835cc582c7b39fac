"""The built mapping database, kept between runs (a cache; the data files stay the truth).

Building the database reads and checks 3 MB of generated JSON and the curated TOML: about 50 ms,
paid by every ``porter`` process and every worker.  The built tables are kept as one ``marshal``
file under porter's cache folder (``mapping/<key>.marshal``), about 20 ms to read back.  The key
hashes what the tables are made from and the code that reads them: the interpreter version
(``marshal``'s format is its own), ``Entry``'s fields, and the name, size and modification time of
each data file and of the loader (what Python's own bytecode cache checks).  A changed file gives
another key, so a stale copy is never read; a file that cannot be read, written or decoded is
ignored and the database is built from the data files, as without a cache.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import sys
import tempfile
from pathlib import Path

FORMAT = 1  # bump when the layout written below changes
KEEP = 4  # copies kept in the folder, the current one included


def key(files: list[Path], fields: tuple[str, ...]) -> str:
    """The cache key of a database built from ``files`` with ``Entry`` fields ``fields``."""
    h = hashlib.sha256(f"{FORMAT} {sys.version} {fields}".encode())
    for path in files:
        st = os.stat(path)
        h.update(f"\0{path.name}\0{st.st_size}\0{st.st_mtime_ns}".encode())
    return h.hexdigest()[:32]


def read(folder: Path, name: str, width: int) -> tuple[list[tuple], list[tuple], list[tuple]] | None:
    """The (identifier, header, namespace) rows saved under ``name``, or None when there is no usable copy."""
    try:
        doc = marshal.loads((folder / f"{name}.marshal").read_bytes())  # marshal.load(file) reads it piecemeal, 6x slower
    except (OSError, EOFError, ValueError, TypeError):
        return None
    if not (isinstance(doc, tuple) and len(doc) == 3 and all(isinstance(t, list) for t in doc)):
        return None
    if not all(type(row) is tuple and len(row) == width for t in doc for row in t):
        return None
    return doc


def write(folder: Path, name: str, tables: tuple[list[tuple], list[tuple], list[tuple]]) -> None:
    """Save the rows under ``name`` (atomically) and remove older copies; any failure is ignored."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=".marshal")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(marshal.dumps(tables))
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
