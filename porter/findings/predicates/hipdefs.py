"""Rules about user code that defines what HIP already provides (read against
porter/findings/hip_provides.json, written by scripts/gen_hip_provides.py from the HIP 5.2
headers, the floor of every ROCm porter targets):

* PORT170: a global function with the name and parameter types of one HIP declares
  (``double atomicMax(double*, double)``: "redefinition of 'atomicMax'"), or a free compound
  assignment / increment operator on a HIP vector type (``operator+=(float4&, float4)``: HIP's
  HIP_vector_type has the same operator as a non-template member, so every use is ambiguous);
* PORT171: a macro HIP's headers define too;
* PORT172: ``h = {}`` on a ``__half2``/``half2`` (HIP's __half2 has several assignment
  operators: "use of overloaded operator '=' is ambiguous").

Each was checked by compiling with Debian's hipcc (HIP 5.2, gfx90a).
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path

from porter.findings.engine import Hit
from porter.findings.predicates import file_check, node_check
from porter.findings.predicates.common import compact, edit, fix
from porter.parse.lexical import whole_identifier

DATA = Path(__file__).resolve().parents[1] / "hip_provides.json"
_DESCEND = {"linkage_specification", "declaration_list", "preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif"}
GUARD = "__HIP_PLATFORM_AMD__"


@functools.cache
def provided() -> dict:
    return json.loads(DATA.read_text(encoding="utf-8"))


# ------------------------------------------------------------------------ signatures (shared with the generator)
def normalise(text: str) -> str:
    """A parameter type as porter compares them: no names, single spaces, `*`/`&` tight, no
    top-level const on a value, no __restrict__, `unsigned int` as `unsigned`."""
    text = re.sub(r"\b(?:__restrict__|__restrict|restrict)\b", " ", text)
    text = re.sub(r"\s+", " ", text).strip()
    text = re.sub(r"\s*([*&])\s*", r"\1", text)
    text = re.sub(r"\*\s*(?:const|volatile)$", "*", text)  # a const pointer is the same parameter type
    if "*" not in text and "&" not in text:
        text = re.sub(r"\b(?:const|volatile)\b", " ", text)
        text = re.sub(r"\s+", " ", text).strip()
    text = re.sub(r"\bunsigned int\b", "unsigned", text)
    text = re.sub(r"\blong int\b", "long", text)
    return text


def _identifier(node):
    while node is not None and node.type != "identifier":
        inner = node.child_by_field_name("declarator")
        if inner is None and node.type == "reference_declarator":  # `T& name`: no field names the child
            inner = next((c for c in node.named_children if c.type != "comment"), None)
        node = inner
    return node


def param_type(src: bytes, p) -> str:
    raw = src[p.start_byte:p.end_byte]
    default = p.child_by_field_name("default_value")
    end = (default.start_byte if default is not None else p.end_byte) - p.start_byte
    name = _identifier(p.child_by_field_name("declarator"))
    if name is not None:
        a, b = name.start_byte - p.start_byte, name.end_byte - p.start_byte
        text = raw[:a] + raw[b:end]
    else:
        text = raw[:end]
    return normalise(text.decode("utf-8", "replace").rstrip().rstrip("="))


def signature(src: bytes, params) -> list[str]:
    out = []
    for p in params.named_children:
        if p.type == "variadic_parameter":
            out.append("...")
        elif p.type in ("parameter_declaration", "optional_parameter_declaration"):
            out.append(param_type(src, p))
    return [] if out == ["void"] else out


def function_of_definition(node):
    """(name node, parameter list) of a function definition, or None."""
    fd = node.child_by_field_name("declarator")
    while fd is not None and fd.type in ("pointer_declarator", "reference_declarator"):
        fd = fd.child_by_field_name("declarator")
    if fd is None or fd.type != "function_declarator":
        return None
    name = fd.child_by_field_name("declarator")
    params = fd.child_by_field_name("parameters")
    if name is None or params is None or name.type not in ("identifier", "operator_name"):
        return None
    return name, params


_NOT_AMD = re.compile(r"!\s*defined\s*\(?\s*(?:__HIP_PLATFORM_AMD__|__HIP_PLATFORM_HCC__|__HIPCC__|__HIP__)\b")
_AMD_MACROS = ("__HIP_PLATFORM_AMD__", "__HIP_PLATFORM_HCC__", "__HIPCC__", "__HIP__")


def _excludes_amd(ctx, node) -> bool:
    """An #if / #ifndef branch that HIP on AMD does not compile."""
    if node.type == "preproc_if":
        return bool(_NOT_AMD.search(ctx.text(node.child_by_field_name("condition"))))
    if node.type == "preproc_ifdef":
        return ctx.source[node.start_byte:node.start_byte + 7] == b"#ifndef" and \
            ctx.text(node.child_by_field_name("name")) in _AMD_MACROS
    return False


def top_level(node, ctx=None):
    """The global-namespace declarations of a translation unit (through #if blocks and extern "C"),
    leaving out the branches written for everything but HIP on AMD (``#if !defined(__HIP_PLATFORM_AMD__)``)."""
    for child in node.children:
        if not child.is_named:
            continue
        if child.type in _DESCEND:
            if ctx is not None and _excludes_amd(ctx, child):
                for alt in child.named_children:  # the #else branch is compiled for AMD
                    if alt.type in ("preproc_else", "preproc_elif"):
                        yield from top_level(alt, ctx)
                continue
            yield from top_level(child, ctx)
        else:
            yield child


# ------------------------------------------------------------------------ PORT170
_COMPOUND = {"+=", "-=", "*=", "/="}
_STEP = {"++", "--"}


def _vector_base(t: str) -> str:
    t = re.sub(r"\bconst\b|\bvolatile\b", " ", t).replace("&", "").strip()
    return re.sub(r"\s+", " ", t)


def _line_start(source: bytes, pos: int) -> int | None:
    start = source.rfind(b"\n", 0, pos) + 1
    return start if not source[start:pos].strip() else None


def _guard_fix(ctx, node, what: str, test: str):
    start = _line_start(ctx.source, node.start_byte)
    if start is None:
        return None
    # the #endif goes at the end of the definition's last line, not at the start of the next one,
    # so that a guard for the next definition (which starts there) is a separate edit
    closing = edit(node.end_byte, node.end_byte, "\n#endif")
    return fix(f"compile it only where HIP does not provide {what} (`{test}`); on AMD GPUs HIP's own is used",
               edit(start, start, f"{test}  // HIP provides {what}\n"), closing, safe=False)


_COMPOUND_OP = re.compile(rb"operator\s*(?:\+=|-=|\*=|/=|\+\+|--)")
_DEFINITION_AFTER = re.compile(rb"\s*\([^;{}]*\)\s*(?:const\s*)?\{")
_MACRO_NAME = re.compile(rb"#[ \t]*define[ \t]+([A-Za-z_]\w*)")


@functools.cache
def _function_names() -> frozenset[bytes]:
    return frozenset(n.encode() for n in provided()["functions"])


@functools.cache
def _function_searcher():
    import ahocorasick_rs

    names = sorted(n.encode() for n in provided()["functions"] if not n.startswith("operator"))
    # leftmost-longest, not overlapping: a name inside a longer identifier is no whole identifier anyway
    return ahocorasick_rs.BytesAhoCorasick(names, matchkind=ahocorasick_rs.MatchKind.LeftmostLongest), tuple(names)


def _may_redefine(source: bytes) -> bool:
    """A cheap look at the text (the tree is not parsed for nothing): a compound operator, or a
    HIP function name followed by a parameter list and a body."""
    if b"operator" in source and _COMPOUND_OP.search(source):
        return True
    searcher, names = _function_searcher()
    for i, start, end in searcher.find_matches_as_indexes(source):
        if whole_identifier(source, start, end) and _DEFINITION_AFTER.match(source, end):
            return True
    return False


_AFTER_PARAMETERS = re.compile(rb"\s*(?:[{A-Za-z_\[]|->|/[/*])")
_SKIP = {34: re.compile(rb'"(?:[^"\\\n]|\\.)*"'), 39: re.compile(rb"'(?:[^'\\\n]|\\.)*'"),
         47: re.compile(rb"//[^\n]*|/\*.*?\*/", re.S)}


def _closing(text: bytes, i: int) -> int:
    """The index after the ``)`` closing the ``(`` at ``i``, passing over literals and comments;
    -1 when it cannot tell (an unclosed one, a raw string) or the text ends first."""
    depth = 0
    while i < len(text):
        c = text[i]
        if c in _SKIP:
            if c == 34 and text[i - 1:i] == b"R":
                return -1
            m = _SKIP[c].match(text, i)
            if m is None:
                if c == 47:
                    i += 1
                    continue
                return -1
            i = m.end()
            continue
        depth += (c == 40) - (c == 41)
        i += 1
        if depth == 0:
            return i
    return -1


def _may_define(text: bytes) -> bool:
    """``text`` may hold a definition the walk below reports: an operator, or a HIP function's
    name whose parameter list is followed by what starts a body or a declarator's tail (``{``, a
    qualifier, ``->``, an attribute or a comment), not by what follows a call (``;``, ``)``, an
    operator).  Where it cannot tell, it says maybe."""
    if b"operator" in text:
        return True
    searcher, _names = _function_searcher()
    for _i, start, end in searcher.find_matches_as_indexes(text):
        if not whole_identifier(text, start, end):
            continue
        i = end
        while i < len(text) and text[i] in b" \t\r\n":
            i += 1
        if i >= len(text) or text[i] != 40:  # "("
            continue
        after = _closing(text, i)
        if after < 0 or _AFTER_PARAMETERS.match(text, after):
            return True
    return False


@file_check("PORT170")
def redefines_hip(ctx):
    if not ctx.index.parsed and not _may_redefine(ctx.source):
        return []  # (with the tree at hand, walking its top level is the cheaper look)
    functions = provided()["functions"]
    vectors = set(provided()["vector_types"])
    names = _function_names()
    source = ctx.source
    hits = []
    for node in (n for root in ctx.index.roots(_may_define) for n in top_level(root, ctx)):
        if node.type != "function_definition":
            continue
        found = function_of_definition(node)
        if found is None:
            continue
        name_node, params = found
        raw = source[name_node.start_byte:name_node.end_byte]
        if raw not in names and not raw.startswith(b"operator"):
            continue
        name = re.sub(r"\s+", "", raw.decode("utf-8", "replace"))
        if name not in functions and not (name.startswith("operator") and name[8:] in _COMPOUND | _STEP):
            continue
        sig = signature(ctx.source, params)
        shown = f"{name}({', '.join(sig)})"
        if name.startswith("operator"):
            op = name[len("operator"):]
            if not sig or not sig[0].endswith("&") or _vector_base(sig[0]) not in vectors:
                continue
            base = _vector_base(sig[0])
            if not ((op in _COMPOUND and len(sig) == 2 and _vector_base(sig[1]) == base) or (op in _STEP and len(sig) <= 2)):
                continue
            why = (f"HIP's `{base}` (HIP_vector_type) has `{name}` as a member already, so every `{op}` on two `{base}` "
                   "values is ambiguous")
        else:
            known = functions.get(name)
            if not known or " , ".join(sig) not in known:
                continue
            why = f"HIP declares `{shown}` too ({known[' , '.join(sig)]}): a redefinition error"
        hits.append(Hit(name_node.start_byte, params.end_byte, {"what": shown, "why": why},
                        _guard_fix(ctx, node, f"`{shown}`", f"#if !defined({GUARD})")))
    return hits


# ------------------------------------------------------------------------ PORT171
@file_check("PORT171")
def redefines_hip_macro(ctx):
    macros = provided()["macros"]

    def defines_one(text: bytes) -> bool:
        return b"define" in text and any(m.group(1).decode() in macros for m in _MACRO_NAME.finditer(text))

    if not defines_one(ctx.source):
        return []
    hits = []
    for node in (n for root in ctx.index.roots(defines_one) for n in top_level(root, ctx)):
        if node.type not in ("preproc_def", "preproc_function_def"):
            continue
        name_node = node.child_by_field_name("name")
        name = ctx.text(name_node)
        if name not in macros or _inside_ifndef(node, name, ctx):
            continue
        the_fix = None
        start = _line_start(ctx.source, node.start_byte)
        if start is not None and ctx.source[node.end_byte - 1:node.end_byte] == b"\n":
            the_fix = fix(f"define `{name}` only where HIP has not (`#ifndef {name}`)",
                          edit(start, start, f"#ifndef {name}  // HIP defines it too ({macros[name]})\n"),
                          edit(node.end_byte - 1, node.end_byte - 1, "\n#endif"), safe=False)
        hits.append(Hit(name_node.start_byte, name_node.end_byte, {"name": name, "header": macros[name]}, the_fix))
    return hits


def _inside_ifndef(node, name: str, ctx) -> bool:
    n = node.parent
    while n is not None:
        if n.type == "preproc_ifdef" and ctx.text(n.child_by_field_name("name")) == name:
            return True
        n = n.parent
    return False


# ------------------------------------------------------------------------ PORT172
_HALF2_DECL = r"\b(?:__)?half2\s*(?:&\s*)?(?:\*\s*)?\b{name}\b"


@node_check("PORT172")
def half2_empty_braces(ctx, node, caps):
    init = caps["init"][0]
    if init.named_child_count:
        return None
    lhs = caps["lhs"][0]
    base = lhs
    while base.type in ("subscript_expression", "field_expression", "pointer_expression", "parenthesized_expression"):
        base = base.child_by_field_name("argument") or base.named_children[0]
    if base.type != "identifier":
        return None
    scope = ctx.function_of(node)
    text = ctx.text(scope) if scope is not None else ""
    name = ctx.text(base)
    if not re.search(_HALF2_DECL.format(name=re.escape(name)), text):
        if not re.search(_HALF2_DECL.format(name=re.escape(name)).encode(), ctx.source):
            return None
    return Hit(node.start_byte, node.end_byte, {"expr": compact(ctx.text(node), 40)},
               fix("assign a value-initialised `__half2{}` (all zero, as `= {}` means in CUDA)",
                   edit(init.start_byte, init.end_byte, "__half2{}")))
