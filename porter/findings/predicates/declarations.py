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
from porter.findings.predicates.common import file_scope_places, matches_back, named_at, outermost_function
from porter.findings.predicates.expr_types import NOT_TYPE_WORDS

_QUALIFIER = rb"(?:const|volatile|__restrict__|__restrict)\b\s*"
_NOT_TYPES = frozenset(w.encode() for w in NOT_TYPE_WORDS)


@functools.lru_cache(maxsize=256)
def _declaration(name: bytes) -> re.Pattern:
    # qualifiers and type words, the type (a template's arguments kept), const after it, the stars with their
    # qualifiers, a reference, the name, what follows a declared name
    return re.compile(
        rb"(?<![\w:.>])(?P<head>(?:(?:const|volatile|static|extern|register|constexpr|unsigned|signed|long|short"
        rb"|struct|class|typename)\s+)*)(?P<word>[A-Za-z_][\w:]*(?:\s*<[^;{}()]*?>)?)(?P<post>\s*\bconst\b)?\s*"
        rb"(?P<stars>(?:\*\s*(?:" + _QUALIFIER + rb")*)*)&?\s*(?<![\w])(?P<name>" + re.escape(name)
        + rb")\s*(?P<next>[=;,)\[{(:])")


class Declaration:
    """A name's declared type: ``word`` (the type's last word), ``stars``, ``array``; ``levels[0]`` is whether
    the base type is const, ``levels[k]`` whether the pointer after the k-th star is (``const float* p``:
    [True, False]; ``float* const p``: [False, True]); an array's elements are the base type with its stars."""

    def __init__(self, m: re.Match):
        stars = m.group("stars").split(b"*")[1:]
        self.word = m.group("word").split(b"<")[0].strip().split(b"::")[-1].decode("utf-8", "replace")
        self.levels = [b"const" in m.group("head").split() or bool(m.group("post"))] + [b"const" in s for s in stars]
        self.stars = len(stars)
        self.array = m.group("next") == b"["

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


def declared(ctx, at, name: str) -> Declaration | None:
    """The last declaration of ``name`` above ``at``: in its function (its parameters included), else at file
    scope (not another function's parameter or local); None where none is read."""
    code = values.blanked_code(ctx)
    fn = outermost_function(ctx, at)
    key = name.encode()
    rx = _declaration(key)
    if fn is not None:
        for m in matches_back(rx, code, key, fn.start_byte, at.start_byte):
            if _usable(m) and m.start() >= fn.start_byte:
                return Declaration(m)
    for place in file_scope_places(ctx, code, key, fn.start_byte if fn is not None else at.start_byte):
        m = named_at(rx, code, place, len(key))
        if _usable(m):
            return Declaration(m)
    return None
