"""Where in the source an error of a device link is, which lld prints with no file or line.

- "undefined symbol: NAME" where NAME is a ``static`` (or unnamed-namespace) ``__device__`` / ``__constant__``
  variable of the project: a kernel read it before host code named it, in a unit compiled with relocatable
  device code (PORT195, porter/findings/predicates/device_var_linkage.py): put at the variable's declaration.
- "<inline asm>:1:2: invalid instruction" (PTX that reached the device link: with -fgpu-rdc inline assembly is
  assembled there, NVIDIA's stereoDisparity for gfx90a): put at the project's asm statement when it has only
  one, so that the reviewer sees where (PORT001 flags it)."""

from __future__ import annotations

import os
import re
from pathlib import Path

from porter.build.diagnostics import UNDEFINED, Diagnostic
from porter.build.tree_kind import HEADER_SUFFIXES, SKIP_DIRS, UNIT_SUFFIXES

HINT = ("a static (or unnamed-namespace) __device__/__constant__ variable that a kernel reads before host code "
        "names it: with -fgpu-rdc clang renames it for the runtime only after that kernel, so the device link "
        "cannot find it; delete `static` (see `porter explain PORT195`)")
# the files of a folder read for the declaration, at most (a link names symbols of the project being linked)
MAX_FILES = 2000


def locate_internal_variables(ds: list[Diagnostic], cwd: Path, root: Path) -> None:
    """Give each line-less "undefined symbol: NAME" of ``ds`` whose NAME a unit under ``cwd`` declares as an
    internal device variable that unit's file and line (relative to ``root``), PORT195 and its hint."""
    wanted = {}
    for d in ds:
        m = UNDEFINED.search(d.message) if d.severity == "error" and not d.line else None
        if m:
            name = m.group("sym").strip().rsplit("::", 1)[-1]
            if re.fullmatch(r"[A-Za-z_]\w*", name):
                wanted.setdefault(name, []).append(d)
    if not wanted:
        return
    for path in _sources(cwd):
        try:
            text = path.read_text(errors="replace")
        except OSError:
            continue
        for name in [n for n in wanted if n in text]:
            at = _declaration(text, name)
            if at is None:
                continue
            where = _where(path, root)
            for d in wanted.pop(name):
                d.file, d.line, d.column = where, *at
                d.rule, d.hint = "PORT195", HINT
        if not wanted:
            return


_INLINE_ASM_ERROR = re.compile(r"<inline asm>:\d+:\d+")
_ASM_STATEMENT = re.compile(r"(?m)^(?P<lead>[^\n]*?)\b(?:asm|__asm__|__asm)\b\s*(?:volatile\b|__volatile__\b)?\s*\(")


def locate_inline_asm(ds: list[Diagnostic], cwd: Path, root: Path) -> None:
    """Give a line-less "<inline asm>" error of ``ds`` the place of the project's only asm statement (files
    under ``cwd``); left as it is when the project has none or several."""
    wanted = [d for d in ds if d.severity == "error" and not d.line and _INLINE_ASM_ERROR.search(d.message)]
    if not wanted:
        return
    found = []
    for path in _sources(cwd):
        try:
            text = path.read_text(errors="replace")
        except OSError:
            continue
        for m in _ASM_STATEMENT.finditer(text):
            if "//" in m.group("lead") or m.group("lead").lstrip().startswith("*"):
                continue  # (in a line comment, or a block comment's continuation line)
            pos = m.start() + len(m.group("lead"))
            found.append((path, text.count("\n", 0, pos) + 1, pos - (text.rfind("\n", 0, pos) + 1) + 1))
            if len(found) > 1:
                return
    if len(found) != 1:
        return
    path, line, column = found[0]
    where = _where(path, root)
    for d in wanted:
        d.file, d.line, d.column = where, line, column


def _where(path: Path, root: Path) -> str:
    """``path`` as a diagnostic names it: relative to the build's root when inside it."""
    rel = os.path.relpath(path, root.resolve())
    return str(path) if rel.startswith("..") else rel.replace(os.sep, "/")


def _sources(cwd: Path):
    count = 0
    for dirpath, dirnames, filenames in os.walk(cwd):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
        for name in sorted(filenames):
            if name.endswith(UNIT_SUFFIXES + HEADER_SUFFIXES):
                count += 1
                if count > MAX_FILES:
                    return
                yield Path(dirpath) / name


def _declaration(text: str, name: str) -> tuple[int, int] | None:
    """(line, column) of ``name`` in a ``static`` __device__/__constant__ declaration of ``text``, or in one
    inside ``namespace {``; None when there is none."""
    word = re.escape(name)
    for m in re.finditer(rf"(?m)^[ \t]*(?P<spec>[^;{{}}()\n]*\b__(?:device|constant)__\b[^;{{}}()\n=]*?)\b{word}\b",
                         text):
        spec = m.group("spec")
        if re.search(r"\b(?:extern|__shared__)\b", spec) or "(" in spec:
            continue
        if re.search(r"\bstatic\b", spec) or _in_unnamed_namespace(text, m.start()):
            pos = m.start() + m.group(0).rfind(name)
            return text.count("\n", 0, pos) + 1, pos - (text.rfind("\n", 0, pos) + 1) + 1
    return None


def _in_unnamed_namespace(text: str, pos: int) -> bool:
    """``pos`` lies inside a ``namespace {`` block (braces counted from it, comments not told apart)."""
    for m in re.finditer(r"\bnamespace\s*\{", text[:pos]):
        depth = 1 - text.count("}", m.end(), pos) + text.count("{", m.end(), pos)
        if depth > 0:
            return True
    return False
