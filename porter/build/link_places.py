"""Where in the source an error of a device link is, which lld prints with no file or line.

- "undefined symbol: NAME" where NAME is a ``static`` (or unnamed-namespace) ``__device__`` / ``__constant__``
  variable of the project: a kernel read it before host code named it, in a unit compiled with relocatable
  device code (PORT195, porter/findings/predicates/device_var_linkage.py): put at the variable's declaration.
- "<inline asm>:1:2: invalid instruction" (PTX that reached the device link: with -fgpu-rdc inline assembly is
  assembled there, NVIDIA's stereoDisparity for gfx90a): put at the project's asm statement when it has only
  one, so that the reviewer sees where (PORT001 flags it).
- "undefined reference to `__device_stub__NAME(float*, float)'" (host link): the host side of a kernel launch,
  which clang emits where a ``__global__`` function is defined; a kernel declared and launched but defined in no
  unit of the link, or defined with other parameters (another function to C++), leaves it undefined.  Put at
  the launch in the file the linker names, with where the project declares and defines that name."""

from __future__ import annotations

import os
import re
from pathlib import Path

from porter.build.diagnostics import UNDEFINED, Diagnostic
from porter.build.tree_kind import HEADER_SUFFIXES, SKIP_DIRS, UNIT_SUFFIXES
from porter.parse.brackets import closing

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
            found.append((path, text, m.start() + len(m.group("lead"))))
            if len(found) > 1:
                return
    if len(found) != 1:
        return
    place = where(*found[0], root)
    for d in wanted:
        d.file, d.line, d.column = place


# clang's host-side name of a kernel (HIP and CUDA alike) as GNU ld prints it: "__device_stub__scale(float*,
# float)", a template's "void __device_stub__k<float>(float*)"
_STUB = re.compile(r"__device_stub__(?P<kernel>[A-Za-z_]\w*)(?:<[^()]*>)?(?P<params>\(.*\))?")
# the source file of the object GNU ld names: "main.cu:(.text+0x48f): undefined reference to ..."
_LINKED_SOURCE = re.compile(r"(?:^|\s)([\w./+-]+\.(?:cu|hip|cpp|cc|cxx|c))(?::\(|\s|$)")


def locate_undefined_kernels(ds: list[Diagnostic], cwd: Path, root: Path) -> None:
    """Give a line-less "undefined reference to `__device_stub__NAME(...)'" of ``ds`` the place of NAME's launch
    in the source the linker names (under ``cwd``, relative to ``root``) and a hint naming where the project
    declares and defines kernels of that name: the linker's words read like a file that did not compile."""
    wanted = []
    for d in ds:
        m = UNDEFINED.search(d.message) if d.severity == "error" and not d.line else None
        stub = _STUB.search(m.group("sym")) if m else None
        if stub:
            wanted.append((d, stub.group("kernel"), stub.group("params") or ""))
    if not wanted:
        return
    texts = {}
    for path in _sources(cwd):
        try:
            texts[path] = path.read_text(errors="replace")
        except OSError:
            continue
    for d, kernel, params in wanted:
        declared, defined = [], []
        for path, text in texts.items():
            if kernel in text:
                for line, is_definition, head in _kernels_named(text, kernel):
                    (defined if is_definition else declared).append(f"{_where(path, root)}:{line} `{head}`")
        launch = _launch(d.message, kernel, cwd)
        if launch is not None:
            d.file, d.line, d.column = where(*launch, root)
        if not defined:
            d.hint = (f"no source of the project defines the kernel {kernel}{params} this launch calls"
                      + (f" (declared at {declared[0]})" if declared else "")
                      + ": its __global__ definition is missing from the program's sources")
        else:
            d.hint = (f"the link found no kernel {kernel}{params}; the project defines {kernel} at "
                      f"{'; '.join(defined[:3])}: a definition with other parameter types is another function "
                      "to C++ (make it match the declaration the launch uses), and one in a file this program "
                      "does not link needs that file in the program's sources")


def _kernels_named(text: str, kernel: str):
    """(line, whether a definition, its name and parameters as written) of each ``__global__`` function
    ``kernel`` of ``text``: a declaration ends in ``;`` after its parameter list, a definition opens a body."""
    word = re.escape(kernel)
    for m in re.finditer(rf"\b__global__\b[^;{{}}]*?\b{word}\s*(?:<[^;{{}}()]*>\s*)?\(", text):
        close = closing(text, m.end() - 1, "(", ")", limit=4000, stop=";{}")
        if close is None:
            continue
        tail = re.match(r"[^;{}]*(?P<end>[;{])", text[close + 1:close + 400])
        if tail is None:
            continue
        head = " ".join(text[m.start() + m.group().rfind(kernel):close + 1].split())
        yield _line_column(text, m.start())[0], tail.group("end") == "{", head[:120]


def linked_source(message: str, cwd: Path) -> tuple[Path, str] | None:
    """(path, text) of the source file a GNU ld message names (GNU ld links the host code of both toolchains
    here: "k.cu:(.text+0x14ca): undefined reference to ..."), relative to ``cwd``; None when it names none or
    the file cannot be read."""
    m = _LINKED_SOURCE.search(message)
    if not m:
        return None
    path = (cwd / m.group(1)).resolve()
    try:
        return path, path.read_text(errors="replace")
    except OSError:
        return None


def where(path: Path, text: str, pos: int, root: Path) -> tuple[str, int, int]:
    """(file as a diagnostic names it, line, column) of offset ``pos`` of ``path``'s ``text``."""
    return (_where(path, root), *_line_column(text, pos))


def _line_column(text: str, pos: int) -> tuple[int, int]:
    return text.count("\n", 0, pos) + 1, pos - (text.rfind("\n", 0, pos) + 1) + 1


def call_site(message: str, symbol: str, cwd: Path, root: Path) -> tuple[str, int, int] | None:
    """(file relative to ``root``, line, column) of the first call of ``symbol`` in the source file a link
    error names; None when the message names no source or the source has no such call."""
    source = linked_source(message, cwd)
    call = re.search(rf"\b{re.escape(symbol)}\s*\(", source[1]) if source else None
    return where(*source, call.start(), root) if call else None


def _launch(message: str, kernel: str, cwd: Path) -> tuple[Path, str, int] | None:
    """(file, its text, offset) of the first launch of ``kernel`` (``<<<``, hipLaunchKernelGGL, else its first
    use on a line without ``__global__``) in the source file a GNU ld message names; None when none is found."""
    source = linked_source(message, cwd)
    if source is None:
        return None
    path, text = source
    word = re.escape(kernel)
    found = (re.search(rf"\b{word}\s*(?:<[^;{{}}()]*>\s*)?<<<", text)
             or re.search(rf"\bhipLaunchKernelGGL\s*\(\s*(?:HIP_KERNEL_NAME\s*\(\s*)?{word}\b", text))
    if found is None:
        for use in re.finditer(rf"\b{word}\b", text):
            start, end = text.rfind("\n", 0, use.start()) + 1, text.find("\n", use.start())
            if "__global__" not in text[start:end if end >= 0 else len(text)]:
                found = use
                break
    return None if found is None else (path, text, found.start())


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
            return _line_column(text, m.start() + m.group(0).rfind(name))
    return None


def _in_unnamed_namespace(text: str, pos: int) -> bool:
    """``pos`` lies inside a ``namespace {`` block (braces counted from it, comments not told apart)."""
    for m in re.finditer(r"\bnamespace\s*\{", text[:pos]):
        depth = 1 - text.count("}", m.end(), pos) + text.count("{", m.end(), pos)
        if depth > 0:
            return True
    return False
