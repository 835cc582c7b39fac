"""PORT178 legacy cuBLAS: a call of the legacy cuBLAS API (``cublas.h``), which hipBLAS does not have.

With ``cublas.h`` and not ``cublas_v2.h``, ``cublasSscal(n, alpha, x, incx)`` is the legacy function:
no handle, scalars by value, errors through ``cublasGetError``.  The HIP name AMD's tables give it,
``hipblasSscal``, is the handle API's (``cublas_v2.h`` makes the same name a macro for
``cublasSscal_v2``).  Which API a name means is decided by the unit's includes
(``porter.mapping.cublas_legacy``): the file's own, as the translator decides (it then keeps the
name), and, where the file includes neither header, those of the project headers it includes
(``porter.findings.values`` follows them): the translator, which sees the file alone, renamed those
calls, and the port does not compile either."""

from __future__ import annotations

import functools
import re

from porter.findings.engine import Hit
from porter.findings.predicates import file_check, word_regions

_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*[<"]([^>"\n]+)[>"]', re.M)


@functools.cache
def _words() -> tuple[bytes, ...]:
    from porter.mapping.cublas_legacy import load_cublas_legacy

    return tuple(sorted(n.encode() for n in load_cublas_legacy().functions))


@functools.cache
def _region_test():
    return word_regions(_words())


def _regions(ctx):
    return _region_test() if b"cublas" in ctx.source else None


def _unit(ctx) -> tuple[bool, str | None] | None:
    """(the translator left the calls as written, the project header that makes them legacy) when
    the file's calls are legacy; None when they are the v2 API (or the includes do not say)."""
    from porter.findings import values
    from porter.mapping.cublas_legacy import header_name, load_cublas_legacy, unit_is_legacy

    facts = load_cublas_legacy()
    own = [ctx.text(n)[1:-1] for n in ctx.index.includes]
    if unit_is_legacy(own):
        return True, None
    bases = {header_name(p) for p in own}
    if facts.v2_header in bases or not ctx.file:
        return None
    headers = []
    for shown, path in values.unit_of(ctx).header_paths:
        code = values.header_code(path)
        if code is None:
            continue
        found = [m.group(1) for m in _INCLUDE.finditer(code.decode("utf-8", "replace"))]
        headers.append((shown, found))
    every = own + [p for _s, found in headers for p in found]
    if not unit_is_legacy(every):
        return None
    where = next(shown for shown, found in headers if facts.legacy_header in
                 {header_name(p) for p in found})
    return False, where


@file_check("PORT178", regions=_regions)
def legacy_cublas_calls(ctx):
    from porter.mapping import load_database
    from porter.translate.engine import occurrences

    source = ctx.source
    if b"cublas" not in source:
        return []
    index = ctx.index
    found = [(pos, word) for pos, word in occurrences(source, frozenset(_words()))
             if not index.is_protected(pos)]
    if not found:
        return []
    unit = _unit(ctx)
    if unit is None:
        return []
    kept, header = unit
    db = load_database()
    roc = ctx.options.roc
    where = "this file includes cublas.h, not cublas_v2.h" if header is None else \
        f"`{header}` includes cublas.h and nothing here includes cublas_v2.h"
    hits = []
    for pos, word in found:
        end = pos + len(word)
        node = index.node_at(pos, end)
        if node is None or node.type == "field_identifier" or (
                node.parent is not None and node.parent.type == "function_declarator"):
            continue  # a member, or a function of the file's own with that name
        name = word.decode()
        entry = db.identifiers.get(name)
        hip = entry.target(roc) if entry is not None and entry.renames else None
        if not hip:
            continue
        done = ("porter left the call as written" if kept else
                "the rename does not compile (the translator decides from this file's own includes)")
        hits.append(Hit(pos, end, {"name": name, "hip": hip, "where": where, "done": done}))
    return hits
