"""PORT187: a bit count or bit position (``__popc``, ``__popcll``, ``__ffs``, ``__ffsll``) in arithmetic whose
value the result's type decides.

CUDA declares these ``int``; HIP declares them ``unsigned int`` (amd_device_functions.h, HIP 5.2 to ROCm 7).
The value is the same (0..64), but C++'s conversions differ once it meets a subtraction or a minus: CUDA's
``__popc(a) - __popc(b)`` can be negative, HIP's wraps to a large unsigned.  Stored in a 32-bit integer the
bits come out the same; compared (``__ffs(m) - 1 < 0``), divided, shifted right, or widened (a ``long``,
``size_t``, ``float``, ``double``, ``auto``), the port computes something else, silently.  The fix, a cast of
the call to ``int``, gives the port CUDA's type; safe everywhere (every result fits an int).
"""

from __future__ import annotations

from porter.findings.engine import Hit
from porter.findings.predicates import node_check
from porter.findings.predicates.common import compact, edit, fix
from porter.findings.predicates.expr_types import ExprTypes, canonical, defines_own_function

# what keeps a wrapped unsigned difference what CUDA computes: stored into (or cast to) an integer of 32 bits
# or fewer, the same bits come out
_HARMLESS = frozenset({"int", "unsigned int", "small"})
# operators through which an unsigned difference keeps going (its bits, not its sign, matter)
_CARRY = frozenset({"+", "-", "*", "&", "|", "^", "<<"})
_DECIDES = {"<": "a comparison", ">": "a comparison", "<=": "a comparison", ">=": "a comparison",
            "/": "a division", "%": "a remainder", ">>": "a right shift"}


def _up(node):
    parent = node.parent
    while parent is not None and parent.type == "parenthesized_expression":
        node, parent = parent, parent.parent
    return node, parent


_COUNTS = frozenset({"__popc", "__popcll", "__ffs", "__ffsll"})
# the other operand's types beside which CUDA's int stays signed (or widens with its sign): not unsigned int
_KEEPS_SIGN = frozenset({"int", "small", "long", "long long", "float", "double", "unsigned long", "unsigned long long"})


def _signed_enough(ctx, at, other) -> bool:
    """``other``, the operand beside the count's expression, has a type beside which CUDA's int does not turn
    unsigned int itself (an unsigned int, or a built-in coordinate, makes CUDA's expression unsigned as well:
    then both compute the same; an operand whose type porter cannot read is taken to be such)."""
    while other is not None and other.type == "parenthesized_expression":
        inner = [c for c in other.named_children if c.type != "comment"]
        other = inner[0] if len(inner) == 1 else None
    if other is None:
        return False
    if other.type == "call_expression" and ctx.text(other.child_by_field_name("function")) in _COUNTS:
        return True  # another count: an int in CUDA
    found = ExprTypes(ctx, at).of(other)
    return found is not None and found[0] in _KEEPS_SIGN


def _where_it_matters(ctx, node) -> tuple[str, object] | None:
    """(where, the expression) the value of the call ``node`` (unsigned in HIP), once it met a minus on the
    way up, turns into a different value than CUDA's int; None: nowhere (or no minus)."""
    minus = False
    child, parent = _up(node)
    while parent is not None:
        if parent.type == "unary_expression":
            op = ctx.text(parent.child_by_field_name("operator"))
            if op != "-":
                return None
            minus = True
        elif parent.type == "binary_expression":
            op = ctx.text(parent.child_by_field_name("operator"))
            left = parent.child_by_field_name("left")
            on_left = left is not None and left.start_byte == child.start_byte and left.end_byte == child.end_byte
            if op in ("<<", ">>") and not on_left:
                return None  # a shift count: the shifted operand's type is the result's
            if op not in ("<<", ">>") and not _signed_enough(ctx, parent, left if not on_left else
                                                              parent.child_by_field_name("right")):
                return None  # beside an unsigned int CUDA's int turns unsigned too (or the type is unknown)
            if op in _DECIDES:
                return (_DECIDES[op], child) if minus else None
            if op == "-":
                minus = True
            elif op not in _CARRY:
                return None  # ==, !=, &&, ||: the same truth either way
        else:
            break
        child, parent = _up(parent)
    if parent is None or not minus:
        return None
    kind = parent.type
    if kind == "cast_expression":
        found = canonical(ctx.text(parent.child_by_field_name("type")))
        return None if found is None or found[0] in _HARMLESS else (f"a cast to `{found[1]}`", child)
    if kind == "init_declarator":
        declaration = parent.parent
        type_node = declaration.child_by_field_name("type") if declaration is not None else None
        if type_node is None or parent.child_by_field_name("declarator").type != "identifier":
            return None
        text = ctx.text(type_node)
        if text == "auto":
            return "an `auto` variable (unsigned in HIP)", child
        found = canonical(text)
        return None if found is None or found[0] in _HARMLESS else (f"a `{found[1]}` variable", child)
    if kind == "assignment_expression" and ctx.text(parent.child_by_field_name("operator")) == "=":
        left = parent.child_by_field_name("left")
        if left is None or left.type != "identifier":
            return None
        found = ExprTypes(ctx, parent).declared(ctx.text(left))
        if found is None or found[1] != 0 or found[0][0] in _HARMLESS:
            return None
        return f"a `{found[0][1]}` variable", child
    if kind == "return_statement":
        fn = ctx.function_of(parent)
        type_node = fn.child_by_field_name("type") if fn is not None and fn.type == "function_definition" else None
        found = canonical(ctx.text(type_node)) if type_node is not None else None
        return None if found is None or found[0] in _HARMLESS else (f"a function returning `{found[1]}`", child)
    return None


@node_check("PORT187")
def unsigned_bit_count(ctx, node, caps):
    fn = ctx.text(caps["fn"][0])
    if defines_own_function(ctx, fn):
        return None
    found = _where_it_matters(ctx, node)
    if found is None:
        return None
    where, start = found
    expr = compact(ctx.text(start), 40)
    return Hit(node.start_byte, node.end_byte,
               {"call": compact(ctx.text(node), 40), "fn": fn, "expr": expr, "where": where},
               fix(f"cast the call to CUDA's `int`: `(int){compact(ctx.text(node), 30)}` (every result fits an int)",
                   edit(node.start_byte, node.start_byte, "(int)")))
