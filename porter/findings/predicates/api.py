"""PORT030 unsupported-api: every name the mapping database marks unsupported;
PORT032 api-newer-than-target: every name whose HIP counterpart the target ROCm lacks
(added later, or removed by then).

The names come from the translator's own look-up (``translate(...).unsupported``),
so the findings and the conversion agree and there is no second identifier scanner."""

from __future__ import annotations

import functools
import re

from porter.findings.engine import SHARED_WORDS, Hit
from porter.findings.predicates import file_check, status_cases, tile_meta_group, word_regions
from porter.mapping import user_note
from porter.parse.lexical import whole_identifier

@functools.cache
def _unsupported_names() -> tuple[frozenset[bytes], frozenset[str]]:
    from porter.mapping import load_database

    db = load_database()
    names = {e.cuda.encode() for t in (db.identifiers, db.namespaces) for e in t.values() if e.status == "unsupported"}
    headers = {e.cuda for e in db.headers.values() if e.status == "unsupported"}
    return frozenset(names), frozenset(headers)


@functools.cache
def _name_searcher():
    import ahocorasick_rs

    return ahocorasick_rs.BytesAhoCorasick(list(_name_searcher_words()))


@functools.cache
def _name_searcher_words() -> tuple[bytes, ...]:
    return tuple(sorted(_unsupported_names()[0]))


SHARED_WORDS.append(_name_searcher_words)  # searched with the trigger words (Context.occurrences)


def _unsupported_present(ctx) -> frozenset[bytes] | None:
    """The unsupported names that stand in the file as whole identifiers (one Aho-Corasick pass),
    or None when neither such a name nor an unsupported header occurs: the translator then
    looks at these names alone."""
    return _present(ctx, _name_searcher_words(), _name_searcher(), _unsupported_names()[1])


def _present(ctx, names: tuple[bytes, ...], searcher, headers: frozenset[str]) -> frozenset[bytes] | None:
    """Which of ``names`` stand in the file as whole identifiers (one Aho-Corasick pass), or None when
    none does and no #include names one of ``headers``."""
    source = ctx.source
    found = frozenset(names[i] for i, start, end in ctx.occurrences(names, searcher)
                      if whole_identifier(source, start, end)) if names else frozenset()
    if found or any(ctx.text(n)[1:-1] in headers for n in ctx.index.includes):
        return found
    return None


def _port030_words(ctx) -> set[bytes]:
    return set(_unsupported_present(ctx) or ()) | status_cases.clash_words(ctx)


@file_check("PORT030", regions=lambda ctx: word_regions(_port030_words(ctx)))
def unsupported_names(ctx):
    from porter.translate import translate

    present = _unsupported_present(ctx)
    duplicates = _clashing_case_labels(ctx)
    if present is None:
        return duplicates
    result = translate(ctx.source, ctx.path, ctx.options, index=ctx.index, only=present)
    spans = []
    declared: set[str] = set()  # the file declares its own function or member with this name
    for ref in result.unsupported:
        if ref.status in _VERSION_STATUSES:
            continue  # PORT032's
        start = ctx.offset(ref.line, ref.column)
        raw = ref.name.encode("utf-8")
        if ctx.source[start:start + len(raw)] == raw:
            end = start + len(raw)
            node = ctx.index.node_at(start, end)
            if node is not None and (node.type == "field_identifier" or
                                     (node.parent is not None and node.parent.type == "function_declarator")):
                declared.add(ref.name)
        else:  # a header: the reference points at the opening < or "
            end = start + len(raw) + 2
        spans.append((ref, start, end))
    hits = duplicates
    for ref, start, end in spans:
        if ref.name in declared or ctx.covered(start, end):
            continue  # a more specific rule already says what to do
        the_fix = None
        if ref.name in REWRITES:
            place = _rewrite_place(ctx, ref.name, start, end)
            if place is None:
                continue  # not the CUDA function or marker (a name of the file's own, a macro test)
            the_fix = _rewrite_fix(ctx, ref.name, start, end, place)
        alternative = ref.alternative or "no direct replacement: rewrite this part by hand"
        why = f" ({user_note(ref.why).rstrip('.')})" if ref.why else ""
        if ref.name in simd_helpers():
            the_fix = simd_fix(ctx, ref.name, start, end)
        elif ref.name in status_cases.status_enums():  # a `case` label of a status HIP lacks
            case = status_cases.case_label_fix(ctx, ref.name, start, end)
            if case is not None:
                the_fix, note = case
                alternative = alternative + note if ref.alternative else note.removeprefix("; ")
        hits.append(Hit(start, end, {"name": ref.name, "why": why, "alternative": alternative,
                                     "db_category": ref.category or ""}, the_fix))
    return hits


def _clashing_case_labels(ctx) -> list:
    """PORT030 on a `case` label the port writes as another label of the switch (CUSOLVER_STATUS_IRS_PARAMS_INVALID
    beside CUSOLVER_STATUS_INVALID_VALUE; under --roc CUBLAS_STATUS_ALLOC_FAILED beside CUBLAS_STATUS_NOT_SUPPORTED),
    or, under --roc, as a HIP library's name the port has no header for (status_cases.label_clashes)."""
    from porter.mapping import load_database

    db = load_database()
    hits = []
    for c in status_cases.label_clashes(ctx):
        if ctx.covered(c.start, c.end):
            continue
        if c.kind == "duplicate":
            why = f" of its own (the port writes `{c.port}` for it, as for `{c.other}`)"
        else:
            why = f" in the roc* libraries (the port writes `{c.port}` for it)"
        hits.append(Hit(c.start, c.end, {"name": c.name, "why": why, "alternative": c.note.removeprefix("; "),
                                         "db_category": db.identifiers[c.name].category or ""}, c.fix))
    return hits


_VERSION_STATUSES = ("too-new", "removed")


@functools.cache
def _unavailable(target: str, roc: bool = False) -> tuple[tuple[bytes, ...], frozenset[str]]:
    """Names (and headers) whose HIP counterpart ROCm ``target`` lacks (under --roc, the roc* name where
    porter writes one: rocBLAS's rocblas_*_64 came with ROCm 6.1 and 6.2)."""
    from porter.mapping import load_database

    db = load_database()
    names = sorted(e.cuda.encode() for e in db.identifiers.values() if e.available_in(target, roc))
    headers = frozenset(e.cuda for e in db.headers.values() if e.available_in(target))
    return tuple(names), headers


@functools.cache
def _unavailable_searcher(target: str, roc: bool = False):
    import ahocorasick_rs

    return ahocorasick_rs.BytesAhoCorasick(list(_unavailable(target, roc)[0]))


@file_check("PORT032")
def newer_than_target(ctx):
    from porter.translate import translate

    target = ctx.options.target
    roc = ctx.options.roc
    names, headers = _unavailable(target, roc)
    found = _present(ctx, names, _unavailable_searcher(target, roc) if names else None, headers)
    if found is None:
        return []
    source = ctx.source
    result = translate(source, ctx.path, ctx.options, index=ctx.index, only=found)
    hits = []
    for ref in result.unsupported:
        if ref.status not in _VERSION_STATUSES:
            continue
        start = ctx.offset(ref.line, ref.column)
        raw = ref.name.encode("utf-8")
        end = start + len(raw) + (0 if source[start:start + len(raw)] == raw else 2)
        # a rule that says more about this place wins; PORT130's format warning on <cuda_fp8.h> does not
        # say the header is missing, so it does not hide that the target lacks hip/hip_fp8.h
        if any(rule not in _NOT_COVERING for _s, _e, rule in ctx.reported.covering(start, end)):
            continue
        alternative = f"; {ref.alternative}" if ref.alternative else ""
        the_fix = None
        if ref.name in STATUS_STRINGS and source[start:end] == raw:
            the_fix = status_string_fix(ctx, ref.name, start, end, target)
            if the_fix is not None:
                alternative += (f"; the suggested fix defines `{STATUS_STRINGS[ref.name][2]}`, a switch over the status "
                                f"codes HIP {target} has that returns each code's name")
        elif ref.name in tile_meta_group.MEMBERS and source[start:end] == raw:
            the_fix, note = tile_meta_group.meta_group_fix(ctx, ref.name, start, end)
            alternative += note
        elif ref.name in status_cases.status_enums() and source[start:end] == raw:  # a `case` of a status
            case = status_cases.case_label_fix(ctx, ref.name, start, end, target)
            if case is not None:
                the_fix, note = case
                alternative += note
        hits.append(Hit(start, end, {"name": ref.name, "hip": ref.hip or "", "why": user_note(ref.why or ""),
                                     "target": target, "alternative": alternative}, the_fix))
    return hits


_NOT_COVERING = frozenset({"PORT130"})

# Library functions that name a status code, newer in HIP than the status codes themselves: hipSPARSE's
# hipsparseGetErrorString / hipsparseGetErrorName came with ROCm 6.0 (AMD's HIPIFY tables), its status
# enum (HIPSPARSE_STATUS_*) is in HIP 5.2's hipsparse.h.  For an older target the suggested fix is what
# ports do by hand: a switch over the codes the target has, returning each code's name (not cuSPARSE's
# sentences: to review).  (CUDA function, CUDA status type, helper name, prefix of the CUDA codes)
STATUS_STRINGS = {
    "cusparseGetErrorString": ("cusparseStatus_t", "CUSPARSE_STATUS_", "porter_cusparseGetErrorString"),
    "cusparseGetErrorName": ("cusparseStatus_t", "CUSPARSE_STATUS_", "porter_cusparseGetErrorName"),
}


def _status_codes(prefix: str, target: str) -> list[str]:
    from porter.mapping import load_database

    db = load_database()
    codes: dict[str, str] = {}  # one case per HIP code (two CUDA codes of one HIP value would clash)
    for e in sorted(db.identifiers.values(), key=lambda e: e.cuda):
        if e.cuda.startswith(prefix) and e.renames and not e.available_in(target):
            codes.setdefault(e.hip, e.cuda)
    return sorted(codes.values())


def status_string_fix(ctx, name: str, start: int, end: int, target: str):
    """The suggested fix for a status-string function the target lacks: ``porter_<name>``, defined once
    per file before the first top-level declaration that uses the function, called instead of it."""
    from porter.findings.predicates.common import edit, fix

    ctype, prefix, helper = STATUS_STRINGS[name]
    key = ("status_block", name)
    block = ctx.cache.get(key)
    if block is None:
        codes = _status_codes(prefix, target)
        where = _first_use_line(ctx, name)
        text = ""
        if codes and where is not None:
            cases = "".join(f"    case {c}: return \"{c}\";\n" for c in codes)
            guard = "PORTER_" + name.upper()
            text = (f"#ifndef {guard}\n#define {guard}\n"
                    f"// {name}: ROCm {target} lacks its HIP counterpart; each status code's name instead\n"
                    f"static inline const char* {helper}({ctype} status)\n{{\n    switch (status) {{\n{cases}"
                    f"    default: return \"unknown status\";\n    }}\n}}\n#endif\n")
        block = ctx.cache[key] = (where, text)
    if block[0] is None or not block[1]:
        return None
    return fix(f"call `{helper}`, a switch over the status codes returning each one's name, which porter inserts "
               f"once (the strings are the codes' names, not the library's sentences)",
               edit(block[0], block[0], block[1]), edit(start, end, helper), safe=False)


def _first_use_line(ctx, name: str) -> int | None:
    """The start of the line of the top-level declaration (or directive) holding the first use of ``name``."""
    for m in re.finditer(rb"(?<![\w])" + re.escape(name.encode()) + rb"(?![\w])", ctx.source):
        if ctx.index.is_protected(m.start()):
            continue
        for node in ctx.index.tree_at(m.start()).root_node.children:
            if node.start_byte <= m.start() < node.end_byte:
                line = ctx.source.rfind(b"\n", 0, node.start_byte) + 1
                return line if not ctx.source[line:node.start_byte].strip() else None
        return None
    return None


# ------------------------------------------------------------------------ rewrites PORT030 offers
# CUDA names no HIP header declares that HIP does not need (the database says why: porter/mapping/curated/
# device.toml): "delete" removes the marker where it marks code (compiled with hipcc 5.2 and clang-19).
# (CUDA's integer umin/umax & co. are PORT177's: plain words a project may use for its own things, so
# they are no database entries.)
REWRITES = {
    "__grid_constant__": ("delete", None, None),
}
_DIRECTIVE_LINE = re.compile(rb"[ \t]*#")


def defines_macro(source: bytes, name: str) -> bool:
    """The file has a `#define name`."""
    return re.search(rb"#[ \t]*define[ \t]+" + re.escape(name.encode()) + rb"\b", source) is not None


_NOT_A_TYPE = frozenset({b"return", b"else", b"case", b"goto", b"throw", b"delete", b"new", b"sizeof", b"do",
                         b"co_return", b"co_yield"})
_TYPE_BEFORE = re.compile(rb"(?:([A-Za-z_]\w*)|>)\s*[*&]?\s*$")


def own_definitions(source: bytes, name: str):
    """The spans of ``name`` where the file defines it as a function or a variable of its own (a type
    word, the name, then a body, an initializer or the end of the declaration).  The type word is any name but
    a statement's keyword (``return umin;`` defines nothing): a project's own typedef too (NVIDIA's mergeSort:
    ``static uint umin(uint a, uint b) { ... }``), or a template's closing ``>``.  (The name is searched for
    first and the word before it read after: a pattern that starts at any word tries every word of the file.)"""
    pattern = rb"\b(" + re.escape(name.encode()) + rb")\s*(?:\([^;{}]*\)\s*(?:const\s*)?\{|=|;)"
    for m in re.finditer(pattern, source):
        before = _TYPE_BEFORE.search(source, max(0, m.start() - 80), m.start())
        if before is not None and before.group(1) not in _NOT_A_TYPE:
            yield m.span(1)


def own_facts(ctx, name: str) -> tuple[bool, list[tuple[int, int]]]:
    """(the file has a `#define name`, the spans of its own_definitions of it), read once per name and file."""
    cache = ctx.cache.setdefault("api.own_facts", {})
    if name not in cache:
        cache[name] = (defines_macro(ctx.source, name), list(own_definitions(ctx.source, name)))
    return cache[name]


def defines_itself(ctx, name: str) -> bool:
    """The file defines ``name`` as a macro, a function or a variable of its own (a compatibility header's
    `#define __grid_constant__`, a project's `umin` helper): its uses are the file's."""
    macro, definitions = own_facts(ctx, name)
    return macro or bool(definitions)


def _rewrite_place(ctx, name: str, start: int, end: int):
    """() where a REWRITES name marks code; None elsewhere (a directive, a file that defines it itself)."""
    source = ctx.source
    line = source.rfind(b"\n", 0, start) + 1
    if _DIRECTIVE_LINE.match(source, line) or defines_itself(ctx, name):
        return None
    return ()


def _rewrite_fix(ctx, name: str, start: int, end: int, place):
    from porter.findings.predicates.common import edit, fix

    source = ctx.source
    stop = end
    while stop < len(source) and source[stop] in b" \t":
        stop += 1
    return fix(f"delete `{name}` (HIP has no such marker; the parameter is const and reads the same)",
               edit(start, stop, ""))


# ------------------------------------------------------------------------ SIMD-in-a-word intrinsics
@functools.cache
def simd_helpers() -> dict[str, tuple[str, str]]:
    """CUDA SIMD intrinsic -> (the helper's name, its definition), from simd_intrinsics.toml."""
    from porter.mapping.cache import load_toml
    from pathlib import Path

    doc = load_toml(Path(__file__).resolve().parents[1] / "simd_intrinsics.toml")
    out = {}
    for entry in doc["simd"]:
        name, lanes, signed = entry["name"], entry["lanes"], entry.get("signed", False)
        bits = 32 // lanes
        ctype = {(8, False): "unsigned char", (8, True): "signed char",
                 (16, False): "unsigned short", (16, True): "short"}[(bits, signed)]
        helper = "porter" + name[1:]  # __vadd4 -> porter_vadd4
        guard = "PORTER_SIMD" + name[1:].upper()
        mask = "0xffu" if bits == 8 else "0xffffu"
        text = (f"#ifndef {guard}\n#define {guard}\n"
                f"// {name}: CUDA's SIMD intrinsic ({lanes} lanes of {bits} bits, each computed on its own)\n"
                f"__device__ static inline unsigned {helper}(unsigned a, unsigned b)\n{{\n"
                f"    unsigned r = 0;\n"
                f"    for (int i = 0; i < 32; i += {bits}) {{\n"
                f"        const int x = ({ctype})(a >> i), y = ({ctype})(b >> i);\n"
                f"        r |= ((unsigned)({entry['lane']}) & {mask}) << i;\n"
                f"    }}\n    return r;\n}}\n#endif\n")
        out[name] = (helper, text)
    return out


def simd_fix(ctx, name: str, start: int, end: int):
    """The fix for a SIMD intrinsic: call porter's helper.  The helpers of every SIMD intrinsic the
    file uses are defined in one block before the first top-level declaration that uses one; each
    finding carries that same insertion, which is made once (porter.findings.fixes)."""
    block = ctx.cache.get("simd_block")
    if block is None:
        block = ctx.cache["simd_block"] = _simd_block(ctx)
    if block[0] is None:
        return None
    from porter.findings.predicates.common import edit, fix

    helper = simd_helpers()[name][0]
    return fix(f"call `{helper}`, a device function porter inserts that computes {name}'s lanes one by one",
               edit(block[0], block[0], block[1]), edit(start, end, helper))


def _simd_block(ctx) -> tuple[int | None, str]:
    import re

    helpers = simd_helpers()
    pattern = re.compile(rb"(?<![\w])(" + b"|".join(re.escape(n.encode()) for n in sorted(helpers, key=len, reverse=True))
                         + rb")\s*\(")
    used = []
    first = None
    for m in pattern.finditer(ctx.source):
        if ctx.index.is_protected(m.start()):
            continue
        first = m.start() if first is None else first
        if m.group(1).decode() not in used:
            used.append(m.group(1).decode())
    if first is None:
        return None, ""
    for node in ctx.index.tree_at(first).root_node.children:
        if node.start_byte <= first < node.end_byte:
            line = ctx.source.rfind(b"\n", 0, node.start_byte) + 1
            if ctx.source[line:node.start_byte].strip():
                return None, ""
            return line, "".join(helpers[n][1] for n in sorted(used))
    return None, ""
