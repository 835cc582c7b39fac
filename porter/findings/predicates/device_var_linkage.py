"""PORT195: a ``static`` (or unnamed-namespace) ``__device__`` / ``__constant__`` variable that a kernel reads before
host code names it, in a unit compiled with relocatable device code.

With ``-fgpu-rdc`` clang gives such a variable, once host code names it (``hipMemcpyToSymbol``,
``hipGetSymbolAddress``...), a unit-unique device name (``NAME.static.<hash>``) so that the runtime can find it. It
decides that when it meets the host code; a kernel it has already emitted keeps the plain name. The device link
then fails, "undefined symbol: NAME", with no file or line. Measured with clang 15 (hipcc 5.2, gfx90a) and clang 19
(gfx942): NVIDIA's binomialOptions (``static __constant__ __TOptionData d_OptionData[...]``) and
quasirandomGenerator samples, whose CMakeLists ask for CUDA_SEPARABLE_COMPILATION. Device code emitted late does
not fail: a kernel template (instantiated at the end of the unit), a ``static`` or ``inline`` __device__ function
(emitted when used). A kernel is emitted where it is defined, ``static``, ``inline`` or in an unnamed namespace
too. A variable in an unnamed namespace fails the same way with clang 19 (clang 15 links it). Host code that names
the variable before the kernel avoids it; a declaration of that host function does not, nor does a host function
template (instantiated at the end of the unit).

The rule fires where porter reads the file's build file (the nearest Makefile / CMakeLists.txt at or above its
folder) asking for relocatable device code. Fix for ``static``: delete the keyword. The variable then has external
linkage under its own name, the way nvcc's relocatable device code treats it; if another unit of the program
defines the same name, the link says so (duplicate symbol), it never picks one silently.
"""

from __future__ import annotations

import os
import re

from porter.findings.build_modes import relocatable_build_file
from porter.findings.engine import Hit
from porter.findings.predicates import file_check
from porter.findings.predicates.common import edit, fix
from porter.findings.predicates.hipdefs import DESCEND

_MAYBE = re.compile(rb"\bstatic\b[^;{}()]*\b__(?:device|constant)__\b|\b__(?:device|constant)__\b[^;{}()]*\bstatic\b"
                    rb"|\bnamespace\s*\{")
_INLINE_WORDS = {"inline", "__inline__", "__forceinline__", "constexpr", "consteval", "static"}
# host code: the end of the unit (where a host template is instantiated)
_END = float("inf")


def _items(node, anonymous: bool):
    """(node, inside an unnamed namespace) for each declaration of the unit, through #if blocks, extern "C" and
    namespaces."""
    for child in node.named_children:
        if child.type in DESCEND:
            yield from _items(child, anonymous)
        elif child.type == "namespace_definition":
            body = child.child_by_field_name("body")
            if body is not None:
                yield from _items(body, anonymous or child.child_by_field_name("name") is None)
        else:
            yield child, anonymous


def _specifier_words(ctx, node) -> set[str]:
    """The words before a declaration's (or definition's) first declarator: its specifiers."""
    decls = node.children_by_field_name("declarator")
    end = decls[0].start_byte if decls else node.end_byte
    return set(re.findall(r"[A-Za-z_]\w*", ctx.source[node.start_byte:end].decode("utf-8", "replace")))


def _declared_name(node):
    while node is not None and node.type != "identifier":
        node = node.child_by_field_name("declarator")
    return node


def _function_name(ctx, node) -> str:
    d = node.child_by_field_name("declarator")
    while d is not None and d.type not in ("identifier", "qualified_identifier", "field_identifier",
                                           "operator_name", "destructor_name"):
        d = d.child_by_field_name("declarator")
    return ctx.text(d) if d is not None else "?"


@file_check("PORT195", per_region=True)
def static_device_variable_read_first(ctx):
    if not _MAYBE.search(ctx.source):
        return None
    disk = ctx.file or (str(ctx.path) if os.path.isfile(str(ctx.path)) else None)
    build_file = relocatable_build_file(disk)
    if build_file is None:
        return None
    protected = ctx.index.protected_test()
    variables: dict[str, dict] = {}  # name -> its declaration, the first eager device read, the first host use
    pattern = None  # the names declared so far, as one pattern

    def uses(node) -> set[str]:
        if pattern is None:
            return set()
        found = set()
        for m in pattern.finditer(ctx.source, node.start_byte, node.end_byte):
            if not protected(m.start()):
                found.add(m.group().decode())
        return found

    def declare(node, anonymous: bool) -> None:
        nonlocal pattern
        words = _specifier_words(ctx, node)
        if not words & {"__device__", "__constant__"} or words & {"extern", "__shared__", "__managed__"}:
            return
        static = next((c for c in node.children if c.type == "storage_class_specifier" and ctx.text(c) == "static"),
                      None)
        if static is None and not anonymous:
            return
        for d in node.children_by_field_name("declarator"):
            name = _declared_name(d)
            if name is not None:
                variables.setdefault(ctx.text(name), {"name": name, "static": static, "anonymous": anonymous,
                                                      "kind": "__constant__" if "__constant__" in words
                                                      else "__device__", "device": None, "host": None})
        pattern = re.compile(rb"(?<![\w.>:])(?:" + b"|".join(re.escape(n.encode()) for n in variables)
                                + rb")(?!\w)")

    def define(node, anonymous: bool, position: float) -> None:
        words = _specifier_words(ctx, node)
        device = bool(words & {"__device__", "__global__"})
        # a kernel is emitted where it is defined, whatever its linkage (measured: static, inline, in an unnamed
        # namespace); a __device__ function only when it has external linkage and is not inline
        eager = "__global__" in words or (device and not anonymous and not words & _INLINE_WORDS)
        body = node.child_by_field_name("body")
        if body is None or (device and not eager):
            return
        for name in uses(body):
            v = variables[name]
            if device and v["device"] is None:
                v["device"] = (_function_name(ctx, node), node.start_byte)
            elif not device and v["host"] is None:
                v["host"] = (_function_name(ctx, node), position)

    def visit(root) -> None:
        for node, anonymous in _items(root, False):
            if node.type == "declaration":
                declare(node, anonymous)
            elif node.type == "function_definition":
                define(node, anonymous, node.start_byte)
            elif node.type == "template_declaration" and variables:
                for inner in node.named_children:
                    if inner.type == "function_definition" and "__device__" not in _specifier_words(ctx, inner) \
                            and "__global__" not in _specifier_words(ctx, inner):
                        define(inner, anonymous, _END)  # a host template: instantiated at the end of the unit
            elif node.type in ("class_specifier", "struct_specifier") and variables:
                for name in uses(node):  # host member functions: read where the class ends
                    v = variables[name]
                    if v["host"] is None:
                        v["host"] = ("a member function", node.end_byte)

    def finish():
        hits = []
        for name, v in variables.items():
            if v["device"] is None or v["host"] is None or v["host"][1] < v["device"][1]:
                continue
            reader, at = v["device"]
            host, host_at = v["host"]
            host_line = "the end of the unit" if host_at == _END else f"line {ctx.line_col(int(host_at))[0]}"
            params = {"name": name, "reader": reader, "reader_line": ctx.line_col(at)[0], "host": host,
                      "host_line": host_line,
                      "build_file": os.path.basename(build_file),
                      "decl": f"static {v['kind']}" if v["static"] is not None
                      else f"{v['kind']} in an unnamed namespace"}
            the_fix = None
            if v["static"] is not None:
                s = v["static"]
                end = s.end_byte
                while ctx.source[end:end + 1] in (b" ", b"\t"):
                    end += 1
                the_fix = fix(f"delete `static`: `{name}` keeps its own name at the device link (unique in the "
                              "program: a second definition is a link error)", edit(s.start_byte, end, ""))
            n = v["name"]
            hits.append(Hit(n.start_byte, n.end_byte, params, the_fix))
        return hits

    return (lambda text: True), visit, finish
