"""CUDA's compile-time version tests under HIP: __CUDA_ARCH__, which HIP's device pass leaves undefined,
and CUDA's version macros (CUDART_VERSION, CUDA_VERSION, __CUDACC_VER_*__), which no HIP defines; what an #if
on them does under HIP, and the rewrite that picks the branch a recent CUDA takes where that is safe."""

from __future__ import annotations

import functools
import re

from porter.findings import ptx
from porter.findings.engine import Hit
from porter.findings.predicates import node_check
from porter.findings.predicates.common import compact, edit, fix
from porter.findings.predicates.features import first_in_scope


# ---------------------------------------------------------------- arch-macro
@node_check("PORT100")
def cuda_arch_value(ctx, node, caps):
    parent = node.parent
    if parent is None or parent.type in ("preproc_defined", "preproc_ifdef", "preproc_def", "preproc_function_def"):
        return None
    the_fix = None
    shown = "__CUDA_ARCH__"
    if parent.type == "binary_expression":
        op = parent.child_by_field_name("operator")
        other = parent.child_by_field_name("right")
        op_text = ctx.text(op) if op is not None else ""
        shown = compact(ctx.text(parent), 40)
        if other is not None and other.type == "number_literal" and ctx.text(parent.child_by_field_name("left")) == "__CUDA_ARCH__":
            newer = op_text in (">=", ">")  # true on a recent NVIDIA device: MI300X counts as one
            target = "defined(__HIP_DEVICE_COMPILE__)" if newer else "!defined(__HIP_DEVICE_COMPILE__)"
            span = parent
            outer = parent.parent
            if op_text in (">=", ">", "<", "<=") and outer is not None and outer.type == "binary_expression" \
                    and ctx.text(outer.child_by_field_name("operator")) == "&&":
                left, right = outer.child_by_field_name("left"), outer.child_by_field_name("right")
                sibling = left if right is not None and right.start_byte == parent.start_byte else right
                if sibling is not None and sibling.type == "preproc_defined" and "__CUDA_ARCH__" in ctx.text(sibling):
                    # `defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= N` is one test (device code of a recent
                    # arch): rewritten whole, not into `defined(X) && defined(X)` once translated; with `<`
                    # it asks for an old NVIDIA device, which an AMD device never is
                    span = outer
                    target = "defined(__HIP_DEVICE_COMPILE__)" if newer else "0"
                    shown = compact(ctx.text(outer), 40)
            directive = _directive_of(span)
            if op_text in (">=", ">", "<", "<=") and directive is not None \
                    and not _fix_selects_ptx(ctx, directive, device_takes_branch=(target != "0" and newer),
                                             device_leaves_branch=(target != "0" and not newer)):
                the_fix = fix(f"treat MI300X as the newest architecture: `{target}` (check the guarded code uses nothing NVIDIA-only)",
                              edit(span.start_byte, span.end_byte, target), safe=False)
    return Hit(node.start_byte, node.end_byte, {"expr": shown}, the_fix)


def _directive_of(node):
    """The #if / #elif whose condition holds ``node``, or None."""
    n = node.parent
    while n is not None and n.type not in ("preproc_if", "preproc_elif"):
        if n.type not in ("binary_expression", "parenthesized_expression", "unary_expression"):
            return None
        n = n.parent
    return n


def _holds_ptx(ctx, nodes) -> bool:
    source = ctx.source
    # an asm statement's node starts with its keyword (asm, __asm, __asm__): no such text, no walk
    stack = [n for n in nodes if source.find(b"asm", n.start_byte, n.end_byte) >= 0]
    while stack:
        n = stack.pop()
        if n.type == "gnu_asm_expression":
            template = ptx.template_of(ctx.source, n)
            if template is None or ptx.is_ptx(template):
                return True
        stack.extend(n.children)
    return False


def _fix_selects_ptx(ctx, directive, device_takes_branch: bool, device_leaves_branch: bool) -> bool:
    """Whether the rewritten test would send AMD device code into inline PTX that it does not
    reach today (an unset __CUDA_ARCH__ reads 0: `>= N` is false there, `< N` true).  A guarded
    `asm("nanosleep.u32 ...")` under `__CUDA_ARCH__ >= 700` must stay unreached on AMD."""
    cond = directive.child_by_field_name("condition")
    alt = directive.child_by_field_name("alternative")
    if device_takes_branch:  # the branch under this test
        body = [c for c in directive.children if cond is not None and c.start_byte >= cond.end_byte
                and (alt is None or c.end_byte <= alt.start_byte)]
        return _holds_ptx(ctx, body)
    if device_leaves_branch:  # the #elif / #else branches after it
        return alt is not None and _holds_ptx(ctx, [alt])
    return False


# ---------------------------------------------------------------- arch-macro: CUDA version macros
# cuda_runtime_api.h defines CUDART_VERSION, cuda.h CUDA_VERSION, nvcc __CUDACC_VER_MAJOR__ & co.; no HIP
# header or hipcc defines them (HIP 5.2 headers; hip-header-names.tsv, ROCm 5.6 to 6.3: absent).  The
# translator renames presence tests only (#ifdef CUDART_VERSION -> HIP_VERSION: porter query CUDART_VERSION),
# so a comparison stays, and in #if an undefined name reads 0.
_CUDA_VERSION_MACROS = frozenset({"CUDART_VERSION", "CUDA_VERSION", "__CUDACC_VER_MAJOR__", "__CUDACC_VER_MINOR__",
                                  "__CUDACC_VER_BUILD__"})
# a test that names one of these already chooses a branch for HIP itself
_HIP_MACROS = re.compile(r"\b(?:__HIP_PLATFORM_AMD__|__HIP_PLATFORM_HCC__|__HIPCC__|__HIP__|HIP_VERSION\w*|__HIP_DEVICE_COMPILE__|USE_ROCM|__HIP_PLATFORM_NVIDIA__)\b")
# names whose definedness under HIP the translation fixes: CUDA's version macros stay undefined; __CUDACC__
# and __NVCC__ become __HIPCC__, which hipcc defines; hip_common.h defines __HIP_PLATFORM_AMD__ for every AMD
# GPU target (what porter ports to), so a test the fix below wrote is read as HIP reads it
_DEFINED_UNDER_HIP = {**{n: 0 for n in _CUDA_VERSION_MACROS}, "__CUDACC__": 1, "__NVCC__": 1,
                      "__HIP_PLATFORM_AMD__": 1}
# The oldest CUDA whose meaning porter translates: its calls are read with CUDA 12's signatures and meaning
# (cudaGraphInstantiate(exec, graph, flags): mapping/sources/conventions.toml).  A comparison of a version
# macro with a number has the same value in every release from this one on when the number is at most the
# release's own value (CUDART_VERSION / CUDA_VERSION 12000 = 12.0, __CUDACC_VER_MAJOR__ 12): the comparison
# is monotonic, so `>= 2020`, `> 11000` are true there and `< 4000`, `<= 11080` false.  Treating HIP as that
# CUDA then keeps the branch every such CUDA build compiles, and the fix is safe.  __CUDACC_VER_MINOR__ /
# _BUILD__ restart with each major release: never.
_CUDA_FLOOR = {"CUDART_VERSION": 12000, "CUDA_VERSION": 12000, "__CUDACC_VER_MAJOR__": 12}
_DEFINED = re.compile(r"\bdefined\s*(?:\(\s*([A-Za-z_]\w*)\s*\)|([A-Za-z_]\w*))")


def _hip_value(ctx, condition: str) -> int | None:
    """The value of an #if condition under HIP, when it depends only on names whose HIP meaning is known."""
    from porter.findings.values import evaluate

    text = re.sub(r"//[^\n]*|/\*.*?\*/", " ", condition, flags=re.S).replace("\\\n", " ")

    def defined(m):
        name = m.group(1) or m.group(2)
        return str(_DEFINED_UNDER_HIP[name]) if name in _DEFINED_UNDER_HIP else m.group(0)

    text = _DEFINED.sub(defined, text)
    unknown = sorted({m.group(1) or m.group(2) for m in _DEFINED.finditer(text)})
    if len(unknown) > 4:
        return None
    values = set()
    for bits in range(1 << len(unknown)):  # a defined() test of another name is 0 or 1: the value holds for both?
        case = {n: (bits >> i) & 1 for i, n in enumerate(unknown)}
        values.add(evaluate(_DEFINED.sub(lambda m: str(case[m.group(1) or m.group(2)]), text),
                            lambda n: 0 if n in _CUDA_VERSION_MACROS else None))
    return values.pop() if len(values) == 1 else None


def _branch_line(ctx, node) -> int:
    return ctx.index.line_of(node.start_byte)


def _compiled_under_hip(ctx, node) -> bool:
    """Whether code at ``node`` (a use in code, not in a directive's test) is compiled under HIP, as far as
    the enclosing #if / #elif / #else tell: a use in the branch HIP takes (or one whose test porter cannot
    evaluate) counts; one in a branch HIP skips (`#if CUDART_VERSION >= N`'s body: 0 >= N) does not, nor one
    inside a directive porter does not read (a macro body, a test that calls a macro)."""
    start = node.start_byte
    n = node.parent
    while n is not None:
        if n.type in ("preproc_arg", "preproc_params"):
            return False
        if n.type in ("preproc_if", "preproc_elif"):
            cond = n.child_by_field_name("condition")
            alt = n.child_by_field_name("alternative")
            if cond is not None and cond.start_byte <= start < cond.end_byte:
                return False  # a test porter does not read (a macro call): its use is reported, not here
            value = _hip_value(ctx, ctx.text(cond)) if cond is not None else None
            in_alt = alt is not None and alt.start_byte <= start < alt.end_byte
            if value is not None and bool(value) == in_alt:
                return False  # the body of a false test, or the #else / #elif of a true one
        n = n.parent
    return True


def _integer(text: str) -> int | None:
    """A C integer literal's value (12000, 0x2EE0, 12000L); None for a floating or unreadable one."""
    m = re.fullmatch(r"(0[xX][0-9a-fA-F]+|[0-9]+)[uUlL]*", text.replace("'", ""))
    if m is None:
        return None
    digits = m.group(1)
    if digits[:2] in ("0x", "0X"):
        return int(digits, 16)
    return int(digits, 8) if digits.startswith("0") and len(digits) > 1 else int(digits)


_INCLUDE = re.compile(rb"^[ \t]*#[ \t]*include[ \t]*<([^>\n]+)>", re.M)


@functools.cache
def _lacked(target: str | None, roc: bool) -> tuple[frozenset[bytes], frozenset[str]]:
    """CUDA names and headers whose HIP counterpart HIP lacks, or ROCm ``target`` does."""
    from porter.findings.predicates.api import _unavailable, _unsupported_names

    names, headers = _unsupported_names()
    if target:
        too_new, new_headers = _unavailable(target, roc)
        names, headers = names | frozenset(too_new), headers | new_headers
    return names, headers


def _without_tests(text: bytes, nodes) -> bytes:
    """``text`` (the span of ``nodes``) with the tests of the #if / #elif / #ifdef directives in it blanked: a
    name there is read by the preprocessor (an undefined one is 0), never compiled."""
    base = nodes[0].start_byte
    out = bytearray(text)
    stack = list(nodes)
    while stack:
        n = stack.pop()
        if n.type in ("preproc_if", "preproc_elif", "preproc_ifdef", "preproc_elifdef"):
            test = n.child_by_field_name("condition") or n.child_by_field_name("name")
            if test is not None:
                out[test.start_byte - base:test.end_byte - base] = b" " * (test.end_byte - test.start_byte)
        stack.extend(n.children)
    return bytes(out)


def _lacks_under_target(ctx, directive, newer: bool) -> str:
    """What the code the fixed test would newly send through HIP uses that the target ROCm lacks: inline PTX,
    a name HIP has no counterpart of, or one the target ROCm is too old for ("" when none).  HeCBench's bscan:
    `#if CUDART_VERSION >= 9000` guards `__ballot_sync`, which ROCm 5.2 lacks, and its #else's `__ballot` builds:
    choosing the first branch there would break a port that compiles."""
    cond = directive.child_by_field_name("condition")
    alt = directive.child_by_field_name("alternative")
    if newer:  # the body under this test
        nodes = [c for c in directive.children if cond is not None and c.start_byte >= cond.end_byte
                 and (alt is None or c.end_byte <= alt.start_byte)]
    else:  # the #elif / #else after it
        nodes = [alt] if alt is not None else []
    if not nodes:
        return ""
    if _holds_ptx(ctx, nodes):
        return "inline PTX"
    text = ctx.source[nodes[0].start_byte:nodes[-1].end_byte]
    words = set(re.findall(rb"[A-Za-z_]\w*", _without_tests(text, nodes)))
    target = ctx.options.target
    lacked, lacked_headers = _lacked(target, ctx.options.roc)
    names = sorted(w.decode() for w in words & lacked)
    headers = sorted(h.decode().strip() for h in _INCLUDE.findall(text) if h.decode().strip() in lacked_headers)
    if not names and not headers:
        return ""
    what = ", ".join(f"`{n}`" for n in (names + [f"<{h}>" for h in headers])[:3])
    return f"{what}, which HIP{f' {target}' if target else ''} lacks"


@node_check("PORT173")
def cuda_version_value(ctx, node, caps):
    parent = node.parent
    if parent is None or parent.type in ("preproc_defined", "preproc_ifdef", "preproc_def", "preproc_function_def",
                                         "preproc_call"):
        return None
    name = ctx.text(node)
    directive = _directive_of(node)
    expr = parent if parent.type == "binary_expression" else node
    shown = compact(ctx.text(expr), 40)
    if directive is None:
        if not _compiled_under_hip(ctx, node):
            return None
        return Hit(node.start_byte, node.end_byte,
                   {"expr": shown, "name": name, "outcome": "this code does not compile (an undeclared identifier)"},
                   severity="error")
    condition = directive.child_by_field_name("condition")
    cond_text = ctx.text(condition)
    if _HIP_MACROS.search(cond_text):
        return None  # the test chooses HIP's branch itself
    if not first_in_scope(ctx, node, f"version-test:{directive.start_byte}"):
        return None  # one finding per directive
    value = _hip_value(ctx, cond_text)
    alt = directive.child_by_field_name("alternative")
    kind = "#elif" if directive.type == "preproc_elif" else "#if"
    if value is None:
        outcome = f"it reads 0 in this {kind}, and which branch HIP compiles depends on the other names of the test"
    elif value:
        outcome = f"it reads 0 in this {kind}: the test is true, so HIP compiles this branch (line {_branch_line(ctx, directive)})"
    elif alt is not None:
        other = "#else" if alt.type == "preproc_else" else "#elif"
        outcome = f"it reads 0 in this {kind}: the test is false, so HIP skips this branch and compiles the {other} at line {_branch_line(ctx, alt)}"
    else:
        outcome = f"it reads 0 in this {kind}: the test is false, so HIP compiles nothing of this block"
    the_fix = None
    if parent.type == "binary_expression" and ctx.text(parent.child_by_field_name("left")) == name:
        op = ctx.text(parent.child_by_field_name("operator"))
        right = parent.child_by_field_name("right")
        number = _integer(ctx.text(right)) if right is not None and right.type == "number_literal" else None
        if op in (">=", ">", "<", "<=") and number is not None:
            newer = op in (">=", ">")
            test = ctx.text(parent)
            target = (f"(defined(__HIP_PLATFORM_AMD__) || {test})" if newer
                      else f"(!defined(__HIP_PLATFORM_AMD__) && {test})")
            floor = _CUDA_FLOOR.get(name)
            settled = floor is not None and (number <= floor if op in (">=", "<") else number < floor)
            lacking = _lacks_under_target(ctx, directive, newer) if settled else ""
            if settled and not lacking:
                the_fix = fix(f"treat HIP as the CUDA 12 and later porter translates, where `{compact(test, 40)}` is "
                              f"{'true' if newer else 'false'} in every release: `{compact(target, 70)}`",
                              edit(parent.start_byte, parent.end_byte, target))
            elif lacking:
                the_fix = fix(f"treat HIP as a recent CUDA: `{compact(target, 70)}`; the branch HIP then compiles "
                              f"uses {lacking}, so this is a suggestion", edit(parent.start_byte, parent.end_byte, target),
                              safe=False)
            else:
                the_fix = fix(f"treat HIP as a recent CUDA: `{compact(target, 70)}` (check that the branch HIP then "
                              "compiles uses nothing NVIDIA-only)", edit(parent.start_byte, parent.end_byte, target),
                              safe=False)
    return Hit(node.start_byte, node.end_byte, {"expr": shown, "name": name, "outcome": outcome}, the_fix)
