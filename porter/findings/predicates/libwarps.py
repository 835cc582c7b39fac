"""PORT027: CUB warp collectives whose logical warp width is the library's default.

Facts: CUB declares ``WarpReduce<T, LOGICAL_WARP_THREADS = 32>`` and ``WarpScan<T, 32>``,
``WarpLoad``/``WarpStore<T, ITEMS, ALGORITHM, LOGICAL_WARP_THREADS = 32>`` and
``WarpExchange<T, ITEMS, LOGICAL_WARP_THREADS = 32>`` (CUB_PTX_WARP_THREADS); hipCUB declares
the same templates with ``LOGICAL_WARP_THREADS = HIPCUB_DEVICE_WARP_THREADS``, the hardware wave:
64 on gfx9 (hipCUB's rocPRIM backend, warp/*.hpp).  The same source therefore asks for 32-lane
logical warps under CUDA and 64-lane ones under HIP.
"""

from __future__ import annotations

import re

from porter.findings import wave
from porter.findings.engine import Hit
from porter.findings.predicates import node_check
from porter.findings.predicates.common import compact, edit, fix
from porter.findings.predicates.warpvalues import may_mix

# the position of LOGICAL_WARP_THREADS among each template's parameters (0-based)
_WIDTH_INDEX = {"WarpReduce": 1, "WarpScan": 1, "WarpExchange": 2, "WarpLoad": 3, "WarpStore": 3}
_PER_32 = re.compile(rb"/\s*32[uU]?\b|>>\s*5\b|&\s*(?:31|0[xX]1[fF])\b|%\s*32[uU]?\b")


@node_check("PORT027")
def default_warp_width(ctx, node, caps):
    name = ctx.text(caps["name"][0])
    args = [a for a in caps["args"][0].named_children if a.type != "comment"]
    if len(args) > _WIDTH_INDEX[name]:
        return None  # the width is written
    parent, scope = _namespace_of(node)
    scope_text = ctx.text(scope) if scope is not None else ""
    if scope_text not in ("cub", "::cub", "hipcub", "::hipcub"):
        if scope_text or not re.search(rb"using\s+namespace\s+(?:hip)?cub\s*;", ctx.source):
            return None
    model = wave.model_of(ctx) if may_mix(ctx) else None  # no model where nothing can follow the wave
    native = model.native_at(node.start_byte) if model is not None else None
    logical = model.logical_at(node.start_byte) if model is not None else None
    if logical is None:  # a warp count or index beside it that the evidence patterns did not name
        fn = ctx.function_of(node)
        span = ctx.source[fn.start_byte:fn.end_byte] if fn is not None else b""
        if _PER_32.search(span):
            logical = True
    where = "" if logical is None or logical is True else f" ({logical.describe()})"
    shown = compact((ctx.text(scope) + "::" if scope is not None else "") + ctx.text(node), 40)
    width_fix = fix(f"write CUB's default width explicitly: `{name}<..., 32>` keeps 32-lane logical warps under "
                    "hipCUB (a suggestion: a library collective is not run by porter's lane-level checks)",
                    edit(args[-1].end_byte, args[-1].end_byte, ", 32" if len(args) == _WIDTH_INDEX[name] else
                         ", " + ", ".join(_DEFAULTS[name][len(args):_WIDTH_INDEX[name]]) + ", 32"), safe=False)
    if native is not None and logical is None:
        return Hit(node.start_byte, node.end_byte,
                   {"what": shown, "why": "this code follows the hardware wave "
                                          f"({native.describe()}), as hipCUB's default does: consistent"},
                   severity="info")
    if logical is not None:
        why = ("this code counts 32-lane warps beside it" + where + ": under hipCUB the collective spans two of "
               "them, so per-warp storage, warp ids and the lanes that take part no longer match")
        if native is not None:
            why += f"; it also follows the hardware wave ({native.describe()}): wrong whatever the port keeps"
        return Hit(node.start_byte, node.end_byte, {"what": shown, "why": why}, width_fix, severity="error")
    return Hit(node.start_byte, node.end_byte,
               {"what": shown, "why": "a block of fewer than 64 threads, or storage sized per 32-lane warp, "
                                      "no longer holds whole logical warps"}, width_fix)


def _namespace_of(node):
    """(the qualified name holding ``node``, its namespace scope) for `cub::WarpReduce<T>` and for
    `cub::WarpScan<T>::TempStorage` (where the template is itself the scope of the inner name)."""
    parent = node.parent
    if parent is None or parent.type != "qualified_identifier":
        return None, None
    if parent.child_by_field_name("name") == node:
        return parent, parent.child_by_field_name("scope")
    outer = parent.parent  # cub::(WarpScan<int>::TempStorage)
    if outer is not None and outer.type == "qualified_identifier" and outer.child_by_field_name("name") == parent:
        return outer, outer.child_by_field_name("scope")
    return None, None


# the defaults to spell out before LOGICAL_WARP_THREADS when a shorter argument list is given
_DEFAULTS = {"WarpReduce": (), "WarpScan": (), "WarpExchange": ("", ""),
             "WarpLoad": ("", "", "cub::WARP_LOAD_DIRECT"), "WarpStore": ("", "", "cub::WARP_STORE_DIRECT")}
