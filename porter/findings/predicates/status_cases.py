"""PORT030's fix for a ``case`` label whose enumerator HIP lacks (NVIDIA's helper_cuda.h: ``case
CUFFT_LICENSE_ERROR: return "CUFFT_LICENSE_ERROR";`` in ``_cudaGetErrorEnum(cufftResult error)``: hipFFT
has no such status, so the port stops at that line).

The label can go, with the statements under it, when nothing else changes by it:

* the label's value is an enumerator of a CUDA status enum of ``status_enums.toml`` that the mapping
  database marks unsupported, and no enumerator of the HIP enum has its CUDA value (then no value the
  HIP library returns reaches the label, and none that reached another label before goes elsewhere now);
* the switch is over a name the function declares with that enum's CUDA type (its HIP type after the
  port), so the values switched on are the library's;
* its statements end in ``return``, ``break``, ``continue`` or ``throw`` (nothing falls through out of them
  into the next label) and so do the previous label's, or it is the first label (nothing falls into
  them); they declare nothing and hold no preprocessor lines;
* where another label shares the statements (``case A: case B: ...``), the label alone goes.

Anything else keeps PORT030's finding without a fix, with the reason."""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import NamedTuple

from porter.findings.predicates.common import edit, fix
from porter.mapping.cache import load_toml

STATUS_ENUMS_FILE = Path(__file__).resolve().parents[1] / "status_enums.toml"
_JUMPS = frozenset({"return_statement", "break_statement", "continue_statement", "throw_statement"})


class StatusEnum(NamedTuple):
    cuda_types: tuple[str, ...]
    hip_type: str
    cuda: dict[str, int]  # CUDA enumerator -> value
    hip: dict[str, int]  # HIP enumerator -> value


@functools.cache
def status_enums() -> dict[str, StatusEnum]:
    """CUDA enumerator -> its enum's facts, from status_enums.toml."""
    doc = load_toml(STATUS_ENUMS_FILE)
    out = {}
    for e in doc["enum"]:
        entry = StatusEnum(tuple(e["cuda_types"]), e["hip_type"], dict(e["cuda"]), dict(e["hip"]))
        for name in entry.cuda:
            out[name] = entry
    return out


def case_label_fix(ctx, name: str, start: int, end: int):
    """For ``name`` at [start, end) as a ``case`` label's value: (the fix or None, a note for the message);
    None where it is no case label of a status enum porter knows."""
    enum = status_enums().get(name)
    if enum is None:
        return None
    node = ctx.index.node_at(start, end)
    case = node.parent if node is not None else None
    if case is None or case.type != "case_statement":
        return None
    value = case.child_by_field_name("value")
    if value is None or (value.start_byte, value.end_byte) != (start, end):
        return None
    cuda_value = enum.cuda[name]
    same = sorted(h for h, v in enum.hip.items() if v == cuda_value)
    if same:
        return None, f"; {same[0]} has its value ({cuda_value}) in HIP, so this case cannot simply go"
    where = (f"as a `case` label it is never reached in the port: no `{enum.hip_type}` value is {cuda_value}, "
             f"{name}'s value")
    body = case.parent
    switch = body.parent if body is not None else None
    if body is None or switch is None or switch.type != "switch_statement":
        return None
    if not _switches_on(ctx, switch, enum):
        return None, (f"; {where} if the switch is over a `{enum.hip_type}`, but porter cannot tell that it is: "
                      "remove the case by hand if so")
    own = _statements(case, value)
    prev = _previous(case)
    if not own or (prev is not None and prev.type == "case_statement" and not _statements(prev)):
        shared = "the next label's" if not own else "the previous label's"
        return (fix(f"remove `case {name}:` (its statements are {shared} too and stay)", _label_edit(ctx, case)),
                f"; {where}: the fix removes the label (its statements are {shared} too)")
    if prev is not None and prev.type != "case_statement":
        return None, f"; {where}, but something other than a label comes before it: remove it by hand"
    if not _ends_in_jump(own[-1]):
        return None, (f"; {where}, but its statements fall through into the next label: remove the label by hand "
                      "(keep the statements if the case before reaches them)")
    if prev is not None and not _ends_in_jump(_statements(prev)[-1]):
        return None, f"; {where}, but the case before falls through into it: remove the label by hand"
    if any(s.type == "declaration" or s.type.startswith("preproc") or s.type == "labeled_statement" for s in own):
        return None, f"; {where}, but its statements declare a name or hold a label or directive: remove it by hand"
    last = ctx.text(own[-1]).split(None, 1)[0].rstrip(";")
    return (fix(f"remove `case {name}:` and its statements (they end in `{last}`; no `{enum.hip_type}` value "
                f"reaches the label)", _case_edit(ctx, case)),
            f"; {where}: the fix removes the case (its statements end in `{last}`, so nothing falls into or out of it)")


def _switches_on(ctx, switch, enum: StatusEnum) -> bool:
    """The switch's condition is a name the enclosing function declares with the enum's CUDA type."""
    cond = switch.child_by_field_name("condition")
    if cond is None:
        return False
    m = re.fullmatch(r"\(\s*\(*\s*([A-Za-z_]\w*)\s*\)*\s*\)", ctx.text(cond))
    if m is None:
        return False
    fn = ctx.function_of(switch)
    if fn is None:
        return False
    before = ctx.source[fn.start_byte:switch.start_byte].decode("utf-8", "replace")
    types = "|".join(re.escape(t) for t in enum.cuda_types)
    decl = re.compile(rf"(?<![\w:.])(?:const\s+)?(?:{types})\s+(?:const\s+)?&?\s*{re.escape(m.group(1))}\s*[,)=;]")
    return decl.search(before) is not None


def _statements(case, value=None) -> list:
    """The statements under a case label (comments left out)."""
    value = value if value is not None else case.child_by_field_name("value")
    return [c for c in case.named_children if c.type != "comment" and (value is None or c.id != value.id)]


def _previous(case):
    """The statement or label before ``case`` in the switch body (comments skipped), None if it is the first."""
    n = case.prev_named_sibling
    while n is not None and n.type == "comment":
        n = n.prev_named_sibling
    return n


def _ends_in_jump(stmt) -> bool:
    while stmt is not None and stmt.type == "compound_statement":
        inner = [c for c in stmt.named_children if c.type != "comment"]
        stmt = inner[-1] if inner else None
    if stmt is None:
        return False
    if stmt.type == "expression_statement":  # `throw x;` where the grammar makes it an expression
        inner = [c for c in stmt.named_children if c.type != "comment"]
        return len(inner) == 1 and inner[0].type == "throw_expression"
    return stmt.type in _JUMPS


_REST_OF_LINE = re.compile(rb"[ \t]*(?://[^\n]*)?(?:\r?\n|$)")


def _whole_lines(ctx, start: int, end: int) -> tuple[int, int]:
    """[start, end) widened to whole lines where only blanks (and a trailing // comment) are around it, and
    over one blank line after it where one comes before it too (so two blank lines do not remain)."""
    src = ctx.source
    line = src.rfind(b"\n", 0, start) + 1
    rest = _REST_OF_LINE.match(src, end)
    if src[line:start].strip() or rest is None:
        return start, end
    start, end = line, rest.end()
    blank_before = line >= 1 and src[src.rfind(b"\n", 0, line - 1) + 1:line].strip() == b""
    after = re.match(rb"[ \t]*\r?\n", src[end:])
    if blank_before and after and line > 0:
        end += after.end()
    return start, end


def _label_edit(ctx, case):
    colon = next(c for c in case.children if c.type == ":")
    src = ctx.source
    start, end = _whole_lines(ctx, case.start_byte, colon.end_byte)
    if (start, end) == (case.start_byte, colon.end_byte):  # code after the label on its line
        while end < len(src) and src[end] in b" \t":
            end += 1
    return edit(start, end, "")


def _case_edit(ctx, case):
    start, end = _whole_lines(ctx, case.start_byte, case.end_byte)
    return edit(start, end, "")
