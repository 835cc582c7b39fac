"""warp-size rules: 32 (31, >> 5, 16 as the first shuffle offset) used as the warp width."""

from __future__ import annotations

import re

from porter.findings import values, wave
from porter.findings.wave import offsets, passed, ranges
from porter.findings.wave.name_regex import name_at, word_at
from porter.findings.engine import Hit
from porter.findings.predicates import node_check
from porter.findings.predicates.common import args_of, compact, edit, fix, function_name
from porter.findings.predicates.warpvalues import definition_fix, logical_note, may_mix, wave_note

_SHUFFLE = re.compile(r"^__shfl(_up|_down|_xor)?(_sync)?$")
_LANE_SOURCE = re.compile(r"(?:threadIdx|blockDim)\s*\.\s*[xyz]|\b(?:tid|ltid|thread_?id\w*|threadId\w*|local_?tid|lane\w*|\w*_tid|tid_\w*|\w*[Ll]ane(?:_?[Ii]d)?)\b")
_WARPISH_INDEX = re.compile(r"\b(?:warp\w*|wid|w_id|\w*[Ww]arp(?:_?[Ii]d)?|lane\w*|\w*[Ll]ane(?:_?[Ii]d)?)\b|>>\s*5\b|/\s*32\b|&\s*31\b")
_THIRTY_TWO = ("32", "32u", "32U")
_NAME = re.compile(r"[A-Za-z_]\w*")


def _macro_value(ctx, text: str) -> str:
    """``ctx.macro_value(text)`` without reading the unit's macros (its project headers' constants)
    where it cannot name one: a text with no parenthesis that is no name is its own value."""
    stripped = text.strip()
    if "(" not in stripped and not _NAME.fullmatch(stripped):
        return stripped
    return ctx.macro_value(text)


@node_check("PORT010")
def warp_size_macro(ctx, node, caps):
    value_node = caps["value"][0]
    value = _macro_value(ctx, ctx.text(value_node).split("//")[0].split("/*")[0])
    if not re.match(r"^32[uU]?$", value):
        return None
    name_node = caps["name"][0]
    name = ctx.text(name_node)
    defs = values.unit_of(ctx).consts.get(name, ())
    if len({values.evaluate(c.expr, values.unit_of(ctx).lookup) for c in defs}) > 1:
        return None  # also defined with another value (an #if for AMD): ported already
    note, severity = logical_note(ctx)
    the_fix = None
    reason = ""
    literal = _LITERAL_32.search(ctx.source, value_node.start_byte) if node.type == "preproc_def" else None
    if node.type != "preproc_def":
        start, end = value_node.start_byte, value_node.end_byte
    elif literal is not None and literal.end() <= value_node.end_byte:
        start, end = literal.span()
    else:
        start = end = -1  # defined through another name
    if start >= 0:
        line_end = node.end_byte
        text = ctx.source[node.start_byte:line_end].decode("utf-8", "replace").rstrip("\n")
        reason, the_fix = definition_fix(ctx, name, name_node.start_byte, start, end, node.type == "preproc_def",
                                         (node.start_byte, node.start_byte + len(text.encode()), text))
    advice = f" ({reason})" if reason else ""
    return Hit(node.start_byte, node.end_byte, {"name": name, "note": note, "advice": advice}, the_fix, severity=severity)


_OTHER_CALL = re.compile(r"(?<![\w.])(?!__shfl)[A-Za-z_]\w*\s*\(")
_LITERAL_32 = re.compile(rb"\b32[uU]?\b")
_FLOAT_32 = re.compile(r"^32(?:\.0*)?f?$")  # blockDim.x / 32.f
_BLOCK_DIM = re.compile(r"blockDim\s*\.\s*[xyz]")
_ARITH = {("&", "31"), ("&", "0x1f"), ("%", "32"), (">>", "5"), ("/", "32")}


_COMPARISONS = {"==", "!=", ">", ">=", "<", "<="}
_LANE_NAME = re.compile(r"(?<![\w.])(?:\w*[Ll]ane(?:_?[Ii]d|_?[Ii]dx|_?[Ii]ndex)?|LANE\w*|lid)(?![\w(])")
_LANE_TEST_WAVE = {"31": "warpSize - 1", "32": "warpSize"}


def _lane_test(ctx, node, caps, op: str, n: str):
    """``lane == 31``, ``(lane + d) > 31``, ``lane < 32``: a test against the last lane or the width of
    a 32-lane warp, on a lane number (not a loop's own bound: PORT014's)."""
    lhs = caps["lhs"][0]
    lhs_text = ctx.text(lhs)
    if _LANE_SOURCE_WAVE.search(lhs_text):
        return None
    if not _LANE_NAME.search(lhs_text) and not _lane_by_definition(ctx, node, lhs_text):
        return None
    parent = node.parent
    if parent is not None and parent.type == "for_statement" and _within_field(node, parent, "condition"):
        return None
    if not ctx.in_device_code(node) or not _uses_warp_primitives(ctx):
        return None
    note, severity = wave_note(ctx, node.start_byte)
    wave = f"{compact(lhs_text, 30)} {op} {_LANE_TEST_WAVE[n]}"
    return Hit(node.start_byte, node.end_byte, {"expr": compact(ctx.text(node), 40),
                                                "kind": "last-lane test" if n == "31" else "lane-range test",
                                                "wave64": wave, "note": note}, severity=severity)


_LANE_SOURCE_WAVE = re.compile(r"warpSize|__lane_id")
_LANE_DEF = re.compile(r"^\(?\s*(.+?)\s*(?:&\s*\(?\s*(31|63|0[xX]1[fF]|0[xX]3[fF])|%\s*(32|64))[uU]?\s*\)?$", re.S)
_WARP_CALL = re.compile(r"__shfl|__ballot|__any|__all|__activemask|__match_")


def _lane_by_definition(ctx, node, name: str) -> bool:
    """``name`` is a lane by what it holds, whatever it is called: its one definition in the function is a
    thread index masked to a 32-lane warp (``tid & 31``, ``threadIdx.x % 32``) or to a group of two
    (``tid & 63``, in a function that uses warp primitives: a test against 32 splits it into warps)."""
    if not re.fullmatch(r"[A-Za-z_]\w*", name):
        return False
    fn = ctx.function_of(node)
    if fn is None:
        return False
    body = ctx.text(fn)
    defs = re.findall(name_at([name]) + r"\s*=(?!=)\s*([^;]*);", body)
    if len(defs) != 1:
        return False
    m = _LANE_DEF.match(defs[0].strip())
    if m is None or not _LANE_SOURCE.search(m.group(1)) or _LANE_SOURCE_WAVE.search(m.group(1)):
        return False
    if (m.group(2) or m.group(3)).lower() in ("63", "0x3f", "64"):
        return _WARP_CALL.search(body) is not None
    return True
_WARP_NUMBER = re.compile(r"^\(?\s*(?:\w*[Ww]arp(?:_?[Ii]d|_?[Ii]dx|_?[Ii]ndex|_?[Nn]um)?|WARP_?ID|wid|w_id|warpid)\s*\)?$")


def _warp_stride(ctx, node, caps):
    """``warp * 32``: the first lane of warp ``warp`` counted in 32-lane warps."""
    lhs_text = ctx.text(caps["lhs"][0]).strip()
    if not _WARP_NUMBER.match(lhs_text) or "warpSize" in lhs_text or not ctx.in_device_code(node):
        return None
    if not _uses_warp_primitives(ctx):
        return None
    note, severity = wave_note(ctx, node.start_byte)
    return Hit(node.start_byte, node.end_byte, {"expr": compact(ctx.text(node), 40), "kind": "warp stride",
                                                "wave64": f"{lhs_text} * warpSize", "note": note}, severity=severity)


def _within_field(node, parent, name) -> bool:
    child = parent.child_by_field_name(name)
    return child is not None and child.start_byte <= node.start_byte and node.end_byte <= child.end_byte


@node_check("PORT011")
def lane_arithmetic(ctx, node, caps):
    op = ctx.text(caps["op"][0])
    n = _FLOAT_32.sub("32", ctx.text(caps["n"][0]).rstrip("uU").lower())
    if op in _COMPARISONS:
        return _lane_test(ctx, node, caps, op, n) if n in _LANE_TEST_WAVE else None
    if op == "*":
        return _warp_stride(ctx, node, caps) if n == "32" else None
    if (op, n) not in _ARITH:
        return None
    lhs_text = ctx.text(caps["lhs"][0])
    if not _LANE_SOURCE.search(lhs_text) or not ctx.in_device_code(node):
        return None
    if not _uses_warp_primitives(ctx):
        return None  # e.g. `threadIdx.x % 32` in a 32-wide tile: not warp arithmetic
    kind = "lane index" if op in ("&", "%") else "warp index"
    if _BLOCK_DIM.search(lhs_text) and not re.search(r"threadIdx", lhs_text):
        kind = "warp count"
    wave = "__lane_id()" if op in ("&", "%") else f"{compact(lhs_text, 30)} / warpSize"
    note, severity = wave_note(ctx, node.start_byte)
    return Hit(node.start_byte, node.end_byte, {"expr": compact(ctx.text(node), 40), "kind": kind, "wave64": wave,
                                                "note": note}, severity=severity)


# what says a file works with warps, outside comments and literals: these words (``warp`` and ``Warp`` at
# the start of a word; ``__reduce_`` as ``__reduce_<op>_sync``), most frequent first.  Each is found with
# bytes.find, which skips through the text: one regular expression of them (no common prefix) tried at
# every byte cost several times more (`%laneid` holds `lane`)
_WARP_FINDS = (b"__shfl", b"warp", b"lane", b"Warp", b"Lane", b"WARP", b"LANE", b"__ballot", b"__syncwarp", b"__any",
               b"__all", b"__activemask", b"__match_", b"__popc", b"__reduce_", b"tiled_partition", b"thread_block_tile")
_WORD_START = (b"warp", b"Warp")
_REDUCE_SYNC = re.compile(rb"__reduce_\w+_sync")
_WORD_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")


def _uses_warp_primitives(ctx) -> bool:
    """The file works with warps (shuffles, votes, warp or lane names)."""
    if "warp_words" not in ctx.cache:
        ctx.cache["warp_words"] = _has_warp_word(ctx.source, ctx.index.is_protected)
    return ctx.cache["warp_words"]


def _has_warp_word(source: bytes, protected) -> bool:
    for word in _WARP_FINDS:
        pos = source.find(word)
        while pos >= 0:
            if (word not in _WORD_START or pos == 0 or source[pos - 1] not in _WORD_BYTES) and \
                    (word != b"__reduce_" or _REDUCE_SYNC.match(source, pos)) and not protected(pos):
                return True
            pos = source.find(word, pos + 1)
    return False


def _shuffles(ctx, body, var: str, wrappers: dict | None = None):
    """Shuffle calls in ``body`` that use ``var`` in an argument: (call, name, args); with
    ``wrappers`` (name -> passes width 32) also calls of macros and functions that shuffle."""
    stack = [body]
    pattern = re.compile(r"\b" + re.escape(var) + r"\b")
    while stack:
        n = stack.pop()
        if n.type == "call_expression":
            fn = function_name(ctx, n)
            if _SHUFFLE.match(fn) or (wrappers and fn in wrappers):
                args = args_of(n)
                if any(pattern.search(ctx.text(a)) for a in args):
                    yield n, fn, args
        stack.extend(n.named_children)


def _width_is_32(ctx, fn: str, args) -> bool:
    width_index = 3 if fn.endswith("_sync") else 2
    if len(args) <= width_index:
        return False
    text = ctx.text(args[width_index])
    return _macro_value(ctx, text) in _THIRTY_TWO or values.unit_of(ctx).value_of(text) == 32


@node_check("PORT012")
def shuffle_loop_from_16(ctx, node, caps):
    if "fn" in caps:
        return _unrolled_16(ctx, node, caps)
    if "base" in caps:
        return _unrolled_shared(ctx, node, caps)
    var = ctx.text(caps["var"][0])
    body = caps["body"][0]
    edits = []
    needs = False
    # the unit's shuffle wrappers matter only when the body calls something else than a shuffle
    body_text = ctx.text(body)
    wrappers = values.unit_of(ctx).wrappers if _OTHER_CALL.search(body_text) else {}
    for call, fn, args in _shuffles(ctx, body, var, wrappers):
        if fn in wrappers and not _SHUFFLE.match(fn):
            if not wrappers[fn]:
                needs = True  # a macro or function that shuffles with the default (wave) width
            continue
        if _width_is_32(ctx, fn, args):
            continue  # already explicit 32-lane semantics
        needs = True
        if not fn.endswith("_sync") and len(args) == 2:
            edits.append(edit(args[1].end_byte, args[1].end_byte, ", 32"))
    if not needs:
        return None
    start = caps["start"][0]
    the_fix = fix("give the shuffles an explicit width of 32 (32-lane CUDA semantics)", *edits) if edits else None
    note, severity = wave_note(ctx, node.start_byte)
    if severity == "error" and the_fix is not None:
        the_fix = fix(the_fix.description + " (a suggestion: this code also follows warpSize)", *edits, safe=False)
    return Hit(start.start_byte, start.end_byte, {"var": var, "what": _LOOP_16, "advice": _ADVICE_16, "note": note},
               the_fix, severity=severity)


_LOOP_16 = "this shuffle reduction starts at offset 16, so it"
_ADVICE_16 = ("Give the shuffles an explicit width of 32 to keep CUDA's result, or start at warpSize / 2 for a full "
              "wave64 reduction")
_STEPS = "1 2 4 8".split()


def _unrolled_shared(ctx, node, caps):
    """``s[i] = t += s[i - 16];`` ending an unrolled 1, 2, 4, 8, 16 sequence over a shared array, in code
    that follows warpSize: a 32-lane scan or reduction where the wave has 64 lanes."""
    base = ctx.text(caps["base"][0])
    if not ctx.in_device_code(node) or not may_mix(ctx):
        return None
    fn = ctx.function_of(node)
    if fn is None:
        return None
    body = ctx.text(fn)
    b = re.escape(base)
    if not all(re.search(b + r"\s*\[[^\]]*[-+]\s*" + k + r"\s*\]", body) for k in _STEPS):
        return None
    if re.search(b + r"\s*\[[^\]]*[-+]\s*32\s*\]", body):
        return None  # the step for 64 lanes is there
    native = wave.model_of(ctx).native_at(node.start_byte)
    if native is None:
        return None
    note, severity = wave_note(ctx, node.start_byte, native)
    return Hit(node.start_byte, node.end_byte,
               {"var": base, "what": f"this unrolled scan or reduction over `{base}` (steps 1, 2, 4, 8, 16)",
                "advice": "Add the step of 32 for a 64-lane wave (or guard it with `if (warpSize > 32)`)",
                "note": note}, severity=severity)


def _unrolled_16(ctx, node, caps):
    fn = ctx.text(caps["fn"][0])
    args = args_of(node)
    delta_index = 2 if fn.endswith("_sync") else 1
    if len(args) <= delta_index or _macro_value(ctx, ctx.text(args[delta_index])) not in ("16", "16u", "16U"):
        return None
    if _width_is_32(ctx, fn, args):
        return None
    the_fix = None
    note, severity = wave_note(ctx, node.start_byte)
    if not fn.endswith("_sync") and len(args) == 2:
        the_fix = fix("give the shuffle an explicit width of 32 (32-lane CUDA semantics)",
                      edit(args[1].end_byte, args[1].end_byte, ", 32"), safe=severity != "error")
    return Hit(args[delta_index].start_byte, args[delta_index].end_byte,
               {"var": "offset", "what": "this unrolled shuffle reduction starts at offset 16, so it",
                "advice": _ADVICE_16, "note": note}, the_fix, severity=severity)


@node_check("PORT013")
def shared_per_warp(ctx, node, caps):
    if "base" in caps:
        return _shared_carve_out(ctx, node, caps)
    size = caps["size"][0]
    decl = node.child_by_field_name("declarator")
    if decl is None or decl.type != "array_declarator":
        return None
    inner = decl.child_by_field_name("declarator")
    if inner is None or inner.type != "identifier":
        return None  # 2-D tiles are not per-warp slots
    overrun = _overrun(ctx, node, ctx.text(inner), ctx.text(size))
    if overrun is not None:
        return overrun
    size_text = ctx.text(size)
    value = _macro_value(ctx, size_text)
    per_warp = bool(re.search(r"(?:/\s*32[uU]?|>>\s*5)\s*$", value))
    if not per_warp and "/" in size_text:
        per_warp = _macro_value(ctx, size_text.rsplit("/", 1)[1]) in _THIRTY_TWO
    name = ctx.text(inner)
    if not per_warp:
        # slots per warp inside the extent (2 * (1024 / 32), 32 * F): indexed by a warp or lane id
        inside = re.search(r"/\s*32[uU]?\b|>>\s*5\b|(?<![\w.])32[uU]?\s*\*|\*\s*32[uU]?(?![\w.])", value)
        if value not in _THIRTY_TWO and inside is None:
            return None
        fn = ctx.function_of(node)
        body = ctx.text(fn) if fn is not None else ""
        uses = re.findall(word_at([name]) + r"\s*\[([^\]]*)\]", body)
        if not any(_WARPISH_INDEX.search(u) for u in uses):
            return None
        if inside is not None and "/" not in inside.group() and ">>" not in inside.group():
            return _shared_hit(ctx, node, name, size_text, "holds rows of 32 lanes",
                               "with wave64 warps a row needs 64 slots (`64 * F`, a compile-time value)")
    return _shared_hit(ctx, node, name, size_text, "holds one slot per 32-lane warp",
                       "with wave64 warps only blockDim.x / 64 slots are used, so the array and the final reduction "
                       "step can shrink")


def _shared_hit(ctx, node, name, size_text, what, after):
    note, severity = wave_note(ctx, node.start_byte)
    return Hit(node.start_byte, node.end_byte, {"name": name, "size": compact(size_text, 30), "what": what,
                                                "after": after, "note": note,
                                                "decl": compact(ctx.text(node).rstrip(";"), 50)}, severity=severity)


_HAS_32 = re.compile(r"(?<![\w.])32[uU]?(?![\w.])")


def _overrun(ctx, node, name: str, size_text: str):
    """PORT019: a __shared__ array whose extent is built from 32 (``sh[32 * F]``, ``s[WARP_SIZE]``) that the
    function indexes past its end once ``warpSize`` is 64 (lanes ``% warpSize``, loops to ``warpSize * F``)
    and within it when ``warpSize`` is 32: an out-of-bounds write on gfx942 that CUDA never makes."""
    if not ctx.mentions(b"warpSize") and not ctx.mentions(b"__lane_id"):  # (searched once per file)
        return None
    fn = ctx.function_of(node)
    if fn is None:
        return None
    # (nothing in this function changes with the wave's width: only what it calls can)
    own = ctx.source.find(b"warpSize", fn.start_byte, fn.end_byte) >= 0 or \
        ctx.source.find(b"__lane_id", fn.start_byte, fn.end_byte) >= 0
    body = ctx.text(fn)
    unit = values.unit_of(ctx)
    extent = offsets.value_of(size_text, unit, 64)
    if extent is None or extent != offsets.value_of(size_text, unit, 32):
        return None  # sized from warpSize already
    for m in [] if not own else re.finditer(name_at([name]) + r"\s*\[([^\[\]]+)\]", body):
        idx = m.group(1)
        wide = ranges.index_max(body, idx, unit, 64)
        if wide is None or wide < extent:
            continue
        narrow = ranges.index_max(body, idx, unit, 32)
        if narrow is not None and narrow >= extent:
            continue  # past the end on NVIDIA too: not a wave-width question
        pos = fn.start_byte + len(body[:m.start()].encode("utf-8"))
        line = ctx.index.line_of(pos)
        return Hit(node.start_byte, node.end_byte,
                   {"decl": compact(ctx.text(node).rstrip(";"), 50), "extent": str(extent), "index": compact(idx, 30),
                    "reach": str(wide), "line": str(line), "where": f"line {line}",
                    "narrow": "" if narrow is None else str(narrow)},
                   rule="PORT019")
    got = passed.through_calls(ctx, fn, name, extent)  # handed to a helper that indexes it by lane
    if got is not None:
        where = f"line {got.line}" + (f" of {got.file}" if got.file else "")
        return Hit(node.start_byte, node.end_byte,
                   {"decl": compact(ctx.text(node).rstrip(";"), 50), "extent": str(extent),
                    "index": compact(got.index, 30), "reach": str(got.wide), "line": str(got.line),
                    "where": f"in `{got.callee}` at {where}, which gets the array as an argument",
                    "narrow": str(got.narrow)}, rule="PORT019")
    return None


_SHARED_DECL = re.compile(rb"__shared__[^;]*")
_ARRAY_NAME = re.compile(rb"\b([A-Za-z_][A-Za-z0-9_]*)\s*\[")


def _shared_arrays(ctx) -> frozenset[str]:
    """The names of the file's __shared__ arrays (read once per file, not once per candidate)."""
    names = ctx.cache.get("shared_arrays")
    if names is None:
        names = ctx.cache["shared_arrays"] = frozenset(
            n.decode() for d in _SHARED_DECL.finditer(ctx.source) for n in _ARRAY_NAME.findall(d.group()))
    return names


def _shared_carve_out(ctx, node, caps):
    """``float* rest = &s_mem[32];`` in a kernel whose __shared__ ``s_mem`` keeps one slot per 32-lane
    warp before ``rest`` (``s_mem[warp]`` or ``rest[warp]`` is written in the same function)."""
    base, ptr, off = (ctx.text(caps[k][0]) for k in ("base", "ptr", "off"))
    value = _macro_value(ctx, ctx.text(caps["off"][0]))
    per_warp = value in _THIRTY_TWO or bool(re.search(r"(?:/\s*32[uU]?|>>\s*5)\s*$", value))
    if not per_warp or not ctx.in_device_code(node):
        return None
    fn = ctx.function_of(node)
    body = ctx.text(fn) if fn is not None else ""
    if base not in _shared_arrays(ctx):
        return None  # not a shared-memory buffer
    uses = re.findall(word_at([base, ptr]) + r"\s*\[([^\]]*)\]", body)
    if not any(_WARPISH_INDEX.search(u) for u in uses):
        return None
    return _shared_hit(ctx, node, base, off, "keeps one slot per 32-lane warp before it",
                       "with wave64 warps the carve-out can start at blockDim.x / 64")


def _reads_lane(ctx, call, var: str) -> bool:
    """A __shfl/__shfl_sync whose source-lane argument is ``var`` and whose width is not 32."""
    node, fn, args = call
    if fn not in ("__shfl", "__shfl_sync"):
        return False
    lane_index = 2 if fn.endswith("_sync") else 1
    if len(args) <= lane_index or ctx.text(args[lane_index]).strip() != var:
        return False
    return not _width_is_32(ctx, fn, args)


def _steps_by(ctx, call, var: str) -> bool:
    """A __shfl_up/down/xor(_sync) whose offset is ``var`` (a scan or reduction over the 32 lanes:
    ``for (d = 1; d < 32; d *= 2) v += __shfl_up_sync(m, v, d)``) and whose width is not 32."""
    node, fn, args = call
    if not re.match(r"^__shfl_(?:up|down|xor)(?:_sync)?$", fn):
        return False
    delta_index = 2 if fn.endswith("_sync") else 1
    if len(args) <= delta_index or not re.search(r"\b" + re.escape(var) + r"\b", ctx.text(args[delta_index])):
        return False
    return not _width_is_32(ctx, fn, args)


@node_check("PORT014")
def loop_over_32_lanes(ctx, node, caps):
    bound = ctx.text(caps["bound"][0])
    op = ctx.text(caps["op"][0])
    var = ctx.text(caps["var"][0])
    value = _macro_value(ctx, bound)
    body = caps["body"][0]
    if value not in ("32", "32u", "31", "warpSize") and re.fullmatch(r"[A-Za-z_]\w*", bound) and \
            ctx.mentions(b"threadIdx"):
        named = values.unit_of(ctx).value_of(bound) if bound in values.unit_of(ctx).warp_names else None
        value = {32: "32", 31: "31"}.get(named, value)
    if value not in ("32", "32u", "31", "warpSize") or not ctx.in_device_code(node):
        return None
    body_text = ctx.text(body)
    shifts = re.search(r"(?<![\w.])1[uU]?\s*<<\s*\(?\s*" + re.escape(var) + r"\b", body_text)

    def hit():
        note, severity = wave_note(ctx, node.start_byte)
        return Hit(node.start_byte, body.start_byte, {"var": var, "bound": bound, "note": note}, severity=severity)
    if (op == "<" and value in ("32", "32u")) or (op == "<=" and value == "31"):
        if shifts or any(_reads_lane(ctx, c, var) or _steps_by(ctx, c, var) for c in _shuffles(ctx, body, var)):
            return hit()
    elif op == "<" and value == "warpSize" and shifts:
        return hit()
    return None
