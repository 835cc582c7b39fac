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


# ---------------------------------------------------------------- PORT151: dynamic shared memory
# The size a dynamic allocation asks for (the attribute call, a launch's size argument) is followed
# to its value: literals, #define / const / constexpr / enum constants of the file and its quoted
# headers (porter.findings.values), and locals of the same function (or of the functions around a
# lambda) defined from a constant expression and never assigned again (nor their address taken);
# sizeof of a scalar type counts (SIZES: sizeof(float) = 4, sizeof(half) = 2).
_SIZEOF = re.compile(r"\bsizeof\s*\(\s*([A-Za-z_][\w\s:]*?)\s*\)")
_CAST_TYPE = (r"(?:(?:::)?(?:std::)?size_t|unsigned\s+long\s+long|unsigned\s+long|unsigned\s+int|unsigned|long\s+long|long|int"
              r"|(?:::)?(?:std::)?u?int(?:32|64)_t)")
_C_CAST = re.compile(r"\(\s*(?:const\s+)?" + _CAST_TYPE + r"\s*\)")
_FN_CAST = re.compile(r"(?<![\w:])(?:static_cast\s*<\s*(?:const\s+)?" + _CAST_TYPE + r"\s*>|" + _CAST_TYPE + r")\s*\(")
_QUALIFIER = re.compile(r"(?<![\w:])(?:::\s*)?(?:[A-Za-z_]\w*\s*::\s*)+(?=[A-Za-z_])")
_SCOPES = ("function_definition", "lambda_expression")


def _scalar_size(type_text: str) -> int | None:
    t = re.sub(r"\s+", " ", type_text).strip()
    t = re.sub(r"^(?:const |volatile )+", "", t)
    t = re.sub(r"^(?:::)?(?:std::)?", "", t)
    return SIZES.get(t)


def _constant_text(text: str) -> str:
    """``text`` with ``sizeof(<scalar type>)`` replaced by its size and integer casts dropped."""
    if "sizeof" in text:
        text = _SIZEOF.sub(lambda m: str(n) if (n := _scalar_size(m.group(1))) is not None else m.group(0), text)
    if "(" in text:
        text = _C_CAST.sub(" ", text)
        text = _FN_CAST.sub("(", text)
    if "::" in text:  # Config::kSmemBytes: the constant by its own name (two that differ give no value)
        text = _QUALIFIER.sub("", text)
    return text


_DECLARATOR_WRAPPERS = ("pointer_declarator", "reference_declarator", "array_declarator")


def _name_in(ctx, fn, name: str):
    """What a function (or lambda) does with ``name``: its declarations, each (start byte of the
    name, initialiser text or None), and whether it is assigned, incremented, has its address taken
    or is a parameter there.  Found from the name's occurrences in the function's text (a search in
    C), not by walking the function's tree: a launch's size is asked about in every launch."""
    cache = ctx.cache.setdefault("lds.names", {})
    key = (fn.start_byte, fn.end_byte, name)
    found = cache.get(key)
    if found is not None:
        return found
    defs: list[tuple[int, str | None]] = []
    unknown = False  # assigned, incremented, address taken, a parameter
    raw = name.encode()
    for m in re.finditer(rb"(?<![\w.])" + re.escape(raw) + rb"(?!\w)", ctx.source[fn.start_byte:fn.end_byte]):
        at = fn.start_byte + m.start()
        n = fn.descendant_for_byte_range(at, at + len(raw))
        if n is None or n.type != "identifier" or n.start_byte != at or n.end_byte != at + len(raw):
            continue  # a comment, a string, a member (x.smem), a macro body
        parent = n.parent
        if parent is None:
            continue
        kind = parent.type
        if kind == "init_declarator" and _same(parent.child_by_field_name("declarator"), n):
            value = parent.child_by_field_name("value")
            text = ctx.text(value) if value is not None else None
            if text is not None and value.type in ("argument_list", "initializer_list"):
                text = text[1:-1]  # int s(96 * 1024); int s{96 * 1024};
            defs.append((at, text))
        elif kind == "assignment_expression" and _same(parent.child_by_field_name("left"), n):
            unknown = True
        elif kind == "update_expression" or (kind == "pointer_expression" and ctx.text(parent).startswith("&")):
            unknown = True
        else:
            decl = parent
            while decl is not None and decl.type in _DECLARATOR_WRAPPERS:
                decl = decl.parent
            if decl is not None and decl.type in ("parameter_declaration", "optional_parameter_declaration"):
                unknown = True
            elif decl is not None and decl.type == "declaration" and kind in (*_DECLARATOR_WRAPPERS, "declaration"):
                defs.append((at, None))  # int smem; (given a value later, or never)
    found = cache[key] = (defs, unknown)
    return found


def _same(a, b) -> bool:
    return a is not None and a.start_byte == b.start_byte and a.end_byte == b.end_byte


def _where(ctx, const) -> str:
    return f"line {const.line}" if const.pos >= 0 else f"{const.file}:{const.line}"


def _in_function(ctx, pos: int) -> bool:
    node = ctx.index.node_at(pos, pos + 1)
    return node is not None and ctx.enclosing(node, *_SCOPES) is not None


def _file_value(ctx, name: str, depth: int):
    """The value of a constant of the file or its quoted headers, and where it is defined; None when
    it has none or two definitions disagree.  (A const local to some other function is no constant here.)"""
    from porter.findings.values import evaluate, unit_of

    defs = [c for c in unit_of(ctx).consts.get(name, ())
            if not (c.kind == "const" and c.pos >= 0 and _in_function(ctx, c.pos))]
    if not defs:
        return None
    values = {evaluate(_constant_text(c.expr), _lookup(ctx, c.pos, [], depth + 1)) for c in defs}
    if len(values) != 1 or None in values:
        return None
    return values.pop(), _where(ctx, defs[-1])


def _local_value(ctx, name: str, pos: int, scopes: list, depth: int):
    """The value of a local variable seen at ``pos``: its last definition before ``pos`` in the
    innermost of ``scopes`` (functions and lambdas, innermost first) that declares the name, from a
    constant expression, the variable never assigned (nor its address taken) in that function.
    ``False`` when the name is a variable whose value is unknown; None when no scope defines it."""
    for i, fn in enumerate(scopes):
        defs, unknown = _name_in(ctx, fn, name)
        before = [d for d in defs if d[0] < pos]
        if before:
            start, text = before[-1]
            if unknown or text is None:
                return False
            value = evaluate_text(ctx, text, start, scopes[i:], depth + 1)
            return (value, f"line {ctx.line_col(start)[0]}") if value is not None else False
        if unknown:
            return False
    return None


def _lookup(ctx, pos: int, scopes: list, depth: int, seen: list | None = None):
    def lookup(name: str) -> int | None:
        if depth > 8:
            return None
        found = _local_value(ctx, name, pos, scopes, depth) if scopes else None
        if found is False:
            return None
        if found is None:
            found = _file_value(ctx, name, depth)
            if found is None:
                return None
        if seen is not None and all(n != name for n, _v, _w in seen):
            seen.append((name, found[0], found[1]))
        return found[0]
    return lookup


def evaluate_text(ctx, text: str, pos: int, scopes: list, depth: int = 0, seen: list | None = None) -> int | None:
    """The integer value of the expression ``text`` written at ``pos`` inside ``scopes``, or None."""
    from porter.findings.values import evaluate

    if depth > 8:
        return None
    value = evaluate(_constant_text(text), _lookup(ctx, pos, scopes, depth, seen))
    return value if value is not None and 0 <= value < 1 << 40 else None


def dynamic_bytes(ctx, node) -> tuple[int | None, str]:
    """The value of the size expression ``node`` and where its names come from ("`smem` = 98304,
    defined at line 12"; "" for a literal)."""
    scopes = []
    fn = ctx.function_of(node)
    while fn is not None:
        scopes.append(fn)
        fn = ctx.function_of(fn)
    seen: list = []
    value = evaluate_text(ctx, ctx.text(node), node.start_byte, scopes, 0, seen)
    origin = "; ".join(f"`{name}` = {v}, defined at {where}" for name, v, where in seen[:2])
    return value, origin


_LAUNCH_SIZE_ARG = {  # launch call -> the index of its dynamic shared memory argument
    "hipLaunchKernelGGL": 3, "cudaLaunchKernel": 4, "hipLaunchKernel": 4, "cudaLaunchCooperativeKernel": 4,
    "hipLaunchCooperativeKernel": 4, "cuLaunchKernel": 7, "hipModuleLaunchKernel": 7,
    "cuLaunchCooperativeKernel": 7, "hipModuleLaunchCooperativeKernel": 7,
}


@node_check("PORT151")
def dynamic_shared(ctx, node, caps):
    if "value" in caps:  # the attribute call, the size argument of a <<<>>> launch, .dynamicSmemBytes = ...
        value = caps["value"][0]
    else:  # a launch call: the size argument by its position
        index = _LAUNCH_SIZE_ARG.get(ctx.text(caps["fn"][0]))
        args = [a for a in caps["args"][0].named_children if a.type != "comment"]
        if index is None or len(args) <= index:
            return None
        value = args[index]
    if value.type == "number_literal" and len(ctx.text(value)) < 5:
        return None  # <<<g, b, 0>>>, 4096: cheap to rule out
    n, origin = dynamic_bytes(ctx, value)
    if n is None or n <= LDS_BYTES:
        return None
    if node.type == "call_expression" and "launch" in caps:  # k<<<g, b, smem>>>(args): show the launch, not its arguments
        what = ctx.source[node.start_byte:caps["launch"][0].end_byte].decode("utf-8", "replace")
    else:
        what = ctx.text(node)
    kib = f"{n / 1024:.1f}"
    if kib == "64.0":  # 65537 bytes is not "64.0 KiB" above a 64 KiB limit
        kib = f"{n / 1024:.3f}"
    return Hit(node.start_byte, node.end_byte, {"what": compact(what, 60), "bytes": f"{n:,}",
                                                "kib": kib, "origin": f", {origin}" if origin else ""})
