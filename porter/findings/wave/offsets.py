"""The values a shuffle's offset (or source lane) takes, once with ``warpSize`` = 32 (NVIDIA) and
once with ``warpSize`` = 64 (gfx942): what decides whether a width is safe to write.

The offset is a constant expression, or an expression of the variable of an enclosing ``for``
or ``while`` loop of a simple shape: an initial value, a test against a bound, and an update
that halves, doubles, shifts or steps it (``for (int o = warpSize / 2; o > 0; o /= 2)``).
Constants come from the translation unit (porter.findings.values); ``warpSize`` is the
platform's.  Anything else is unknown (None).
"""

from __future__ import annotations

import re

from porter.findings import values
from porter.findings.wave.name_regex import name_at

MAX_STEPS = 200
_IDENT = re.compile(r"(?<![\w.])([A-Za-z_]\w*)\b(?!\s*\()")
_UPDATE = re.compile(r"^\s*(?:(\+\+|--)\s*(\w+)|(\w+)\s*(\+\+|--)|(\w+)\s*(\+=|-=|\*=|/=|<<=|>>=)\s*(.+?)|"
                     r"(\w+)\s*=\s*(\w+)\s*([-+*/]|<<|>>)\s*(.+?))\s*$", re.S)
_COND = re.compile(r"^\s*(.+?)\s*(<=|>=|!=|<|>)\s*(.+?)\s*$", re.S)


def lookup_for(unit, warp: int, local: dict[str, int] | None = None):
    """A name look-up for ``values.evaluate`` that knows ``warpSize`` = ``warp`` and follows the
    unit's constants through it (``#define HALF (warpSize / 2)``)."""
    cache: dict[str, int | None] = {}

    def lookup(name: str, depth: int = 0) -> int | None:
        if local and name in local:
            return local[name]
        if name == "warpSize":
            return warp
        if name in cache:
            return cache[name]
        defs = unit.consts.get(name) if unit is not None else None
        if not defs or depth > 12:
            return None
        cache[name] = None  # a cycle guard
        results = {values.evaluate(c.expr, lambda n: lookup(n, depth + 1)) for c in defs}
        value = results.pop() if len(results) == 1 else None
        cache[name] = value
        return value

    return lookup


def value_of(text: str, unit, warp: int, local: dict[str, int] | None = None) -> int | None:
    return values.evaluate(text, lookup_for(unit, warp, local))


def depends_on_wave(text: str, unit) -> bool:
    """The expression's value differs between warpSize 32 and 64 (through any constant)."""
    a, b = value_of(text, unit, 32), value_of(text, unit, 64)
    return a is not None and b is not None and a != b


def loop_values(init: str, cond: str, update: str, var: str, unit, warp: int) -> list[int] | None:
    """The values ``var`` takes in ``for (var = init; cond; update)``, or None."""
    look = lookup_for(unit, warp)
    v = values.evaluate(init, look)
    if v is None:
        return None
    cm = _COND.match(cond)
    if cm is None:
        return None
    left, op, right = cm.groups()
    if left.strip() == var:
        bound = values.evaluate(right, look)
        test = _test(op)
    elif right.strip() == var:
        bound = values.evaluate(left, look)
        test = _test({"<": ">", ">": "<", "<=": ">=", ">=": "<=", "!=": "!="}[op])
    else:
        return None
    if bound is None:
        return None
    step = _stepper(update, var, look)
    if step is None:
        return None
    out = []
    for _ in range(MAX_STEPS):
        if not test(v, bound):
            return out
        out.append(v)
        v = step(v)
        if v is None:
            return None
    return None  # does not end in a few steps: not a warp loop


def _test(op):
    return {"<": lambda a, b: a < b, ">": lambda a, b: a > b, "<=": lambda a, b: a <= b, ">=": lambda a, b: a >= b,
            "!=": lambda a, b: a != b}[op]


def _stepper(update: str, var: str, look):
    m = _UPDATE.match(update)
    if m is None:
        return None
    if m.group(1) or m.group(4):
        name = m.group(2) or m.group(3)
        op = m.group(1) or m.group(4)
        if name != var:
            return None
        return (lambda v: v + 1) if op == "++" else (lambda v: v - 1)
    if m.group(5):
        if m.group(5) != var:
            return None
        op, amount = m.group(6)[:-1], values.evaluate(m.group(7), look)
    else:
        if m.group(8) != var or m.group(9) != var:
            return None
        op, amount = m.group(10), values.evaluate(m.group(11), look)
    if amount is None:
        return None

    def step(v):
        try:
            return values._apply(op, v, amount)
        except (ValueError, ZeroDivisionError):
            return None
    return step


def offset_values(ctx, call, arg, unit) -> tuple[frozenset | None, frozenset | None]:
    """The values of a shuffle argument node ``arg`` (of the call node ``call``) with warpSize 32
    and with warpSize 64; None where porter cannot tell."""
    text = ctx.text(arg)
    names = [n for n in _IDENT.findall(text) if n != "warpSize" and _lookup_const(unit, n) is None]
    if not names:
        a, b = value_of(text, unit, 32), value_of(text, unit, 64)
        return (frozenset((a,)) if a is not None else None, frozenset((b,)) if b is not None else None)
    if len(set(names)) != 1:
        return None, None
    var = names[0]
    loop = _loop_of(ctx, call, var)
    if loop is None:
        return None, None
    init, cond, update = loop
    out = []
    for warp in (32, 64):
        vals = loop_values(init, cond, update, var, unit, warp)
        if vals is None:
            out.append(None)
            continue
        got = set()
        for v in vals:
            x = value_of(text, unit, warp, {var: v})
            if x is None:
                got = None
                break
            got.add(x)
        out.append(frozenset(got) if got is not None else None)
    return out[0], out[1]


def _lookup_const(unit, name):
    return lookup_for(unit, 32)(name)


def _loop_of(ctx, node, var: str):
    """(init expression, condition, update) of the loop that steps ``var`` around ``node``."""
    n = node.parent
    while n is not None and n.type not in ("function_definition", "lambda_expression", "translation_unit"):
        if n.type == "for_statement":
            got = _for_parts(ctx, n, var)
            if got is not None:
                return got
        elif n.type in ("while_statement", "do_statement"):
            got = _while_parts(ctx, n, var)
            if got is not None:
                return got
        n = n.parent
    return None


def _for_parts(ctx, loop, var):
    init = loop.child_by_field_name("initializer")
    cond = loop.child_by_field_name("condition")
    update = loop.child_by_field_name("update")
    if init is None or cond is None or update is None:
        return None
    itext = ctx.text(init).rstrip(";").strip()
    m = re.match(r"^(?:(?:const\s+)?(?:unsigned\s+int|unsigned|int|uint32_t|int32_t|size_t|auto|long|short)\s+)?"
                 + re.escape(var) + r"\s*=\s*(.+)$", itext, re.S)
    if m is None:
        return None
    return m.group(1), ctx.text(cond), ctx.text(update)


def _while_parts(ctx, loop, var):
    cond = loop.child_by_field_name("condition")
    body = loop.child_by_field_name("body")
    if cond is None or body is None:
        return None
    ctext = ctx.text(cond).strip()
    while ctext.startswith("(") and ctext.endswith(")"):
        ctext = ctext[1:-1].strip()
    updates = re.findall(r"(?<![\w.])(" + re.escape(var) + r"\s*(?:\+=|-=|\*=|/=|<<=|>>=|=)[^;=][^;]*|"
                         r"(?:\+\+|--)\s*" + re.escape(var) + r"|" + re.escape(var) + r"\s*(?:\+\+|--))\s*;",
                         ctx.text(body))
    if len(updates) != 1:
        return None
    # the value before the loop: the last assignment or declaration of var before it in the function
    fn = ctx.function_of(loop)
    if fn is None:
        return None
    before = ctx.source[fn.start_byte:loop.start_byte].decode("utf-8", "replace")
    inits = re.findall(name_at([var]) + r"\s*=\s*([^;=][^;]*);", before)
    if not inits:
        return None
    return inits[-1], ctext, updates[0]
