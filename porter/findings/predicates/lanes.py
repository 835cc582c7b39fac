"""lane-mask rules: *_sync intrinsics with 32-bit masks, __syncwarp, __activemask,
64-bit ballots in 32-bit integers, __popc of a ballot, 1 << lane.

Signatures checked against HIP 5.2 (/usr/include/hip/amd_detail/amd_warp_functions.h,
amd_device_functions.h): __shfl*(var, lane|delta|mask, int width = warpSize),
unsigned long long __ballot(int), int __any(int), int __all(int),
unsigned int __lane_id(), __popcll/__ffsll/__clzll; no *_sync, __syncwarp or
__activemask in HIP 5.2.
"""

from __future__ import annotations

import re

from porter.findings.engine import Hit
from porter.findings.predicates import node_check
from porter.findings.predicates.common import (FULL_MASK, FULL_MASK_NAME, args_of, compact, edit, fix, function_name,
                                               is_full_mask, is_wide_mask)

SHUFFLES = {"__shfl_sync": "__shfl", "__shfl_up_sync": "__shfl_up", "__shfl_down_sync": "__shfl_down",
            "__shfl_xor_sync": "__shfl_xor"}
# the 32-lane half of the 64-bit wave ballot that holds this lane == CUDA's 32-bit warp ballot
HALF = "(__ballot({p}) >> (__lane_id() & 32))"
VOTES = {
    "__ballot_sync": ("((unsigned)" + HALF + ")", "the 32-lane half of `__ballot(p)` that holds this lane"),
    "__any_sync": ("((unsigned)" + HALF + " != 0u)", "a test of this lane's 32-lane half of `__ballot(p)`"),
    "__all_sync": ("((unsigned)" + HALF.replace("{p}", "!({p})") + " == 0u)",
                   "a test that no lane of this lane's 32-lane half fails the predicate"),
}
SYNCWARP = ('(__builtin_amdgcn_fence(__ATOMIC_RELEASE, "wavefront"), __builtin_amdgcn_wave_barrier(), '
            '__builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "wavefront"))')
ACTIVEMASK = "((unsigned)(__ballot(1) >> (__lane_id() & 32)))"


_SYNC_IN_TEXT = re.compile(r"(?<![\w])(__(?:shfl|shfl_up|shfl_down|shfl_xor|ballot|any|all|match_any|match_all|reduce_add|"
                           r"reduce_min|reduce_max|reduce_and|reduce_or|reduce_xor)_sync)\s*\(")


def _text_args(text: str, pos: int) -> tuple[list[tuple[int, int]], int]:
    """(start, end) of each top-level argument of the call whose '(' ends at ``pos``, and the end of the call."""
    depth, start, out = 1, pos, []
    for i in range(pos, len(text)):
        ch = text[i]
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                if text[start:i].strip():
                    out.append((start, i))
                return out, i + 1
        elif ch == "," and depth == 1:
            out.append((start, i))
            start = i + 1
    return out, len(text)


def _strip_span(text: str, span: tuple[int, int]) -> tuple[int, int]:
    s, e = span
    while s < e and text[s].isspace():
        s += 1
    while e > s and text[e - 1].isspace():
        e -= 1
    return s, e


def _in_macro_body(ctx, body):
    """PORT020 for the *_sync calls written in a function-like macro's body."""
    text = ctx.source[body.start_byte:body.end_byte].decode("utf-8", "replace")
    if "_sync" not in text:
        return None
    base = body.start_byte
    hits = []
    for m in _SYNC_IN_TEXT.finditer(text):
        name = m.group(1)
        spans, end = _text_args(text, m.end())
        spans = [_strip_span(text, sp) for sp in spans]
        if not spans:
            continue
        b = lambda i: base + len(text[:i].encode("utf-8"))  # noqa: E731 - byte offset of a character index
        mask = text[spans[0][0]:spans[0][1]]
        value = ctx.macro_value(mask)
        full = bool(FULL_MASK.match(value.replace(" ", "") if value.startswith("(") else value)) or \
            (value not in ctx.macros and bool(FULL_MASK_NAME.match(value)))
        params = {"name": name, "mask": compact(mask, 30)}
        the_fix = None
        if name in SHUFFLES and len(spans) in (3, 4):
            target = SHUFFLES[name]
            width = "32" if len(spans) == 3 else text[spans[3][0]:spans[3][1]]
            edits = [edit(b(m.start(1)), b(m.end(1)), target), edit(b(spans[0][0]), b(spans[1][0]), "")]
            if len(spans) == 3:
                edits.append(edit(b(spans[2][1]), b(spans[2][1]), ", 32"))
            params["advice"] = f"`{target}(var, {'lane' if target == '__shfl' else 'delta'}, {width})`"
            the_fix = fix(f"use the maskless `{target}` with width {width} in the macro (32-lane CUDA semantics on any ROCm)",
                          *edits, safe=full)
        elif name in VOTES and len(spans) == 2:
            template, words = VOTES[name]
            pred = text[spans[1][0]:spans[1][1]]
            replacement = template.format(p=pred)
            params["advice"] = words + f": `{compact(replacement, 80)}`"
            head, tail = replacement.split(pred, 1) if pred else (replacement, "")
            the_fix = fix(f"use {words} in the macro", edit(b(m.start(1)), b(spans[1][0]), head),
                          edit(b(spans[1][1]), b(end), tail), safe=full)
        else:
            params["advice"] = ("no HIP equivalent before ROCm 6.2: compute it with __shfl_xor/__ballot "
                                "(a shuffle reduction, or __match via a ballot loop)")
        if not full and the_fix is not None:
            params["advice"] += "; the mask is not the full warp, so check which lanes take part"
        hits.append(Hit(b(m.start(1)), b(end), params, the_fix))
    return hits


@node_check("PORT020")
def sync_intrinsic(ctx, node, caps):
    if node.type == "preproc_arg":
        return _in_macro_body(ctx, node)
    name = function_name(ctx, node)
    args = args_of(node)
    if not args:
        return None
    mask = args[0]
    params = {"name": name, "mask": compact(ctx.text(mask), 30)}
    full = is_full_mask(ctx, mask)
    wide = is_wide_mask(ctx, mask)
    the_fix = None
    if name in SHUFFLES and len(args) in (3, 4):
        target = SHUFFLES[name]
        fn = node.child_by_field_name("function")
        edits = [edit(fn.start_byte, fn.end_byte, target), edit(mask.start_byte, args[1].start_byte, "")]
        width = "32" if len(args) == 3 else ctx.text(args[3])
        if len(args) == 3:
            edits.append(edit(args[2].end_byte, args[2].end_byte, ", 32"))
        params["advice"] = f"`{target}(var, {'lane' if target == '__shfl' else 'delta'}, {width})`"
        the_fix = fix(f"use the maskless `{target}` with width {width} (32-lane CUDA semantics on any ROCm)",
                      *edits, safe=full)
    elif name in VOTES and len(args) == 2:
        template, words = VOTES[name]
        pred = args[1]
        replacement = template.format(p=ctx.text(pred))
        params["advice"] = words + f": `{compact(replacement, 80)}`"
        head, tail = replacement.split(ctx.text(pred), 1) if ctx.text(pred) else (replacement, "")
        the_fix = fix(f"use {words}", edit(node.start_byte, pred.start_byte, head),
                      edit(pred.end_byte, node.end_byte, tail), safe=full)
    else:
        params["advice"] = ("no HIP equivalent before ROCm 6.2: compute it with __shfl_xor/__ballot "
                            "(a shuffle reduction, or __match via a ballot loop)")
    if not full and the_fix is not None:
        params["advice"] += "; the mask is not the full warp, so check which lanes take part"
    if wide:  # written for ROCm >= 6.2 already: fine there, but not on older HIP
        return Hit(node.start_byte, node.end_byte, params, the_fix, severity="warning")
    return Hit(node.start_byte, node.end_byte, params, the_fix)


@node_check("PORT021")
def syncwarp(ctx, node, caps):
    args = args_of(node)
    full = not args or is_full_mask(ctx, args[0])
    the_fix = fix("a wavefront fence around __builtin_amdgcn_wave_barrier() (what ROCm 6.2's __syncwarp does)",
                  edit(node.start_byte, node.end_byte, SYNCWARP), safe=full)
    return Hit(node.start_byte, node.end_byte, {"mask": "" if not args else compact(ctx.text(args[0]), 30)}, the_fix)


@node_check("PORT022")
def activemask(ctx, node, caps):
    if args_of(node):
        return None
    return Hit(node.start_byte, node.end_byte, {},
               fix("this lane's 32-lane half of `__ballot(1)`", edit(node.start_byte, node.end_byte, ACTIVEMASK)))


_NARROW = re.compile(r"^(?:const\s+)?(?:unsigned(?:\s+int)?|int|uint32_t|int32_t|uint|unsigned\s+long)$")


@node_check("PORT023")
def ballot_in_int(ctx, node, caps):
    decl_type = caps.get("type", [None])[0]
    decl = node.parent.parent if node.parent is not None else None
    if decl_type is None or decl is None:
        return None
    type_text = re.sub(r"\s+", " ", ctx.text(decl_type)).strip()
    if not _NARROW.match(type_text) or type_text == "unsigned long":
        return None
    return Hit(node.start_byte, node.end_byte, {"type": type_text, "name": function_name(ctx, node)},
               fix("declare it `unsigned long long`", edit(decl_type.start_byte, decl_type.end_byte, "unsigned long long"),
                   safe=False))


_WIDE_DECL = r"\b(?:auto|unsigned\s+long\s+long(?:\s+int)?|uint64_t|unsigned\s+long|long\s+long|size_t)\s+{name}\s*=\s*__ballot(?:64)?\s*\("


@node_check("PORT024")
def popc_of_ballot(ctx, node, caps):
    arg = caps["arg"][0]
    name = function_name(ctx, node)
    is_ballot = False
    if arg.type == "call_expression" and re.match(r"^__ballot(64)?$", function_name(ctx, arg)):
        is_ballot = True
    elif arg.type == "identifier":
        fn = ctx.function_of(node)
        if fn is not None:
            body = ctx.text(fn)
            is_ballot = bool(re.search(_WIDE_DECL.format(name=re.escape(ctx.text(arg))), body))
    if not is_ballot:
        return None
    fn_node = node.child_by_field_name("function")
    wide = name + "ll"
    return Hit(node.start_byte, node.end_byte, {"name": name, "wide": wide},
               fix(f"use `{wide}` on the 64-bit ballot", edit(fn_node.start_byte, fn_node.end_byte, wide)))


_WAVE_LANE = re.compile(r"__lane_id\s*\(|%laneid|\bwarpSize\b")


@node_check("PORT025")
def one_shift_lane(ctx, node, caps):
    shift = caps["shift"][0]
    text = ctx.text(shift)
    if not ctx.in_device_code(node):
        return None
    wave_wide = bool(_WAVE_LANE.search(text))
    if not wave_wide and re.match(r"^[A-Za-z_]\w*$", text) and "lane" in text.lower():
        fn = ctx.function_of(node)
        body = ctx.text(fn) if fn is not None else ""
        origin = re.search(r"\b" + re.escape(text) + r"\s*=\s*([^;]+);", body)
        asm_out = re.search(r'"=r"\s*\(\s*' + re.escape(text) + r"\s*\)", body) and "laneid" in body
        wave_wide = bool(origin and _WAVE_LANE.search(origin.group(1))) or bool(asm_out)
    if not wave_wide:
        return None
    one = caps["one"][0]
    return Hit(node.start_byte, node.end_byte, {"expr": compact(ctx.text(node), 40)},
               fix("shift a 64-bit one: `1ull << lane` (and keep the mask in a 64-bit integer)",
                   edit(one.start_byte, one.end_byte, "1ull"), safe=False))
