"""PORT188: a cooperative-groups tile's (or coalesced group's) shuffle of a value that is not an integer or
floating-point scalar.

CUDA's ``thread_block_tile::shfl``/``shfl_up``/``shfl_down``/``shfl_xor`` take any type (a ``uint4``, a
``__half``, a struct); HIP's take what ``std::is_integral`` or ``std::is_floating_point`` accepts
(``is_valid_type`` in hip_cooperative_groups_helper.h, a ``static_assert`` "Neither an integer or float
type." in amd_hip_cooperative_groups.h, HIP 5.2 to ROCm 7), so the port does not compile (NVIDIA's
shfl_scan sample: ``tile.shfl_xor(result.y, 1)`` on a ``uint4`` member).  The value's type is read from its
declaration in the function or the file (a member through its struct's declaration in the file); a type
porter cannot read, a template parameter, is not reported."""

from __future__ import annotations

import re

from porter.findings.engine import Hit
from porter.findings.predicates import node_check
from porter.findings.predicates.common import args_of, compact
from porter.findings.predicates.expr_types import declared_type_word, member_type_word, pattern_for, struct_open

_VECTOR = re.compile(r"^(?:u?char|u?short|u?int|u?long|u?longlong|float|double)[1-4]$")
_HALF = re.compile(r"^(?:__half2?|half2?|__nv_bfloat162?|nv_bfloat162?|__hip_bfloat162?|hip_bfloat16)$")
_GROUP_TYPES = r"(?:thread_block_tile\s*<[^;{}()]*?>|coalesced_group|thread_group)"
_GROUP_CALLS = r"(?:tiled_partition|coalesced_threads|binary_partition|labeled_partition)"


def is_group(text: str | bytes, name: str, endpos: int | None = None, types: str = _GROUP_TYPES,
             calls: str = _GROUP_CALLS) -> bool:
    """Whether ``text`` (or a file's bytes up to ``endpos``: no copy of a big file's text above a call) declares
    ``name`` a tile or group: of one of ``types``, or ``auto`` from one of ``calls``."""
    as_bytes, end = isinstance(text, bytes), len(text) if endpos is None else endpos
    n = re.escape(name)
    declared = pattern_for(types + r"\s*&?\s*" + n + r"\b", as_bytes)
    assigned = pattern_for(r"\bauto\s*&?\s*" + n + r"\s*=[^;]*\b" + calls + r"\b", as_bytes)
    return bool(declared.search(text, 0, end) or assigned.search(text, 0, end))


def _struct_declared(code: str | bytes, name: str) -> bool:
    return struct_open(code, name) is not None


@node_check("PORT188")
def tile_shuffle_of_a_composite(ctx, node, caps):
    fn = node.child_by_field_name("function")
    args = args_of(node)
    if fn is None or fn.type != "field_expression" or len(args) < 2:
        return None
    group = fn.child_by_field_name("argument")
    if group is None or group.type != "identifier":
        return None
    function = ctx.function_of(node)
    before = ctx.text(function)[:node.start_byte - function.start_byte] if function is not None else ""
    # the text above the call: the file's bytes searched up to the call (a big file's text is neither decoded
    # nor copied for each call)
    source, at = ctx.source, node.start_byte
    if not (is_group(before, ctx.text(group)) or is_group(source, ctx.text(group), at)):
        return None
    value = args[0]
    kind = None
    if value.type == "identifier":
        kind = declared_type_word(before, ctx.text(value)) or declared_type_word(source, ctx.text(value), at)
    elif value.type == "field_expression" and ctx.text(value.child_by_field_name("operator")) == ".":
        base, member = value.child_by_field_name("argument"), value.child_by_field_name("field")
        if base is not None and base.type == "identifier" and member is not None:
            owner = declared_type_word(before, ctx.text(base)) or declared_type_word(source, ctx.text(base), at)
            if owner is not None and not _VECTOR.match(owner) and not _HALF.match(owner):
                kind = member_type_word(source, owner, ctx.text(member))
    if kind is None:
        return None
    if _VECTOR.match(kind):
        what, advice = f"a `{kind}` (a vector type)", "shuffle each component (`v.x = t.shfl_xor(v.x, m);` ...)"
    elif _HALF.match(kind):
        what = f"a `{kind}` (a struct in HIP)"
        advice = ("shuffle its bits: `__ushort_as_half(t.shfl(__half_as_ushort(h), src))` (an unsigned int for a "
                  "__half2: `__half2` from `t.shfl(*reinterpret_cast<unsigned*>(&h2), src)`)")
    elif _struct_declared(source, kind):
        what, advice = f"a `{kind}` (a struct of the file)", "shuffle each member"
    else:
        return None
    return Hit(node.start_byte, node.end_byte,
               {"call": compact(ctx.text(node), 50), "value": compact(ctx.text(value), 30), "what": what,
                "advice": advice})
