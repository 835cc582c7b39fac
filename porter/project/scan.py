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
from porter.project.files import UnreadableText, classify, read_regular, to_utf8, walk
from porter.project.workers import job_count, run_per_file

BINARY_SNIFF = 8192


@dataclass
class ScanResult:
    findings: list[Finding] = field(default_factory=list)
    errors: list[tuple[str, str]] = field(default_factory=list)  # (file, one-line reason)
    notes: list[tuple[str, str]] = field(default_factory=list)  # (file, how it was read) for files read unusually
    files: int = 0
    lines: int = 0


def _scan_one(options, item: tuple[Path, str, str]) -> tuple[list[Finding], str | None, int, str | None]:
    """Findings of one file, or the one-line reason it could not be read; its line count; and a
    note on how it was read (a UTF-16 file), or None."""
    path, rel, kind = item
    try:
        data = read_regular(path)
    except OSError as exc:
        return [], exc.strerror or str(exc), 0, None
    try:
        data, encoding = to_utf8(data)
    except UnreadableText as exc:
        return [], str(exc), 0, None
    note = f"read as {encoding} (byte-order mark)" if encoding else None
    if b"\0" in data[:BINARY_SNIFF]:  # what convert says of it too: no finding in it is a pass of nothing
        return [], "binary file (NUL bytes), not scanned", 0, None
    lines = data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
    if kind == "build":
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            text = data.decode("latin-1")
        return scan_build_file(text, rel), None, lines, note
    notes: list[str] = []  # a part of the file not analysed (nested too deep) is said so in one line
    findings = scan(data, rel, options=options, file=path, notes=notes)
    return findings, None, lines, "; ".join(([note] if note else []) + notes) or None


# beyond porter.project.files' classes: converted HIP sources, and setup.py (nvcc flags of a torch extension)
_EXTRA_SOURCES = (".hip",)
_EXTRA_BUILD = ("setup.py",)


def _kind(path: Path, kind: str) -> str:
    if path.suffix.lower() in _EXTRA_SOURCES:
        return "source"
    if path.name in _EXTRA_BUILD:
        return "build"
    return kind


def scan_path(target: str | os.PathLike, exclude: list = (), jobs: int = 0, options=None) -> ScanResult:
    """Scan one file (as a source or build file by its name) or every source and build file under a
    folder, on ``jobs`` worker processes (0: all cores); findings come in file order either way.
    ``options``: the conversion's ``TranslateOptions`` (--roc, the target ROCm)."""
    target = Path(target)
    result = ScanResult()
    if target.is_dir():
        walked = walk(target, exclude)
        items = [(f.path, f.rel, kind) for f in walked.files if (kind := _kind(f.path, f.kind)) in ("source", "build")]
        for skip in walked.skipped:  # an unreadable folder fails the scan; a link left out is a note
            (result.errors if skip.error else result.notes).append(
                (skip.rel, skip.reason if skip.error else f"skipped: {skip.reason}"))
    else:
        kind = _kind(target, classify(target))
        items = [(target, str(target), "build" if kind == "build" else "source")]
    for (_path, rel, _kind_), (findings, error, lines, note) in zip(
            items, run_per_file(_scan_one, options, items, job_count(jobs, len(items)), name=lambda item: item[1])):
        if error is not None:
            result.errors.append((rel, error))
            continue
        if note is not None:
            result.notes.append((rel, note))
        result.files += 1
        result.lines += lines
        result.findings.extend(findings)
    return result
