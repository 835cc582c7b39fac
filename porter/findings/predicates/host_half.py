"""PORT189: ``__half`` / ``__half2`` arithmetic or comparison in host code, at a target before ROCm 6.4.

CUDA declares the operators of ``__half`` and ``__half2`` (``+ - * /``, the compound assignments, ``++``,
unary minus, the comparisons) ``__host__ __device__``; HIP declared them ``__device__`` only until ROCm 6.4
(amd_hip_fp16.h: HIP 5.2 checked here; ROCm/hip issue 3690, ROCm 6.2, reported on HeCBench's nlll; host and
device from ROCm 6.4, as chipStar's HIP 7.2 headers followed).  A host reference loop written with
``__half`` values then stops with "invalid operands to binary expression ('__half' and '__half')" or "no
viable overloaded '+='".  The conversions (``__half2float``, ``__float2half``) are host functions in every
release: computing in float is the fix.

Reported: in a function that is not ``__device__``/``__global__`` (nor ``__host__ __device__``: clang only
diagnoses such a function where the host emits it), an operator whose operand is declared ``__half``/``half``
(``__half2``/``half2``), an element of such an array or pointer, a cast to it or a ``__float2half`` result;
in a function template, an operand of a template parameter's type where the file instantiates the template
with ``half`` for it (``driver<half, int>(argv)``, through the templates that pass the parameter on); and a
call in the file that instantiates a template of a project header that way, reported at the call with the
header's lines.  A project that declares its own ``half`` type (a typedef, a struct) is read for ``__half``
only.
"""

from __future__ import annotations

import functools
import os
import re

from porter.findings.engine import Hit
from porter.findings.predicates import node_check
from porter.findings.predicates.common import compact, target_before
from porter.findings.predicates.expr_types import DECLARATION_BYTES, DECLARATIONS, NOT_TYPE_WORDS, declared_types
from porter.parse.brackets import closing, top_level_pieces

HOST_OPERATORS_FROM = "6.4"  # the first ROCm whose __half operators are __host__ __device__
_HALF = re.compile(r"^(?:__half2?|half2?)$")
_HALF_ONLY = re.compile(r"^__half2?$")
_TO_HALF = re.compile(r"^__(?:float|double|int|uint|short|ushort|ll|ull)2half(?:_r[nduz])?$")
_OWN_HALF = re.compile(r"\b(?:typedef\b[^;]*\bhalf2?\s*;|using\s+half2?\s*=|(?:struct|class)\s+half2?\b)")
_BINARY = frozenset({"+", "-", "*", "/", "<", ">", "<=", ">=", "==", "!="})
_COMPOUND = frozenset({"+=", "-=", "*=", "/="})
_DEVICE_HEAD = re.compile(rb"\b__(?:device|global)__\b")
_NAME_BEFORE = re.compile(r"(?<![\w])([A-Za-z_]\w*)\s*$")
_OPEN_PAREN = re.compile(r"\s*\(")
_DEPTH = 4  # templates passing a parameter on to another template, followed this far


def _text(src: bytes, node) -> str:
    return src[node.start_byte:node.end_byte].decode("utf-8", "replace")


def _unwrap(node):
    while node is not None and node.type == "parenthesized_expression":
        inner = [c for c in node.named_children if c.type != "comment"]
        node = inner[0] if len(inner) == 1 else None
    return node


def operands(src: bytes, node) -> list:
    """The operands of ``node`` if it is an operator __half declares (none otherwise)."""
    t = node.type
    if t in ("binary_expression", "assignment_expression"):
        op = node.child_by_field_name("operator")
        ops = _BINARY if t == "binary_expression" else _COMPOUND
        if op is None or _text(src, op) not in ops:
            return []
        return [node.child_by_field_name("left"), node.child_by_field_name("right")]
    if t == "update_expression":
        return [node.child_by_field_name("argument")]
    if t == "unary_expression":
        op = node.child_by_field_name("operator")
        return [node.child_by_field_name("argument")] if op is not None and _text(src, op) == "-" else []
    return []


_TEMPLATE_HEAD = re.compile(r"template\s*<([^;{}]*?)>")
_LISTED_B = re.compile(rb",\s*(?:\*\s*)*([A-Za-z_]\w*)\s*[=;,\[]")  # a name listed after a comma


class Declarations:
    """The declarations of one function, read once (one pass over its text), looked up by name and place:
    the last one before the use, else the file scope's (``file``: :func:`file_scope_types`).  A name the
    function lists after a comma (``float a, r2;``, whose type word porter does not read) before the use
    has no type read (None), not another function's or the file's."""

    def __init__(self, src: bytes, fn, file: dict):
        self.file = file
        self.decls: dict[str, list[tuple[int, tuple[str, int]]]] = {}
        self.listed: dict[str, int] = {}
        text, base = src[fn.start_byte:fn.end_byte], fn.start_byte
        for m in DECLARATION_BYTES.finditer(text):
            word = m.group(1).decode("utf-8", "replace").split("::")[-1]
            if word not in NOT_TYPE_WORDS:
                depth = m.group(2).count(b"*") + (m.group(4) == b"[")
                self.decls.setdefault(m.group(3).decode(), []).append((base + m.start(3), (word, depth)))
        for m in _LISTED_B.finditer(text):
            self.listed.setdefault(m.group(1).decode(), base + m.start(1))

    def lookup(self, name: str, at: int) -> tuple[str, int] | None:
        found = None
        for offset, decl in self.decls.get(name, ()):
            if offset >= at:
                break
            found = decl
        if found is not None:
            return found
        if self.listed.get(name, at) < at:
            return None
        return self.file.get(name)


def type_word(src: bytes, operand, decls: Declarations, names: frozenset[str] | None = None) -> str | None:
    """The type word of an operand, from its declaration (``decls``: its function's).  ``names``: the only
    names worth reading a declaration of (None: any)."""
    operand = _unwrap(operand)
    if operand is None:
        return None
    t = operand.type
    if t == "identifier":
        name = _text(src, operand)
        if names is not None and name not in names:
            return None
        found = decls.lookup(name, operand.start_byte)
        return found[0] if found is not None and found[1] == 0 else None
    if t == "subscript_expression" or (t == "pointer_expression" and _text(src, operand).startswith("*")):
        base = _unwrap(operand.child_by_field_name("argument"))
        if base is None or base.type != "identifier":
            return None
        name = _text(src, base)
        if names is not None and name not in names:
            return None
        found = decls.lookup(name, operand.start_byte)
        if found is None:
            return None
        return found[0] if found[1] == 1 else None
    if t == "cast_expression":
        type_node = operand.child_by_field_name("type")
        return _text(src, type_node).replace("const", "").strip() if type_node is not None else None
    if t == "call_expression":
        fn = operand.child_by_field_name("function")
        if fn is None:
            return None
        if fn.type == "identifier" and _TO_HALF.match(_text(src, fn)):
            return "__half"
        if fn.type == "template_function" and _text(src, fn.child_by_field_name("name")) == "static_cast":
            args = fn.child_by_field_name("arguments")
            return _text(src, args)[1:-1].replace("const", "").strip() if args is not None else None
    return None


def function_name(src: bytes, fn) -> str | None:
    d = fn.child_by_field_name("declarator")
    while d is not None and d.type not in ("function_declarator",):
        d = d.child_by_field_name("declarator")
    name = d.child_by_field_name("declarator") if d is not None else None
    return _text(src, name).split("::")[-1] if name is not None else None


def template_params(src: bytes, fn) -> list[str | None]:
    """The names of a function template's type parameters, in order (None for a non-type one)."""
    parent = fn.parent
    if parent is None or parent.type != "template_declaration":
        return []
    plist = parent.child_by_field_name("parameters")
    names = []
    for p in plist.named_children if plist is not None else ():
        ident = [c for c in p.named_children if c.type == "type_identifier"]
        names.append(_text(src, ident[0]) if p.type.endswith("type_parameter_declaration") and ident else None)
    return names


def is_host(src: bytes, fn) -> bool:
    head_end = (fn.child_by_field_name("body") or fn).start_byte
    start = fn.parent.start_byte if fn.parent is not None and fn.parent.type == "template_declaration" else fn.start_byte
    return _DEVICE_HEAD.search(src, start, head_end) is None


def split_args(text: str) -> list[str]:
    """A template argument list's top-level arguments."""
    args = [text[s:e].strip() for s, e in top_level_pieces(text)]
    return args[:-1] if not args[-1] else args


def half_ops(src: bytes, fn, code: str, halves: re.Pattern, bound: frozenset[str]) -> list:
    """The operator nodes of the host function ``fn`` with a half operand (its type a half type or one of the
    template parameters ``bound`` to one)."""
    found = []
    names = declared_names(code, halves)
    decls = Declarations(src, fn, file_scope_types(code))
    body = fn.child_by_field_name("body")
    if body is None:
        return found
    stack = [body]
    while stack:
        node = stack.pop()
        ops = operands(src, node)
        if ops:
            for operand in ops:
                word = type_word(src, operand, decls, names)
                if word is not None and (halves.match(word) or word in bound):
                    found.append(node)
                    break
        stack.extend(reversed(node.children))
    return sorted(found, key=lambda n: n.start_byte)


def file_scope_types(code: str) -> dict[str, tuple[str, int]]:
    """:func:`declared_types` of what ``code`` declares outside every brace (its globals; a function's locals
    are not another function's)."""
    out, depth, last = [], 0, 0
    for m in re.finditer(r"[{}]", code):
        if m.group() == "{":
            if depth == 0:
                out.append(code[last:m.start()])
            depth += 1
        else:
            depth = max(0, depth - 1)
            if depth == 0:
                last = m.end()
                out.append(";")
    if depth == 0:
        out.append(code[last:])
    return declared_types("".join(out))


def template_heads(code: str):
    """Each ``template <...>`` of ``code`` (group 1: the parameters), found by its word, not by a pattern
    the regex engine would try at every character."""
    at = code.find("template")
    while at >= 0:
        m = _TEMPLATE_HEAD.match(code, at)
        if m is not None and not (at and (code[at - 1].isalnum() or code[at - 1] == "_")):
            yield m
        at = code.find("template", at + 8)


def declared_names(code: str, halves: re.Pattern) -> frozenset[str]:
    """Every name ``code`` declares with a half type or a template's type parameter: the only operands whose
    declaration the rule reads (one pass over the file, not one per operator)."""
    words = {"__half", "__half2"} | ({"half", "half2"} if halves is _HALF else set())
    for m in template_heads(code):
        words.update(re.findall(r"\b(?:typename|class)\s+([A-Za-z_]\w*)", m.group(1)))
    found = set()
    for m in DECLARATIONS.finditer(code):  # (one pass of one pattern: an alternation of the words has no prefix to find)
        if m.group(1).split("::")[-1] in words:
            found.add(m.group(3))
    return frozenset(found)


class _File:
    """What the rule reads of one scanned file (made once per file)."""

    def __init__(self, ctx):
        self.ctx = ctx
        self.src = ctx.source
        from porter.findings import values

        self.code = values.blanked_code(ctx).decode("utf-8", "replace")
        self.halves = _HALF_ONLY if _OWN_HALF.search(self.code) else _HALF
        self._bound: dict[tuple, object] = {}
        self.names = declared_names(self.code, self.halves)
        self.half_word = re.compile(rb"(?<![\w])(?:__half2?|half2?)(?![\w])" if self.halves is _HALF
                                    else rb"(?<![\w])__half2?(?![\w])")
        self._types = None

    def template_calls(self) -> dict[str, list[tuple[int, str]]]:
        """name -> (offset, template argument text) of each ``name<...>(`` of the file (one pass)."""
        calls = self._bound.get("calls")
        if calls is None:
            calls = self._bound["calls"] = {}
            code = self.code
            lt = code.find("<")
            while lt >= 0:  # each '<' (a literal: found fast), then the name before it
                m = _NAME_BEFORE.search(code, max(0, lt - 80), lt)
                if m is not None and (m.start(1) == 0 or code[m.start(1) - 1] not in ".>:"):
                    args_text = _angle(code, lt)
                    if args_text is not None and _OPEN_PAREN.match(code, lt + len(args_text) + 2):
                        calls.setdefault(m.group(1), []).append((m.start(1), args_text))
                lt = code.find("<", lt + 1)
        return calls

    def template_around(self, at: int) -> tuple[str, list[str | None]] | None:
        """(name, type parameter names) of the function template whose body holds offset ``at``."""
        spans = self._bound.get("templates")
        if spans is None:
            spans = self._bound["templates"] = _function_templates(self.code)
        found = None
        for body_start, body_end, name, params in spans:
            if body_start > at:
                break
            if at < body_end:
                found = (name, params)  # (the innermost: a later start inside is nested)
        return found

    def defines(self, name: str) -> bool:
        """The file defines a function of this name (a body follows its parameter list)."""
        key = ("defines", name)
        if key not in self._bound:
            self._bound[key] = _defines(self.code, name)
        return self._bound[key]

    def declarations(self, fn) -> Declarations:
        key = ("decls", fn.start_byte)
        found = self._bound.get(key)
        if found is None:
            found = self._bound[key] = Declarations(self.src, fn, self.types)
        return found

    @property
    def types(self) -> dict:
        if self._types is None:
            self._types = file_scope_types(self.code)
        return self._types


    def instantiated_with_half(self, name: str, index: int, depth: int = 0) -> str | None:
        """Where (the call's text) the file instantiates the template ``name`` with a half type as its
        ``index``-th argument, directly or through a template that passes its own parameter on."""
        key = (name, index)
        if key in self._bound:
            return self._bound[key]
        self._bound[key] = None  # (a template that instantiates itself)
        result = None
        for start, args_text in self.template_calls().get(name, ()):
            args = split_args(args_text)
            if index >= len(args):
                continue
            arg = re.sub(r"\bconst\b|\s+", "", args[index])
            if self.halves.match(arg):
                result = compact(f"{name}<{args_text}>", 50)
                break
            if depth < _DEPTH and re.match(r"^[A-Za-z_]\w*$", arg):
                caller = self.template_around(start)  # (read from the text: a big file's other regions
                if caller is not None and arg in caller[1]:  # have no tree now)
                    via = self.instantiated_with_half(caller[0], caller[1].index(arg), depth + 1)
                    if via:
                        result = via
                        break
        self._bound[key] = result
        return result


_TEMPLATE_FUNCTION = re.compile(r"[^;{}()]*?(?<![\w])([A-Za-z_]\w*)\s*\(")


def _function_templates(code: str) -> list[tuple[int, int, str, list[str | None]]]:
    """(body start, body end, name, type parameter names) of each function template ``code`` defines, by
    body start (``template <...> R name(...) {...}``; a class template has no parameter list before its ``{``)."""
    out = []
    for head in template_heads(code):
        fn = _TEMPLATE_FUNCTION.match(code, head.end())
        if fn is None:
            continue
        close = closing(code, fn.end() - 1, "(", ")")
        brace = code.find("{", close) if close is not None else -1
        semi = code.find(";", close) if close is not None else -1
        if brace < 0 or (0 <= semi < brace):
            continue  # a declaration, not a definition
        end = closing(code, brace, "{", "}")
        if end is None:
            continue
        params = [(m.group(1) if (m := re.match(r"\s*(?:typename|class)\s+([A-Za-z_]\w*)", a)) else None)
                  for a in split_args(head.group(1))]
        out.append((brace, end, fn.group(1), params))
    return sorted(out)


_BODY_AFTER = re.compile(r"\s*\([^;{}]*\)\s*(?:const\s*)?\{")


def _defines(code: str, name: str) -> bool:
    """``name(...) {`` somewhere in ``code``: each place the name occurs is tried (a pattern that starts with a
    look-behind has no literal prefix for the regex engine to find)."""
    at = code.find(name)
    while at >= 0:
        before = code[at - 1] if at else " "
        if not (before.isalnum() or before in "_.>:") and _BODY_AFTER.match(code, at + len(name)):
            return True
        at = code.find(name, at + 1)
    return False


def _angle(code: str, at: int) -> str | None:
    """The text between the '<' at ``at`` and its matching '>' (None: none on the line's statement)."""
    end = closing(code, at, "<", ">", limit=400, stop=";{}")
    return code[at + 1:end] if end is not None else None


def _file(ctx) -> _File:
    f = ctx.cache.get("host_half.file")
    if f is None:
        f = ctx.cache["host_half.file"] = _File(ctx)
    return f


@node_check("PORT189")
def host_half_arithmetic(ctx, node, caps):
    """``node``: a function definition (or the template declaring one).  Its operators with a half operand (the outermost of an expression)
    and its calls that instantiate a header's template with half, where it is host code that computes with
    half: it names a half type, or the file instantiates it (a template) with half."""
    if node.type == "template_declaration":  # (matched for its "template" word: the function's own text need
        node = next((c for c in node.named_children if c.type == "function_definition"), None)  # not name half)
        if node is None:
            return None
    elif node.parent is not None and node.parent.type == "template_declaration":
        return None  # (reported through its template_declaration)
    if not target_before(ctx, HOST_OPERATORS_FROM) or _enclosing_function(node) is not None or ctx.is_device_function(node):
        return None
    f = _file(ctx)
    src = ctx.source
    params = template_params(src, node)
    bound: dict[str, str] = {}
    if params:
        name = function_name(src, node)
        for i, p in enumerate(params):
            where = p and name and f.instantiated_with_half(name, i)
            if where:
                bound[p] = where
    if not bound and not f.half_word.search(src, node.start_byte, node.end_byte):
        return None
    body = node.child_by_field_name("body")
    hits = []
    stack = [body] if body is not None else []
    while stack:
        n = stack.pop()
        how = _half_operand(ctx, f, node, n, bound) if n.type in _OPERATOR_NODES else None
        if how is not None:  # the outermost operator of an expression (the compiler stops there)
            hits.append(Hit(n.start_byte, n.end_byte, {"expr": compact(ctx.text(n), 50), "how": how,
                                                       "target": ctx.options.target}))
            continue
        if n.type == "call_expression":
            hit = _header_instantiation(ctx, f, n, bound)
            if hit is not None:
                hits.append(hit)
        stack.extend(reversed(n.children))
    return sorted(hits, key=lambda h: h.start) or None


def _enclosing_function(node):
    up = node.parent
    while up is not None and up.type != "function_definition":
        up = up.parent
    return up


_OPERATOR_NODES = frozenset({"binary_expression", "assignment_expression", "update_expression", "unary_expression"})


def _half_operand(ctx, f: _File, fn, node, bound: dict[str, str]) -> str | None:
    """How an operand of the operator ``node`` is a half (None: none is, or ``node`` is no __half operator);
    ``bound``: the function's template parameters the file instantiates with half (where)."""
    ops = operands(ctx.source, node)
    if not ops:
        return None
    decls = f.declarations(fn)
    for operand in ops:
        word = type_word(ctx.source, operand, decls, f.names)
        if word is None:
            continue
        if f.halves.match(word):
            return f"`{compact(ctx.text(operand), 30)}` is a `{word}`"
        if word in bound:
            return f"`{compact(ctx.text(operand), 30)}` is a `{word}`, a `half` where `{bound[word]}` instantiates it"
    return None


def _header_instantiation(ctx, f: _File, call, bound: dict[str, str]):
    """A call ``tmpl<..., half, ...>(...)`` of a host function template a project header defines, whose body
    computes with the half it is given."""
    fn_node = call.child_by_field_name("function")
    if fn_node is None or fn_node.type != "template_function":
        return None
    name = ctx.text(fn_node.child_by_field_name("name"))
    args_node = fn_node.child_by_field_name("arguments")
    args = split_args(ctx.text(args_node)[1:-1]) if args_node is not None else []
    half_at = {}
    for i, a in enumerate(args):
        a = re.sub(r"\bconst\b|\s+", "", a)
        if f.halves.match(a):
            half_at[i] = f"`{compact(ctx.text(call), 40)}`"
        elif a in bound:
            half_at[i] = f"`{bound[a]}`"
    if not half_at or f.defines(name):
        return None  # (a template the file defines: its own operators are reported where they are)
    from porter.findings import values

    for shown, path in values.unit_of(ctx).header_paths:
        lines = _header_lines(path, name, frozenset(half_at))
        if lines:
            where = next(iter(half_at.values()))
            return Hit(call.start_byte, call.end_byte,
                       {"expr": compact(ctx.text(call), 50), "target": ctx.options.target,
                        "how": f"it instantiates `{name}` ({os.path.basename(shown)}) with `half` (through {where}), "
                               f"whose host code computes with it at line{'s' if len(lines) > 1 else ''} "
                               f"{', '.join(str(n) for n in lines)} of {os.path.basename(shown)}"})
    return None


def _header_lines(path: str, name: str, indices: frozenset[int]) -> tuple[int, ...]:
    try:
        st = os.stat(path)
    except OSError:
        return ()
    return _header_lines_cached(path, st.st_mtime_ns, st.st_size, name, indices)


@functools.lru_cache(maxsize=256)
def _header_lines_cached(path: str, _mtime: int, _size: int, name: str, indices: frozenset[int]) -> tuple[int, ...]:
    from porter.findings import values
    from porter.parse import parse

    code = values.header_code(path)
    if code is None or name.encode() not in code:
        return ()
    tree = parse(bytes(code))
    text = code.decode("utf-8", "replace") if isinstance(code, bytes) else bytes(code).decode("utf-8", "replace")
    src = bytes(code)
    halves = _HALF_ONLY if _OWN_HALF.search(text) else _HALF
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        if node.type == "function_definition" and function_name(src, node) == name and is_host(src, node):
            params = template_params(src, node)
            bound = frozenset(p for i, p in enumerate(params) if i in indices and p)
            if bound:
                ops = half_ops(src, node, text, halves, bound)
                if ops:
                    return tuple(sorted({n.start_point[0] + 1 for n in ops}))
            continue
        stack.extend(node.children)
    return ()
