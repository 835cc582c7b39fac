"""Checks of NVIDIA-only GPU features with no AMD counterpart (or a different spelling): launch bounds, tensor
cores (mma/wmma PTX and headers), asynchronous copies, texture references, dynamic parallelism, the clock
counters, managed memory and fp8 formats.  Cooperative groups, thread-block clusters and the __CUDA_ARCH__ /
CUDA version macros have modules of their own (cooperative_groups, clusters, arch_macros)."""

from __future__ import annotations

import functools
import re

from porter import parse
from porter.findings import ptx
from porter.findings.catalogue import catalogue
from porter.findings.engine import Hit, rule_patterns
from porter.findings.predicates import file_check, node_check
from porter.findings.predicates.common import compact, edit, fix
from porter.findings.predicates.cooperative_groups import INT_LITERAL

WALL_CLOCK = "((long long)__builtin_amdgcn_s_memrealtime())"


def first_in_scope(ctx, node, key: str) -> bool:
    """True the first time ``key`` is seen in the function (or file scope) around ``node``."""
    fn = ctx.function_of(node)
    scope = (key, fn.start_byte if fn is not None else -1)
    seen = ctx.cache.setdefault("first_in_scope", set())
    if scope in seen:
        return False
    seen.add(scope)
    return True


# ---------------------------------------------------------------- launch-bounds
def waves_per_eu(max_threads: int, min_blocks: int) -> int:
    """CUDA min blocks per SM -> HIP min waves per execution unit on gfx942:
    blocks x waves per block (64 lanes) spread over the 4 SIMDs of a CU, rounded up."""
    waves_per_block = -(-max_threads // 64)
    return max(1, -(-(min_blocks * waves_per_block) // 4))


@node_check("PORT040")
def launch_bounds(ctx, node, caps):
    args = [c for c in node.named_children if c.type != "comment"]
    if len(args) < 2:
        return None
    t_text, b_text = ctx.text(args[0]), ctx.text(args[1])
    t_val, b_val = ctx.macro_value(t_text), ctx.macro_value(b_text)
    if INT_LITERAL.match(t_val) and INT_LITERAL.match(b_val):
        n = waves_per_eu(int(INT_LITERAL.match(t_val).group(1)), int(INT_LITERAL.match(b_val).group(1)))
        waves = str(n)
    else:
        n = None
        waves = f"((({b_text}) * ((({t_text}) + 63) / 64) + 3) / 4)"
    attr = "" if n == 1 else f" __attribute__((amdgpu_waves_per_eu({waves})))"
    replacement = f"__launch_bounds__({t_text}){attr}"
    extra = ", and the third argument (max blocks per cluster) has no HIP meaning" if len(args) > 2 else ""
    params = {"threads": t_text, "blocks": b_text, "waves": waves if n is not None else "ceil(B * ceil(T / 64) / 4)",
              "extra": extra}
    if node.has_error:  # the arguments do not parse: report, but rewriting them would only compound the damage
        return Hit(node.start_byte, node.end_byte, params)
    return Hit(node.start_byte, node.end_byte, params,
               fix(f"`{compact(replacement, 90)}` (min {params['waves']} waves per EU)",
                   edit(node.start_byte, node.end_byte, replacement)))


# ---------------------------------------------------------------- tensor-core / async-copy asm
_MMA_PTX = re.compile(r"^(?:mma\.|wgmma\.|ldmatrix|stmatrix|tcgen05\.|wmma\.)")
_ASYNC_PTX = re.compile(r"^(?:cp\.async|cp\.reduce\.async|mbarrier\.|fence\.proxy\.async|cp\.async\.bulk)")


def _asm_match(ctx, node, pattern):
    template = ptx.template_of(ctx.source, node)
    if not template:
        return None
    for inst in ptx.instructions(template):
        if pattern.match(inst.lstrip("{ ")):
            return inst.split(" ", 1)[0]
    return None


@node_check("PORT052")
def mma_ptx(ctx, node, caps):
    op = _asm_match(ctx, node, _MMA_PTX)
    return Hit(node.start_byte, node.end_byte, {"op": op}) if op else None


@node_check("PORT061")
def async_ptx(ctx, node, caps):
    op = _asm_match(ctx, node, _ASYNC_PTX)
    return Hit(node.start_byte, node.end_byte, {"op": op}) if op else None


@node_check("PORT050")
def mma_header(ctx, node, caps):
    return Hit(node.start_byte, node.end_byte, {"header": ctx.text(caps["path"][0])})


@node_check("PORT051")
def wmma_use(ctx, node, caps):
    name = ctx.text(caps["ns"][0])
    if name == "wmma" and ctx.mentions(b"rocwmma"):
        return None  # namespace wmma = rocwmma;
    if node.type == "namespace_identifier" and node.parent is not None and node.parent.type == "qualified_identifier":
        outer = node.parent.parent
        if name == "wmma" and outer is not None and outer.type == "qualified_identifier" and \
                ctx.text(outer).startswith("nvcuda::"):
            return None  # reported at nvcuda
    if not first_in_scope(ctx, node, "wmma"):
        return None
    return Hit(node.start_byte, node.end_byte, {"name": compact(ctx.text(node.parent if node.type == "namespace_identifier" else node), 50)})


# ---------------------------------------------------------------- async-copy
@node_check("PORT060")
def async_copy(ctx, node, caps):
    if "path" in caps:
        what = ctx.text(caps["path"][0])
    elif "fn" in caps:
        what = ctx.text(caps["fn"][0])
    else:
        what = compact(ctx.text(node), 40)
        if node.parent is not None and node.parent.type == "qualified_identifier":
            return None  # the outer name is reported
    return Hit(node.start_byte, node.end_byte, {"what": what})


# ---------------------------------------------------------------- texture / dynamic parallelism
@node_check("PORT080")
def texture_reference(ctx, node, caps):
    if "fn" in caps:  # cudaBindTexture(...) and the other texture-reference runtime calls
        what = f"`{compact(ctx.text(node), 50)}` works on a texture reference"
        return Hit(node.start_byte, node.end_byte, {"what": what, "decl": compact(ctx.text(node), 60), "kind": "texture"})
    if ctx.function_of(node) is not None:
        return None  # texture references are file-scope objects
    kind = ctx.text(caps["t"][0])
    return Hit(node.start_byte, node.end_byte, {"what": f"`{compact(ctx.text(node), 60)}` declares a {kind} reference",
                                                "decl": compact(ctx.text(node), 60), "kind": kind})


@node_check("PORT081")
def texture_fetch(ctx, node, caps):
    if not ctx.in_device_code(node):
        return None
    return Hit(node.start_byte, node.end_byte, {"call": compact(ctx.text(node), 50)})


# a #define's body, to the end of its last line (backslash continuations)
_DEFINE = re.compile(rb"(?m)^[ \t]*#[ \t]*define[ \t]+\w+(?:\([^)\n]*\))?[ \t]*((?:[^\n\\]|\\.|\\\n)*)")
_MACRO_CODE = b"void porter_macro_body() { "


@functools.cache
def _fetch_query():
    """PORT081's own query patterns (grammars/rules/device_runtime.scm), to run over a macro's body."""
    return parse.ts.Query(parse.language(), "\n".join(rule_patterns()["PORT081"]))


@file_check("PORT081")
def texture_fetch_in_macro(ctx):
    """A texture fetch written in a #define (NVIDIA's convolutionFFT2D: ``#define LOAD_FLOAT(i)
    tex1Dfetch<float>(texFloat, i)``, used in its kernels): clang stops in the macro's body, at each
    expansion.  The body is parsed as code (continuations blanked, positions kept) and PORT081's patterns run
    over it; a texture fetch is device code wherever the macro is used."""
    words = catalogue()["PORT081"].triggers
    if b"define" not in ctx.source or not any(w in ctx.source for w in words):
        return []
    hits = []
    for m in _DEFINE.finditer(ctx.source):
        body = m.group(1)
        if not any(w in body for w in words) or ctx.index.is_protected(m.start()):
            continue
        code = _MACRO_CODE + re.sub(rb"\\(\r?\n)", lambda c: b" " + c.group(1), body) + b"\n;}"
        tree = parse.parse(code)
        for node in parse.captures(_fetch_query(), tree.root_node).get("PORT081", []):
            start = m.start(1) + node.start_byte - len(_MACRO_CODE)
            hits.append(Hit(start, start + node.end_byte - node.start_byte,
                            {"call": compact(node.text.decode("utf-8", "replace"), 50)}))
    return hits


@node_check("PORT090")
def device_launch(ctx, node, caps):
    if not ctx.in_device_code(node):
        return None
    fn = ctx.text(caps["fn"][0]) if caps.get("fn") else ""  # no @fn: a <<<...>>> launch
    launch = not fn or "Launch" in fn
    return Hit(node.start_byte, node.end_byte, {"call": compact(ctx.text(node), 50),
                                                "what": "launches work" if launch else "calls the device runtime"})


# ---------------------------------------------------------------- timing
@node_check("PORT110")
def device_clock(ctx, node, caps):
    if caps["args"][0].named_child_count or not ctx.in_device_code(node):
        return None
    name = ctx.text(caps["fn"][0])
    # wall_clock64() reads s_memrealtime; HIP 5.2 declares it for the device pass only, so the
    # builtin itself is what compiles everywhere
    return Hit(node.start_byte, node.end_byte, {"name": name},
               fix("the constant-rate counter behind wall_clock64() (ticks at hipDeviceAttributeWallClockRate kHz), "
                   "for wall time", edit(node.start_byte, node.end_byte, WALL_CLOCK), safe=False))


# ---------------------------------------------------------------- managed memory
@node_check("PORT120")
def managed(ctx, node, caps):
    what = ctx.text(caps["fn"][0]) if "fn" in caps else "__managed__"
    if what == "__managed__" and not first_in_scope(ctx, node, "managed-" + str(ctx.index.line_of(node.start_byte))):
        return None
    return Hit(node.start_byte, node.end_byte, {"what": what})


# ---------------------------------------------------------------- numeric-format
@node_check("PORT130")
def fp8(ctx, node, caps):
    name = ctx.text(caps["path"][0]) if "path" in caps else ctx.text(caps["t"][0])
    if "path" not in caps and not first_in_scope(ctx, node, "fp8:" + name):
        return None
    return Hit(node.start_byte, node.end_byte, {"name": name})
