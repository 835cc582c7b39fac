"""PORT001 inline PTX: recognise PTX, translate the idioms in ptx_idioms.toml."""

from __future__ import annotations

from porter.findings import ptx
from porter.findings.engine import Hit
from porter.findings.predicates import node_check
from porter.findings.predicates.common import compact, edit, fix


@node_check("PORT001")
def inline_ptx(ctx, node, caps):
    template = ptx.template_of(ctx.source, node)
    if template is not None and not ptx.is_ptx(template):
        return None  # asm volatile("" ::: "memory"), AMDGCN mnemonics: fine on AMD
    insts = ptx.instructions(template) if template else []
    shown = "; ".join(insts[:2]) + (" …" if len(insts) > 2 else "") if insts else compact(ctx.text(node), 50)
    params = {"asm": compact(shown.replace(",", ", "), 70), "advice": "HIP intrinsics or __builtin_amdgcn_* builtins "
              "(AMDGCN inline asm uses \"v\"/\"s\" constraints)"}
    the_fix = None
    if template is not None:
        outs, ins, _clobbers = ptx.operands(ctx.source, node)
        result = ptx.translate_asm(template, outs, ins)
        if result is not None:
            params["advice"] = result.advice
            stmt = node.parent
            replacement, safe = result.replacement, result.safe
            if result.native is not None:
                replacement, safe, params["advice"] = _by_wave(ctx, node, result)
            if replacement and stmt is not None and stmt.type == "expression_statement" \
                    and stmt.named_child_count == 1:
                edits = [edit(stmt.start_byte, stmt.end_byte, replacement)]
                added = include_edit(ctx, result.include) if result.include else None
                if added is not None:
                    edits.append(added)
                the_fix = fix(f"replace the asm statement with `{replacement}`"
                              + (f" (and #include <{result.include}>)" if added is not None else ""),
                              *edits, safe=safe)
    return Hit(node.start_byte, node.end_byte, params, the_fix)


def _by_wave(ctx, node, result):
    """(replacement, safe, advice) of an idiom whose value depends on the wave (%laneid): CUDA's
    32-lane value where nothing follows the native wave, the wave's where the code does."""
    from porter.findings import wave
    from porter.findings.predicates.warpvalues import may_mix

    model = wave.model_of(ctx) if may_mix(ctx) else None
    native = model.native_at(node.start_byte) if model is not None else None
    if native is None:
        return (result.replacement, result.safe,
                f"`{result.replacement}`: the lane within the wave's 32-lane half, CUDA's %laneid (nothing here "
                "follows the 64-lane wave)")
    logical = model.logical_at(node.start_byte)
    advice = f"`{result.native}`: this code follows the native wave ({native.describe()}), so lanes count 0..63"
    if logical is not None:
        advice += (f"; it also assumes 32 lanes ({logical.describe()}): wrong on MI300X whatever the port keeps, "
                   "make both follow warpSize (a suggestion to review)")
    return result.native, result.safe and logical is None, advice


def _hip_header(name: str) -> str:
    """The header a port includes for ``name``: its HIP name in the mapping database, else itself."""
    from porter.mapping import load_database

    entry = load_database().headers.get(name)
    return (entry.target() if entry is not None else None) or name


def include_edit(ctx, header: str):
    """The edit adding ``#include <header>`` after the file's last #include (at the top
    when there is none), or None when the file includes it already: that header, or one the
    mapping database ports to the same HIP header (cuda_fp16.hpp, or hip/hip_fp16.h itself).
    Every fix that needs it makes the same edit, so applying several adds it once."""
    wanted = _hip_header(header)
    includes = ctx.index.includes
    if any(_hip_header(ctx.source[inc.start_byte + 1:inc.end_byte - 1].decode("utf-8", "replace")) == wanted
           for inc in includes):
        return None
    if not includes:
        return edit(0, 0, f"#include <{header}>\n")
    nl = ctx.source.find(b"\n", includes[-1].end_byte)
    if nl < 0:  # the last #include ends the file without a newline
        return edit(len(ctx.source), len(ctx.source), f"\n#include <{header}>\n")
    return edit(nl + 1, nl + 1, f"#include <{header}>\n")
