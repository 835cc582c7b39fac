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
            if result.replacement and stmt is not None and stmt.type == "expression_statement" \
                    and stmt.named_child_count == 1:
                the_fix = fix(f"replace the asm statement with `{result.replacement}`",
                              edit(stmt.start_byte, stmt.end_byte, result.replacement), safe=result.safe)
    return Hit(node.start_byte, node.end_byte, params, the_fix)
