"""PORT033: overloads that become one function in HIP.

Two CUDA types that HIP names alike (``CUresult`` and ``cudaError_t`` are both
``hipError_t``) make two overloads with the same HIP signature: the second is a
redefinition.  The pairs come from the mapping database itself (CUDA names whose
HIP name is the same), and the signatures from the tree: two declarators of one
function name in one scope whose parameter types differ in CUDA and are equal
once every name is mapped."""

from __future__ import annotations

import functools
import re
from collections import defaultdict
from typing import NamedTuple

from porter.findings.engine import SHARED_WORDS, Hit
from porter.findings.model import Fix, FixEdit
from porter.findings.predicates import file_check, word_regions
from porter.parse.lexical import whole_identifier

_PARAMETERS = ("parameter_declaration", "optional_parameter_declaration")
_SCOPES = ("declaration_list", "field_declaration_list", "translation_unit", "compound_statement")
_FUNCTIONS = ("function_definition", "declaration", "field_declaration")
# an overload inside a conditional that tests the HIP platform was already placed by hand
_HIP_CONDITION = re.compile(rb"__HIP_PLATFORM_|__HIPCC__|\b__HIP__\b")
GUARD = "__HIP_PLATFORM_AMD__"


@functools.cache
def _collapsing(roc: bool = False) -> tuple[dict[bytes, str], tuple[bytes, ...]]:
    """{name: the HIP name it shares with another CUDA name} for every CUDA name of such a group
    (and the shared HIP name itself), and those names as a tuple for the searcher; ``roc``: the names
    the port writes under --roc (cublasStatus_t and cusolverStatus_t are both rocblas_status there)."""
    from porter.mapping import load_database

    by_hip: dict[str, set[str]] = defaultdict(set)
    for e in load_database().identifiers.values():
        if e.renames and e.context is None:
            by_hip[e.target(roc)].add(e.cuda)
    group: dict[bytes, str] = {}
    for hip, names in by_hip.items():
        if len(names) > 1:
            for n in names | {hip}:
                group[n.encode()] = hip
    return group, tuple(sorted(group))


@functools.cache
def _searcher(roc: bool = False):
    import ahocorasick_rs

    return ahocorasick_rs.BytesAhoCorasick(list(_collapsing(roc)[1]))


# the file is searched a slice at a time: a list of every occurrence of a whole big file (810k matches in
# 20 MB of real code) would cost more than the file itself
_SLICE = 1 << 20


@functools.cache
def _longest(roc: bool = False) -> int:
    return max(map(len, _collapsing(roc)[1]))


@functools.cache
def _words() -> tuple[bytes, ...]:
    """The names of both tables (the trigger words: a superset is enough there)."""
    return tuple(sorted(set(_collapsing(False)[1]) | set(_collapsing(True)[1])))


SHARED_WORDS.append(_words)  # searched with the trigger words (Context.occurrences)


def _occurrences(ctx):
    """(position, name) of every whole-identifier occurrence of the collapsing names, in file order: a
    list for a file of one slice, else made slice by slice as they are read."""
    roc = ctx.options.roc
    _group, words = _collapsing(roc)
    searcher = _searcher(roc)
    source = ctx.source
    if len(source) <= _SLICE:
        return [(start, words[i]) for i, start, end in ctx.occurrences(words, searcher)
                if whole_identifier(source, start, end)]
    return _sliced(source, words, searcher, _longest(roc))


def _sliced(source: bytes, words, searcher, longest: int):
    view = memoryview(source)
    for off in range(0, len(source), _SLICE):
        for i, start, end in searcher.find_matches_as_indexes(view[off:off + _SLICE + longest], overlapping=True):
            if start < _SLICE and whole_identifier(source, off + start, off + end):
                yield off + start, words[i]


def _present(ctx) -> list[tuple[int, bytes]]:
    """(position, name) of the collapsing names in code, when two of one group occur; else [] (once per
    scan: the region hint and the check both ask)."""
    found = ctx.cache.get("overloads.present")
    if found is None:
        found = ctx.cache["overloads.present"] = _find_present(ctx)
    return found


def _find_present(ctx) -> list[tuple[int, bytes]]:
    group, _words = _collapsing(ctx.options.roc)
    index = ctx.index
    # the groups are decided on the whole text first, then again without comments and literals:
    # most files have no group with two members anywhere and skip the look-up of each occurrence
    found = _occurrences(ctx)
    if isinstance(found, list):
        shared = _shared_groups(group, found)
    else:  # a big file: its occurrences are counted, not kept, until a group is known to be shared
        members: dict[str, set[bytes]] = defaultdict(set)
        for _pos, name in found:
            members[group[name]].add(name)
        shared = {hip for hip, names in members.items() if len(names) > 1}
        found = _occurrences(ctx) if shared else []
    if not shared:
        return []
    found = [(pos, name) for pos, name in found if group[name] in shared and not index.is_protected(pos)]
    shared = _shared_groups(group, found)
    return [(pos, name) for pos, name in found if group[name] in shared]


def _shared_groups(group: dict[bytes, str], found: list[tuple[int, bytes]]) -> set[str]:
    """The HIP names two different CUDA names of ``found`` collapse into."""
    members: dict[str, set[bytes]] = defaultdict(set)
    for _pos, name in found:
        members[group[name]].add(name)
    return {hip for hip, names in members.items() if len(names) > 1}


def _leaves(node, skip: set[int]):
    if node.id in skip:
        return
    if node.child_count == 0:
        yield node
        return
    for child in node.children:
        yield from _leaves(child, skip)


def _parameter_name(param):
    d = param.child_by_field_name("declarator")
    while d is not None and d.type not in ("identifier", "field_identifier"):
        inner = d.child_by_field_name("declarator")
        if inner is None:
            named = [c for c in d.named_children if c.type not in ("parameter_list", "type_qualifier")]
            inner = named[-1] if named else None
        d = inner
    return d


def _signature(ctx, declarator, rename):
    """The parameter types of a function declarator as token tuples: CUDA as written, and HIP."""
    params = declarator.child_by_field_name("parameters")
    cuda, hip = [], []
    for p in params.named_children:
        if p.type == "comment":
            continue
        skip = set()
        name = _parameter_name(p) if p.type in _PARAMETERS else None
        if name is not None:
            skip.add(name.id)
        default = p.child_by_field_name("default_value")
        if default is not None:
            skip.add(default.id)
        tokens = [ctx.source[t.start_byte:t.end_byte].decode("utf-8", "replace") for t in _leaves(p, skip)]
        if default is not None and tokens and tokens[-1] == "=":
            tokens.pop()
        cuda.append(tuple(tokens))
        hip.append(tuple(rename(t) for t in tokens))
    return tuple(cuda), tuple(hip)


def _function_node(declarator):
    """The definition or declaration the declarator belongs to (with its template<...> head)."""
    node = declarator.parent
    while node is not None and node.type not in _FUNCTIONS:
        if node.type in _SCOPES or node.type == "parameter_list":
            return None
        node = node.parent
    if node is not None and node.parent is not None and node.parent.type == "template_declaration":
        node = node.parent
    return node


def _key(ctx, declarator, function):
    """What two overloads share: the scope, the name, the template head, the qualifiers after the parameters."""
    scope = function.parent
    while scope is not None and scope.type not in _SCOPES:
        scope = scope.parent
    name = declarator.child_by_field_name("declarator")
    params = declarator.child_by_field_name("parameters")
    tail = ctx.source[params.end_byte:declarator.end_byte]
    head = b""
    if function.type == "template_declaration":
        tparams = function.child_by_field_name("parameters")
        head = ctx.source[tparams.start_byte:tparams.end_byte] if tparams is not None else b""
    # the scope by place, not node id (a big file's regions are separate trees; the file itself is one scope)
    where = (scope.type, scope.start_byte) if scope is not None and scope.type != "translation_unit" else None
    return (where, ctx.source[name.start_byte:name.end_byte],
            b" ".join(head.split()), b" ".join(tail.split()))


@file_check("PORT033", regions=lambda ctx: word_regions(name for _pos, name in _present(ctx)))
def collapsing_overloads(ctx):
    present = _present(ctx)
    if not present:
        return []
    from porter.mapping import load_database

    db = load_database()

    roc = ctx.options.roc

    def rename(token: str) -> str:
        entry = db.identifiers.get(token)
        return entry.target(roc) if entry is not None and entry.renames and entry.context is None else token

    declarators = {}
    for pos, name in present:
        node = ctx.index.node_at(pos, pos + len(name))
        while node is not None and node.type not in _PARAMETERS:
            if node.type in ("function_declarator", "compound_statement", "translation_unit"):
                node = None
                break
            node = node.parent
        if node is None or node.parent is None or node.parent.type != "parameter_list":
            continue
        declarator = node.parent.parent
        if declarator is None or declarator.type != "function_declarator" or declarator.start_byte in declarators:
            continue
        function = _function_node(declarator)
        if function is None:
            declarators[declarator.start_byte] = None
            continue
        # what the groups need, as positions and text: a node would keep its (region's) tree alive
        params = declarator.child_by_field_name("parameters")
        place = _Place(declarator.start_byte, params.end_byte, function.start_byte, function.end_byte)
        declarators[declarator.start_byte] = (_key(ctx, declarator, function), place) + _signature(ctx, declarator, rename)
    if len(declarators) < 2:
        return []
    positions = sorted(declarators)
    heads = ctx.index.open_conditionals(positions)
    groups = defaultdict(list)
    for pos, enclosing in zip(positions, heads):
        found = declarators[pos]
        if found is None or any(_HIP_CONDITION.search(h) for h in enclosing):
            continue
        key, place, cuda, hip = found
        groups[key].append((place, cuda, hip))
    hits = []
    for (_scope, fname, _head, _tail), members in groups.items():
        kept = {}  # HIP signature -> the first declarator with it: that CUDA overload stays
        for member in members:
            kept.setdefault(member[2], member)
        for place, cuda, hip in members:
            first = kept[hip]
            if first[1] != cuda:  # every declaration of another CUDA overload (its prototype too)
                hits.append(_hit(ctx, fname.decode("utf-8", "replace"), place, cuda, hip, first))
    return hits


def _show(sig) -> str:
    return ", ".join(" ".join(p) for p in sig)


class _Place(NamedTuple):
    """Where an overload stands: its declarator up to the parameters' end, and the whole function."""

    start: int
    params_end: int
    function_start: int
    function_end: int


def _hit(ctx, fname, place: _Place, cuda, hip, earlier) -> Hit:
    other, other_cuda, _hip = earlier
    group = _collapsing(ctx.options.roc)[0]
    pairs = sorted({(a, b) for pa, pb in zip(cuda, other_cuda) for a, b in zip(pa, pb) if a != b})
    types = "; ".join(f"`{a}` and `{b}` are both `{group.get(a.encode(), b)}`" for a, b in pairs)
    line = ctx.line_col(other.start)[0]
    return Hit(place.start, place.params_end, {
        "name": fname, "cuda": _show(cuda), "other": _show(other_cuda), "other_line": line, "hip": _show(hip),
        "types": types}, _wrap(ctx, place, pairs))


def _wrap(ctx, place: _Place, pairs) -> Fix:
    """Keep the overload for CUDA and drop it on AMD, where the other overload takes the same type."""
    source = ctx.source
    nl = "\r\n" if b"\r\n" in source[:4096] else "\n"
    start = place.function_start
    line_start = source.rfind(b"\n", 0, start) + 1
    lead = "" if not source[line_start:start].strip() else nl
    at = line_start if not lead else start
    end = source.find(b"\n", place.function_end)
    end = len(source) if end < 0 else end + 1
    tail = "" if source[end - 1:end] == b"\n" else nl  # the file ends without a newline
    what = ", ".join(f"{a} and {b}" for a, b in pairs)
    open_ = f"{lead}#if !defined({GUARD})  // porter PORT033: {what} are one type in HIP{nl}"
    close = f"{tail}#endif{nl}"
    return Fix(False, f"keep this overload for CUDA only (#if !defined({GUARD})): on AMD the other overload "
                      f"takes the same type; check that its body handles this overload's callers",
               (FixEdit(at, at, open_), FixEdit(end, end, close)))
