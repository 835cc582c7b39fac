"""LDS (shared memory) limits: gfx942 has 64 KiB of LDS per workgroup, NVIDIA GPUs allow
up to 227 KiB (sm_90) per block.  Fact: AMD CDNA3 ISA / MI300 specs (64 KiB LDS per CU
available to one workgroup); CUDA programming guide (opt-in dynamic shared memory)."""

from __future__ import annotations

import ast
import operator
import re

from porter.findings.engine import Hit
from porter.findings.predicates import node_check
from porter.findings.predicates.common import compact

LDS_BYTES = 64 * 1024
SIZES = {
    "char": 1, "signed char": 1, "unsigned char": 1, "bool": 1, "int8_t": 1, "uint8_t": 1,
    "short": 2, "unsigned short": 2, "int16_t": 2, "uint16_t": 2, "half": 2, "__half": 2, "__nv_bfloat16": 2,
    "__hip_bfloat16": 2, "hip_bfloat16": 2, "nv_bfloat16": 2, "half2": 4, "__half2": 4,
    "int": 4, "unsigned": 4, "unsigned int": 4, "float": 4, "int32_t": 4, "uint32_t": 4,
    "long long": 8, "unsigned long long": 8, "double": 8, "int64_t": 8, "uint64_t": 8, "size_t": 8,
    "long": 8, "unsigned long": 8,
    "float2": 8, "int2": 8, "uint2": 8, "float4": 16, "int4": 16, "uint4": 16, "double2": 16, "float3": 12,
    "int3": 12, "double4": 32,
}
_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.FloorDiv: operator.floordiv,
        ast.Div: operator.floordiv, ast.LShift: operator.lshift, ast.Mod: operator.mod}


def _evaluate(ctx, text: str, depth: int = 0) -> int | None:
    """A constant integer expression of literals and object-like macros, or None."""
    if depth > 4:
        return None
    text = ctx.macro_value(text)
    text = re.sub(r"\b(\d+)[uUlL]+\b", r"\1", text)
    names = set(re.findall(r"[A-Za-z_]\w*", text))
    for name in names:
        if name.startswith("sizeof"):
            return None
        value = _evaluate(ctx, name, depth + 1) if name in ctx.macros else None
        if value is None:
            return None
        text = re.sub(r"\b" + name + r"\b", str(value), text)
    try:
        tree = ast.parse(text.replace("/", "//").replace("////", "//"), mode="eval")
    except SyntaxError:
        return None

    def ev(node):
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            return node.value
        if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
            return _OPS[type(node.op)](ev(node.left), ev(node.right))
        raise ValueError
    try:
        value = ev(tree)
    except (ValueError, ZeroDivisionError, OverflowError):
        return None
    return value if 0 <= value < 1 << 40 else None


def _array_bytes(ctx, type_node, decl) -> int | None:
    elem = SIZES.get(re.sub(r"\s+", " ", ctx.text(type_node)).strip())
    if elem is None:
        return None
    total = elem
    while decl is not None and decl.type == "array_declarator":
        size = decl.child_by_field_name("size")
        if size is None:
            return None  # extern __shared__ x[]: dynamic
        n = _evaluate(ctx, ctx.text(size))
        if n is None:
            return None
        total *= n
        decl = decl.child_by_field_name("declarator")
    return total


@node_check("PORT150")
def static_shared(ctx, node, caps):
    size = _array_bytes(ctx, caps["type"][0], caps["decl"][0])
    if size is None:
        return None
    fn = ctx.function_of(node)
    key = fn.start_byte if fn is not None else -1
    totals = ctx.cache.setdefault("lds_totals", {})
    before = totals.get(key, 0)
    totals[key] = before + size
    if totals[key] <= LDS_BYTES or before > LDS_BYTES:
        return None  # within the limit, or already reported for this function
    what = compact(ctx.text(node).rstrip(";"), 50)
    return Hit(node.start_byte, node.end_byte, {"what": what, "bytes": f"{totals[key]:,}",
                                                "kib": f"{totals[key] / 1024:.1f}"})


@node_check("PORT151")
def dynamic_shared(ctx, node, caps):
    n = _evaluate(ctx, ctx.text(caps["value"][0]))
    if n is None or n <= LDS_BYTES:
        return None
    return Hit(node.start_byte, node.end_byte, {"what": compact(ctx.text(node), 60), "bytes": f"{n:,}",
                                                "kib": f"{n / 1024:.1f}"})
