"""PORT031: a cuBLAS enum (a constant, or a variable or parameter of a cuBLAS enum type) passed
to a cuSOLVER call.  It is ported as the hipBLAS enum (AMD's HIPIFY tables), which the hipSOLVER
of a recent ROCm takes (its enum types are typedefs of hipBLAS's); an older hipSOLVER with enums
of its own does not.  The types and constants are data: rules.toml ``[solver_enums]``.

Under ``--roc`` the message names what porter writes there (the roc* names, AMD's tables' roc column);
a call renamed to a rocSOLVER function is not reported: rocSOLVER declares these parameters with
rocBLAS's enum types (rocsolver_spotrf's ``const rocblas_fill uplo``), which is what the constant becomes."""

from __future__ import annotations

from porter.findings.engine import Hit
from porter.findings.predicates import node_check


@node_check("PORT031")
def enum_argument(ctx, node, caps):
    from porter.mapping import load_database
    from porter.translate.engine import solver_enum_types

    facts = solver_enum_types()
    call = caps["fn"][0]
    callee = ctx.text(call)
    if not callee.startswith(facts["callee_prefix"]):
        return None
    types = facts["types"]
    name = ctx.text(node)
    db = load_database()
    if name in facts["constants"]:
        cuda_type = facts["constants"][name]
        what = "the constant"
    else:
        decl_type = _declared_type(ctx, node, name.encode(), types)
        if decl_type is None:
            return None
        cuda_type = decl_type[1]
        what = f"a `{cuda_type}`"
    entry = db.identifiers.get(cuda_type)
    hipblas = entry.hip if entry is not None and entry.hip else cuda_type
    roc = ctx.options.roc
    hip_name = db.identifiers.get(name)
    hip_call = db.identifiers.get(callee)
    written_call = hip_call.target(roc) if hip_call is not None else None
    if roc and written_call and written_call.startswith("rocsolver_"):
        return None  # rocSOLVER takes rocBLAS's enums, which the constant or variable becomes
    written_name = hip_name.target(roc) if hip_name is not None else None
    return Hit(node.start_byte, node.end_byte, {
        "name": name, "what": what,
        "as_hip": f"`{written_name}`" if written_name else f"a `{hipblas}`",
        "hipblas_type": hipblas, "solver_type": types[cuda_type],
        "call": written_call or callee})


def _declared_type(ctx, use, name: bytes, types: dict[str, str]):
    """(type node, type name) of the declaration of ``name`` that is in scope at ``use``, when its
    type is one of ``types``: a parameter of the enclosing function or a declaration before the use."""
    from porter.translate.engine import occurrences

    fn = ctx.function_of(use)
    lo, hi = (fn.start_byte, use.start_byte) if fn is not None else (0, use.start_byte)
    found = None
    for at, _w in occurrences(ctx.source[lo:hi], [name]):  # (the function's text only: not the file above it)
        pos = lo + at
        if ctx.index.is_protected(pos):
            continue
        ident = ctx.index.node_at(pos, pos + len(name))
        decl = ident.parent if ident is not None else None
        if decl is not None and decl.type == "init_declarator":
            decl = decl.parent
        if decl is None or decl.type not in ("declaration", "parameter_declaration"):
            continue
        type_node = decl.child_by_field_name("type")
        if type_node is not None and ctx.text(type_node) in types:
            found = (type_node, ctx.text(type_node))
    return found
