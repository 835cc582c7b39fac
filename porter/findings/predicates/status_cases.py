"""PORT030's fix for a ``case`` label whose enumerator HIP lacks (NVIDIA's helper_cuda.h: ``case
CUFFT_LICENSE_ERROR: return "CUFFT_LICENSE_ERROR";`` in ``_cudaGetErrorEnum(cufftResult error)``: hipFFT
has no such status, so the port stops at that line).

The label can go, with the statements under it, when nothing else changes by it:

* the label's value is an enumerator of a CUDA status enum of ``status_enums.toml`` that the mapping
  database marks unsupported (PORT030), or whose HIP status the target ROCm lacks (PORT032:
  HIPSOLVER_STATUS_ZERO_PIVOT came with ROCm 5.6), and no value the HIP library returns reaches the label:
  where the HIP enum gives each status the CUDA value (hipFFT), no enumerator of the HIP enum at the
  target has the label's CUDA value (then none that reached another label before goes elsewhere now);
  where it numbers them its own way (hipSOLVER), the port has no HIP status for the label at the target;
* or the label is an alias (``status_enums.toml``: the translator writes for it the HIP status of another
  enumerator, CUSOLVER_STATUS_IRS_PARAMS_INVALID -> HIPSOLVER_STATUS_INVALID_VALUE) and the switch has a
  label of that HIP status already: two labels of one value do not compile, and the value reaches the
  other label as before (``duplicate_labels``; where the switch has only aliases of it, the first stays);
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
from porter.mapping import version_key
from porter.mapping.cache import load_toml

STATUS_ENUMS_FILE = Path(__file__).resolve().parents[1] / "status_enums.toml"
_JUMPS = frozenset({"return_statement", "break_statement", "continue_statement", "throw_statement"})


class StatusEnum(NamedTuple):
    cuda_types: tuple[str, ...]
    hip_type: str
    cuda: dict[str, int]  # CUDA enumerator -> value
    hip: dict[str, int]  # HIP enumerator -> value (at the newest ROCm porter knows)
    hip_since: dict[str, str] = {}  # HIP enumerator -> the first ROCm release that has it (where some lack it)
    same_values: bool = True  # the HIP enum gives each status the CUDA value
    alias: dict[str, str] = {}  # CUDA enumerator -> the one whose HIP status the translator writes for it

    def hip_at(self, target: str) -> dict[str, int]:
        """The HIP enumerators ROCm ``target`` has."""
        return {h: v for h, v in self.hip.items()
                if h not in self.hip_since or version_key(self.hip_since[h]) <= version_key(target)}


@functools.cache
def status_enums() -> dict[str, StatusEnum]:
    """CUDA enumerator -> its enum's facts, from status_enums.toml."""
    doc = load_toml(STATUS_ENUMS_FILE)
    out = {}
    for e in doc["enum"]:
        entry = StatusEnum(tuple(e["cuda_types"]), e["hip_type"], dict(e["cuda"]), dict(e["hip"]),
                           dict(e.get("hip_since", {})), e.get("same_values", True), dict(e.get("alias", {})))
        for name in entry.cuda:
            out[name] = entry
    return out


def hip_status(name: str, target: str, roc: bool = False) -> str | None:
    """The HIP status the translator writes for the CUDA status ``name`` for ROCm ``target`` (the mapping
    database's), None where it writes none there (unsupported, or newer than the target)."""
    from porter.mapping import load_database

    entry = load_database().identifiers.get(name)
    if entry is None or not entry.renames or entry.available_in(target, roc) is not None:
        return None
    return entry.target(roc)


def case_label_fix(ctx, name: str, start: int, end: int, target: str | None = None):
    """For ``name`` at [start, end) as a ``case`` label's value: (the fix or None, a note for the message);
    None where it is no case label of a status enum porter knows, or one the port has a HIP status for.
    ``target``: the ROCm release (default: the options' target)."""
    enum = status_enums().get(name)
    if enum is None:
        return None
    case, value = _label_at(ctx, start, end)
    if case is None:
        return None
    target = target or ctx.options.target
    cuda_value = enum.cuda[name]
    if enum.same_values:
        same = sorted(h for h, v in enum.hip_at(target).items() if v == cuda_value)
        if same:
            return None, f"; {same[0]} has its value ({cuda_value}) in HIP, so this case cannot simply go"
        where = (f"as a `case` label it is never reached in the port: no `{enum.hip_type}` value is {cuda_value}, "
                 f"{name}'s value")
    else:
        if hip_status(name, target, ctx.options.roc) is not None:
            return None
        where = f"as a `case` label it is never reached in the port: no `{enum.hip_type}` status stands for it"
        later = _hip_name(name)
        if later in enum.hip_since and later not in enum.hip_at(target):
            where += f" in ROCm {target} ({later} came with ROCm {enum.hip_since[later]})"
    return _removal(ctx, case, value, name, enum, where)


def _hip_name(name: str) -> str | None:
    from porter.mapping import load_database

    entry = load_database().identifiers.get(name)
    return entry.hip if entry is not None else None


def _label_at(ctx, start: int, end: int):
    """(the case_statement, its value node) where [start, end) is a ``case`` label's whole value; (None, None)
    elsewhere."""
    node = ctx.index.node_at(start, end)
    case = node.parent if node is not None else None
    if case is None or case.type != "case_statement":
        return None, None
    value = case.child_by_field_name("value")
    if value is None or (value.start_byte, value.end_byte) != (start, end):
        return None, None
    return case, value


@functools.cache
def alias_words() -> tuple[bytes, ...]:
    """The CUDA statuses that are aliases (``duplicate_labels`` looks at these names alone)."""
    return tuple(sorted({a.encode() for e in status_enums().values() for a in e.alias}))


def duplicate_labels(ctx, target: str | None = None) -> list:
    """The ``case`` labels of aliases whose HIP status another label of the same switch has (the port would
    have two labels of one value): (name, start, end, HIP status, the other label's name, fix or None, note)."""
    if ctx.options.roc:  # under --roc the statuses are rocBLAS's: not these tables
        return []
    words = [w for w in alias_words() if w in ctx.source]  # a substring test first: most files hold none
    if not words:
        return []
    pattern = re.compile(rb"(?<![\w])(?:" + b"|".join(re.escape(w) for w in words) + rb")(?![\w])")
    target = target or ctx.options.target
    out = []
    for m in pattern.finditer(ctx.source):
        name = m.group().decode()
        enum = status_enums()[name]
        case, value = _label_at(ctx, m.start(), m.end())
        if case is None:
            continue
        hip = hip_status(name, target)
        switch = case.parent.parent if case.parent is not None else None
        if hip is None or switch is None or switch.type != "switch_statement" or not _switches_on(ctx, switch, enum):
            continue
        other = _kept_label(ctx, case, name, hip, enum, target)
        if other is None:
            continue
        where = (f"as a `case` label it becomes `case {hip}:`, which `case {other}:` of this switch becomes too: "
                 "two labels of one value do not compile, and that value reaches the other label as before")
        removal = _removal(ctx, case, value, name, enum, where, reached=False)
        if removal is not None:
            out.append((name, m.start(), m.end(), hip, other, *removal))
    return out


def _kept_label(ctx, case, name: str, hip: str, enum: StatusEnum, target: str) -> str | None:
    """The label of the switch that keeps the value ``hip`` when ``case`` (an alias's) goes: one that is no
    alias, else an alias's before it; None where none is."""
    before = True
    found = None
    for label in case.parent.named_children:
        if label.type != "case_statement":
            continue
        if label.id == case.id:
            before = False
            continue
        value = label.child_by_field_name("value")
        other = ctx.text(value).strip() if value is not None else ""
        if other not in enum.cuda or hip_status(other, target) != hip:
            continue
        if other not in enum.alias:
            return other
        if before and found is None:
            found = other
    return found


def _removal(ctx, case, value, name: str, enum: StatusEnum, where: str, reached: bool = True):
    """(the fix removing ``case`` (or its label alone), a note) where nothing falls into or out of it; (None,
    the reason) elsewhere.  ``reached``: no value reaches the label (its statements may go with it)."""
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
    why = f"no `{enum.hip_type}` value reaches the label" if reached else "its value reaches the other label"
    return (fix(f"remove `case {name}:` and its statements (they end in `{last}`; {why})", _case_edit(ctx, case)),
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
