"""PORT034 call-arity: a call whose argument count HIP's declaration does not accept.

CUDA declares default arguments HIP's floor headers lack (``cudaStreamWaitEvent(s, e)``
relies on ``flags = 0``; HIP 5.2's ``hipStreamWaitEvent`` takes three), and CUDA 12/13
changed signatures HIP kept (``cudaGraphInstantiate(exec, graph, flags)``).  The facts
(which counts each side accepts, CUDA's default values, per-count alternatives) come from
the headers through the generator: ``porter.mapping.load_call_arities``.  The fix passes
CUDA's defaults explicitly, or renames the call to the CUDA function of the same meaning
that HIP declares for that count; both compile on every ROCm release."""

from __future__ import annotations

import functools

from porter.findings.engine import Hit
from porter.findings.model import Fix, FixEdit
from porter.findings.predicates import file_check
from porter.parse.lexical import whole_identifier


@functools.cache
def _facts():
    from porter.mapping import load_call_arities

    floor, facts = load_call_arities()
    words = tuple(sorted(name.encode() for name in facts))
    return floor, facts, words


@functools.cache
def _searcher():
    import ahocorasick_rs

    return ahocorasick_rs.BytesAhoCorasick(list(_facts()[2]))


def _counts(accepts: frozenset[int]) -> str:
    values = sorted(accepts)
    text = " or ".join(str(v) for v in values) if len(values) < 4 else f"{values[0]} to {values[-1]}"
    return f"{text} argument{'' if values == [1] else 's'}"


def _arguments(count: int) -> str:
    return f"{count} argument{'' if count == 1 else 's'}"


def _handled(facts, fact, count: int) -> bool:
    """Whether a call with ``count`` arguments compiles with the floor's HIP once translated: HIP's
    function takes that many, or the count selects an alternative (the translator emits the HIP
    name of another CUDA function of the same meaning) that HIP declares for that many."""
    if count in fact.hip_accepts:
        return True
    for counts, use, _why in fact.alternatives:
        if count in counts:
            other = facts.get(use)  # None: HIP declares every argument count of it that CUDA does
            return other is None or count in other.hip_accepts
    return False


def _fill(facts, fact, count: int) -> tuple[list[str], bool] | None:
    """CUDA's default values that make a call with ``count`` arguments one HIP accepts once
    translated, and whether passing them is safe (no pointer parameter gets a null that the HIP
    side may treat otherwise)."""
    for required, values in fact.cuda_defaults:
        if not required <= count < required + len(values):
            continue
        for k in range(1, required + len(values) - count + 1):
            if not _handled(facts, fact, count + k):
                continue
            added = list(values[count - required:count - required + k])
            hip = fact
            for counts, use, _why in fact.alternatives:
                if count + k in counts and use in facts:
                    hip = facts[use]
            overload = next((o for o in hip.hip_overloads if o[0] <= count + k and (o[1] < 0 or count + k <= o[1])), None)
            params = overload[2][count:count + k] if overload else ()
            return added, all("*" not in p for p in params)
    return None


def _arity_regions(ctx):
    """The regions holding a name ``call_arity`` looks up as a whole identifier."""
    searcher = _searcher()
    return lambda text: any(whole_identifier(text, start, end) for _i, start, end in searcher.find_matches_as_indexes(text))


@file_check("PORT034", regions=_arity_regions)
def call_arity(ctx):
    from porter.mapping import version_key

    floor, facts, words = _facts()
    source, index = ctx.source, ctx.index
    found = [(start, end) for i, start, end in _searcher().find_matches_as_indexes(source)
             if whole_identifier(source, start, end) and not index.is_protected(start)]
    if not found:
        return []
    own = set()  # the file declares a function of that name itself: its calls are the user's
    calls = []
    for start, end in found:
        node = index.node_at(start, end)
        if node is None or node.type != "identifier":
            continue
        parent = node.parent
        if parent is not None and parent.type == "function_declarator":
            own.add(source[start:end])
            continue
        if parent is not None and parent.type == "qualified_identifier" and parent.child_by_field_name("name") == node:
            if parent.child_by_field_name("scope") is not None:
                continue  # mine::cudaStreamWaitEvent: a namespace's own function
            node, parent = parent, parent.parent  # ::cudaStreamWaitEvent(...)
        if parent is None or parent.type != "call_expression" or parent.child_by_field_name("function") != node:
            continue
        args = parent.child_by_field_name("arguments")
        if args is None or any(c.type in ("ERROR", "preproc_arg") for c in args.named_children):
            continue
        # what the second pass needs, as positions: a node would keep its (region's) tree alive
        last = [c.end_byte for c in args.named_children if c.type != "comment"]
        calls.append((start, end, args.end_byte, len(last), last[-1] if last else None))
    severity = "error" if version_key(ctx.options.target) <= version_key(floor) else None
    hits = []
    for start, end, args_end, count, last_arg in calls:
        name = source[start:end].decode()
        if name.encode() in own:
            continue
        fact = facts[name]
        if count in fact.hip_accepts:
            continue
        if _handled(facts, fact, count):
            continue  # the translator emits the function HIP declares for this count
        edits, notes, safe = [], [], True
        filled = _fill(facts, fact, count)
        if filled is not None:
            values, safe = filled
            last = last_arg if last_arg is not None else args_end - 1
            edits.append(FixEdit(last, last, (", " if count else "") + ", ".join(values)))
            notes.append(f"pass CUDA's default{'s' if len(values) > 1 else ''} explicitly (`{', '.join(values)}`)")
        fix = None
        if edits:
            fix = Fix(safe, "; ".join(notes) + ": the same call in CUDA, and one every ROCm release accepts"
                      + ("" if safe else " (a null pointer where HIP expects one: check HIP's handling)"),
                      tuple(edits))
        hits.append(Hit(start, args_end, {
            "name": name, "count": _arguments(count), "hip": fact.hip, "floor": floor,
            "accepts": _counts(fact.hip_accepts), "declaration": fact.declaration(count),
        }, fix, severity))
    return hits
