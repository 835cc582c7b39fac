"""PORT184: cuRAND generator states constructed where hipRAND's constructor cannot run.

CUDA's states (curand_kernel.h: curandStateXORWOW, curandStatePhilox4_32_10, ...) are plain structs: a
variable of one compiles anywhere.  hipRAND's are rocRAND engines (hiprand_kernel_hcc.h:
`struct hiprandState : public rocrand_state_xorwow`) whose constructors are `__forceinline__ __device__`
(hipRAND defines QUALIFIERS so unless the user did; rocRAND's FQUALIFIERS follows it): checked with hipcc
5.2 and clang-19, a host variable or `new` of one is "no matching constructor", a `__device__` /
`__constant__` / `__managed__` variable "dynamic initialization is not supported", a `__shared__` one
"initialization is not supported for __shared__ variables".  A local variable in device code, a pointer,
a reference, a parameter or an `extern` declaration compiles and is not reported."""

from __future__ import annotations

import re

from porter.findings.engine import Hit
from porter.findings.predicates import node_check
from porter.findings.predicates.common import compact

_BY_VALUE = {"identifier", "array_declarator"}
_QUALIFIER = re.compile(rb"\b(__shared__|__device__|__constant__|__managed__|extern)\b")


def _by_value(declarator) -> bool:
    """A declarator that makes an object of the type itself (not a pointer, reference or function)."""
    if declarator.type == "init_declarator":
        declarator = declarator.child_by_field_name("declarator")
    while declarator is not None and declarator.type == "array_declarator":
        declarator = declarator.child_by_field_name("declarator")
    return declarator is not None and declarator.type == "identifier"


def _hip_name(cuda: str) -> str | None:
    """The hipRAND name porter's mapping database pairs with ``cuda`` (None: it has no declared one)."""
    from porter.mapping import load_database

    entry = load_database().identifiers.get(cuda)
    return entry.hip if entry is not None and entry.status != "unsupported" else None


@node_check("PORT184")
def curand_state_construction(ctx, node, caps):
    type_node = caps["type"][0]
    cuda = ctx.text(type_node)
    hip = _hip_name(cuda)
    if hip is None:
        return None  # a state type the mapping does not port: the name itself is reported elsewhere
    if node.type == "new_expression":
        if ctx.in_device_code(node):
            return None
        where, error = "`new` in host code", "no matching constructor"
    else:
        if not any(_by_value(d) for d in node.children_by_field_name("declarator")):
            return None
        head = ctx.source[node.start_byte:type_node.start_byte]
        qualifiers = {m.group(1).decode() for m in _QUALIFIER.finditer(head)}
        if "extern" in qualifiers:
            return None
        if "__shared__" in qualifiers:
            where, error = "a `__shared__` variable", "initialization is not supported for __shared__ variables"
        elif qualifiers & {"__device__", "__constant__", "__managed__"} and ctx.function_of(node) is None:
            where = f"a `{sorted(qualifiers & {'__device__', '__constant__', '__managed__'})[0]}` variable"
            error = "dynamic initialization is not supported"
        elif ctx.in_device_code(node):
            return None  # a local of device code: the __device__ constructor runs there
        else:
            where, error = "a host variable", "no matching constructor"
    return Hit(node.start_byte, node.end_byte, {"decl": compact(ctx.text(node), 60), "cuda": cuda, "hip": hip,
                                                "where": where, "error": error})
