"""The C++ type of a name or an expression, read from the source text: what a rule needs to know when a
HIP declaration takes or returns another type than CUDA's (PORT174, PORT186, PORT187, PORT188).

Integer and floating scalar types come back canonical (``size_t`` and ``uint64_t`` are ``unsigned long`` on
LP64 Linux, the ABI of every ROCm target); an expression's type follows C's usual arithmetic conversions.  A
name whose type cannot be read gives None: callers do not guess.  Any other type word (a vector type, a
struct, ``__half``) comes from :func:`declared_type_word`.
"""

from __future__ import annotations

import re
from functools import lru_cache

from porter.findings import values
from porter.findings.predicates.common import file_scope_places, matches_back, named_at, outermost_function
from porter.parse.lexical import IDENT_BYTES

_COORD = re.compile(r"^(?:threadIdx|blockIdx|blockDim|gridDim)\s*\.\s*[xyz]$")

# type names as written -> (canonical type, spelled for a cast)
TYPES = {
    "unsigned": "unsigned int", "unsigned int": "unsigned int", "uint32_t": "unsigned int", "uint": "unsigned int",
    "int": "int", "signed": "int", "signed int": "int", "int32_t": "int",
    "long": "long", "long int": "long", "signed long": "long", "int64_t": "long", "ptrdiff_t": "long",
    "ssize_t": "long", "intptr_t": "long",
    "unsigned long": "unsigned long", "unsigned long int": "unsigned long", "size_t": "unsigned long",
    "uint64_t": "unsigned long", "uintptr_t": "unsigned long",
    "long long": "long long", "long long int": "long long", "signed long long": "long long",
    "unsigned long long": "unsigned long long", "unsigned long long int": "unsigned long long",
    "short": "small", "unsigned short": "small", "char": "small", "signed char": "small", "unsigned char": "small",
    "bool": "small", "int16_t": "small", "uint16_t": "small", "int8_t": "small", "uint8_t": "small",
    "float": "float", "double": "double",
}
_RANK = {"int": 1, "unsigned int": 1, "long": 2, "unsigned long": 2, "long long": 3, "unsigned long long": 3}
_TYPE_WORDS = sorted(TYPES, key=len, reverse=True)
_TYPES_ALT = "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in _TYPE_WORDS)
_DECL = r"(?<![\w.>])(?:(?:const|volatile|static|register|constexpr|__restrict__)\s+)*({types})\s*(?:const\s*)?(\**)\s*(?:const\s*)?(?:__restrict__\s*)?{name}\s*(?=[=;,)\[{{])"


def canonical(text: str) -> tuple[str, str] | None:
    text = re.sub(r"\b(?:const|volatile)\b", " ", text)
    text = re.sub(r"\s+", " ", text).strip().removeprefix("std::")
    canon = TYPES.get(text)
    return (canon, text) if canon else None


def arith(a: str, b: str) -> str | None:
    """The type of ``a op b`` under C's usual arithmetic conversions (LP64), for the canonical types above."""
    if a is None or b is None:
        return None
    if "double" in (a, b):
        return "double"
    if "float" in (a, b):
        return "float"
    a, b = ("int" if t == "small" else t for t in (a, b))
    if a == b:
        return a
    ua, ub = a.startswith("unsigned"), b.startswith("unsigned")
    if ua == ub:
        return a if _RANK[a] >= _RANK[b] else b
    uns, sig = (a, b) if ua else (b, a)
    if _RANK[uns] >= _RANK[sig]:
        return uns
    if _RANK[sig] >= 2 and _RANK[uns] == 1:  # a 64-bit signed type holds every unsigned int
        return sig
    return "unsigned " + sig


def literal_type(text: str) -> str | None:
    t = text.replace("'", "")
    if re.match(r"^0[xX]", t):
        suffix = re.search(r"([uUlL]*)$", t).group(1).lower()
    elif re.search(r"[.eEfF]", t):
        return "float" if t[-1] in "fF" else "double"
    else:
        suffix = re.search(r"([uUlL]*)$", t).group(1).lower()
    unsigned = "u" in suffix
    longs = suffix.count("l")
    base = {0: "int", 1: "long", 2: "long long"}[min(longs, 2)]
    return ("unsigned " + base) if unsigned else base


class ExprTypes:
    """The declared types of names, read from the text of the enclosing function and the file."""

    def __init__(self, ctx, node):
        self.ctx = ctx
        fn = outermost_function(ctx, node)
        self.scope = ctx.text(fn)[:node.start_byte - fn.start_byte] if fn is not None else ""
        self.node = node

    def declared(self, name: str) -> tuple[tuple[str, str], int] | None:
        """(canonical type, pointer depth) of ``name``'s last declaration in the function's text before the node,
        else at file scope (a declaration inside another function, its parameter or its local, is not this
        name's); None: none, or not a type of TYPES."""
        decl = _DECL.format(types=_TYPES_ALT, name=f"(?P<name>{re.escape(name)})")
        found = None
        for found in pattern_for(decl, False).finditer(self.scope):
            pass
        if found is not None:
            canon = canonical(found.group(1))
            return (canon, len(found.group(2))) if canon else None
        # the file-scope declaration does not depend on the node: read once per name and file
        key = ("expr_types.file_declaration", name)
        if key not in self.ctx.cache:
            m = self._file_declaration(pattern_for(decl, True), name.encode())
            canon = canonical(m.group(1).decode("utf-8", "replace")) if m is not None else None
            self.ctx.cache[key] = (canon, len(m.group(2))) if canon else None
        return self.ctx.cache[key]

    def _file_declaration(self, rx: re.Pattern, key: bytes):
        """The last declaration ``rx`` finds at file scope in the file's blanked code (read as bytes, shared
        with the value analysis), looked for where the name occurs (the pattern has no literal prefix: run
        over a whole big file it was tried at every byte, 0.18 s a name on 9 MB)."""
        code = self._file()
        for place in file_scope_places(self.ctx, code, key, len(code)):
            m = named_at(rx, code, place, len(key))
            if m is not None:
                return m
        return None

    def _file(self) -> bytearray:
        return values.blanked_code(self.ctx)

    def of(self, node) -> tuple[str, str] | None:
        """(canonical type, spelling) of an expression, "coord" for a built-in coordinate; None: unknown."""
        ctx = self.ctx
        t = node.type
        if t == "parenthesized_expression":
            inner = [c for c in node.named_children if c.type != "comment"]
            return self.of(inner[0]) if len(inner) == 1 else None
        text = ctx.text(node)
        if t == "field_expression" and _COORD.match(re.sub(r"\s+", "", text)):
            return ("coord", "unsigned int")
        if t == "number_literal":
            canon = literal_type(text)
            return (canon, canon) if canon else None
        if t == "char_literal":
            return ("small", "char")
        if t == "sizeof_expression":
            return ("unsigned long", "size_t")
        if t == "cast_expression":
            type_node = node.child_by_field_name("type")
            return canonical(ctx.text(type_node)) if type_node is not None else None
        if t == "identifier":
            found = self.declared(text)
            return found[0] if found is not None and found[1] == 0 else None
        if t == "subscript_expression":
            base = node.child_by_field_name("argument")
            if base is not None and base.type == "identifier":
                found = self.declared(ctx.text(base))
                return found[0] if found is not None and found[1] == 1 else None
            return None
        if t == "unary_expression":
            arg = node.child_by_field_name("argument")
            op = ctx.text(node.child_by_field_name("operator"))
            if op == "!":
                return ("int", "int")
            found = self.of(arg) if arg is not None else None
            if found is None:
                return None
            canon = "unsigned int" if found[0] == "coord" else "int" if found[0] == "small" else found[0]
            return (canon, canon)
        if t == "binary_expression":
            op = ctx.text(node.child_by_field_name("operator"))
            if op in ("<", ">", "<=", ">=", "==", "!=", "&&", "||"):
                return ("int", "int")
            left, right = (self.of(node.child_by_field_name(f)) for f in ("left", "right"))
            if left is None or right is None:
                return None
            lt, rt = ("unsigned int" if x[0] == "coord" else x[0] for x in (left, right))
            if op in ("<<", ">>"):
                canon = "int" if lt == "small" else lt
            else:
                canon = arith(lt, rt)
            return (canon, canon) if canon else None
        if t == "call_expression":  # a function of the file: its declared result type
            fn = node.child_by_field_name("function")
            if fn is None or fn.type != "identifier":
                return None
            key = ("expr_types.returns", ctx.text(fn))
            if key not in ctx.cache:
                found = None
                for found in re.finditer(rf"(?<![\w.])({_TYPES_ALT})\s+{re.escape(ctx.text(fn))}\s*\(".encode(),
                                         self._file()):
                    pass
                ctx.cache[key] = canonical(found.group(1).decode("utf-8", "replace")) if found is not None else None
            return ctx.cache[key]
        if t == "conditional_expression":
            a, b = (self.of(node.child_by_field_name(f)) for f in ("consequence", "alternative"))
            if a is None or b is None:
                return None
            canon = arith(*("unsigned int" if x[0] == "coord" else x[0] for x in (a, b)))
            return (canon, canon) if canon else None
        return None


def defines_own_function(ctx, name: str) -> bool:
    """The file defines its own function (or macro) of this name (``min``, ``atomicInc`` ...): its calls are
    not HIP's."""
    key = "expr_types.own:" + name
    if key not in ctx.cache:
        n = re.escape(name.encode())
        ctx.cache[key] = bool(re.search(rb"#[ \t]*define[ \t]+" + n + rb"\b", ctx.source)
                              or _defines_function(ctx.source, name.encode()))
    return ctx.cache[key]


_SPACE = frozenset(b" \t\n\r\f\v")  # what \s is in a bytes regex (\w: lexical.IDENT_BYTES)


def _defines_function(source: bytes, name: bytes) -> bool:
    """``re.search(rb"\\b(?:T|auto|int|...|[A-Za-z_]\\w*)\\s+NAME\\s*\\([^;{}]*\\)\\s*\\{", source)``: a word, space,
    the name and a parameter list opening a body.  That pattern has no literal prefix, so the regex
    engine tries it at every character of the file (97 ms a call in a 3 MB file that does not define
    the name; 2 ms so): here each place the name occurs is tested instead, the space before it, the
    word before that (the pattern's word is a whole run of word characters that starts with a letter
    or '_'), then the pattern itself from the word's start."""
    full = re.compile(rb"[A-Za-z_]\w*\s+" + re.escape(name) + rb"\s*\([^;{}]*\)\s*\{")
    at = source.find(name)
    while at >= 0:
        j = at
        while j > 0 and source[j - 1] in _SPACE:
            j -= 1
        k = j
        while k > 0 and source[k - 1] in IDENT_BYTES:
            k -= 1
        if at > j > k and source[k] not in b"0123456789" and full.match(source, k):
            return True
        at = source.find(name, at + 1)
    return False


@lru_cache(maxsize=512)
def pattern_for(pattern: str, as_bytes: bool) -> re.Pattern:
    """``pattern`` compiled for str or, for a file's bytes, for bytes (the patterns here are ASCII)."""
    return re.compile(pattern.encode() if as_bytes else pattern)


def declared_type_word(text: str | bytes, name: str, endpos: int | None = None) -> str | None:
    """The type word (any type: ``uint4``, ``__half``, a struct; qualifiers and a namespace dropped) of the last
    declaration of ``name`` in ``text`` (``uint4 v``, ``const __half& h``), or in ``text[:endpos]``: a file's
    bytes are searched as they are, up to a place, without a copy of the text above it (a big file)."""
    rx = pattern_for(r"(?<![\w:.>])([A-Za-z_][\w:]*)\s*(?:const\s*)?&?\s*(?<![\w])(?P<name>" + re.escape(name)
                     + r")\s*(?=[=;,)\[{(])", not isinstance(text, str))
    end = len(text) if endpos is None else endpos
    if isinstance(text, str):
        found = None
        for m in rx.finditer(text, 0, end):
            word = m.group(1).split("::")[-1]
            if word not in NOT_TYPE_WORDS:
                found = word
        return found
    # a file's bytes: tried where the name occurs, from the last place back (the pattern has no literal prefix)
    for m in matches_back(rx, text, name.encode(), 0, end):
        word = m.group(1).decode("utf-8", "replace").split("::")[-1]
        if m.end() <= end and word not in NOT_TYPE_WORDS:
            return word
    return None


_STRUCT_BEFORE = r"(?<![\w])(?:struct|class)\s+$"
_STRUCT_AFTER = r"\s*(?::[^{;]*)?\{"


def struct_open(code: str | bytes, name: str) -> int | None:
    """The offset just past the ``{`` of ``struct NAME {`` (or ``class NAME : base {``) in ``code`` (a str, or a
    file's bytes: then a byte offset); None: none.  Each place the name occurs is tried (a pattern that starts
    with ``struct|class`` has no literal prefix: the regex engine would try it at every character of a big
    file)."""
    as_bytes = not isinstance(code, str)
    key = name.encode() if as_bytes else name
    before, after = pattern_for(_STRUCT_BEFORE, as_bytes), pattern_for(_STRUCT_AFTER, as_bytes)
    at = code.find(key)
    while at >= 0:
        prev = code[at - 1:at]
        if (at == 0 or not (prev.isalnum() or prev in ("_", b"_"))) and before.search(code, max(0, at - 40), at):
            m = after.match(code, at + len(key))
            if m is not None:
                return m.end()
        at = code.find(key, at + 1)
    return None


def member_type_word(code: str | bytes, struct: str, member: str) -> str | None:
    """The type word of ``member`` in the body of ``struct`` as ``code`` (a str, or a file's bytes) declares it
    (None: no such body, or one with nested braces)."""
    start = struct_open(code, struct)
    as_bytes = not isinstance(code, str)
    close = code.find(b"}" if as_bytes else "}", start) if start is not None else -1
    if close < 0 or (b"{" if as_bytes else "{") in code[start:close]:
        return None
    body = code[start:close]
    body = body.decode("utf-8", "replace") if as_bytes else body
    m = re.search(r"(?:^|[;{}:])\s*([A-Za-z_][\w:]*)\s+(?:[A-Za-z_]\w*\s*(?:\[[^\]]*\])?\s*,\s*)*"
                  + re.escape(member) + r"\s*[,;\[=]", body)
    return m.group(1).split("::")[-1] if m else None


# a declaration: a type word, const, pointer stars, a reference, then the name and what may follow it (the
# groups: type word, stars, name, the next character: '[' makes an array); str and bytes forms of one pattern
DECLARATION = (r"(?<![\w:.>])([A-Za-z_][\w:]*)\s*(?:const\s*)?((?:\*\s*(?:const\s*)?(?:__restrict__\s*)?)*)&?\s*"
               r"(?<![\w])([A-Za-z_]\w*)\s*([=;,)\[{(])")
DECLARATIONS = re.compile(DECLARATION)
DECLARATION_BYTES = re.compile(DECLARATION.encode())
NOT_TYPE_WORDS = frozenset({"return", "const", "else", "case", "goto", "delete", "new", "throw", "typename", "sizeof"})


def declared_types(text: str) -> dict[str, tuple[str, int]]:
    """name -> (type word, pointer depth) of every declaration in ``text`` (``const half* h``: ("half", 1);
    ``half h[4]``: ("half", 1); ``scalar_t v``: ("scalar_t", 0); a reference counts as the value it names),
    in one pass; the last declaration of each name wins."""
    found = {}
    for m in DECLARATIONS.finditer(text):
        word = m.group(1).split("::")[-1]
        if word not in NOT_TYPE_WORDS:
            found[m.group(3)] = (word, m.group(2).count("*") + (m.group(4) == "["))
    return found
