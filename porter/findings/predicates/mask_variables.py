"""A warp intrinsic's lane mask held in a local variable (``int mask = 0xffffffff; __any_sync(mask, p)``):
whether the only value that can reach the call is the full 32-lane mask.

The variable's value is porter's constant evaluation of its one initialiser (porter.findings.predicates.lds:
literals, the file's and its headers' constants, constant locals), taken modulo 2**32 as the conversion to
the intrinsics' ``unsigned int`` mask parameter does (``int mask = 0xffffffff`` holds -1 in CUDA and passes
0xffffffff; ``unsigned mask = ~0u``).  It counts only where nothing else can change the variable: one
declaration in the calling function (a plain integer local of 32 bits or more, not static, not volatile,
in a block that holds the call), and every other occurrence of the name a read of its value (an operand,
a by-value argument of a warp intrinsic, the right side of an assignment, a value copied into another
variable).  An assignment anywhere in the function (in a branch, in a loop after the call), ``++``, its
address or a reference taken, an argument of any other function (it may take a reference), an asm
output, a parameter, a global or a name a macro body mentions leaves the value unknown: None.
"""

from __future__ import annotations

import re

from porter.findings.predicates.common import function_name, identifier_nodes
from porter.findings.predicates.lds import evaluate_text

FULL32 = 0xFFFFFFFF
# integer types of 32 bits or more (a narrower one would truncate 0xffffffff before it reaches the call)
_WIDE_ENOUGH = re.compile(r"^(?:const\s+)?(?:unsigned|signed|int|long|unsigned\s+int|signed\s+int|unsigned\s+long"
                          r"|long\s+int|unsigned\s+long\s+int|long\s+long|long\s+long\s+int|unsigned\s+long\s+long"
                          r"|unsigned\s+long\s+long\s+int|(?:std::)?u?int(?:32|64)_t|(?:std::)?size_t|auto)"
                          r"(?:\s+const)?$")
# calls that take every argument by value: the warp intrinsics and bit counts
_BY_VALUE = re.compile(r"^__(?:(?:shfl|shfl_up|shfl_down|shfl_xor|ballot|any|all|match_any|match_all|reduce_\w+)_sync"
                       r"|syncwarp|(?:popc|ffs|clz|brev)(?:ll)?)$")
# what passes a value on unchanged, so that what holds it decides (C++'s ?: and casts can be lvalues)
_PASS_ON = ("parenthesized_expression", "conditional_expression", "cast_expression", "comma_expression")
_READS = ("binary_expression", "unary_expression", "subscript_argument_list", "condition_clause",
          "expression_statement")


def full_mask_line(ctx, call, mask) -> int | None:
    """The line of the declaration of the local variable ``mask`` (an argument node of ``call``) when
    the full 32-lane mask is the only value that can reach ``call``; otherwise None."""
    if mask.type != "identifier":
        return None
    fn = ctx.function_of(call)
    if fn is None:
        return None
    name = ctx.text(mask)
    if _in_macro_body(ctx, name):
        return None
    declaration = None
    for node in identifier_nodes(ctx, fn.start_byte, fn.end_byte, name, fn):
        parent = node.parent
        if parent.type == "init_declarator" and _same(parent.child_by_field_name("declarator"), node):
            if declaration is not None:
                return None  # two declarations: which one reaches the call is more than a name says
            declaration = parent
        elif not _read(ctx, node):
            return None
    if declaration is None or declaration.start_byte > call.start_byte or not _plain_local(ctx, declaration, call):
        return None
    value = declaration.child_by_field_name("value")
    if value is None:
        return None
    text = ctx.text(value)
    if value.type in ("argument_list", "initializer_list"):
        text = text[1:-1]  # int m(~0); int m{-1};
    scopes = []
    scope = fn
    while scope is not None:
        scopes.append(scope)
        scope = ctx.function_of(scope)
    got = evaluate_text(ctx, f"({text}) & {FULL32}", declaration.start_byte, scopes)
    return ctx.line_col(declaration.start_byte)[0] if got == FULL32 else None


# what wraps a declared name inside a declarator (``*p``, ``&r``, ``a[4]``, ``(f)``, ``...xs``, ``ns::x``)
_DECLARATOR_WRAPS = ("pointer_declarator", "reference_declarator", "array_declarator", "parenthesized_declarator",
                     "attributed_declarator", "variadic_declarator", "qualified_identifier")
# what declares the name its declarator (its field named here) holds: a variable, a parameter (a template's
# too), a member, an enumerator, a function, a range-for variable
_DECLARES = {"init_declarator": "declarator", "declaration": "declarator", "parameter_declaration": "declarator",
             "optional_parameter_declaration": "declarator", "variadic_parameter_declaration": "declarator",
             "field_declaration": "declarator", "function_declarator": "declarator", "for_range_loop": "declarator",
             "enumerator": "name"}
# the only child of a wrapper that is the declared name (elsewhere: an array's size, a qualified name's scope)
_WRAPPED = {"array_declarator": "declarator", "qualified_identifier": "name"}


def declares(ctx, fn, name: str) -> bool:
    """``fn`` declares a variable or parameter ``name`` (which then hides any of the file's)."""
    return any(_declared(node) for node in identifier_nodes(ctx, fn.start_byte, fn.end_byte, name, fn))


def declared_in(ctx, start: int, end: int, name: str) -> bool:
    """Some occurrence of ``name`` in bytes [start, end) of the file (outside comments, literals and macro
    bodies) is the name a declaration declares: a variable, a parameter, a template parameter, a member,
    an enumerator or a function.  Only the nodes at its occurrences are asked for (``ctx.index.node_at``:
    in a big file, the trees of their regions alone)."""
    return any(_declared(node) for node in identifier_nodes(ctx, start, end, name, None, _NAMES))


_NAMES = ("identifier", "field_identifier")


def _declared(node) -> bool:
    """``node`` (an identifier) is the name its declarator declares."""
    child, parent = node, node.parent
    while parent is not None and parent.type in _DECLARATOR_WRAPS:
        field = _WRAPPED.get(parent.type)
        if field is not None and not _same(parent.child_by_field_name(field), child):
            return False
        child, parent = parent, parent.parent
    field = _DECLARES.get(parent.type) if parent is not None else None
    return field is not None and any(_same(d, child) for d in parent.children_by_field_name(field))


def _read(ctx, node) -> bool:
    """``node`` (an occurrence of the variable) only reads its value."""
    child, parent = node, node.parent
    while parent is not None and parent.type in _PASS_ON:
        if parent.type == "conditional_expression" and _same(parent.child_by_field_name("condition"), child):
            return True
        child, parent = parent, parent.parent
    if parent is None:
        return False
    kind = parent.type
    if kind in _READS:
        return True
    if kind == "argument_list":
        call = parent.parent
        return call is not None and call.type == "call_expression" and bool(_BY_VALUE.match(function_name(ctx, call)))
    if kind == "assignment_expression":
        return _same(parent.child_by_field_name("right"), child)
    if kind == "init_declarator":  # copied into another variable (not bound to a reference or a pointer)
        target = parent.child_by_field_name("declarator")
        return _same(parent.child_by_field_name("value"), child) and target is not None and target.type == "identifier"
    return False


def _plain_local(ctx, init, call) -> bool:
    """``init`` declares a plain integer local of 32 bits or more, in a block (or a for statement) that holds ``call``."""
    declaration = init.parent
    if declaration is None or declaration.type != "declaration":
        return False
    holder = declaration.parent
    if holder is None or not (holder.start_byte <= call.start_byte and call.end_byte <= holder.end_byte):
        return False
    type_node = declaration.child_by_field_name("type")
    if type_node is None:
        return False
    words = []
    for c in declaration.children:
        if c.type == "type_qualifier" and ctx.text(c) == "const":
            words.append("const")
        elif _same(c, type_node):
            words.append(ctx.text(c))
        elif c.type not in ("init_declarator", "identifier", ",", ";", "comment"):
            return False  # static, volatile, __shared__, an attribute: not a plain local
    return bool(_WIDE_ENOUGH.match(re.sub(r"\s+", " ", " ".join(words)).strip()))


def _in_macro_body(ctx, name: str) -> bool:
    """A ``#define`` of the file mentions ``name`` (a macro may assign it where the tree shows no assignment)."""
    seen = ctx.cache.setdefault("mask_variables.macro_names", {})
    if name not in seen:
        seen[name] = re.search(rb"#[ \t]*define\b(?:[^\n\\]|\\.)*?(?<![\w.])" + re.escape(name.encode()) + rb"(?!\w)",
                               ctx.source, re.S) is not None
    return seen[name]


def _same(a, b) -> bool:
    return a is not None and b is not None and a.start_byte == b.start_byte and a.end_byte == b.end_byte
