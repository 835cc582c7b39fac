"""Scanning a file or a project folder (the project layer walks the tree; the findings
layer checks each file): source files through ``scan``, build files
through ``scan_build_file``; unreadable files are reported, never raised."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from porter.findings.build import scan_build_file
from porter.findings.engine import scan
from porter.findings.model import Finding
from porter.project.files import classify, discover


@dataclass
class ScanResult:
    findings: list[Finding] = field(default_factory=list)
    errors: list[tuple[str, str]] = field(default_factory=list)  # (file, one-line reason)
    files: int = 0
    lines: int = 0


def _scan_one(path: Path, rel: str, kind: str, result: ScanResult) -> None:
    try:
        data = path.read_bytes()
    except OSError as exc:
        result.errors.append((rel, exc.strerror or str(exc)))
        return
    result.files += 1
    result.lines += data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
    if kind == "build":
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            text = data.decode("latin-1")
        result.findings.extend(scan_build_file(text, rel))
    else:
        result.findings.extend(scan(data, rel))


# beyond porter.project.files' classes: converted HIP sources, and setup.py (nvcc flags of a torch extension)
_EXTRA_SOURCES = (".hip",)
_EXTRA_BUILD = ("setup.py",)


def _kind(path: Path, kind: str) -> str:
    if path.suffix.lower() in _EXTRA_SOURCES:
        return "source"
    if path.name in _EXTRA_BUILD:
        return "build"
    return kind


def scan_path(target: str | os.PathLike, exclude: list = ()) -> ScanResult:
    """Scan one file (as a source or build file by its name) or every source and build file under a folder."""
    target = Path(target)
    result = ScanResult()
    if target.is_dir():
        for f in discover(target, exclude):
            kind = _kind(f.path, f.kind)
            if kind in ("source", "build"):
                _scan_one(f.path, f.rel, kind, result)
    else:
        kind = _kind(target, classify(target))
        _scan_one(target, str(target), "build" if kind == "build" else "source", result)
    return result
