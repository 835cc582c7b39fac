"""Rules about user code that defines what HIP already provides (read against
porter/findings/hip_provides.json, written by scripts/gen_hip_provides.py from the HIP 5.2
headers, the floor of every ROCm porter targets):

* PORT170: a global function with the name and parameter types of one HIP declares
  (``double atomicMax(double*, double)``: "redefinition of 'atomicMax'"), or a free __host__
  __device__ compound assignment / increment operator on a HIP vector type (``operator+=(float4&,
  float4)``: HIP's HIP_vector_type has the same operator as a non-template __host__ __device__
  member, so every use is ambiguous; a __device__-only or host-only one wins and compiles);
* PORT176: the uses of such an operator, in the file or in one that includes the project header
  defining it (where clang reports the ambiguity);
* PORT171: a macro HIP's headers define too;
* PORT172: ``h = {}`` on a ``__half2``/``half2`` (HIP's __half2 has several assignment
  operators: "use of overloaded operator '=' is ambiguous").

Each was checked by compiling with Debian's hipcc (HIP 5.2, gfx90a).
"""

from __future__ import annotations

import bisect
import functools
import json
import re
from pathlib import Path

from porter.findings.engine import SHARED_WORDS, Hit
from porter.findings.predicates import file_check, node_check
from porter.findings.predicates.common import compact, edit, fix, outermost_function
from porter.parse.lexical import whole_identifier

DATA = Path(__file__).resolve().parents[1] / "hip_provides.json"
# the blocks whose declarations are the enclosing scope's (#if branches, extern "C" { }, a namespace's body)
DESCEND = {"linkage_specification", "declaration_list", "preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif"}
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
        inner = fd.child_by_field_name("declarator")
        if inner is None and fd.type == "reference_declarator":  # `T& f(...)`: no field names the child
            inner = next((c for c in fd.named_children if c.type != "comment"), None)
        fd = inner
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


def _not_amd_branches(ctx) -> tuple[list[int], list[int]]:
    """(starts, ends) of the first branches of ``#if !defined(__HIP_PLATFORM_AMD__)`` / ``#ifndef
    __HIP_PLATFORM_AMD__`` groups, read from the directives' text: the tree may not show such a group
    (a branch whose brackets do not balance is read without its directives, porter.parse.mend)."""
    found = ctx.cache.get("hipdefs.not_amd")
    if found is None and b"__HIP" not in ctx.source:  # (each of _AMD_MACROS starts so: no directive tests one)
        found = ctx.cache["hipdefs.not_amd"] = ([], [])
    if found is None:
        starts: list[int] = []
        ends: list[int] = []
        stack: list[list] = []  # [branch start or None when it does not exclude AMD]
        for c in ctx.index.conditionals:
            if c.keyword in ("if", "ifdef", "ifndef"):
                head = c.head.decode("utf-8", "replace")
                excludes = bool(_NOT_AMD.search(head)) if c.keyword == "if" else \
                    c.keyword == "ifndef" and any(re.search(r"\b" + m + r"\b", head) for m in _AMD_MACROS)
                stack.append([c.start_byte if excludes else None])
            elif stack:
                top = stack[-1]
                if top[0] is not None:  # the excluding branch ends at its #else/#elif/#endif
                    starts.append(top[0])
                    ends.append(c.start_byte)
                    top[0] = None
                if c.keyword == "endif":
                    stack.pop()
        order = sorted(range(len(starts)), key=starts.__getitem__)
        found = ctx.cache["hipdefs.not_amd"] = ([starts[i] for i in order], [ends[i] for i in order])
    return found


def _in_not_amd_branch(ctx, pos: int) -> bool:
    starts, ends = _not_amd_branches(ctx)
    return bool(starts) and any(s < pos < e for s, e in zip(starts[:bisect.bisect_right(starts, pos)], ends))


def top_level(node, ctx=None):
    """The global-namespace declarations of a translation unit (through #if blocks and extern "C"),
    leaving out the branches written for everything but HIP on AMD (``#if !defined(__HIP_PLATFORM_AMD__)``)."""
    for child in node.children:
        if not child.is_named:
            continue
        if child.type in DESCEND:
            if ctx is not None and _excludes_amd(ctx, child):
                for alt in child.named_children:  # the #else branch is compiled for AMD
                    if alt.type in ("preproc_else", "preproc_elif"):
                        yield from top_level(alt, ctx)
                continue
            yield from top_level(child, ctx)
        elif ctx is None or not _in_not_amd_branch(ctx, child.start_byte):
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


def _guard_fix(ctx, node, what: str, test: str, safe: bool = False, why: str = ""):
    start = _line_start(ctx.source, node.start_byte)
    if start is None:
        return None
    # the #endif goes at the end of the definition's last line, not at the start of the next one,
    # so that a guard for the next definition (which starts there) is a separate edit
    closing = edit(node.end_byte, node.end_byte, "\n#endif")
    return fix(f"compile it only where HIP does not provide {what} (`{test}`); on AMD GPUs HIP's own is used{why}",
               edit(start, start, f"{test}  // HIP provides {what}\n"), closing, safe=safe)


_COMPOUND_OP = re.compile(rb"operator\s*(?:\+=|-=|\*=|/=|\+\+|--)")
_DEFINITION_AFTER = re.compile(rb"\s*\([^;{}]*\)\s*(?:const\s*)?\{")
_MACRO_NAME = re.compile(rb"#[ \t]*define[ \t]+([A-Za-z_]\w*)")
_ALIAS = re.compile(rb"\btypedef\s+(?:struct\s+)?([A-Za-z_]\w*)\s+([A-Za-z_]\w*)\s*;|\busing\s+([A-Za-z_]\w*)\s*=\s*([A-Za-z_]\w*)\s*;")
_HEAD_WORDS = re.compile(r"[A-Za-z_]\w*")
# words a function head may hold besides its host/device qualifiers (anything else may be an attribute macro)
_PLAIN_HEAD = frozenset({"inline", "static", "extern", "constexpr", "__forceinline__", "__inline__", "__noinline__",
                         "void", "const", "volatile", "friend", "template", "typename", "auto", "__attribute__",
                         "always_inline", "operator", "int", "unsigned", "float", "double", "bool"})


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


def vector_aliases(source: bytes, vectors) -> dict[str, str]:
    """The file's own names for HIP vector types (``typedef float3 vec3;``, ``using vec4 = float4;``)."""
    out = {}
    for m in _ALIAS.finditer(source):
        base, alias = (m.group(1), m.group(2)) if m.group(1) else (m.group(4), m.group(3))
        base, alias = base.decode(), alias.decode()
        if base in vectors or base in out:
            out[alias] = out.get(base, base)
    return out


def _host_device(ctx, head: str) -> bool | None:
    """Whether a function head is `__host__ __device__` (object-like macros expanded, as `#define HD
    __host__ __device__`): True, False, or None when a word of it is a macro porter cannot read."""
    words = set()
    unknown = False
    for w in _HEAD_WORDS.findall(head):
        value = ctx.macro_value(w) if w in ctx.macros else w
        found = _HEAD_WORDS.findall(value) if value != w else [w]
        words.update(found)
        if value == w and w not in _PLAIN_HEAD and not w.startswith("__") and w.isupper():
            unknown = True
    if "__host__" in words and "__device__" in words:
        return True
    return None if unknown else False


_COMPONENTS = "xyzw"


def _componentwise(ctx, node, op: str, base: str, sig_params) -> bool:
    """The body does ``op`` component by component (``a.x += b.x; ...`` or ``a.x = a.x + b.x; ...``, or
    ``a = a + b``): what HIP's member does."""
    body = node.child_by_field_name("body")
    m = re.search(r"(\d)$", base)
    if body is None or m is None or op not in _COMPOUND or len(sig_params) != 2:
        return False
    a, b = sig_params
    if not a or not b:
        return False
    text = re.sub(r"//[^\n]*|/\*.*?\*/", " ", ctx.text(body), flags=re.S)
    plain = re.escape(op[0])
    a_, b_ = re.escape(a), re.escape(b)
    if re.search(rf"\b{a_}\s*=\s*{a_}\s*{plain}\s*{b_}\s*;", text):
        return True
    rank = int(m.group(1))
    made = r"\s*,\s*".join(rf"{a_}\s*\.\s*{c}\s*{plain}\s*{b_}\s*\.\s*{c}" for c in _COMPONENTS[:rank])
    if re.search(rf"\b{a_}\s*=\s*make_{re.escape(base[:-1])}{rank}\s*\(\s*{made}\s*\)\s*;", text):
        return True  # a = make_float3(a.x + b.x, a.y + b.y, a.z + b.z);
    for c in _COMPONENTS[:int(m.group(1))]:
        if not (re.search(rf"\b{a_}\s*\.\s*{c}\s*{plain}=\s*{b_}\s*\.\s*{c}\b", text)
                or re.search(rf"\b{a_}\s*\.\s*{c}\s*=\s*{a_}\s*\.\s*{c}\s*{plain}\s*{b_}\s*\.\s*{c}\b", text)):
            return False
    return True


def _param_names(ctx, params) -> list[str | None]:
    out = []
    for p in params.named_children:
        if p.type in ("parameter_declaration", "optional_parameter_declaration"):
            name = _identifier(p.child_by_field_name("declarator"))
            out.append(ctx.text(name) if name is not None else None)
    return out


def _nodes(root, ctx, namespaced: bool = False):
    """The global-namespace declarations (top_level) and those of named namespaces, with whether they
    are in one (a function there is another function; an operator there is used there)."""
    for node in top_level(root, ctx):
        if node.type == "namespace_definition":
            body = node.child_by_field_name("body")
            if body is not None:
                yield from _nodes(body, ctx, True)
            continue
        yield node, namespaced


_COLLIDING = "hipdefs.colliding"


def colliding(ctx) -> list[dict]:
    """Every definition (or, for an operator, declaration) of the file that collides with HIP: PORT170's
    places, and the operators whose uses PORT176 reports.  Computed once per file (by PORT170's walk of
    the regions when the scan serves them, else here)."""
    found = ctx.cache.get(_COLLIDING)
    if found is not None:
        return found
    walk = _colliding_walk(ctx)
    if walk is not None:
        test, visit = walk
        for root in ctx.index.roots(test):
            visit(root)
    return ctx.cache[_COLLIDING]


def _colliding_walk(ctx):
    """(test, visit): ``visit(root)`` adds the collisions among the top-level declarations under ``root`` (one
    region's, in file order) to ``colliding``'s list; ``test(text)``: whether a region may hold one.  None when
    the file cannot hold one (the list stays empty)."""
    found = ctx.cache[_COLLIDING] = []
    if not ctx.index.parsed and not _may_redefine(ctx.source):
        return None  # (with the tree at hand, walking its top level is the cheaper look)
    functions = provided()["functions"]
    vectors = set(provided()["vector_types"])
    aliases = None  # the file's typedefs of vector types, read at the first operator
    names = _function_names()
    source = ctx.source

    def visit(root) -> None:
        try:
            _visit(root)
        except BaseException:
            ctx.cache.pop(_COLLIDING, None)  # (not a partial list for PORT176: it fails the same way)
            raise

    def _visit(root) -> None:
        nonlocal aliases
        for node, namespaced in _nodes(root, ctx):
            if node.type not in ("function_definition", "declaration"):
                continue
            got = function_of_definition(node)
            if got is None:
                continue
            name_node, params = got
            raw = source[name_node.start_byte:name_node.end_byte]
            if raw not in names and not raw.startswith(b"operator"):
                continue
            name = re.sub(r"\s+", "", raw.decode("utf-8", "replace"))
            operator = name.startswith("operator")
            if operator and name[8:] not in _COMPOUND | _STEP:
                continue
            if not operator and (name not in functions or namespaced or node.type != "function_definition"):
                continue  # a function in a namespace is another function; a declaration of HIP's is harmless
            sig = signature(ctx.source, params)
            shown = f"{name}({', '.join(sig)})"
            head = source[node.start_byte:name_node.start_byte].decode("utf-8", "replace")
            if operator:
                op = name[len("operator"):]
                if not sig or not sig[0].endswith("&"):
                    continue
                if aliases is None:
                    aliases = vector_aliases(source, vectors)
                base = _vector_base(sig[0])
                base = aliases.get(base, base)
                if base not in vectors:
                    continue
                if not ((op in _COMPOUND and len(sig) == 2 and aliases.get(_vector_base(sig[1]), _vector_base(sig[1])) == base)
                        or (op in _STEP and len(sig) <= 2)):
                    continue
                hd = _host_device(ctx, head)
                if hd is False:
                    continue  # a __device__ (or host) operator wins over HIP's __host__ __device__ member
                why = (f"HIP's `{base}` (HIP_vector_type) has `{name}` as a __host__ __device__ member already, so every "
                       + (f"`{op}` on two `{base}` values" if op in _COMPOUND
                        else f"{'postfix' if len(sig) == 2 else 'prefix'} `{op}` on a value of type `{base}`") + " is ambiguous")
                safe = node.type == "function_definition" and _componentwise(ctx, node, op, base, _param_names(ctx, params))
                note = "; it does the same, component by component" if safe else ""
                use = op + ("post" if op in _STEP and len(sig) == 2 else "")  # operator++(T&, int) is the postfix one
                record = {"op": use, "base": base, "what": shown, "why": why, "line": ctx.index.line_of(node.start_byte)}
            else:
                known = functions.get(name)
                if not known or " , ".join(sig) not in known:
                    continue
                why = f"HIP declares `{shown}` too ({known[' , '.join(sig)]}): a redefinition error"
                # HIP's atomics are __device__ functions with CUDA's meaning: a __device__ one of the project's goes
                words = set(_HEAD_WORDS.findall(head))
                safe = name.startswith("atomic") and "__device__" in words and "__host__" not in words
                note = ", with CUDA's meaning of it" if safe else ""
                record = {"op": None, "base": None, "what": shown, "why": why, "line": ctx.index.line_of(node.start_byte)}
            record.update(start=name_node.start_byte, end=params.end_byte,
                          fix=_guard_fix(ctx, node, f"`{shown}`", f"#if !defined({GUARD})", safe, note))
            found.append(record)

    return _may_define, visit


def _colliding_regions(ctx):
    """The regions whose trees ``colliding`` walks (those ``_may_define`` lets through), or None."""
    return _may_define if _may_redefine(ctx.source) else None


@file_check("PORT170", regions=_colliding_regions, per_region=True)
def redefines_hip(ctx):
    def hits() -> list:
        return [Hit(r["start"], r["end"], {"what": r["what"], "why": r["why"]}, r["fix"]) for r in colliding(ctx)]

    if _COLLIDING in ctx.cache:
        return lambda _text: False, None, hits
    walk = _colliding_walk(ctx)
    if walk is None:
        return None
    return walk[0], walk[1], hits


# ------------------------------------------------------------------------ PORT176
# The uses of such an operator: clang reports the ambiguity there ("use of overloaded operator '+=' is
# ambiguous"), often in another file than the definition (helper_math.h).  A use is `a op= b` with both
# operands of the vector type, or `++a` / `a--`, the types read from the declarations of the function
# and the file (a typedef of the vector type counts).
_HEADER_OPERATOR = re.compile(
    r"(?:^|[;}\n])((?:[^;{}\n#]*\n)?[^;{}\n]*?)\boperator\s*(\+=|-=|\*=|/=|\+\+|--)\s*\(\s*(?:const\s+)?([A-Za-z_]\w*)\s*&([^)]*)\)")
_USE = re.compile(rb"\+=|-=|\*=|/=|\+\+|--")
# the HIP vector types (float4, uint2, ulonglong3 ...): found in the scan's shared Aho-Corasick pass
# (Context.occurrences), as whole words (a regular expression's \b: a `$` before one does not join it)
_VECTOR_WORDS = tuple(sorted(f"{u}{base}{n}".encode() for n in "1234" for base, prefixes in (
    ("char", ("", "u")), ("short", ("", "u")), ("int", ("", "u")), ("long", ("", "u")), ("longlong", ("", "u")),
    ("float", ("",)), ("double", ("",))) for u in prefixes))
_WORD_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")


def _vector_words() -> tuple[bytes, ...]:
    return _VECTOR_WORDS


SHARED_WORDS.append(_vector_words)


@functools.cache
def _vector_searcher():
    import ahocorasick_rs

    return ahocorasick_rs.BytesAhoCorasick(list(_VECTOR_WORDS))


# a big file is searched a slice at a time, up to its first vector type (not a list of every occurrence)
_SLICE = 1 << 20


def _has_vector_word(ctx) -> bool:
    """Whether the file names a HIP vector type (float4, uint2, ulonglong3 ...)."""
    source = ctx.source
    if not ctx.index.big:
        return _whole_word_among(source, ctx.occurrences(_VECTOR_WORDS), 0)
    view, longest = memoryview(source), max(map(len, _VECTOR_WORDS))
    for off in range(0, len(source), _SLICE):
        found = _vector_searcher().find_matches_as_indexes(view[off:off + _SLICE + longest], overlapping=True)
        if _whole_word_among(source, found, off):
            return True
    return False


def _whole_word_among(source: bytes, found, off: int) -> bool:
    n = len(source)
    for _i, start, end in found:
        start, end = start + off, end + off
        if (start == 0 or source[start - 1] not in _WORD_BYTES) and (end == n or source[end] not in _WORD_BYTES):
            return True
    return False


def _header_operators(ctx) -> list[dict]:
    """The colliding operators the project headers this file includes define (their code text is read)."""
    if not ctx.file or not any(ctx.source[i.start_byte:i.start_byte + 1] == b'"' for i in ctx.index.includes):
        return []
    from porter.findings import values

    vectors = set(provided()["vector_types"])
    out = []
    for shown, path in values.unit_of(ctx).header_paths:
        code = values.header_code(path)
        if not code or b"operator" not in code:
            continue
        text = code.decode("utf-8", "replace")
        if re.search(r"__HIP_PLATFORM_AMD__|__HIPCC__|__HIP__", text):
            continue  # the header chooses what HIP compiles itself
        aliases = vector_aliases(code, vectors)
        for m in _HEADER_OPERATOR.finditer(text):
            base = aliases.get(m.group(3), m.group(3))
            if base not in vectors or _host_device(ctx, m.group(1)) is False:
                continue
            line = text.count("\n", 0, m.start(2)) + 1
            post = m.group(2) in _STEP and "," in m.group(4)
            out.append({"op": m.group(2) + ("post" if post else ""), "base": base, "what": f"operator{m.group(2)}({m.group(3)}&, ...)",
                        "where": f"{shown}:{line}", "fix": None})
    return out


def _use_operators(ctx) -> dict[tuple[str, str], dict]:
    found = ctx.cache.get("hipdefs.use_ops")
    if found is None:
        found = {}
        for r in colliding(ctx):
            if r["op"]:
                found.setdefault((r["op"], r["base"]), {**r, "where": f"line {r['line']}"})
        for r in _header_operators(ctx):
            found.setdefault((r["op"], r["base"]), r)
        ctx.cache["hipdefs.use_ops"] = found
    return found


def _vector_type(ctx, node, vectors, aliases) -> str | None:
    """The HIP vector type of an expression, read from declarations (None: not one, or unknown)."""
    t = node.type
    if t == "parenthesized_expression":
        inner = [c for c in node.named_children if c.type != "comment"]
        return _vector_type(ctx, inner[0], vectors, aliases) if len(inner) == 1 else None
    if t == "call_expression":
        fn = ctx.text(node.child_by_field_name("function"))
        return fn[5:] if fn.startswith("make_") and fn[5:] in vectors else None
    pointer = t == "subscript_expression" or (t == "pointer_expression" and ctx.text(node).startswith("*"))
    if pointer:
        node = node.child_by_field_name("argument")
        if node is None:
            return None
    if node.type != "identifier":
        return None
    name = ctx.text(node)
    fn = outermost_function(ctx, node)
    scopes = ([fn] if fn is not None else []) + [None]  # the enclosing function first, then the file
    for scope in scopes:
        found = _declarations(ctx, scope, vectors, aliases).get(name)
        if found is not None:
            base, declared_pointer = found
            return None if declared_pointer != pointer else aliases.get(base, base)
    return None


def _declarations(ctx, scope, vectors, aliases) -> dict[str, tuple[str, bool]]:
    """{name: (vector type, declared as a pointer or array)} of the last declaration of each name in
    ``scope`` (a function node; None: the whole file's code), read once per scope."""
    key = ("hipdefs.decls", scope.start_byte if scope is not None else -1)
    found = ctx.cache.get(key)
    if found is None:
        decl = ctx.cache.get("hipdefs.decl_re")
        if decl is None:
            types = "|".join(sorted((*vectors, *aliases), key=len, reverse=True))
            decl = re.compile(r"(?<![\w.])(" + types + r")\s*(?:const\s*)?([*&]?)\s*(?:__restrict__\s*)?"
                              r"([A-Za-z_]\w*)\s*(\[)?")
            ctx.cache["hipdefs.decl_re"] = decl
        if scope is not None:
            text = ctx.text(scope)
        else:
            text = ctx.cache.setdefault("hipdefs.code", bytes(ctx.index.blanked()).decode("utf-8", "replace"))
        found = {m.group(3): (m.group(1), m.group(2) == "*" or m.group(4) is not None) for m in decl.finditer(text)}
        ctx.cache[key] = found
    return found


@file_check("PORT176")
def ambiguous_operator_use(ctx):
    source = ctx.source
    if not _has_vector_word(ctx) or not _USE.search(source):
        return []
    operators = _use_operators(ctx)
    if not operators:
        return []
    vectors = set(provided()["vector_types"])
    aliases = vector_aliases(source, vectors)
    hits = []
    for m in _USE.finditer(source):
        if ctx.index.is_protected(m.start()):
            continue
        node = ctx.index.node_at(m.start(), m.end())
        expr = node.parent if node is not None else None
        if expr is None or expr.type not in ("assignment_expression", "update_expression"):
            continue
        op = m.group().decode()
        if expr.type == "assignment_expression":
            left, right = expr.child_by_field_name("left"), expr.child_by_field_name("right")
            if left is None or right is None:
                continue
            base = _vector_type(ctx, left, vectors, aliases)
            if base is None or _vector_type(ctx, right, vectors, aliases) != base:
                continue
        else:
            arg = expr.child_by_field_name("argument")
            base = _vector_type(ctx, arg, vectors, aliases) if arg is not None else None
            if arg is not None and arg.start_byte < m.start():
                op += "post"  # c-- calls operator--(T&, int)
        known = operators.get((op, base)) if base else None
        if known is None:
            continue
        hits.append(Hit(expr.start_byte, expr.end_byte,
                        {"expr": compact(ctx.text(expr), 40), "op": op.removesuffix("post"), "base": base, "what": known["what"],
                         "where": known["where"]}, known["fix"]))
    return hits


# ------------------------------------------------------------------------ PORT171
@file_check("PORT171", per_region=True)
def redefines_hip_macro(ctx):
    macros = provided()["macros"]

    def defines_one(text: bytes) -> bool:
        return b"define" in text and any(m.group(1).decode() in macros for m in _MACRO_NAME.finditer(text))

    if not defines_one(ctx.source):
        return None
    hits = []

    def visit(root) -> None:
        for node in top_level(root, ctx):
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

    return defines_one, visit, lambda: hits


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
