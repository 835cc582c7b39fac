"""PORT192: a CUDA math function that HIP declares for device code only, called in host code.

CUDA's math API declares these for the host too (a CPU reference loop calls ``rsqrtf`` or ``isfinite``); HIP
takes its math functions from clang's wrapper headers (``__clang_hip_math.h``, ``__clang_hip_cmath.h``), where
they are ``__device__`` only, and the C library declares no host one: the host compile stops at "no matching
function for call to 'rsqrtf'".  Which names: the catalogue's triggers, each found by compiling a host call of
every function of clang 15's ``__clang_hip_math.h`` with nvcc 13 (compiles) and with hipcc 5.2 and clang-19
(does not).  ``isfinite``/``isnan``/``isinf`` fail only where ``<math.h>`` is not included (libstdc++'s
``<math.h>`` brings ``std::isfinite`` ... into the global namespace; ``<cmath>`` alone does not).

Safe fixes, each giving CUDA's host result exactly: ``std::isfinite(x)`` (the classification is exact), and
``rsqrtf(x)`` -> ``((float)(1.0 / std::sqrt((double)(x))))``: CUDA's host rsqrtf, compared bit for bit with that
expression on 4,000,012 floats (random bit patterns, zeros, infinities, NaN, denormals) by executing nvcc 13's
host code: no difference (``1.0f / sqrtf(x)`` differs on 516,870 of them).
"""

from __future__ import annotations

import functools
import re

from porter.findings.engine import Hit
from porter.findings.predicates import node_check
from porter.findings.predicates.common import args_of, compact, edit, fix, identifier_nodes
from porter.findings.predicates.expr_types import defines_own_function
from porter.findings.predicates.host_half import function_name

_CLASSIFY = frozenset({"isfinite", "isnan", "isinf"})
_MATH_H = re.compile(rb"^[ \t]*#[ \t]*include[ \t]*[<\"]math\.h[>\"]", re.M)
_HOST = re.compile(rb"\b__host__\b")
_DEVICE = re.compile(rb"\b__device__\b")
_INTERNAL = re.compile(rb"\b(?:inline|__inline__|__forceinline__|static|constexpr)\b")
_DEVICE_LAMBDA = re.compile(r"\]\s*(?:\([^)]*\)\s*)?[^{]*\b__device__\b")


@functools.cache
def _names() -> frozenset[str]:
    from porter.findings.catalogue import catalogue

    return frozenset(t.decode() for t in catalogue()["PORT192"].triggers)


def _math_h(ctx) -> bool:
    """The file, or a project header it includes (the translation unit's, values.unit_of), includes <math.h>."""
    key = "host_math.math_h"
    if key not in ctx.cache:
        from porter.findings.values import blanked_code, unit_of

        found = _MATH_H.search(blanked_code(ctx)) is not None  # (not an #include in a comment)
        for _shown, path in () if found else unit_of(ctx).header_paths:
            try:
                found = _MATH_H.search(open(path, "rb").read()) is not None
            except OSError:
                continue
            if found:
                break
        ctx.cache[key] = found
    return ctx.cache[key]


def _host_code(ctx, node) -> bool:
    fn = ctx.function_of(node)
    while fn is not None and fn.type == "lambda_expression":
        body = fn.child_by_field_name("body")
        head = ctx.source[fn.start_byte:body.start_byte if body is not None else fn.end_byte].decode("utf-8", "replace")
        if _DEVICE_LAMBDA.search(head):
            return False
        fn = ctx.function_of(fn)
    return not ctx.is_device_function(fn)


def _host_device_emitted(ctx, node) -> bool:
    """The call is in a __host__ __device__ function that the host compile emits too, where a device-only call
    stops it ("reference to __device__ function 'rsqrtf' in __host__ __device__ function", hipcc 5.2 and
    clang-19): one with external linkage that is neither inline nor a template (always emitted), or one that host
    code of the file calls (an inline, static or template one is emitted where it is used)."""
    fn = ctx.function_of(node)
    while fn is not None and fn.type == "lambda_expression":
        fn = ctx.function_of(fn)
    if fn is None:
        return False
    head = ctx.source[fn.start_byte:(fn.child_by_field_name("body") or fn).start_byte]
    if _HOST.search(head) is None or _DEVICE.search(head) is None:
        return False
    outer = fn.parent
    while outer is not None and outer.type in ("linkage_specification", "declaration_list", "translation_unit"):
        outer = outer.parent
    if not _INTERNAL.search(head) and (outer is None or outer.type == "namespace_definition"
                                       and outer.child_by_field_name("name") is not None):
        return True
    name = function_name(ctx.source, fn)
    if not name:
        return False
    called = ctx.cache.setdefault("host_math.host_called", {})
    key = (name, fn.start_byte)
    if key not in called:
        called[key] = any(not fn.start_byte <= n.start_byte < fn.end_byte and n.parent.type == "call_expression"
                          and _host_code(ctx, n) for n in identifier_nodes(ctx, 0, len(ctx.source), name))
    return called[key]


@node_check("PORT192")
def host_math(ctx, node, caps):
    fn = caps["fn"][0]
    name = ctx.text(fn)
    if name not in _names():
        return None
    host = _host_code(ctx, node)
    if not (host or _host_device_emitted(ctx, node)) or defines_own_function(ctx, name):
        return None
    if name in _CLASSIFY and _math_h(ctx):
        return None
    args = args_of(node)
    facts = {"call": compact(ctx.text(node), 50), "name": name,
             "where": "host code" if host else "a __host__ __device__ function the host compile emits"}
    if not host and name not in _CLASSIFY:  # the device side keeps CUDA's device function: no one-expression fix
        return Hit(node.start_byte, node.end_byte, facts)
    if name in _CLASSIFY:  # in a __host__ __device__ function the device side changes too: not executed, a review
        return Hit(node.start_byte, node.end_byte, facts,
                   fix(f"`std::{name}`: <cmath>'s host classification, the same answer", edit(fn.start_byte, fn.start_byte,
                                                                                           "std::"), safe=host))
    if name == "rsqrtf" and len(args) == 1:
        return Hit(node.start_byte, node.end_byte, facts,
                   fix("CUDA's host rsqrtf, computed as it computes it: `(float)(1.0 / std::sqrt((double)(x)))`",
                       edit(node.start_byte, node.end_byte,
                            f"((float)(1.0 / std::sqrt((double)({ctx.text(args[0])}))))")))
    if name == "rsqrt" and len(args) == 1:
        return Hit(node.start_byte, node.end_byte, facts,
                   fix("`1.0 / std::sqrt(x)`, CUDA's host rsqrt of a double (a float argument: CUDA's overload returns "
                       "float, review)", edit(node.start_byte, node.end_byte,
                                              f"(1.0 / std::sqrt((double)({ctx.text(args[0])})))"), safe=False))
    return Hit(node.start_byte, node.end_byte, facts)
