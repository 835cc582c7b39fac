"""The guard that every folder under tests/ holding test files collects tests.

pytest skips some folder names by default (``build`` was one: tests/build, every hipcc test, never
ran in CI and nobody saw it); a wrong file pattern or a ``collect_ignore`` does the same silently.
tests/conftest.py runs this on every collection: a folder given on the command line (``tests`` for
the README's command) that holds a file matching ``python_files`` but yields no test (and no
module-level skip, which is reported with its reason) fails the run.
"""

from __future__ import annotations

import fnmatch
from pathlib import Path

SKIP_DIRS = {"__pycache__", "__snapshots__"}


def folders_with_test_files(root: Path, patterns: list[str]) -> set[Path]:
    """Every folder at or under ``root`` that holds a file named like a test module."""
    found = set()
    for path in root.rglob("*.py"):
        rel = path.relative_to(root).parts
        if any(part.startswith(".") or part in SKIP_DIRS for part in rel[:-1]):
            continue
        if any(fnmatch.fnmatch(path.name, p) for p in patterns):
            found.add(path.parent)
    return found


def empty_folders(folders: set[Path], collected: set[Path]) -> list[Path]:
    """The folders none of whose own files gave a collected test (or a skipped module)."""
    return sorted(f for f in folders if f not in collected)


def message(empty: list[Path], base: Path) -> str:
    names = ", ".join(str(p.relative_to(base)) if p.is_relative_to(base) else str(p) for p in empty)
    return (f"these folders hold test files but collected no test: {names} "
            "(a norecursedirs name, a python_files pattern or collect_ignore hides them)")
