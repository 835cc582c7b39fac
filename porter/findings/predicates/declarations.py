"""Where a name used in a function is declared, read from the file's text: the last declaration above the use
in the function (its parameters included), else at file scope.  A parameter or local of another function is
never the declaration (``void a(CUdeviceptr offset)`` above ``int offset;`` used in ``b``): the rules that
rewrite a use by its type (PORT190, PORT191) must not read another function's type for it.

A declaration is read as its type word (``CUdeviceptr``, ``std::vector``: the last word of the type, template
arguments and namespace dropped), its pointer stars and array brackets, and which levels are const.
"""

from __future__ import annotations

import functools
import re

from porter.findings import values
from porter.findings.predicates.common import file_scope_places, named_at, outermost_function, places_back
from porter.findings.predicates.expr_types import NOT_TYPE_WORDS
from porter.parse.brackets import closing

_QUALIFIER = rb"(?:const|volatile|__restrict__|__restrict)\b\s*"
_NOT_TYPES = frozenset(w.encode() for w in NOT_TYPE_WORDS)


# qualifiers and type words, the type (a template's arguments kept), const after it; the stars with their
# qualifiers and a reference
_HEAD = (rb"(?P<head>(?:(?:const|volatile|static|extern|register|constexpr|unsigned|signed|long|short|struct|class"
         rb"|typename)\s+)*)(?P<word>[A-Za-z_][\w:]*(?:\s*<[^;{}()]*?>)?)(?P<post>\s*\bconst\b)?\s*")
_STARS = rb"(?P<stars>(?:\*\s*(?:" + _QUALIFIER + rb")*)*)&?\s*"


@functools.lru_cache(maxsize=256)
def _declaration(name: bytes) -> re.Pattern:
    # the type, the stars, the name, what follows a declared name
    return re.compile(rb"(?<![\w:.>])" + _HEAD + _STARS + rb"(?<![\w])(?P<name>" + re.escape(name)
                      + rb")\s*(?P<next>[=;,)\[{(:])")


class Declaration:
    """A name's declared type: ``word`` (the type's last word), ``stars``, ``array``; ``levels[0]`` is whether
    the base type is const, ``levels[k]`` whether the pointer after the k-th star is (``const float* p``:
    [True, False]; ``float* const p``: [False, True]); an array's elements are the base type with its stars."""

    def __init__(self, m: re.Match, stars: bytes | None = None, following: bytes | None = None):
        """``m``: a declaration's match; for a later declarator of ``m``'s statement (``const float *x = a,
        *y = b;``: the type is the statement's) the name's own ``stars`` and the character ``following`` it."""
        stars = (m.group("stars") if stars is None else stars).split(b"*")[1:]
        self.word = m.group("word").split(b"<")[0].strip().split(b"::")[-1].decode("utf-8", "replace")
        self.levels = [b"const" in m.group("head").split() or bool(m.group("post"))] + [b"const" in s for s in stars]
        self.stars = len(stars)
        self.array = (m.group("next") if following is None else following) == b"["

    def pointee_const(self) -> bool:
        """The name's value, read as a pointer, points to const (an array's elements are const)."""
        if self.array:
            return self.levels[self.stars]
        return self.stars >= 1 and self.levels[self.stars - 1]

    def object_const(self) -> bool:
        """The name itself is const (its address points to const)."""
        return self.levels[self.stars]


def _usable(m) -> bool:
    return m is not None and m.group("word").split(b"<")[0].strip() not in _NOT_TYPES


# the first declarator of a statement, and a later one: ", *y" right before the name, "= ...", ";", "," or "[" after
_FIRST = re.compile(rb"\s*" + _HEAD + _STARS + rb"[A-Za-z_]\w*\s*[=;,\[{]")
_LATER = re.compile(rb",\s*" + _STARS + rb"(?P<name>)$")
_AFTER = re.compile(rb"\s*(?P<next>[=;,\[{])")


def _statement_start(code: bytes, pos: int, reach: int = 2000) -> int:
    """Where the statement around ``pos`` starts (after a ``;``, ``{``, ``}`` or a preprocessor line, brackets
    of initializers skipped); -1 inside parentheses or brackets (a call's or a parameter list's comma)."""
    depth, i, stop = 0, pos - 1, max(0, pos - reach)
    while i >= stop:
        c = code[i]
        if c in b")]":
            depth += 1
        elif c in b"([":
            if depth == 0:
                return -1
            depth -= 1
        elif c == 0x7D:  # }
            if depth == 0:
                return i + 1
            depth += 1
        elif c == 0x7B:  # {
            if depth == 0:
                return i + 1
            depth -= 1
        elif c == 0x3B and depth == 0:  # ;
            return i + 1
        elif c == 0x0A and depth == 0 and code[i + 1:pos].lstrip(b" \t").startswith(b"#"):
            return code.find(b"\n", i + 1, pos) + 1 or -1
        i -= 1
    return 0 if stop == 0 and depth == 0 else -1


def _listed_at(code: bytes, at: int, size: int) -> Declaration | None:
    """The name at ``at`` as a later declarator of a declaration (``const float *x = nullptr, *y = nullptr;``,
    ``CUdeviceptr a, b;``): the statement's type with the name's own stars (C++ shares the type specifiers)."""
    later = _LATER.search(code, max(0, at - 40), at)
    after = _AFTER.match(code, at + size)
    if later is None or after is None:
        return None
    start = _statement_start(code, later.start())
    if start < 0:
        return None
    first = _FIRST.match(code, start, later.start() + 1)
    if not _usable(first):
        return None
    return Declaration(first, later.group("stars"), after.group("next"))


def _declaration_at(rx, code: bytes, at: int, size: int, start: int = 0) -> Declaration | None:
    m = named_at(rx, code, at, size)
    if m is not None:
        return Declaration(m) if _usable(m) and m.start() >= start else None
    return _listed_at(code, at, size)


def declared(ctx, at, name: str) -> Declaration | None:
    """The last declaration of ``name`` above ``at``: in its function (its parameters included), else at file
    scope (not another function's parameter or local); None where none is read."""
    code = values.blanked_code(ctx)
    fn = outermost_function(ctx, at)
    key = name.encode()
    rx = _declaration(key)
    if fn is not None:
        for place in places_back(code, key, fn.start_byte, at.start_byte):
            d = _declaration_at(rx, code, place, len(key), fn.start_byte)
            if d is not None:
                return d
    for place in file_scope_places(ctx, code, key, fn.start_byte if fn is not None else at.start_byte):
        d = _declaration_at(rx, code, place, len(key))
        if d is not None:
            return d
    return None


def _member_in(code: bytes, word: bytes, key: bytes, rx) -> Declaration | None:
    for m in re.finditer(rb"\b(?:struct|class)\s+" + re.escape(word) + rb"\b[^;{()]*\{", code):
        end = closing(code, m.end() - 1, "{", "}")
        for place in places_back(code, key, m.end(), end) if end is not None else ():
            found = _declaration_at(rx, code, place, len(key), m.end())
            if found is not None:
                return found
    return None


def member_declared(ctx, obj, field: str) -> Declaration | None:
    """The declaration of member ``field`` of the object named by the identifier ``obj`` (``h.w``, ``h->w``):
    ``obj``'s declared type word, a ``struct``/``class`` of that name defined in the file or in a project header
    it includes (values.unit_of), the member's last declaration in its body (a later declarator of a list too);
    None where any of it is not read."""
    d = declared(ctx, obj, ctx.text(obj))
    if d is None:
        return None
    word, key = d.word.encode(), field.encode()
    rx = _declaration(key)
    found = _member_in(values.blanked_code(ctx), word, key, rx)
    for _shown, path in () if found is not None else values.unit_of(ctx).header_paths:
        code = values.header_code(path)
        found = _member_in(code, word, key, rx) if code else None
        if found is not None:
            break
    return found
