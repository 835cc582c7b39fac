"""PORT191: a ``const`` host buffer given to ``cuMemcpyHtoD`` / ``cuMemcpyHtoDAsync``.

cuda.h declares the source ``const void *srcHost``; HIP declares ``hipMemcpyHtoD(hipDeviceptr_t dst, void* src,
size_t)`` and ``hipMemcpyHtoDAsync(..., void* src, ...)`` (HIP 5.2's hip_runtime_api.h:3284 and 3338; still so in
ROCm 6.3, ROCm/ROCm issue 2977 and ROCm/HIP issue 3444; ``const void*`` from HIP 7.0, where programs that build
against both test ``HIP_VERSION >= 70000000``, e.g. Xilinx/XRT pull request 9736).  So a pointer to const data,
which CUDA takes, is "no matching function for call to 'hipMemcpyHtoD'" with hipcc and clang at a target before
7.0.

The fix casts the argument to ``void*``: HIP only reads the source of a host-to-device copy, and the cast's
result converts to HIP 7's ``const void*`` too, so the copy and the program are what CUDA's were.

What is read as pointing to const (from the text; a name whose declaration porter cannot read is left alone): a
name declared ``const T*``, ``T const*``, ``const T name[]`` (a parameter, a local, a file-scope variable), the
address of a const object or of an element of such an array or pointer, such a pointer plus or minus an offset,
``v.data()`` / ``s.c_str()`` of an object declared const (``const std::vector<float>& v``), a cast to a pointer to
const, a string literal, a later declarator of a list (``const float *x = a, *y = b;``) and a member (``h.w``,
``h->w``) declared ``const T*`` in the ``struct``/``class`` that ``h``'s type names (in the file or a
project header it includes).
"""

from __future__ import annotations

import re

from porter.findings.engine import Hit
from porter.findings.predicates import node_check
from porter.findings.predicates.common import bare, compact, edit, fix, target_before
from porter.findings.predicates.declarations import declared, member_declared

CONST_SOURCE_FROM = "7.0"  # the first HIP whose hipMemcpyHtoD / hipMemcpyHtoDAsync take `const void* src`
_SOURCE = 1  # the host source is the second argument of both
_CAST = "(void*)("
_STRINGS = frozenset({"string_literal", "concatenated_string", "raw_string_literal"})
_CASTS = frozenset({"static_cast", "reinterpret_cast", "const_cast"})


def _type_points_to_const(text: str) -> bool:
    """A cast's type (``const float*``, ``float const *``, ``const void*``): a pointer to const."""
    parts = text.split("*")
    return len(parts) >= 2 and re.search(r"\bconst\b", parts[-2]) is not None


def _const_pointer(ctx, node) -> bool:
    node = bare(node)
    if node is None:
        return False
    t = node.type
    if t in _STRINGS:
        return True
    if t == "identifier":
        d = declared(ctx, node, ctx.text(node))
        return d is not None and d.pointee_const()
    if t == "cast_expression":
        type_node = node.child_by_field_name("type")
        return type_node is not None and _type_points_to_const(ctx.text(type_node))
    if t == "pointer_expression" and ctx.text(node.child_by_field_name("operator")) == "&":
        target = bare(node.child_by_field_name("argument"))
        if target is not None and target.type == "identifier":
            d = declared(ctx, target, ctx.text(target))
            return d is not None and d.object_const()
        if target is not None and target.type == "subscript_expression":
            base = bare(target.child_by_field_name("argument"))
            if base is not None and base.type == "identifier":
                d = declared(ctx, base, ctx.text(base))
                return d is not None and d.pointee_const()
        return False
    if t == "field_expression":  # h.w, h->w: the member's declaration in the struct h's type names
        obj, field_ = bare(node.child_by_field_name("argument")), node.child_by_field_name("field")
        if obj is None or obj.type != "identifier" or field_ is None:
            return False
        d = member_declared(ctx, obj, ctx.text(field_))
        return d is not None and d.pointee_const()
    if t == "binary_expression" and ctx.text(node.child_by_field_name("operator")) in ("+", "-"):
        sides = (bare(node.child_by_field_name(f)) for f in ("left", "right"))
        return any(_const_pointer(ctx, side) for side in sides if side is not None and side.type == "identifier")
    if t == "call_expression":
        fn = node.child_by_field_name("function")
        args = node.child_by_field_name("arguments")
        if fn is not None and fn.type == "template_function":
            name = fn.child_by_field_name("name")
            targs = fn.child_by_field_name("arguments")
            return (name is not None and ctx.text(name) in _CASTS and targs is not None
                    and _type_points_to_const(ctx.text(targs).strip("<>")))
        if fn is not None and fn.type == "field_expression" and args is not None and not args.named_children:
            field_ = fn.child_by_field_name("field")
            obj = bare(fn.child_by_field_name("argument"))
            if field_ is None or ctx.text(field_) not in ("data", "c_str") or obj is None or obj.type != "identifier":
                return False
            d = declared(ctx, obj, ctx.text(obj))
            arrow = ctx.text(fn.child_by_field_name("operator")) == "->"
            return d is not None and (d.pointee_const() if arrow else d.object_const())
    return False


@node_check("PORT191")
def const_copy_source(ctx, node, caps):
    """``node``: a call of cuMemcpyHtoD / cuMemcpyHtoDAsync (``_v2`` too; the query matches the name)."""
    fn = node.child_by_field_name("function")
    if fn is None or not target_before(ctx, CONST_SOURCE_FROM):
        return None
    args = node.child_by_field_name("arguments")
    argv = [c for c in args.named_children if c.type != "comment"] if args is not None else []
    if len(argv) <= _SOURCE or not _const_pointer(ctx, argv[_SOURCE]):
        return None
    src = argv[_SOURCE]
    # from the call's name (where the compilers put "no matching function") to the source argument
    return Hit(fn.start_byte, src.end_byte,
               {"call": ctx.text(fn), "expr": compact(ctx.text(src), 50), "target": ctx.options.target},
               fix("cast the source to `void*` (HIP only reads it; HIP 7's `const void*` takes the result too)",
                   edit(src.start_byte, src.start_byte, _CAST), edit(src.end_byte, src.end_byte, ")")))
