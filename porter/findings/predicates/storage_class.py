"""PORT193: the ``register`` storage class in C++ code.

C++17 removed ``register`` as a storage class (the keyword stays reserved, with no meaning).  nvcc accepts it
in C++17 code (nvcc 13, checked: not even a warning from its front end; the host compiler warns); clang makes
it an error in C++17 ("ISO C++17 does not allow 'register' storage class specifier", -Wregister, an error by
default), and C++17 is the language HIP code is compiled as: clang's default from LLVM 16 on (ROCm 6's and 7's
hipcc, porter's clang-19 path), and what a project asks for with ``-std=c++17`` on ROCm 5 (HeCBench's
Makefiles; hipcc 5.2 with its clang 15 default of gnu++14 only warns).  Checked with clang-19 (gfx942) and
hipcc 5.2 ``-std=c++17`` (gfx90a): an error at each such declaration.

Deleting the keyword is the safe fix: in C++ it never changed what a program computes (C++ has no
register-only rule such as C's "no address of a register variable" that a program could rely on).  Left
alone: a GNU explicit register variable (``register int sp asm("sp")``), where the keyword and the asm label
go together and removing the keyword makes it another declaration; a C source (``.c``: C keeps
``register``), unless a C++ source beside it includes it (HeCBench's heat2d: ``#include "lapl_ss.c"`` in
main.cu), which compiles it as C++.
"""

from __future__ import annotations

import os
import re

from porter.findings import values
from porter.findings.engine import Hit
from porter.findings.predicates import node_check
from porter.findings.predicates.common import compact, edit, fix

_C_SOURCES = (".c",)
_CXX_SOURCES = (".cu", ".cuh", ".cpp", ".cc", ".cxx", ".hpp", ".hh", ".h")


def _cxx_includer(path: str) -> str | None:
    """A C++ source beside the C file ``path`` that includes it (``#include "name.c"``), or None."""
    beside, pattern = values.includers_beside(path, _CXX_SOURCES)
    for entry, full in beside:
        try:
            with open(full, "rb") as fh:
                if pattern.search(fh.read(1 << 20).decode("utf-8", "replace")):
                    return entry
        except OSError:
            continue
    return None


def _declaration_of(node):
    """The declaration (or parameter declaration) a storage class specifier belongs to."""
    parent = node.parent
    return parent if parent is not None and parent.type in ("declaration", "parameter_declaration",
                                                             "field_declaration") else None


_ASM_LABEL = re.compile(rb"\b(?:asm|__asm__|__asm)\s*\(")


def _explicit_register_variable(ctx, decl) -> bool:
    """``register T name asm("reg")`` (GNU's explicit register variable): an asm label in the declaration."""
    return decl is not None and _ASM_LABEL.search(ctx.source, decl.start_byte, decl.end_byte) is not None


def _without_comments(ctx, decl) -> str:
    """The declaration's text with the comments inside it (the tree's comment nodes) left out."""
    pieces, pos, stack = [], decl.start_byte, [decl]
    comments = []
    while stack:
        n = stack.pop()
        if n.type == "comment":
            comments.append(n)
        else:
            stack.extend(n.children)
    for c in sorted(comments, key=lambda c: c.start_byte):
        pieces.append(ctx.source[pos:c.start_byte])
        pos = c.end_byte
    pieces.append(ctx.source[pos:decl.end_byte])
    return b" ".join(pieces).decode("utf-8", "replace")


@node_check("PORT193")
def register_storage_class(ctx, node, caps):
    if str(ctx.path).lower().endswith(_C_SOURCES):
        key = ("storage_class.includer",)
        if key not in ctx.cache:  # where the file lies on disk (a scan passes it, or its path names it)
            disk = ctx.file or (str(ctx.path) if os.path.isfile(str(ctx.path)) else None)
            ctx.cache[key] = _cxx_includer(disk) if disk else None
        if ctx.cache[key] is None:
            return None  # C, where `register` is still a storage class
    decl = _declaration_of(node)
    if _explicit_register_variable(ctx, decl):
        return None
    end = node.end_byte
    source = ctx.source
    while end < len(source) and source[end:end + 1] in (b" ", b"\t"):
        end += 1
    if end < len(source) and source[end:end + 1] in (b"\n", b"\r"):
        end = node.end_byte  # (the keyword alone on its line: keep the line's layout, drop the word)
    shown = _without_comments(ctx, decl) if decl is not None else "register"
    return Hit(node.start_byte, node.end_byte, {"decl": compact(shown, 50)},
               fix("delete `register` (no meaning in C++; C++17 removed it)", edit(node.start_byte, end, "")))
