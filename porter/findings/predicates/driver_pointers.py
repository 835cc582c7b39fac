"""PORT190: a ``CUdeviceptr`` used as the integer it is in CUDA.

cuda.h declares ``CUdeviceptr`` an ``unsigned long long`` (``unsigned int`` on 32-bit hosts); HIP's
``hipDeviceptr_t``, its translation, is a ``void*`` (driver_types.h, HIP 5.2 to ROCm 7).  So every place a
driver-API program treats the address as a number stops compiling: an integer stored into one ("incompatible
integer to pointer conversion"; NVIDIA's matrixMulDrv packs its kernel arguments so), arithmetic on it
("arithmetic on a pointer to void"), an ordered comparison with a number, one stored into an integer.

The fixes keep CUDA's values and types: the address read as CUDA's ``unsigned long long`` where CUDA computes
with it, and the result made a ``CUdeviceptr`` again where CUDA keeps one (``hipDeviceptr_t`` in the port,
holding the same 64 bits; in the CUDA source each cast is the identity).
"""

from __future__ import annotations

import re

from porter.findings import values
from porter.findings.engine import Hit
from porter.findings.predicates import node_check
from porter.findings.predicates.common import bare, compact, edit, fix
from porter.findings.predicates.declarations import declared
from porter.findings.predicates.expr_types import ExprTypes, canonical, literal_type

_DEVPTR = frozenset({"CUdeviceptr", "CUdeviceptr_v1", "CUdeviceptr_v2"})
_INTEGERS = frozenset({"int", "unsigned int", "long", "unsigned long", "long long", "unsigned long long", "small",
                       "coord"})
# every operator CUDA's unsigned long long takes and HIP's void* does not (``+``/``-`` with an integer give a
# pointer there, still an error: "arithmetic on a pointer to void")
_ARITH = frozenset({"+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>"})
_ADDRESS = frozenset({"+", "-"})  # a sum or difference standing alone is an address: made a CUdeviceptr again
_COMPARE = frozenset({"<", ">", "<=", ">=", "==", "!="})
_AS_INT = "(unsigned long long)("  # CUDA's CUdeviceptr on every 64-bit host (cuda.h)
_AS_PTR = "(CUdeviceptr)("
_PTR_CAST = re.compile(r"^CUdeviceptr(?:_v[12])?\s*\*$")


def _code(ctx):
    """The file's bytes with comments and strings blanked (shared with the value analysis)."""
    return memoryview(values.blanked_code(ctx))


def _mentions(ctx, node) -> bool:
    """``node``'s code names a CUdeviceptr: a name the file declares with that type (a variable, a parameter, a
    function returning one) or the type itself.  Checked first: the rule looks at every assignment and every
    sum of a file that says CUdeviceptr, and most name none."""
    key = "driver_pointers.names"
    if key not in ctx.cache:
        code = _code(ctx)
        names = {m.group(1) for m in re.finditer(
            rb"(?<![\w:.>])CUdeviceptr(?:_v[12])?\s*(?:const\s*)?\**\s*&?\s*([A-Za-z_]\w*)", code)}
        words = sorted(names | {b"CUdeviceptr", b"CUdeviceptr_v1", b"CUdeviceptr_v2"}, key=len, reverse=True)
        ctx.cache[key] = re.compile(rb"(?<![\w])(?:" + b"|".join(re.escape(w) for w in words) + rb")(?![\w])")
    return ctx.cache[key].search(_code(ctx), node.start_byte, node.end_byte) is not None


def _declared(ctx, node, name: str) -> str | None:
    """The type word of ``name`` where its last declaration above ``node`` (in its function, else at file scope)
    declares it a value or an array: ``CUdeviceptr d``, ``CUdeviceptr args[4]``; None: a pointer, or unread."""
    d = declared(ctx, node, name)
    return d.word if d is not None and d.stars == 0 else None


def _pointer_to_devptr(ctx, node, name: str) -> bool:
    """``name`` is declared a ``CUdeviceptr*`` (its elements are CUdeviceptrs)."""
    d = declared(ctx, node, name)
    return d is not None and d.word in _DEVPTR and d.stars == 1 and not d.array


def _memo(ctx, what: str, node, compute):
    """``compute()``, once per node: an expression's operands are read again by the expressions around it."""
    key = ("driver_pointers", what, node.start_byte, node.end_byte, node.type)
    if key not in ctx.cache:
        ctx.cache[key] = compute()
    return ctx.cache[key]


def is_devptr(ctx, node) -> bool:
    return node is not None and _memo(ctx, "devptr", node, lambda: _is_devptr(ctx, node))


def _is_devptr(ctx, node) -> bool:
    """``node`` is a CUdeviceptr porter can read: a variable declared so, an element of an array of them or of a
    ``CUdeviceptr*``, ``*`` of a cast to ``CUdeviceptr*``, a call of a function of the file returning one."""
    node = bare(node)
    if node is None:
        return False
    if node.type == "identifier":
        return _declared(ctx, node, ctx.text(node)) in _DEVPTR
    if node.type == "subscript_expression":
        base = bare(node.child_by_field_name("argument"))
        if base is None or base.type != "identifier":
            return False
        name = ctx.text(base)
        return _declared(ctx, node, name) in _DEVPTR or _pointer_to_devptr(ctx, node, name)
    if node.type == "call_expression":  # a function of the file returning one
        fn = node.child_by_field_name("function")
        if fn is None or fn.type != "identifier":
            return False
        key = "driver_pointers.returns:" + ctx.text(fn)
        if key not in ctx.cache:
            ctx.cache[key] = re.search(rb"(?<![\w:.>])CUdeviceptr(?:_v[12])?\s+" + re.escape(ctx.text(fn).encode())
                                       + rb"\s*\(", _code(ctx)) is not None
        return ctx.cache[key]
    if node.type == "pointer_expression" and ctx.text(node.child_by_field_name("operator")) == "*":
        target = bare(node.child_by_field_name("argument"))
        if target is None:
            return False
        if target.type == "cast_expression":
            type_node = target.child_by_field_name("type")
            return type_node is not None and bool(_PTR_CAST.match(" ".join(ctx.text(type_node).split())))
        if target.type == "call_expression":
            fn = target.child_by_field_name("function")
            if fn is not None and fn.type == "template_function":
                name = fn.child_by_field_name("name")
                args = fn.child_by_field_name("arguments")
                return (name is not None and ctx.text(name) in ("reinterpret_cast", "static_cast")
                        and args is not None and bool(_PTR_CAST.match(" ".join(ctx.text(args)[1:-1].split()))))
    return False


def _arith_leaves(ctx, node) -> list | None:
    return None if node is None else _memo(ctx, "leaves", node, lambda: _leaves(ctx, node))


def _leaves(ctx, node) -> list | None:
    """The CUdeviceptr operands of ``node`` when it is CUdeviceptr arithmetic (a CUdeviceptr and an integer, or
    two, under ``+ - * / % & | ^ << >>``, nested); None otherwise."""
    node = bare(node)
    if node is None or node.type != "binary_expression" or ctx.text(node.child_by_field_name("operator")) not in _ARITH:
        return None
    leaves = []
    for side in ("left", "right"):
        operand = node.child_by_field_name(side)
        if is_devptr(ctx, operand):
            leaves.append(bare(operand))
            continue
        inner = _arith_leaves(ctx, operand)
        if inner is not None:
            leaves += inner
        elif not _is_integer(ctx, operand):
            return None  # a pointer, a float, a type porter cannot read: not guessed at
    return leaves or None


def _is_integer(ctx, node, nonzero: bool = False) -> bool:
    node = bare(node)
    if node is None:
        return False
    if node.type == "number_literal":
        canon = literal_type(ctx.text(node))
        if canon is None or canon in ("float", "double"):
            return False
        return not nonzero or re.fullmatch(r"0+[uUlL]*", ctx.text(node)) is None
    found = ExprTypes(ctx, node).of(node)
    return found is not None and found[0] in _INTEGERS


def _cast_leaves(leaves) -> list:
    return [e for leaf in leaves for e in (edit(leaf.start_byte, leaf.start_byte, _AS_INT),
                                           edit(leaf.end_byte, leaf.end_byte, ")"))]


def _wrap(node, before: str, after: str = ")") -> list:
    return [edit(node.start_byte, node.start_byte, before), edit(node.end_byte, node.end_byte, after)]


def _value_edits(ctx, value, want_pointer: bool) -> tuple[list, str] | None:
    """Edits making ``value`` what its destination takes in HIP with CUDA's bits, and what ``value`` is; None:
    nothing to change (or nothing porter can read)."""
    leaves = _arith_leaves(ctx, value)
    if leaves is not None:
        edits = _cast_leaves(leaves)
        return (_wrap(value, _AS_PTR) + edits if want_pointer else edits), "arithmetic on a `CUdeviceptr`"
    if want_pointer and not is_devptr(ctx, value) and _is_integer(ctx, value, nonzero=True):
        return _wrap(value, _AS_PTR + _AS_INT, "))"), "an integer"
    if not want_pointer and is_devptr(ctx, value):
        return _wrap(value, _AS_INT), "a `CUdeviceptr`"
    return None


def _destination(ctx, node) -> tuple[object, bool] | None:
    """(value, wants a pointer) when ``node`` stores a value into a CUdeviceptr or an integer porter can read."""
    if node.type == "assignment_expression":
        if ctx.text(node.child_by_field_name("operator")) != "=":
            return None
        left = node.child_by_field_name("left")
        if is_devptr(ctx, left):
            return node.child_by_field_name("right"), True
        return (node.child_by_field_name("right"), False) if _is_integer(ctx, left) else None
    if node.type == "init_declarator":
        decl = node.parent
        type_node = decl.child_by_field_name("type") if decl is not None and decl.type == "declaration" else None
        declarator = node.child_by_field_name("declarator")
        if type_node is None or declarator is None or declarator.type != "identifier":
            return None  # a pointer, a reference, an array: not a CUdeviceptr or integer variable
        word = " ".join(ctx.text(type_node).split())
        if word in _DEVPTR:
            return node.child_by_field_name("value"), True
        found = canonical(word)
        return (node.child_by_field_name("value"), False) if found is not None and found[0] in _INTEGERS else None
    return None


def _stored(ctx, node):
    """Hit for a value stored into a CUdeviceptr or an integer that HIP's void* does not take."""
    found = _destination(ctx, node)
    if found is None or found[0] is None:
        return None
    value, want_pointer = found
    done = _value_edits(ctx, value, want_pointer)
    if done is None:
        return None
    edits, what = done
    into = "a `CUdeviceptr`" if want_pointer else "an integer"
    return Hit(node.start_byte, node.end_byte,
               {"expr": compact(ctx.text(node), 60), "how": f"{what} is stored into {into}"},
               fix("cast as CUDA converts: the address as CUDA's `unsigned long long` where it is computed with, "
                   "`(CUdeviceptr)(...)` where a CUdeviceptr is stored (hipDeviceptr_t in the port, the same 64 bits)",
                   *edits))


def _compound(ctx, node):
    """``d += n`` (any arithmetic compound) on a CUdeviceptr variable:
    ``d = (CUdeviceptr)((unsigned long long)(d) + (n))``."""
    op = ctx.text(node.child_by_field_name("operator"))
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    if op[:-1] not in _ARITH or not is_devptr(ctx, left) or not _is_integer(ctx, right):
        return None
    target = bare(left)
    name = ctx.text(left)
    edits = [edit(node.start_byte, right.end_byte,
                  f"{name} = {_AS_PTR}{_AS_INT}{name}) {op[:-1]} ({ctx.text(right)}))")] \
        if target.type == "identifier" else []  # (an element or *p would be evaluated twice)
    return Hit(node.start_byte, node.end_byte,
               {"expr": compact(ctx.text(node), 60), "how": f"`{op}` is arithmetic on a `CUdeviceptr`"},
               fix(f"compute on CUDA's integer and store a CUdeviceptr: `{name} = (CUdeviceptr)((unsigned long long)"
                   f"({name}) {op[:-1]} (n))`", *edits) if edits else
               fix("compute on CUDA's integer, `(unsigned long long)(p)`, and store the result cast to `(CUdeviceptr)`",
                   safe=False))


def _in_context(ctx, node) -> bool:
    """``node``, CUdeviceptr arithmetic, is part of a larger expression this rule reports (a stored value, an
    outer operation, a comparison)."""
    child, parent = node, node.parent
    while parent is not None and parent.type == "parenthesized_expression":
        child, parent = parent, parent.parent
    if parent is None:
        return False
    if parent.type == "binary_expression":
        op = ctx.text(parent.child_by_field_name("operator"))
        if op in _ARITH:
            return _arith_leaves(ctx, parent) is not None
        return op in _COMPARE and _comparison_edits(ctx, parent) is not None
    if parent.type in ("assignment_expression", "init_declarator"):
        found = _destination(ctx, parent)
        return found is not None and found[0] is not None and found[0].start_byte == child.start_byte
    return False


def _comparison_edits(ctx, node) -> list | None:
    """A comparison of a CUdeviceptr (or arithmetic on one) with a number, or of arithmetic on one with another
    CUdeviceptr: both sides read as CUDA's unsigned long long.  None: nothing HIP rejects (two CUdeviceptrs
    compare as pointers; ``== 0`` / ``!= 0`` is a null-pointer test)."""
    op = ctx.text(node.child_by_field_name("operator"))
    sides = [node.child_by_field_name("left"), node.child_by_field_name("right")]
    kinds = []
    for side in sides:
        if is_devptr(ctx, side):
            kinds.append("ptr")
        elif _arith_leaves(ctx, side) is not None:
            kinds.append("arith")
        elif _is_integer(ctx, side):
            kinds.append("int")
        else:
            return None
    if "arith" not in kinds:
        if sorted(kinds) != ["int", "ptr"]:
            return None
        number = sides[kinds.index("int")]
        if op in ("==", "!=") and not _is_integer(ctx, number, nonzero=True):
            return None
    edits = []
    for side, kind in zip(sides, kinds):
        if kind == "ptr":
            edits += _wrap(bare(side), _AS_INT)
        elif kind == "arith":
            edits += _cast_leaves(_arith_leaves(ctx, side))
    return edits


def _expression(ctx, node):
    """CUdeviceptr arithmetic standing alone (an argument, a member stored, a return): a sum or difference is
    kept a CUdeviceptr, anything else (``d % 256``, ``d >> 12``) is CUDA's integer; or a comparison."""
    op = ctx.text(node.child_by_field_name("operator"))
    if op in _ARITH:
        leaves = _arith_leaves(ctx, node)
        if leaves is None or _in_context(ctx, node):
            return None
        edits = (_wrap(node, _AS_PTR) if op in _ADDRESS else []) + _cast_leaves(leaves)
        how = "arithmetic on a `CUdeviceptr`"
    elif op in _COMPARE:
        edits = _comparison_edits(ctx, node)
        if edits is None:
            return None
        how = "a `CUdeviceptr` compared with a number"
    else:
        return None
    return Hit(node.start_byte, node.end_byte, {"expr": compact(ctx.text(node), 60), "how": how},
               fix("compute on CUDA's integer, `(unsigned long long)(p)`, and make a sum a CUdeviceptr again, "
                   "`(CUdeviceptr)(...)` (hipDeviceptr_t in the port, the same 64 bits)", *edits))


@node_check("PORT190")
def devptr_as_integer(ctx, node, caps):
    if not _mentions(ctx, node):
        return None
    if node.type in ("assignment_expression", "init_declarator"):
        if node.type == "assignment_expression" and ctx.text(node.child_by_field_name("operator")) != "=":
            return _compound(ctx, node)
        return _stored(ctx, node)
    if node.type == "binary_expression":
        return _expression(ctx, node)
    return None
