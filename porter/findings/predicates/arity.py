"""PORT034 call-arity: a call whose argument count HIP's declaration does not accept.

CUDA declares default arguments HIP's floor headers lack (``cudaStreamWaitEvent(s, e)``
relies on ``flags = 0``; HIP 5.2's ``hipStreamWaitEvent`` takes three), and CUDA 12/13
changed signatures HIP kept (``cudaGraphInstantiate(exec, graph, flags)``; CUDA 13's cudaMemPrefetchAsync and
cudaMemAdvise take a ``cudaMemLocation`` where HIP takes the device number, whatever the count:
``porter/findings/memory_locations.toml``, by the argument's declared type).  The facts
(which counts each side accepts, CUDA's default values, per-count alternatives) come from
the headers through the generator: ``porter.mapping.load_call_arities``.  The fix passes
CUDA's defaults explicitly, or renames the call to the CUDA function of the same meaning
that HIP declares for that count; both compile on every ROCm release.

Where CUDA has a parameter HIP's function lacks and a null value there asks CUDA for what HIP's
function always does (the facts' ``drop_if_null``: cuOccupancyMaxPotentialBlockSize's
``blockSizeToDynamicSMemSize``), a call passing a null pointer constant there gets a safe fix that
removes the argument; any other value has no HIP counterpart, and the message says so and what to
write instead."""

from __future__ import annotations

import functools
import re
from pathlib import Path

from porter.findings.engine import Hit
from porter.findings.model import Fix, FixEdit
from porter.findings.predicates import file_check
from porter.mapping.cache import load_toml
from porter.parse.lexical import whole_identifier


MEMORY_LOCATIONS_FILE = Path(__file__).resolve().parents[1] / "memory_locations.toml"


@functools.cache
def _locations() -> tuple[dict[str, tuple[int, str]], tuple[str, ...]]:
    """({CUDA function: (the index of its cudaMemLocation argument, HIP's declaration)}, the location type names),
    from memory_locations.toml: CUDA 13's calls that take a location where HIP's take the device number."""
    doc = load_toml(MEMORY_LOCATIONS_FILE)
    return {c["cuda"]: (c["location"], c["hip"]) for c in doc["call"]}, tuple(doc["types"])


@functools.cache
def _facts():
    from porter.mapping import load_call_arities

    floor, facts = load_call_arities()
    words = tuple(sorted({name.encode() for name in facts} | {name.encode() for name in _locations()[0]}))
    return floor, facts, words


def _is_location(source: bytes, start: int, arg: bytes) -> bool:
    """Whether the call argument ``arg`` (text), in a call at ``start``, is a cudaMemLocation: a variable
    declared with that type above the call, or a value built in place (``cudaMemLocation{...}``)."""
    text = arg.decode("utf-8", "replace").strip()
    types = _locations()[1]
    if any(t in text for t in types):
        return True
    from porter.findings.predicates.expr_types import declared_type_word

    name = re.fullmatch(r"[A-Za-z_]\w*", text)
    # the declaration is read from the text above the call, up to _LOCATION_WINDOW bytes (a function's worth: a
    # big file's calls do not each decode all of it)
    above = source[max(0, start - _LOCATION_WINDOW):start].decode("utf-8", "replace")
    return name is not None and declared_type_word(above, text) in types


_LOCATION_WINDOW = 1 << 16


@functools.cache
def _searcher():
    """Leftmost-longest: a fact name that is a prefix of another (cuOccupancyMaxPotentialBlockSize of
    its WithFlags form, cudaGraphInstantiate of cudaGraphInstantiateWithFlags) must not end the match
    before the whole identifier, or the longer call is never seen."""
    import ahocorasick_rs

    return ahocorasick_rs.BytesAhoCorasick(list(_facts()[2]), matchkind=ahocorasick_rs.MatchKind.LeftmostLongest)


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


_ZERO = re.compile(rb"(?:0+|0[xX]0+|0[bB]0+)[uUlLzZ]*")  # an integer literal whose value is zero


def _null_pointer(node, source: bytes, type_: str) -> bool:
    """Whether the argument ``node`` is a null pointer constant (C++11: a zero integer literal, or
    ``nullptr``; ``NULL``), parenthesised or cast to the parameter's type ``type_`` (C-style or
    ``static_cast``) any number of times."""
    while True:
        kind = node.type
        if kind == "null":
            return True
        if kind == "number_literal":
            return _ZERO.fullmatch(source[node.start_byte:node.end_byte]) is not None
        inner = [c for c in node.named_children if c.type != "comment"]
        if kind == "parenthesized_expression" and len(inner) == 1:
            node = inner[0]
        elif kind == "cast_expression" and len(inner) == 2:
            written = node.child_by_field_name("type")
            if written is None or b"".join(source[written.start_byte:written.end_byte].split()) != type_.encode():
                return False
            node = node.child_by_field_name("value")
        elif kind == "call_expression" and len(inner) == 2 and inner[0].type == "template_function":
            name, targs = inner[0].child_by_field_name("name"), inner[0].child_by_field_name("arguments")
            args = [c for c in inner[1].named_children if c.type != "comment"]
            if (name is None or targs is None or source[name.start_byte:name.end_byte] != b"static_cast"
                    or b"".join(source[targs.start_byte:targs.end_byte].split()) != b"<" + type_.encode() + b">"
                    or len(args) != 1):
                return False
            node = args[0]
        else:
            return False
        if node is None:
            return False


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
    locations, types = _locations()
    has_location = any(t.encode() in source for t in types)  # no location type named: no such call
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
        written = [c for c in args.named_children if c.type != "comment"]
        name = source[start:end].decode()
        at = locations.get(name, (None,))[0] if has_location else None
        location = (at is not None and at < len(written)
                    and _is_location(source, start, source[written[at].start_byte:written[at].end_byte]))
        if name not in facts and not location:
            continue
        drop = None  # (whether the argument HIP lacks is a null pointer constant, where it begins and ends)
        rule = facts[name].drop_if_null if name in facts else None
        if rule is not None and 0 < rule[0] < len(written):
            at = rule[0]
            drop = (_null_pointer(written[at], source, rule[1].rsplit(None, 1)[0]), written[at - 1].end_byte,
                    written[at].end_byte)
        calls.append((start, end, args.end_byte, len(written), written[-1].end_byte if written else None, drop,
                      location))
    severity = "error" if version_key(ctx.options.target) <= version_key(floor) else None
    hits = []
    for start, end, args_end, count, last_arg, drop, location in calls:
        name = source[start:end].decode()
        if name.encode() in own:
            continue
        if location:
            at, declaration = locations[name]
            hits.append(Hit(start, args_end, {
                "name": name, "count": _arguments(count), "hip": declaration.split("(")[0], "floor": floor,
                "accepts": f"argument {at + 1}: `int device`", "declaration": declaration,
                "extra": (f"; argument {at + 1} is a {'CUmemLocation' if name.startswith('cuMem') else 'cudaMemLocation'} "
                          "(CUDA 13's signature), where HIP takes the device number: pass the location's `id` for a "
                          "device location, hipCpuDeviceId for the host" +
                          (", and no flags (CUDA's must be 0)" if "Prefetch" in name else "")),
            }, None, severity))
            continue
        fact = facts[name]
        if count in fact.hip_accepts:
            continue
        if fact.cuda_accepts and count not in fact.cuda_accepts:
            continue  # a count CUDA does not take either: a macro supplies arguments, and their number is unknown
        if _handled(facts, fact, count):
            continue  # the translator emits the function HIP declares for this count
        edits, notes, safe, extra = [], [], True, ""
        if drop is not None and count - 1 in fact.hip_accepts:
            _at, param, why, otherwise = fact.drop_if_null
            null, cut_start, cut_end = drop
            if null:
                fix = Fix(True, f"remove the null `{param.rsplit(None, 1)[-1]}` argument, which {fact.hip} does not "
                          f"take: {why}; the call then has HIP's parameters (and no longer compiles as CUDA)",
                          (FixEdit(cut_start, cut_end, ""),))
            else:
                fix, extra = None, f"; {otherwise}"
            hits.append(Hit(start, args_end, {
                "name": name, "count": _arguments(count), "hip": fact.hip, "floor": floor,
                "accepts": _counts(fact.hip_accepts), "declaration": fact.declaration(count), "extra": extra,
            }, fix, severity))
            continue
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
            "accepts": _counts(fact.hip_accepts), "declaration": fact.declaration(count), "extra": extra,
        }, fix, severity))
    return hits
