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

from porter.findings import wave
from porter.findings.engine import Hit
from porter.findings.predicates import node_check
from porter.findings.wave import widths
from porter.findings.wave.name_regex import name_at, word_at
from porter.findings.predicates.mask_variables import full_mask_line
from porter.parse.brackets import call_arguments
from porter.findings.predicates.warpvalues import logical_hint, logical_note, may_mix
from porter.findings.predicates.common import (FULL_MASK, FULL_MASK_NAME, args_of, compact, edit, fix, function_name,
                                               is_full_mask, is_wide_mask, trusted_mask_name)

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
        spans, end = call_arguments(text, m.end())
        spans = [_strip_span(text, sp) for sp in spans]
        if not spans:
            continue
        b = lambda i: base + len(text[:i].encode("utf-8"))  # noqa: E731 - byte offset of a character index
        mask = text[spans[0][0]:spans[0][1]]
        value = ctx.macro_value(mask)
        full = bool(FULL_MASK.match(value.replace(" ", "") if value.startswith("(") else value)) or \
            trusted_mask_name(ctx, value)
        params = {"name": name, "mask": compact(mask, 30)}
        the_fix = None
        if name in SHUFFLES and len(spans) in (3, 4):
            target = SHUFFLES[name]
            p = widths.plan(ctx, b(m.start(1)), name, text[spans[2][0]:spans[2][1]],
                            text[spans[3][0]:spans[3][1]] if len(spans) == 4 else None, full)
            edits = [edit(b(m.start(1)), b(m.end(1)), target), edit(b(spans[0][0]), b(spans[1][0]), "")]
            if len(spans) == 3 and p.width is not None:
                edits.append(edit(b(spans[2][1]), b(spans[2][1]), ", " + p.width))
            params["advice"] = _shuffle_advice(target, p)
            the_fix = fix(_shuffle_fix_text(target, p) + " (in the macro)", *edits, safe=p.safe)
        elif name in VOTES and len(spans) == 2:
            pred = text[spans[1][0]:spans[1][1]]
            vote = _vote_plan(ctx, b(m.start(1)), name, full)
            replacement = vote.template.format(p=pred)
            params["advice"] = vote.words + f": `{compact(replacement, 80)}`" + vote.note
            head, tail = replacement.split(pred, 1) if pred else (replacement, "")
            the_fix = fix(f"use {vote.words} in the macro", edit(b(m.start(1)), b(spans[1][0]), head),
                          edit(b(spans[1][1]), b(end), tail), safe=vote.safe)
        else:
            params["advice"] = ("no HIP equivalent before ROCm 6.2: compute it with __shfl_xor/__ballot "
                                "(a shuffle reduction, or __match via a ballot loop)")
        if not full and the_fix is not None:
            params["advice"] += "; the mask is not the full warp, so check which lanes take part"
        hits.append(Hit(b(m.start(1)), b(end), params, the_fix))
    return hits


def _shuffle_advice(target: str, p) -> str:
    what = "lane" if target == "__shfl" else "delta"
    shown = f"`{target}(var, {what}, {p.width})`" if p.width is not None else f"`{target}(var, {what})` (the default width: the whole wave)"
    advice = f"{shown}: {p.assumes}"
    if p.reach is not None:
        advice += (f"; as written this shuffle is wrong on MI300X: its offset reaches {p.reach[0]} with `warpSize` = 64, "
                   f"which is not below its width {p.reach[1]}, so every lane reads its own value (a sum doubles); "
                   "use the default width or start the loop from the width / 2")
    elif p.mixed is not None:
        advice += (f"; as written this code is wrong on MI300X whatever the port keeps: its shuffles assume 32 lanes "
                   f"but it also follows the 64-lane wave ({p.mixed.describe()}): make both follow `warpSize` "
                   "(offsets from warpSize / 2, lanes % warpSize) or both 32")
    if not p.safe:
        advice += " (a suggestion to review, not applied by --fix)"
    return advice


def _shuffle_fix_text(target: str, p) -> str:
    width = f"width {p.width}" if p.width is not None else "the default width (the whole wave)"
    return f"use the maskless `{target}` with {width}: {p.assumes}"


class _Vote:
    __slots__ = ("template", "words", "safe", "note")

    def __init__(self, template, words, safe, note=""):
        self.template, self.words, self.safe, self.note = template, words, safe, note


_WIDE_VOTES = {"__ballot_sync": ("__ballot({p})", "HIP's 64-bit `__ballot(p)` (the whole wave)"),
               "__any_sync": ("__any({p})", "HIP's `__any(p)` over the whole wave"),
               "__all_sync": ("__all({p})", "HIP's `__all(p)` over the whole wave")}
_WIDE_HOLDER = re.compile(r"^(?:const\s+)?(?:unsigned\s+long\s+long(?:\s+int)?|uint64_t|long\s+long|unsigned\s+long)$")


def _vote_plan(ctx, pos: int, name: str, full: bool, node=None) -> _Vote:
    """The rewrite of a ``*_sync`` vote: the 32-lane half of the wave's ballot keeps CUDA's result
    when no native-wave quantity reaches the code; code that follows `warpSize` gets the whole
    wave's vote (safe for __any/__all; for a ballot only where its value is kept in 64 bits)."""
    template, words = VOTES[name]
    if not may_mix(ctx):
        return _Vote(template, words, full)
    model = wave.model_of(ctx)
    native = model.native_at(pos)
    if native is None:
        return _Vote(template, words, full)
    logical = model.logical_at(pos)
    wide, wide_words = _WIDE_VOTES[name]
    if logical is not None:
        return _Vote(wide, wide_words, False,
                     f"; this code follows the 64-lane wave ({native.describe()}) but also assumes 32 lanes "
                     f"({logical.describe()}): wrong on MI300X whatever the port keeps, make both follow `warpSize`")
    safe = full
    if name == "__ballot_sync":
        safe = full and node is not None and _kept_wide(ctx, node)
    note = f"; the code follows the native wave ({native.describe()})"
    if name == "__ballot_sync" and not safe:
        note += ": keep the ballot in `unsigned long long` and count it with __popcll/__ffsll"
    return _Vote(wide, wide_words, safe, note)


def _kept_wide(ctx, node) -> bool:
    """The call's value goes straight into a 64-bit variable (declared or assigned) or a 64-bit count."""
    parent = node.parent
    if parent is None:
        return False
    if parent.type == "init_declarator" and parent.parent is not None and parent.parent.type == "declaration":
        ty = parent.parent.child_by_field_name("type")
        return ty is not None and bool(_WIDE_HOLDER.match(re.sub(r"\s+", " ", ctx.text(ty)).strip()))
    if parent.type == "argument_list" and parent.parent is not None:
        return re.fullmatch(r"__(?:popc|ffs|clz)ll", function_name(ctx, parent.parent)) is not None
    return False


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
    held = None if full else full_mask_line(ctx, node, mask)  # `int mask = 0xffffffff;` before the call
    full = full or held is not None
    wide = is_wide_mask(ctx, mask)
    the_fix = None
    if name in SHUFFLES and len(args) in (3, 4):
        target = SHUFFLES[name]
        fn = node.child_by_field_name("function")
        p = widths.plan(ctx, node.start_byte, name, ctx.text(args[2]), ctx.text(args[3]) if len(args) == 4 else None,
                        full, node, args[2])
        edits = [edit(fn.start_byte, fn.end_byte, target), edit(mask.start_byte, args[1].start_byte, "")]
        if len(args) == 3 and p.width is not None:
            edits.append(edit(args[2].end_byte, args[2].end_byte, ", " + p.width))
        params["advice"] = _shuffle_advice(target, p)
        the_fix = fix(_shuffle_fix_text(target, p), *edits, safe=p.safe)
    elif name in VOTES and len(args) == 2:
        pred = args[1]
        vote = _vote_plan(ctx, node.start_byte, name, full, node)
        replacement = vote.template.format(p=ctx.text(pred))
        params["advice"] = vote.words + f": `{compact(replacement, 80)}`" + vote.note
        head, tail = replacement.split(ctx.text(pred), 1) if ctx.text(pred) else (replacement, "")
        the_fix = fix(f"use {vote.words}", edit(node.start_byte, pred.start_byte, head),
                      edit(pred.end_byte, node.end_byte, tail), safe=vote.safe)
    else:
        params["advice"] = ("no HIP equivalent before ROCm 6.2: compute it with __shfl_xor/__ballot "
                            "(a shuffle reduction, or __match via a ballot loop)")
    if not full and the_fix is not None:
        params["advice"] += "; the mask is not the full warp, so check which lanes take part"
    elif held is not None:
        params["advice"] += f" (`{params['mask']}` holds the full warp's mask, set at line {held} and never changed)"
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
    native = wave.model_of(ctx).native_at(node.start_byte) if may_mix(ctx) else None
    if native is None:  # nothing here follows the wave: CUDA's 32-lane answer, exactly
        return Hit(node.start_byte, node.end_byte, {"note": ""},
                   fix("this lane's 32-lane half of `__ballot(1)`", edit(node.start_byte, node.end_byte, ACTIVEMASK)))
    safe = _kept_wide(ctx, node) and wave.model_of(ctx).logical_at(node.start_byte) is None
    return Hit(node.start_byte, node.end_byte,
               {"note": f"; this code follows the 64-lane wave ({native.describe()}), so it wants the whole wave's "
                        "64-bit mask: `__ballot(1)` kept in `unsigned long long`"},
               fix("the whole wave's active lanes, `__ballot(1)` (64 bits)", edit(node.start_byte, node.end_byte,
                                                                               "__ballot(1)"), safe=safe))


_NARROW = re.compile(r"^(?:const\s+)?(?:unsigned(?:\s+int)?|int|uint32_t|int32_t|uint|unsigned\s+long)$")


@node_check("PORT023")
def ballot_in_int(ctx, node, caps):
    if "var" in caps:  # int mask; ... mask = __ballot_sync(...)
        return _assigned_mask(ctx, node, ctx.text(caps["var"][0]))
    decl_type = caps.get("type", [None])[0]
    decl = node.parent.parent if node.parent is not None else None
    if decl_type is None or decl is None:
        return None
    type_text = re.sub(r"\s+", " ", ctx.text(decl_type)).strip()
    if not _NARROW.match(type_text) or type_text == "unsigned long":
        return None
    name = function_name(ctx, node)
    if name.startswith("__ballot") and not name.endswith("_sync"):
        return Hit(node.start_byte, node.end_byte, {"type": type_text, "name": name,
                                                    "what": "returns a 64-bit mask on wave64", "note": ""},
                   fix("declare it `unsigned long long`", edit(decl_type.start_byte, decl_type.end_byte,
                                                                "unsigned long long"), safe=False))
    # a CUDA ballot, match or active mask is 32 bits; wrong only where the code follows the 64-lane wave
    native = wave.model_of(ctx).native_at(node.start_byte) if may_mix(ctx) else None
    if native is None:
        return None
    return Hit(node.start_byte, node.end_byte,
               {"type": type_text, "name": name,
                "what": "is a 32-lane mask in CUDA, but this code also follows the 64-lane wave "
                        f"({native.describe()}), whose mask has 64 bits",
                "note": ": wrong on MI300X whatever the port keeps; keep it in `unsigned long long` from HIP's "
                        "`__ballot` and count it with __popcll/__ffsll"},
               fix("declare it `unsigned long long` (and take HIP's 64-bit `__ballot`)",
                   edit(decl_type.start_byte, decl_type.end_byte, "unsigned long long"), safe=False))


_DECL_OF = r"(?:^|[;{{}}(,]|\n)\s*((?:const\s+)?(?:unsigned(?:\s+int)?|int|uint32_t|int32_t|uint|unsigned\s+long(?:\s+long)?|long\s+long|uint64_t|auto))\s+(?:[A-Za-z_]\w*\s*(?:=[^,;]*)?,\s*)*{name}\s*[;,=]"


def _assigned_mask(ctx, node, var: str):
    """``mask = __ballot_sync(...)`` (or a match or active mask) into a 32-bit variable declared
    earlier in the function, in code that also follows the 64-lane wave."""
    name = function_name(ctx, node)
    if not name.endswith("_sync") and name != "__activemask":
        return None
    fn = ctx.function_of(node)
    if fn is None or not may_mix(ctx):
        return None
    before = ctx.source[fn.start_byte:node.start_byte]
    found = list(re.finditer(_DECL_OF.format(name=re.escape(var)).encode(), before))
    if not found:
        return None
    m = found[-1]
    type_text = re.sub(r"\s+", " ", m.group(1).decode("utf-8", "replace")).strip()
    if not _NARROW.match(type_text) or type_text == "unsigned long":
        return None
    native = wave.model_of(ctx).native_at(node.start_byte)
    if native is None:
        return None
    start, end = fn.start_byte + m.start(1), fn.start_byte + m.end(1)
    line = ctx.index.line_of(node.start_byte)
    return Hit(start, end,  # at the declaration: its type is what must change
               {"type": type_text, "name": name,
                "what": "is a 32-lane mask in CUDA, but this code also follows the 64-lane wave "
                        f"({native.describe()}), whose mask has 64 bits",
                "note": f" (`{var}` gets it at line {line}): wrong on MI300X whatever the port keeps; keep it "
                        "in `unsigned long long` from HIP's `__ballot` and count it with __popcll/__ffsll"},
               fix("declare it `unsigned long long`", edit(start, end, "unsigned long long"), safe=False))


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
    fn_node = node.child_by_field_name("function")
    wide = name + "ll"
    if not is_ballot:
        return _narrow_mask_count(ctx, node, arg, name, wide, fn_node)
    # __popcll counts the whole wave: HIP code written for the native wave; code that keeps 32-lane
    # logical warps needs its half instead, so the fix is safe only where nothing assumes 32 lanes
    logical = wave.model_of(ctx).logical_at(node.start_byte) if logical_hint(ctx) else None
    note = ""
    if logical is not None:
        note = (f"; this code also assumes 32 lanes ({logical.describe()}): if it keeps 32-lane logical warps, "
                "count this lane's half instead: `__popc((unsigned)(__ballot(p) >> (__lane_id() & 32)))`")
    return Hit(node.start_byte, node.end_byte, {"name": name, "wide": wide, "note": note,
                                                "what": "takes 32 bits, so lanes 32..63 of the 64-bit ballot are lost"},
               fix(f"use `{wide}` on the 64-bit ballot (the whole wave's count)",
                   edit(fn_node.start_byte, fn_node.end_byte, wide), safe=logical is None))


_MASK_SOURCE = r"__(?:ballot_sync|match_any_sync|match_all_sync|activemask)\s*\("


def _narrow_mask_count(ctx, node, arg, name, wide, fn_node):
    """``__popc(ballot)`` / ``__ffs(active & below)`` on a CUDA ballot, match or active mask (a call, or a
    variable of the function set from one) in code that also follows the 64-lane wave."""
    if not ctx.in_device_code(node):
        return None
    text = ctx.text(arg)
    found = re.search(_MASK_SOURCE, text) is not None
    if not found:
        fn = ctx.function_of(node)
        if fn is None:
            return None
        body = ctx.text(fn)
        for ident in set(re.findall(r"(?<![\w.])[A-Za-z_]\w*", text)):
            if re.search(name_at([ident]) + r"\s*=\s*(?:\(\s*\w[\w\s]*\)\s*)?" + _MASK_SOURCE, body):
                found = True
                break
    if not found:
        return None
    native = wave.model_of(ctx).native_at(node.start_byte) if may_mix(ctx) else None
    if native is None:  # a 32-lane place, consistent while the code keeps 32-lane logical warps
        return Hit(node.start_byte, node.end_byte,
                   {"name": name, "wide": wide, "what": "counts a 32-lane mask (a CUDA ballot, match or active mask)",
                    "note": " and a 64-bit mask in a wave64 rewrite; while the code keeps 32-lane logical warps the count is right: "
                            "porter's vote fixes give each 32-lane half of the wave its own 32-bit mask"},
                   severity="info")
    return Hit(node.start_byte, node.end_byte,
               {"name": name, "wide": wide, "what": "takes 32 bits, so lanes 32..63 of the wave's mask are lost",
                "note": f" on a 64-bit mask: this code also follows the 64-lane wave ({native.describe()}), so a 32-bit "
                        "mask and count are wrong on MI300X whatever the port keeps"},
               fix(f"use `{wide}` on a 64-bit mask (HIP's `__ballot`)", edit(fn_node.start_byte, fn_node.end_byte, wide),
                   safe=False))


_WAVE_LANE = re.compile(r"__lane_id\s*\(|%laneid|\bwarpSize\b")


_LANE32 = re.compile(r"&\s*\(?\s*(?:31|0[xX]1[fF])[uU]?\b|%\s*32[uU]?\b")
_WHY_WAVE = ("but the lane can be 32..63 on a wave64 GPU (a shift by 32 or more is undefined); use `1ull << lane` and "
             "a 64-bit mask")
_WHY_32 = ("for a lane numbered within a 32-lane warp (0..31): right while the code keeps 32-lane logical warps "
           "(ballots split per 32 lanes); a wave64 rewrite numbers lanes 0..63 and needs `1ull << lane` and a 64-bit mask")


@node_check("PORT025")
def one_shift_lane(ctx, node, caps):
    shift = caps["shift"][0]
    text = ctx.text(shift).strip()
    while text.startswith("(") and text.endswith(")"):
        text = text[1:-1].strip()  # (1 << (lane)) - 1
    if not ctx.in_device_code(node):
        return None
    wave_wide = bool(_WAVE_LANE.search(text))
    lane32 = False
    if not wave_wide and re.match(r"^[A-Za-z_]\w*$", text) and "lane" in text.lower():
        fn = ctx.function_of(node)
        body = ctx.text(fn) if fn is not None else ""
        origin = re.search(word_at([text]) + r"\s*=\s*([^;]+);", body)
        asm_out = re.search(r'"=r"\s*\(\s*' + re.escape(text) + r"\s*\)", body) and "laneid" in body
        wave_wide = bool(origin and _WAVE_LANE.search(origin.group(1))) or bool(asm_out)
        lane32 = bool(origin and _LANE32.search(origin.group(1)))
    if not wave_wide and not lane32:
        return None
    one = caps["one"][0]
    if wave_wide:  # a lane of 0..63 shifted in 32 bits: undefined for half the wave, whatever the port
        return Hit(node.start_byte, node.end_byte, {"expr": compact(ctx.text(node), 40), "why": _WHY_WAVE, "note": ""},
                   fix("shift a 64-bit value: `1ull << lane` / `~0ull << lane` (and keep the mask in a 64-bit integer)",
                       edit(one.start_byte, one.end_byte, "1ull" if ctx.text(one).startswith("1") else "~0ull"),
                       safe=False), severity="error")
    # a lane of 0..31 in a 32-bit mask is consistent in itself: a 32-lane place, not a broken one
    note, severity = logical_note(ctx)
    return Hit(node.start_byte, node.end_byte, {"expr": compact(ctx.text(node), 40), "why": _WHY_32, "note": note},
               severity=severity)


_ALL32 = re.compile(r"^\(?\s*0[xX][fF]{8}[uU]?[lL]{0,2}\s*\)?$")
_MASK_USE = r"__(?:shfl|shfl_up|shfl_down|shfl_xor|ballot|any|all|match_any|match_all|reduce_\w+)_sync\s*\(\s*{name}\s*,"


@node_check("PORT026")
def all_lanes_mask(ctx, node, caps):
    """A named 32-bit all-lanes mask used as a warp intrinsic's mask (or named as a mask)."""
    name = ctx.text(caps["name"][0])
    value = re.sub(r"//.*|/\*.*?\*/", "", ctx.text(caps["value"][0])).strip()
    if not _ALL32.match(value):
        return None
    pattern = re.compile(_MASK_USE.format(name=re.escape(name)).encode())
    code = wave.code_of(ctx)
    uses = [m.start() for m in pattern.finditer(code)]
    if not uses and not (FULL_MASK_NAME.match(name) or "mask" in name.lower()):
        return None
    model = wave.model_of(ctx) if uses and may_mix(ctx) else None
    native = next((e for e in (model.native_at(u) for u in uses) if e is not None), None) if model else None
    if native is not None:
        note = (f"; here it meets code that follows the 64-lane wave ({native.describe()}): as a mask it leaves "
                "lanes 32..63 out, wrong on MI300X whatever the port keeps")
        severity = "error"
    else:
        note = ("; while the code keeps 32-lane logical warps porter's maskless fixes drop it (each 32-lane half "
                "of a wave is one CUDA warp)")
        severity = None
    return Hit(node.start_byte, node.end_byte, {"name": name, "value": value, "note": note}, severity=severity)


# ---------------------------------------------------------------- PORT028: lane-mask helpers with a 32-bit result
_HELPER_NARROW = re.compile(r"^(?:unsigned(?:\s+int)?|int|uint32_t|int32_t|uint|signed(?:\s+int)?)$")
_PTX_LANEMASK = re.compile(r"%%?lanemask_(?:lt|le|gt|ge|eq)\b")
_SHIFTED_ONE = re.compile(r"^(?:[12][uU]?|~0[uU]?|-1|0[xX][fF]{8}[uU]?)<<(.+)$")
_LANE_EXPR = re.compile(r"(?:threadIdx\.x|tid)\w*(?:&(?:31|0[xX]1[fF])[uU]?|%(?:32[uU]?|warpSize))$")
_RETURN = re.compile(r"\breturn\s+([^;]+);")


def _unparen(text: str) -> str:
    """``text`` without the parentheses that enclose all of it."""
    while text.startswith("(") and text.endswith(")"):
        depth = 0
        for i, c in enumerate(text):
            depth += c == "("
            depth -= c == ")"
            if depth == 0 and i < len(text) - 1:
                return text  # (a) - (b)
        text = text[1:-1]
    return text


def _mask_lane(expr: str) -> str | None:
    """The lane of a ``1 << lane``-shaped mask (``(1u << lane) - 1``, ``~0u << lane``, ``~((1 << lane) - 1)``),
    or None when ``expr`` is not one."""
    e = re.sub(r"\s+", "", expr)
    e = _unparen(e)
    if e.startswith("~("):
        e = _unparen(e[1:])
    e = re.sub(r"-1[uU]?$", "", e) if re.search(r"\)-1[uU]?$", e) else e
    m = _SHIFTED_ONE.match(_unparen(e))
    if m is None:
        return None
    lane = _unparen(re.sub(r"\+1$", "", _unparen(m.group(1))))  # lanemask_le/gt: 1 << (lane + 1)
    if _WAVE_LANE.search(lane) or _LANE_EXPR.search(lane) or (re.match(r"^[A-Za-z_]\w*$", lane) and "lane" in lane.lower()):
        return lane
    return None


def _lane_mask_body(body: str) -> tuple[bool, bool] | None:
    """(returns a lane mask, its lane is the wave's own: warpSize, __lane_id(), %laneid) for a function body."""
    if _PTX_LANEMASK.search(body) and "return" in body:
        return True, False  # PTX's 32-lane register: which wave it means is the callers' to say
    for m in _RETURN.finditer(body):
        expr = m.group(1).strip()
        if re.match(r"^[A-Za-z_]\w*$", expr):  # return mask; with mask = (1u << lane) - 1
            origin = re.search(word_at([expr]) + r"\s*=\s*([^;=][^;]*);", body)
            expr = origin.group(1) if origin else expr
        lane = _mask_lane(expr)
        if lane is None:
            continue
        if _WAVE_LANE.search(lane):
            return True, True
        origin = re.search(word_at([lane]) + r"\s*=\s*([^;]+);", body) if re.match(r"^\w+$", lane) else None
        asm_out = re.search(r'"=r"\s*\(\s*' + re.escape(lane) + r"\s*\)", body) and "laneid" in body
        return True, bool(origin and _WAVE_LANE.search(origin.group(1))) or bool(asm_out)
    return None


_NARROW_VAR = r"((?:unsigned(?:\s+int)?|int|uint32_t|int32_t|uint))"
_CALL_DECL = re.compile(r"(?:^|[;{}(,]|\n)\s*(?:const\s+)?" + _NARROW_VAR + r"\s+(?:const\s+)?[A-Za-z_]\w*\s*=\s*$")
_CALL_ASSIGN = re.compile(r"(?<![\w.>])([A-Za-z_]\w*)\s*=\s*$")


@node_check("PORT028")
def lane_mask_helper(ctx, node, caps):
    type_node, name_node = caps["type"][0], caps["name"][0]
    type_text = re.sub(r"\s+", " ", ctx.text(type_node)).strip()
    if not _HELPER_NARROW.match(type_text):
        return None
    body = node.child_by_field_name("body")
    if body is None:
        return None
    found = _lane_mask_body(ctx.text(body))
    if found is None:
        return None
    _mask, own_lane = found
    name = ctx.text(name_node)
    model = wave.model_of(ctx) if may_mix(ctx) else None
    native = model.native_at(body.start_byte) if model is not None else None
    if not own_lane and native is None:
        return None  # 32-lane logical code (lanes from & 31) or wave-agnostic code: a 32-bit mask is consistent
    why = ("its lane comes from the 64-lane wave" + (f" ({native.describe()})" if native else "")) if own_lane \
        else f"the code that reaches it follows the 64-lane wave ({native.describe()})"
    hits = [Hit(type_node.start_byte, type_node.end_byte,
                {"subject": f"`{name}()`", "what": f"returns a lane mask as `{type_text}`",
                 "note": f"; {why}: wrong on MI300X whatever the port keeps"},
                fix("return `unsigned long long`", edit(type_node.start_byte, type_node.end_byte, "unsigned long long"),
                    safe=False))]
    return hits + _narrow_callers(ctx, model, name, own_lane)


def _narrow_callers(ctx, model, name: str, own_lane: bool) -> list[Hit]:
    """The calls of helper ``name`` in the scanned file whose result initialises or is assigned to a
    32-bit variable, where the helper's lane is the wave's own or the caller follows the 64-lane wave."""
    if model is None:
        model = wave.model_of(ctx)
    code = wave.code_of(ctx)
    out = []
    for f in model.index.functions:
        if f.file != "" or f.macro:
            continue
        for pos, callee, kind in f.calls:
            if callee != name or kind != b"(":
                continue
            native = model.native_at(pos)
            if not own_lane and native is None:
                continue
            before = bytes(code[f.body_start:pos]).decode("utf-8", "replace")
            head = before[-200:]
            m = _CALL_DECL.search(head)
            if m is not None:
                start = pos - len(head.encode()) + len(head[:m.start(1)].encode())
                end = start + len(m.group(1).encode())
                var_line = None
            else:
                a = _CALL_ASSIGN.search(head)
                if a is None:
                    continue
                var = a.group(1)
                decls = list(re.finditer(_DECL_OF.format(name=re.escape(var)), before))
                if not decls:
                    continue
                d = decls[-1]
                if not _HELPER_NARROW.match(re.sub(r"\s+", " ", d.group(1)).strip()):
                    continue
                start = f.body_start + len(before[:d.start(1)].encode())
                end = start + len(d.group(1).encode())
                var_line = ctx.index.line_of(pos)
            type_text = re.sub(r"\s+", " ", ctx.source[start:end].decode("utf-8", "replace"))
            where = f" (it gets `{name}()` at line {var_line})" if var_line else ""
            reason = f"this code follows the 64-lane wave ({native.describe()})" if native is not None \
                else "the helper's lane comes from the 64-lane wave"
            out.append(Hit(start, end,
                           {"subject": f"`{type_text}`{where}", "what": f"holds the lane mask `{name}()` returns",
                            "note": f"; {reason}: wrong on MI300X whatever the port keeps"},
                           fix("declare it `unsigned long long`", edit(start, end, "unsigned long long"), safe=False)))
    return out
