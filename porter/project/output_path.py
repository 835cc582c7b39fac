"""Where a port may be written: never over its own source.

``overlap_problem(src, out)`` is the one check the CLI (``porter convert``) and the review app call before
anything is written: an output folder that is the source, contains it, or lies inside it would overwrite
source files (``convert P/src -o P`` writes P/src/x.cu from P/src/src/x.cu).  Every spelling counts: links,
``..``, and names that differ only in case on a case-insensitive file system (the folders are compared by
identity, device and inode, wherever they exist).
"""

from __future__ import annotations

import os
from pathlib import Path


def _existing_chain(path: Path) -> list[Path]:
    """``path`` and the folders above it that exist, nearest first (absolute, ``..`` and links resolved)."""
    p = Path(os.path.abspath(path))
    chain = []
    for q in (p, *p.parents):
        if q.exists():
            chain.append(q)
    return chain


def _same(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def overlap_problem(src: str | os.PathLike, out: str | os.PathLike, what: str = "output") -> str | None:
    """One line when writing the port of ``src`` into the folder ``out`` could overwrite source files
    (``out`` is ``src``, contains it, or lies inside it); None when they are apart.  ``src`` may be a file."""
    src, out = Path(src), Path(out)
    if not src.exists():
        return None
    src_dir = src if src.is_dir() else src.parent
    if not src.is_dir():  # one file: only writing over the file itself is a problem
        if out.exists() and _same(out, src):
            return f"{what} {out} is the input file; use --inplace to convert in place (keeps .prehip backups)"
        return None
    real_src = Path(os.path.realpath(src_dir))
    real_out = Path(os.path.realpath(out))
    if _same(out, src_dir) if out.exists() else real_out == real_src:
        return f"{what} {out} is the source folder; use --inplace to convert in place (keeps .prehip backups)"
    # out inside src: some existing folder at or above out is src (identity), or the resolved paths say so
    if any(_same(q, src_dir) for q in _existing_chain(out)) or real_out.is_relative_to(real_src):
        return (f"{what} {out} lies inside the source folder {src}: the port would be written among (and over) "
                f"the source files; choose a folder outside it (default: {src.name}-hip beside it)")
    # out contains src: out exists and is src_dir or a folder above it
    if out.exists() and any(_same(q, out) for q in _existing_chain(src_dir)) or real_src.is_relative_to(real_out):
        return (f"{what} {out} contains the source folder {src}: the port would overwrite source files; "
                f"choose a folder outside it (default: {src.name}-hip beside it)")
    return None
