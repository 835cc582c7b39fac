"""warp-size rules that follow the value (porter.findings.values):

* PORT015: a named constant that holds the warp width (WARP_SIZE = 32, LANE_MASK = 31,
  TILE_N = 8 * WARP_SIZE, ...) used where the width matters, one finding per use site,
  pointing back to the definition;
* PORT016: launch geometry that builds blocks from 32-thread rows (dim3 b(32, 8),
  <<<g, 32>>>, a warp count `threads / 32` on the host);
* PORT017: a translation unit that keeps 32-lane logical warps (every shuffle has width
  32, no vote spans the wave): an info with the cost, and the other warp-size findings of
  such a unit are infos too (``logical_note``).
"""

from __future__ import annotations

import re

from porter.findings import values, wave
from porter.findings.engine import Hit
from porter.findings.wave.name_regex import name_at
from porter.findings.predicates import file_check, node_check
from porter.findings.predicates.common import args_of, compact, edit, fix

# a definition that may hold a warp width: a warp/lane macro, or a warp/lane name set to a number
# or computed with / 32 (only a pre-check: porter.findings.values decides)
# (searched in the lower-cased source: a case-insensitive search is several times slower)
_AFTER_WARP_WORD = re.compile(rb"\w*(?:\s*=\s*\(?\s*\d|\s*=[^;=\n]*(?:/\s*32|>>\s*5)\b)")
_DEFINE_BEFORE = re.compile(rb"#[ \t]*define[ \t]+\w*$")


def _root_hint(source: bytes) -> bool:
    low = source.lower()
    for word in (b"warp", b"lane"):
        pos = low.find(word)
        while pos >= 0:
            if _AFTER_WARP_WORD.match(low, pos + 4):
                return True
            line = low.rfind(b"\n", 0, pos) + 1
            if _DEFINE_BEFORE.search(low, line, pos):
                return True
            head = low.rfind(b"template", max(0, pos - 200), pos)
            if head >= 0 and b">" not in low[head:pos]:
                return True  # template <int kWarpSize>: its instantiations with 32
            pos = low.find(word, pos + 4)
    return False


def may_have_warp_names(ctx) -> bool:
    """Whether the file's unit can hold a warp constant (or a template that takes a warp width): for a
    file scanned from disk with project headers, what their facts and its words say (``_unit_may_name``),
    else whether the file itself defines a warp- or lane-named value or one a lane role uses."""
    hint = ctx.cache.get("warp_hint")
    if hint is None:
        source = ctx.source
        if ctx.file and any(source[i.start_byte:i.start_byte + 1] == b'"' for i in ctx.index.includes):
            hint = ctx.cache["warp_hint"] = _unit_may_name(ctx)
            return hint
        hint = ctx.cache["warp_hint"] = \
            (any(w in source for w in (b"arp", b"ARP", b"ane", b"ANE")) and _root_hint(source)) or \
            ((b"threadIdx" in source or b"__shfl" in source or (ctx.file or "").endswith(values.HEADER_SUFFIXES))
             and _ROLE_VALUE_DEF.search(source) is not None) or \
            (b"template" in source and (b"__shfl" in source or b"warpSize" in source))
    return hint


# the warp intrinsics (besides __syncwarp: a warp word) that give a file lane roles or width parameters
# (one expression with a literal prefix: several times cheaper than a substring search per word)
_INTRINSIC_WORDS = re.compile(rb"__(?:shfl|ballot|any|all|activemask|match_|reduce_)")


def _unit_may_name(ctx) -> bool:
    """Whether the unit of a file with project headers can hold a warp constant or a template that
    takes a warp width, without building it (reading the file's own constants is most of its cost).
    A warp root is a constant with a warp or lane name, or one whose name a lane role uses
    (porter.findings.values); a lane role comes with a shuffle or a vote, a width parameter with a
    template whose parameter has a warp or lane name or whose body uses a warp intrinsic or launches a
    kernel.  So: a header whose facts hold one of those, or their words in the file's code (comments and
    literals blanked, as the constants are read), or a header file (its includers' roles count)."""
    if ctx.file.endswith(values.HEADER_SUFFIXES):
        return True
    code = wave.code_of(ctx)
    if _INTRINSIC_WORDS.search(code) or b"template" in code and b"<<<" in code:
        return True
    low = code.lower()
    if b"warp" in low or b"lane" in low:
        return True
    return any(f.lane_roles or f.warp_params or any(values.warpish(c.name) for c in f.consts)
               for _shown, _path, f in wave.unit_headers(ctx))


# a constant defined as 32, 31 or 5 (whatever its name): a warp width when a lane role uses it
_ROLE_VALUE_DEF = re.compile(rb"(?:#[ \t]*define[ \t]+\w+[ \t]+|\bconst(?:expr)?\b[^;=(){}]*=\s*|\b(?:int|unsigned)\s+\w+\s*=\s*)"
                             rb"\(?\s*(?:32|31|5|0[xX]1[fF])[uU]?\s*\)?\s*[;\n,>]")
_SHUFFLE_FN = re.compile(r"^__shfl(_up|_down|_xor)?(_sync)?$")
_LANEISH = re.compile(r"threadIdx|blockDim|\b(?:tid|lane\w*|\w*[Ll]ane\w*|\w*_tid|thread_?id\w*|warp\w*|\w*[Ww]arp\w*)\b")
_STOP = {"expression_statement", "return_statement", "compound_statement", "function_definition", "translation_unit",
         "if_statement", "while_statement", "do_statement", "switch_statement", "field_declaration_list",
         "declaration_list", "preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif", "template_declaration"}

LOGICAL_NOTE = (" -- consistent here: every shuffle of this translation unit has width 32 and no vote spans the wave, "
                "so it runs 32-lane logical warps (two per MI300X wave); nothing to change for correctness")


def logical32(ctx) -> bool:
    """The file's translation unit keeps 32-lane logical warps."""
    if "logical32" not in ctx.cache:
        built = "values.unit" in ctx.cache
        headers = bool(ctx.file and ctx.index.includes)
        if headers and not built and not any(f.shuffles or f.votes for _s, _p, f in wave.unit_headers(ctx)):
            headers = False  # no header shuffles or votes: the file's own decide (widths by name: the unit)
        if b"__shfl" not in ctx.source and not headers:
            result = False
        elif not headers and not built:
            result = _quick_logical32(ctx)
            if result is None:
                result = values.unit_of(ctx).logical32
        else:
            result = values.unit_of(ctx).logical32
        ctx.cache["logical32"] = result
    return ctx.cache["logical32"]


_SHUFFLE_CALL = re.compile(rb"(__shfl(?:_up|_down|_xor)?(?:_sync)?)\s*\(")


def _quick_logical32(ctx) -> bool | None:
    """The answer for a file on its own without evaluating its constants, where the shuffles'
    width arguments decide it (None: a width is a name, the full analysis must say)."""
    text = ctx.source.decode("utf-8", "replace") if ctx.source.isascii() else None
    if text is None:
        return None  # byte and character offsets differ: leave it to the full analysis
    named = False
    for m in _SHUFFLE_CALL.finditer(ctx.source):
        if ctx.index.is_protected(m.start()):
            continue
        args, _end = values._call_args(text, m.end())
        width = values._pending_width(m.group(1).decode(), args)
        if width is None:
            return False  # the default width is the whole wave
        if not re.fullmatch(r"32[uU]?", width):
            named = True
    if named:
        return None
    if re.search(rb"__ballot|__any|__all|__activemask|__match_", ctx.source):
        return None  # a vote: is it split per 32 lanes?
    return True


def logical_note(ctx) -> tuple[str, str | None]:
    """(message note, severity override) for a warp-size finding: an info in a 32-lane logical unit."""
    return (LOGICAL_NOTE, "info") if logical32(ctx) else ("", None)


MIXED_NOTE = (" -- wrong on MI300X whatever the port keeps: this code also follows the 64-lane wave ({where}), "
              "which is 64 lanes there, so this 32-lane place must follow `warpSize` too (or that code must keep 32)")


def wave_note(ctx, pos: int, native=None, device: bool = True) -> tuple[str, str | None]:
    """(message note, severity override) for a 32-lane place at ``pos``: an error where native-wave
    evidence reaches it (porter.findings.wave), an info in a 32-lane logical unit, else neither.
    ``native``: the evidence when the caller found it another way (the kernel a host place
    launches: ``device`` False, the host function's other launches do not count)."""
    if native is None and device and may_mix(ctx):
        native = wave.model_of(ctx).native_at(pos)
    if native is not None:
        return MIXED_NOTE.format(where=native.describe()), "error"
    return logical_note(ctx)


_NATIVE_WORDS = (b"warpSize", b"__lane_id", b"__AMDGCN_WAVEFRONT_SIZE", b"__ballot", b"__popcll", b"__ffsll")


def may_mix(ctx) -> bool:
    """The unit can hold native-wave evidence: a native word in the file or in a project header it
    includes (a cheap test before the wave model is built)."""
    hint = ctx.cache.get("wave_hint")
    if hint is None:
        hint = _native_hint(ctx.source)
        if not hint and ctx.file and any(ctx.source[i.start_byte:i.start_byte + 1] == b'"' for i in ctx.index.includes):
            hint = any(_header_hint(path) for _shown, path in wave.header_paths(ctx))
        ctx.cache["wave_hint"] = hint
    return hint


def logical_hint(ctx) -> bool:
    """The file can hold 32-lane evidence (a cheap test before the wave model is built)."""
    hint = ctx.cache.get("wave_logical_hint")
    if hint is None:
        hint = ctx.cache["wave_logical_hint"] = bool(re.search(rb"\b(?:31|32|0[xX]1[fF]|16|5)[uU]?\b", ctx.source)) or \
            bool(ctx.file and any(ctx.source[i.start_byte:i.start_byte + 1] == b'"' for i in ctx.index.includes))
    return hint


# what can be native-wave evidence (porter/findings/wave/evidence.toml), as a pre-check: not a device
# property read on the host (`prop.warpSize`) nor CUDA's 32-bit `__ballot_sync`.  Each word is found with
# bytes.find and matched there (one expression of them, which has no common prefix, is tried at every
# byte of a file whose words are only `__ballot_sync` or `prop.warpSize`)
_NATIVE_AT = ((b"warpSize", re.compile(rb"(?<![\w.>])warpSize\b")), (b"__ballot", re.compile(rb"__ballot(?:64)?\s*\(")),
              (b"__lane_id", re.compile(rb"__lane_id\s*\(")), (b"__AMDGCN_WAVEFRONT_SIZE", None),
              (b"__popcll", re.compile(rb"__popcll\s*\(")), (b"__ffsll", re.compile(rb"__ffsll\s*\(")),
              (b"__clzll", re.compile(rb"__clzll\s*\(")))


def _native_hint(code: bytes) -> bool:
    """A place in ``code`` (which holds one of ``_NATIVE_WORDS``) where one of ``_NATIVE_AT``'s words
    has its form."""
    if not any(w in code for w in _NATIVE_WORDS):
        return False
    for word, at in _NATIVE_AT:
        pos = code.find(word)
        while pos >= 0:
            if at is None or at.match(code, pos):
                return True
            pos = code.find(word, pos + 1)
    return False


_HEADER_HINTS: dict[str, tuple[bytes, bool]] = {}


def _header_hint(path: str) -> bool:
    """``_native_hint`` of a project header's code, once per version of the header."""
    code = wave.header_code(path)
    if code is None:
        return False
    cached = _HEADER_HINTS.get(path)
    if cached is None or cached[0] is not code:
        cached = _HEADER_HINTS[path] = (code, _native_hint(code))
    return cached[1]


_WARP_WORDS = (b"__shfl", b"__ballot", b"__any", b"__all", b"__syncwarp", b"__activemask", b"__match_", b"arpSize",
               b"__lane_id", b"warp", b"Warp", b"WARP", b"lane", b"Lane", b"LANE", b"tiled_partition")
_HEADER_WARPY: dict[str, tuple[bytes, bool]] = {}


def _warpy(code: bytes) -> bool:
    return any(w in code for w in _WARP_WORDS)  # substring searches: far cheaper than one regex


def warp_code(ctx) -> bool:
    """The unit works with warps at all: warp intrinsics or warp/lane words in the file's code or in a
    project header it includes.  Launch geometry is only a warp question there."""
    hint = ctx.cache.get("warp_code")
    if hint is None:
        hint = _warpy(ctx.source)  # (a comment that says warp counts too: cheap)
        if not hint and ctx.file and any(ctx.source[i.start_byte:i.start_byte + 1] == b'"' for i in ctx.index.includes):
            for _shown, path in wave.header_paths(ctx):
                hcode = wave.header_code(path)
                if hcode is None:
                    continue
                cached = _HEADER_WARPY.get(path)
                if cached is None or cached[0] is not hcode:
                    cached = _HEADER_WARPY[path] = (hcode, _warpy(hcode))
                if cached[1]:
                    hint = True
                    break
        ctx.cache["warp_code"] = hint
    return hint


def launch_native(ctx, node):
    """Native-wave evidence in the kernel that a launch configuration (or a variable a launch
    configuration names) starts, or None."""
    if not may_mix(ctx):
        return None
    model = wave.model_of(ctx)
    n = node
    while n is not None and n.type not in ("kernel_call_syntax", "function_definition", "translation_unit"):
        n = n.parent
    if n is not None and n.type == "kernel_call_syntax":
        name = _kernel_name(ctx, n)
        return model.kernel_native(name) if name else None
    # a variable (dim3 block(32, 8); int threads = 8 * 32;) used by a launch in the same function
    decl = node
    while decl is not None and decl.type not in ("init_declarator", "assignment_expression", "function_definition"):
        decl = decl.parent
    if decl is None or decl.type == "function_definition":
        return None
    target = decl.child_by_field_name("declarator") if decl.type == "init_declarator" else decl.child_by_field_name("left")
    if target is None:
        return None
    var = ctx.text(target).strip()
    if not re.fullmatch(r"[A-Za-z_]\w*", var):
        return None
    fn = ctx.function_of(decl)
    if fn is None:
        return None
    body = ctx.source[decl.end_byte:fn.end_byte]
    for m in re.finditer(rb"([A-Za-z_]\w*)\s*(?:<[^<>;()]*>)?\s*<<<([^;]*?)>>>", body):
        if re.search(rb"(?<![\w.])" + re.escape(var.encode()) + rb"(?![\w])", m.group(2)):
            ev = model.kernel_native(m.group(1).decode())
            if ev is not None:
                return ev
    return None


def _kernel_name(ctx, config) -> str | None:
    call = config.parent
    if call is None or call.type != "call_expression":
        return None
    fn = call.child_by_field_name("function")
    if fn is None:
        return None
    if fn.type == "template_function":
        fn = fn.child_by_field_name("name")
    text = ctx.text(fn).split("::")[-1].strip()
    return text if re.fullmatch(r"[A-Za-z_]\w*", text) else None


# ------------------------------------------------------------------------ use sites
class Site:
    """One use of a warp constant: what for, where (``start``, the byte of the name) and the text of
    the expression around it.  Plain values, not tree nodes: a node keeps its whole tree alive, and a
    big file's regions are parsed one at a time."""

    __slots__ = ("kind", "compile_time", "device", "start", "expr")

    def __init__(self, kind, compile_time, device, start: int, expr: str):
        self.kind, self.compile_time, self.device, self.start, self.expr = kind, compile_time, device, start, expr


def _within(node, parent, field_name) -> bool:
    child = parent.child_by_field_name(field_name)
    return child is not None and child.start_byte <= node.start_byte and node.end_byte <= child.end_byte


def classify(ctx, node, derived: set[str]) -> Site | None:
    """What a reference to a warp constant is used for, or None when it is no use (a definition of
    a constant derived from it: that constant's own uses are reported)."""
    expr = node
    n = node
    kind = None
    compile_time = False
    while n.parent is not None:
        p = n.parent
        t = p.type
        if t == "preproc_def":
            name = p.child_by_field_name("name")
            if name is not None and ctx.text(name) in derived:
                return None
            kind = kind or "macro body"
            break
        if t == "preproc_function_def":
            kind = kind or "macro body"
            break
        if t in ("preproc_if", "preproc_elif") and _within(node, p, "condition"):
            kind, compile_time = "preprocessor condition", True
            break
        if t == "init_declarator" and _within(node, p, "value"):
            decl = p.child_by_field_name("declarator")
            if decl is not None and ctx.text(decl) in derived:
                return None
            if p.parent is not None and p.parent.type == "declaration":
                ty = p.parent.child_by_field_name("type")
                if ty is not None and ctx.text(ty) == "dim3":
                    kind = kind or "launch geometry"
        if t == "enumerator":
            name = p.child_by_field_name("name")
            if name is not None and ctx.text(name) in derived:
                return None
            kind, compile_time = kind or "enum value", True
        if t in ("optional_parameter_declaration", "optional_type_parameter_declaration"):
            name = p.child_by_field_name("declarator")
            if name is not None and ctx.text(name) in derived:
                return None
        if t == "template_argument_list" and kind is None:
            kind, compile_time = "template argument", True
        if t == "array_declarator" and _within(node, p, "size") and kind is None:
            decl = ctx.enclosing(p, "declaration", "field_declaration")
            shared = decl is not None and "__shared__" in ctx.text(decl)[:200].split("=")[0]
            kind, compile_time = ("__shared__ array extent" if shared else "array extent"), True
        if t == "kernel_call_syntax" and kind is None:
            kind = "launch configuration"
        if t == "call_expression" and kind is None:
            fn = ctx.text(p.child_by_field_name("function"))
            if fn == "dim3":
                kind = "launch geometry"
            elif _SHUFFLE_FN.match(fn):
                args = args_of(p)
                where = next((i for i, a in enumerate(args) if a.start_byte <= node.start_byte < a.end_byte), -1)
                width_index = 3 if fn.endswith("_sync") else 2
                kind = f"`{fn}` width" if where == width_index else f"`{fn}` argument"
        if t == "for_statement" and kind is None and not _within(node, p, "body"):
            kind = "loop bound"
        if t in ("case_statement", "static_assert_declaration") and kind is None:
            kind, compile_time = ("case label" if t == "case_statement" else "static_assert"), True
        if t in ("binary_expression", "parenthesized_expression", "unary_expression") and kind is None:
            expr = p
        if t == "declaration" and p.parent is not None and p.parent.type == "for_statement" and kind is None:
            kind = "loop bound"
        if t in _STOP or t == "declaration" or t == "field_declaration":
            if t in ("declaration", "field_declaration") and re.match(r"\s*(?:static\s+)?constexpr\b", ctx.text(p)) \
                    and kind is None:
                compile_time = True
            break
        n = p
    if kind is None:
        kind = "index arithmetic" if _LANEISH.search(ctx.text(expr)) else "arithmetic"
    return Site(kind, compile_time, ctx.in_device_code(node), node.start_byte, ctx.text(expr))


def uses(ctx, names: dict) -> list[tuple[str, Site, int, int]]:
    """(name, site) of every reference in the file to one of ``names`` (not their definitions)."""
    if not names:
        return []
    key = ("values.uses", tuple(sorted(names)))
    if key in ctx.cache:
        return ctx.cache[key]
    pattern = re.compile(name_at(sorted(names, key=len, reverse=True)).encode() + rb"(?![\w])")
    unit = values.unit_of(ctx)
    own_defs = {c.pos for consts in unit.consts.values() for c in consts if c.pos >= 0}
    derived = set(unit.warp_names)
    out = []
    for m in pattern.finditer(ctx.source):
        start, end = m.span()
        if start in own_defs or ctx.index.is_protected(start):
            continue
        node = ctx.index.node_at(start, end)
        if node is None or node.type not in ("identifier", "type_identifier", "preproc_arg", "number_literal"):
            continue
        if node.type == "preproc_arg":
            site = _macro_site(ctx, node, start, end, derived)
        else:
            site = classify(ctx, node, derived)
        if site is not None:
            out.append((m.group().decode(), site, start, end))
    ctx.cache[key] = out
    return out


def _macro_site(ctx, body, start, end, derived) -> Site | None:
    parent = body.parent
    if parent is not None and parent.type == "preproc_def":
        name = parent.child_by_field_name("name")
        if name is not None and ctx.text(name) in derived:
            return None
    return Site("macro body", False, False, body.start_byte, ctx.text(body))


# use sites that say nothing about lanes by themselves: reported for a constant whose name says warp or
# lane, not for one known as a width only by its uses elsewhere (gc's WS is also the bits of a word)
_PLAIN = frozenset({"arithmetic", "loop bound"})
_WARP_SIZE_RULES = {"PORT010", "PORT011", "PORT012", "PORT013", "PORT014", "PORT016", "PORT072"}
_ADVICE_COMPILE = ("; this place needs a compile-time value: 64 on gfx942 (`__AMDGCN_WAVEFRONT_SIZE` in device code), "
                   "not `warpSize`")
_ADVICE_HOST = "; on the host ask the device: `hipDeviceGetAttribute(&n, hipDeviceAttributeWarpSize, dev)`"
_ADVICE_DEVICE = "; in device code `warpSize` is the wave width"


def _named_width_regions(ctx):
    """The regions where ``named_warp_width`` may ask for the tree: those holding, as a word, a warp
    name of the unit (its uses, its definition) or a template that takes a warp width (its calls)."""
    if not may_have_warp_names(ctx):
        return None
    unit = values.unit_of(ctx)
    words = set(unit.warp_names) | (set(unit.warp_params) if unit.warp_params and b"<" in ctx.source else set())
    if not words:
        return None
    pattern = re.compile(name_at(sorted(words, key=len, reverse=True), r"\w").encode() + rb"(?!\w)")
    return lambda text: pattern.search(text) is not None


@file_check("PORT015", regions=_named_width_regions)
def named_warp_width(ctx):
    if not may_have_warp_names(ctx):
        return []
    unit = values.unit_of(ctx)
    names = unit.warp_names
    hits = []
    lines = set()
    if unit.warp_params and b"<" in ctx.source:
        hits += _warp_template_arguments(ctx, unit, lines)
    if not names:
        return hits
    hits += _role_definitions(ctx, unit, names)
    for name, site, start, end in uses(ctx, names):
        line = ctx.index.line_of(start)
        if line in lines or ctx.reported.covered(start, end, _WARP_SIZE_RULES):
            continue  # PORT013 (a __shared__ extent), PORT016 (geometry), PORT072 (a tile) say it already
        if site.kind in _PLAIN and not values.warpish(names[name].root.name):
            continue  # a 32 known as a width by its uses, here in plain arithmetic: bits per word, a count
        lines.add(line)
        if site.device or site.kind == "macro body":
            note, severity = wave_note(ctx, start)
        else:
            node = ctx.index.node_at(start, end)
            note, severity = wave_note(ctx, start, launch_native(ctx, node) if node is not None else None, device=False)
        v = names[name]
        advice = _ADVICE_COMPILE if site.compile_time else _ADVICE_DEVICE if site.device else \
            ("" if site.kind == "macro body" else _ADVICE_HOST)
        role = "counts 32-lane warps" if v.root.name in unit.counts else "is used as the wave width"
        hits.append(Hit(start, end, {"name": name, "origin": values.describe(v), "kind": site.kind, "role": role,
                                     "expr": compact(site.expr, 50), "advice": advice, "note": note},
                        severity=severity))
    return hits


_LITERAL_32_BYTES = re.compile(rb"(?<![\w.])32[uU]?(?![\w.])")


def _role_definitions(ctx, unit, names: dict) -> list:
    """PORT010 at the definition, in this file, of a constant of 32 whatever its name that the unit
    uses where a warp width goes (``const uint32_t WAVE_SIZE = 32;`` with ``threadIdx.x % WAVE_SIZE``);
    the warp-named ones are PORT010's own query's."""
    out = []
    source = ctx.source
    for name, v in names.items():
        c = v.const
        if v.root is not c or c.pos < 0 or v.value != 32 or name in unit.counts or c.kind == "default":
            continue
        line_start = ctx.index.line_starts[c.line - 1]
        line_end = source.find(b"\n", line_start)
        line_end = len(source) if line_end < 0 else line_end
        m = re.search(rb"(?<![\w.])" + re.escape(name.encode()) + rb"(?!\w)", source[line_start:line_end])
        if m is None:
            continue
        name_pos = line_start + m.start()
        if ctx.reported.covered(name_pos, name_pos + len(name), {"PORT010"}):
            continue
        lit = _LITERAL_32_BYTES.search(source, name_pos + len(name), line_end)
        reason, the_fix = "", None
        text = source[line_start:line_end].decode("utf-8", "replace").rstrip("\r")
        if lit is not None:
            reason, the_fix = definition_fix(ctx, name, name_pos, lit.start(), lit.end(), c.kind == "define",
                                             (line_start, line_start + len(text.encode()), text), pool=names)
        note, severity = logical_note(ctx)
        advice = f" ({reason})" if reason else ""
        out.append(Hit(line_start, line_start + len(text.encode()), {"name": name, "note": note, "advice": advice},
                       the_fix, severity=severity, rule="PORT010"))
    return out


def _block_argument(ctx, unit, m, arg, param, where, def_line, value, parent, lines, kernel=None):
    """``bscan<32>()``: a block size the template divides by ``warpSize`` (or launches a kernel with
    that counts its waves with ``warpSize``) that is no whole number of 64-lane waves."""
    line = ctx.index.line_of(arg.start_byte)
    if line in lines:
        return None
    lines.add(line)
    origin = f"{value} passed to `{m.group(1).decode()}`, declared at {where}:{def_line}"
    if kernel is None:
        role = "is a block size that the template divides by `warpSize`"
        note = (f" -- `{param} / warpSize` is {value // 64} on MI300X ({value // 32} on NVIDIA): the template counts "
                "its waves with warpSize, so this block holds no whole wave; wrong whatever the port keeps: use a "
                "multiple of 64 (or count in 32-lane groups)")
    else:
        role = f"is the block size of `{kernel}`, which counts its waves with `warpSize`,"
        note = (f" -- a block of {value} threads holds no whole 64-lane wave on MI300X, so the kernel's last lane "
                "of a wave and its wave count are never what it expects; wrong whatever the port keeps: use a "
                "multiple of 64")
    return Hit(arg.start_byte, arg.end_byte, {"name": param, "origin": origin, "kind": "template argument",
                                              "role": role,
                                              "expr": compact(ctx.text(parent), 50), "advice": "", "note": note},
               severity="error")


def _warp_template_arguments(ctx, unit, lines: set) -> list:
    """`reduce<float, 32>(v)` where reduce's template parameter at that place is `int kWarpSize`."""
    pattern = re.compile(b"(" + name_at(sorted(unit.warp_params, key=len, reverse=True)).encode() + rb")\s*<")
    out = []
    for m in pattern.finditer(ctx.source):
        if ctx.index.is_protected(m.start()):
            continue
        node = ctx.index.node_at(m.start(1), m.end(1))
        parent = node.parent if node is not None else None
        if parent is None or parent.type not in ("template_function", "template_type"):
            continue
        arglist = parent.child_by_field_name("arguments")
        if arglist is None:
            continue
        index, param, where, def_line, role = unit.warp_params[m.group(1).decode()]
        args = [a for a in arglist.named_children if a.type != "comment"]
        if index >= len(args):
            continue
        arg = args[index]
        value = unit.value_of(ctx.text(arg))
        if role == "block" or role.startswith("launch:"):
            if value is None or value <= 0 or value % 64 == 0 or value % 32:
                continue  # whole waves, or no warp-sized block
            kernel = role.split(":", 1)[1] if role.startswith("launch:") else None
            if kernel is not None and (not may_mix(ctx) or wave.model_of(ctx).kernel_native(kernel) is None):
                continue  # the kernel launched does not count its waves with warpSize
            hit = _block_argument(ctx, unit, m, arg, param, where, def_line, value, parent, lines, kernel)
            if hit is not None:
                out.append(hit)
            continue
        if value != 32:
            continue
        line = ctx.index.line_of(arg.start_byte)
        if line in lines:
            continue
        lines.add(line)
        if ctx.in_device_code(arg):
            note, severity = wave_note(ctx, arg.start_byte)
        else:
            note, severity = wave_note(ctx, arg.start_byte, launch_native(ctx, arg), device=False)
        origin = f"32 passed to `{m.group(1).decode()}`, declared at {where}:{def_line}"
        out.append(Hit(arg.start_byte, arg.end_byte, {"name": param, "origin": origin, "kind": "template argument",
                                                      "role": "is used as the wave width",
                                                      "expr": compact(ctx.text(parent), 50), "advice": _ADVICE_COMPILE,
                                                      "note": note}, severity=severity))
    return out


# ------------------------------------------------------------------------ launch geometry
_LITERAL_32 = re.compile(r"32[uU]?")
_THREAD_COUNT = re.compile(r"(?i)thread|block_?size|blockdim|bdim|tpb|\bnt\b|\bthreads?\b")


@node_check("PORT016")
def launch_geometry(ctx, node, caps):
    if "op" in caps:  # a warp count on the host
        n = ctx.text(caps["n"][0]).rstrip("uU")
        op = ctx.text(caps["op"][0])
        if (op, n) not in (("/", "32"), (">>", "5")) or not _THREAD_COUNT.search(ctx.text(caps["lhs"][0])):
            return None
        if ctx.in_device_code(node):
            return None
        note, severity = wave_note(ctx, node.start_byte, launch_native(ctx, node), device=False)
        return Hit(node.start_byte, node.end_byte, {"what": f"`{compact(ctx.text(node), 40)}` counts warps of 32 threads",
                                                    "note": note}, severity=severity)
    if "name" in caps:  # int threads_x = 32 on the host
        if ctx.in_device_code(node):
            return None
        note, severity = wave_note(ctx, node.start_byte, launch_native(ctx, node), device=False)
        return Hit(node.start_byte, node.end_byte,
                   {"what": f"`{compact(ctx.text(node), 40)}` makes blocks 32 threads wide", "note": note},
                   severity=severity)
    args = caps["args"][0]
    if node.type == "kernel_call_syntax":
        items = [c for c in node.named_children if c.type != "comment"]
        if len(items) < 2:
            return None
        first = items[1]
        shown = f"<<<..., {compact(ctx.text(first), 20)}>>>"
        if not _MAY_BE_32.match(ctx.text(first).strip()) or _value(ctx, first) != 32:
            return _launch_shape(ctx, node, items[0], first)
    else:
        items = [c for c in args.named_children if c.type != "comment"]
        if not items:
            return None
        first = items[0]
        shown = compact(ctx.text(node), 40)
    if first.type == "number_literal" and not _LITERAL_32.fullmatch(ctx.text(first)):
        return None
    if _value(ctx, first) != 32:
        return None
    rows = len(items) > 1 and node.type != "kernel_call_syntax"
    if rows and _value(ctx, items[1]) == 32 or rows and ctx.text(items[1]).strip() == ctx.text(first).strip():
        return None  # a square 32 x 32 tile: a 2-D tiling, not rows of warps
    what = (f"`{shown}` lays the block out in rows of 32 threads (threadIdx.x as the lane, threadIdx.y as the warp)"
            if rows else f"`{shown}` launches blocks of one 32-thread warp")
    note, severity = wave_note(ctx, node.start_byte, launch_native(ctx, node), device=False)
    return Hit(node.start_byte, node.end_byte, {"what": what, "note": note}, severity=severity)


_TIMES_32 = re.compile(r"^\s*\(?\s*(?:32[uU]?\s*\*\s*(?P<a>[^*?:<>=]+?)|(?P<b>[^*?:<>=]+?)\s*\*\s*32[uU]?)\s*\)?\s*$")
_ROUND_32 = re.compile(r"\+\s*31[uU]?\s*\)\s*/\s*32[uU]?\s*\*\s*32|\+\s*31[uU]?\s*\)\s*&\s*~\s*31")
_GRID_DIVISOR = re.compile(r"(?:\(\s*[^()]*?\+\s*(?P<d1>\d+)\s*(?:-\s*1\s*)?\)|[A-Za-z_][\w.]*)\s*/\s*(?P<d2>\d+)[uU]?\s*$")


def _local_value(ctx, node, text: str, definition=None) -> int | None:
    """An integer the host code can tell: a constant of the unit, or a local `int x = <constant>;` of
    the function before ``node`` (``definition``: that one, when the caller found it)."""
    text = text.strip()
    if text.isdigit():
        return int(text)
    unit = values.unit_of(ctx)
    v = unit.value_of(text)
    if v is not None or not re.fullmatch(r"[A-Za-z_]\w*", text):
        return v
    if definition is None:
        definition = _local_definition(ctx, node, text)
    return unit.value_of(definition[2]) if definition is not None else None


# a launch's block that may be a warp's 32 threads: a literal 32, a macro-style or a warp-named name
_MAY_BE_32 = re.compile(r"^(?:32[uU]?|[A-Z_][A-Z0-9_]*|[A-Za-z_0-9]*(?:[Ww]arp|WARP|[Ll]ane|LANE)[A-Za-z_0-9]*)$")


def _launch_shape(ctx, node, grid, block):
    """A launch ``k<<<grid, block>>>`` whose geometry counts 32-lane warps: a block built as
    ``8 * 32`` (or ``n * 32``); a grid of ``(n + 7) / 8`` blocks of 256 threads (one 32-thread warp
    per item); or a block that is no whole number of 64-lane waves for a kernel that divides
    ``blockDim.x`` (or a template block size) by ``warpSize``."""
    if not warp_code(ctx) or not (ctx.mentions(b"32") or may_mix(ctx)) or ctx.in_device_code(node):
        return None
    block_text = ctx.text(block)
    what = None
    m = _TIMES_32.match(block_text)
    grid_text = ctx.text(grid)
    threads = None
    where = None  # a variable's definition that builds the block: reported there
    definition = None
    if m is None and re.fullmatch(r"[A-Za-z_]\w*", block_text.strip()):
        definition = _local_definition(ctx, node, block_text.strip())
        if definition is not None and ("32" in definition[2] or "31" in definition[2]):
            m = _TIMES_32.match(definition[2])
            if m is not None or _ROUND_32.search(definition[2]) is not None:
                where = definition
    if m is None and ("/" in grid_text or may_mix(ctx)):
        threads = _local_value(ctx, node, block_text, definition)
    if where is not None:
        how = (f"counts a block's threads in 32-thread warps ({compact(m.group('a') or m.group('b'), 16)} of them)"
               if m is not None else "rounds a block's threads up to whole 32-thread warps")
        what = f"`{compact(where[3], 40)}` {how}, for the launch at line {ctx.index.line_of(node.start_byte)}"
    elif m is not None:
        what = (f"`<<<..., {compact(block_text, 24)}>>>` builds its blocks from 32-thread warps "
                f"({compact(m.group('a') or m.group('b'), 16)} of them)")
    elif threads is not None and threads % 32 == 0 and threads >= 64:
        g = _GRID_DIVISOR.search(grid_text)
        divisor = int(g.group("d2")) if g else None
        if divisor and divisor * 32 == threads and (g.group("d1") is None or int(g.group("d1")) in (divisor, divisor - 1)):
            what = (f"`<<<{compact(ctx.text(grid), 24)}, {compact(block_text, 12)}>>>` gives each item one 32-thread "
                    f"warp ({divisor} items per block of {threads} threads)")
    native = None
    if what is None and threads is not None and threads % 64 and may_mix(ctx) and _divides_by_wave(ctx, node):
        native = launch_native(ctx, node)
        if native is not None:
            what = (f"`<<<..., {compact(block_text, 16)}>>>` launches blocks of {threads} threads, no whole number "
                    "of 64-lane waves, for a kernel that counts its waves with `warpSize`")
    if what is None:
        return None
    if native is None:
        native = launch_native(ctx, node)
    note, severity = wave_note(ctx, node.start_byte, native, device=False)
    start, end = (where[0], where[1]) if where is not None else (node.start_byte, node.end_byte)
    return Hit(start, end, {"what": what, "note": note}, severity=severity)


def _local_definition(ctx, node, name: str):
    """(start, end, value text, statement text) of the last `name = value;` of the function before ``node``."""
    fn = ctx.function_of(node)
    if fn is None:
        return None
    pattern = re.compile(name_at([name]).encode() + rb"\s*=\s*([^;=][^;]*);")
    found = None
    for found in pattern.finditer(ctx.source, fn.start_byte, node.start_byte):
        pass
    if found is None:
        return None
    line_start = ctx.source.rfind(b"\n", 0, found.start()) + 1
    stmt = ctx.source[line_start:found.end()].decode("utf-8", "replace").strip()
    return line_start + (len(ctx.source[line_start:found.start()]) - len(ctx.source[line_start:found.start()].lstrip())), \
        found.end(), found.group(1).decode("utf-8", "replace"), stmt


def _divides_by_wave(ctx, config) -> bool:
    name = _kernel_name(ctx, config)
    if not name:
        return False
    model = wave.model_of(ctx)
    code = wave.code_of(ctx)
    for i in model.index.by_name.get(name, ()):
        f = model.index.functions[i]
        if f.file == "" and re.search(rb"blockDim\s*\.\s*x\s*/\s*warpSize", code[f.body_start:f.body_end]):
            return True
    return False


def _value(ctx, node) -> int | None:
    text = ctx.text(node)
    if re.fullmatch(r"32[uU]?", text.strip()):
        return 32
    if not re.search(r"[A-Za-z_]", text) or not may_have_warp_names(ctx):
        return None
    unit = values.unit_of(ctx)
    if unit.root_of(text) is None:
        return None  # only a warp width counts, not any 32
    return unit.value_of(text)


# ------------------------------------------------------------------------ 32-lane logical warps
@file_check("PORT017")
def logical_warps(ctx):
    if b"__shfl" not in ctx.source or not logical32(ctx):
        return []
    unit = values.unit_of(ctx)
    own = unit.own
    if not own.shuffle_spans:
        return []
    start, end, _width = own.shuffle_spans[0]
    # a macro that wraps the shuffle is reported at its definition
    line_start = ctx.source.rfind(b"\n", 0, start) + 1
    m = re.match(rb"[ \t]*#[ \t]*define[ \t]+(\w+)", ctx.source[line_start:start])
    where = f"`{m.group(1).decode()}` wraps the shuffles with width 32" if m else "every shuffle has width 32"
    count = unit.shuffles
    return [Hit(start, end, {"where": where, "count": str(count), "s": "" if count == 1 else "s"})]


# ------------------------------------------------------------------------ the fix of a warp-size definition (PORT010)
def _uses_of(ctx, name: str, pool: dict | None) -> list:
    """``uses(ctx, {name: None})``: read from the uses of every name of ``pool`` (one walk of the file
    for all of them, kept for the whole-pool caller) where ``pool`` holds ``name`` and only plain
    identifiers (then a pool match is a match of one name, and a match of ``name`` alone is one of
    the pool's: none can start inside another identifier), else found alone."""
    if pool is not None and name in pool and all(_IDENT.fullmatch(n) for n in pool):
        return [u for u in uses(ctx, pool) if u[0] == name]
    return uses(ctx, {name: None})


_IDENT = re.compile(r"[A-Za-z_]\w*")


def definition_fix(ctx, name: str, name_pos: int, value_start: int, value_end: int, is_macro: bool, line_span=None,
                   pool: dict | None = None):
    """(reason, fix): the unsafe fix for a warp-size constant defined as 32, from its uses in this
    file: the definition becomes the wave width where every use allows it.  ``pool``: names whose
    uses the caller reads too (``uses(ctx, pool)``), from which ``name``'s are taken."""
    found = [s for _n, s, a, _b in _uses_of(ctx, name, pool) if a != name_pos]
    compile_lines = sorted({ctx.index.line_of(s.start) for s in found if s.compile_time})
    host = [s for s in found if not s.device and s.kind != "macro body"]
    # warpSize only for a constant inside device code: at namespace scope the definition itself
    # needs a constant expression, and warpSize is none on newer ROCm (7.0 made it a variable)
    local = ctx.function_of(ctx.index.node_at(name_pos, name_pos + 1)) is not None
    if found and not compile_lines and not host and not is_macro and local:
        return ("every use in this file is device code evaluated at run time",
                fix(f"`{name}` becomes `warpSize` (64 on MI300X); check the rest of the code for other 32-lane "
                    "assumptions (offsets from 16, 32-bit masks, per-warp arrays)",
                    edit(value_start, value_end, "warpSize"), safe=False))
    why = []
    if compile_lines:
        why.append(("lines " if len(compile_lines) > 1 else "line ") + ", ".join(map(str, compile_lines[:6]))
                   + (" need" if len(compile_lines) > 1 else " needs") + " a compile-time value")
    if host:
        why.append("host code uses it (there `hipDeviceAttributeWarpSize` gives the width at run time)")
    if not found:
        why.append("its uses are in other files")
    elif not is_macro and not local and not why:
        why.append("a namespace-scope constant needs a constant expression")
    reason = "; ".join(why) or "a macro must work in host and device code"
    if is_macro and line_span is not None:
        ls, le, text = line_span
        guarded = ("#if defined(__HIP_PLATFORM_AMD__)\n" + text[:value_start - ls] + "64" + text[value_end - ls:]
                   + "  // gfx942: 64-lane waves\n#else\n" + text + "\n#endif")
        return (reason, fix(f"`{name}` becomes 64 on AMD GPUs (the gfx942 wave width; {reason}, so not `warpSize`); "
                            "check the rest of the code for other 32-lane assumptions (offsets from 16, 32-bit masks)",
                            edit(ls, le, guarded), safe=False))
    return (reason, fix(f"`{name}` becomes 64, the gfx942 wave width ({reason}, so not `warpSize`); check the rest of "
                        "the code for other 32-lane assumptions", edit(value_start, value_end, "64"), safe=False))
