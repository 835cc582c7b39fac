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
``register``, and nvcc compiles a .c file as C++ only where the project says so).
"""

from __future__ import annotations

import re

from porter.findings.engine import Hit
from porter.findings.predicates import node_check
from porter.findings.predicates.common import compact, edit, fix

_C_SOURCES = (".c",)


def _declaration_of(node):
    """The declaration (or parameter declaration) a storage class specifier belongs to."""
    parent = node.parent
    return parent if parent is not None and parent.type in ("declaration", "parameter_declaration",
                                                             "field_declaration") else None


_ASM_LABEL = re.compile(rb"\b(?:asm|__asm__|__asm)\s*\(")


def _explicit_register_variable(ctx, decl) -> bool:
    """``register T name asm("reg")`` (GNU's explicit register variable): an asm label in the declaration."""
    return decl is not None and _ASM_LABEL.search(ctx.source, decl.start_byte, decl.end_byte) is not None


@node_check("PORT193")
def register_storage_class(ctx, node, caps):
    if str(ctx.path).lower().endswith(_C_SOURCES):
        return None
    decl = _declaration_of(node)
    if _explicit_register_variable(ctx, decl):
        return None
    end = node.end_byte
    source = ctx.source
    while end < len(source) and source[end:end + 1] in (b" ", b"\t"):
        end += 1
    if end < len(source) and source[end:end + 1] in (b"\n", b"\r"):
        end = node.end_byte  # (the keyword alone on its line: keep the line's layout, drop the word)
    return Hit(node.start_byte, node.end_byte, {"decl": compact(ctx.text(decl) if decl is not None else "register", 50)},
               fix("delete `register` (no meaning in C++; C++17 removed it)", edit(node.start_byte, end, "")))
