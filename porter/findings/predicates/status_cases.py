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
  and the switch is over a name the function declares with that enum's CUDA type (its HIP type after the
  port), so the values switched on are the library's;
* or the port writes for the label the name it writes for another label of the switch (``label_clashes``,
  from the translator's own answer for the labels' names, any enum: CUSOLVER_STATUS_IRS_PARAMS_INVALID and
  CUSOLVER_STATUS_INVALID_VALUE both become HIPSOLVER_STATUS_INVALID_VALUE; under --roc CUBLAS_STATUS_ALLOC_FAILED
  and CUBLAS_STATUS_NOT_SUPPORTED both become rocblas_status_not_implemented): two labels of one value do not
  compile; the label whose CUDA name reads most like the name stays, and the value reaches it;
* or, under --roc, the port writes for the label a HIP library's name (the roc* library has none:
  CUBLAS_STATUS_LICENSE_ERROR -> HIPBLAS_STATUS_UNKNOWN) and includes no header of that library, and the switch
  is over a name declared with a CUDA type whose roc* type the port writes (cublasStatus_t -> rocblas_status):
  undeclared there, and no value of the roc* type stands for it;
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
    return _removal(ctx, case, value, name, where, f"no `{enum.hip_type}` value reaches the label", enum)


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


# a `case` label whose value is a name, maybe qualified (`case CUBLAS_STATUS_SUCCESS:`, `case ::cudaSuccess:`): the
# qualifiers, the name
_CASE_LABEL = re.compile(rb"case\s+((?:(?:[A-Za-z_]\w*)?\s*::\s*)*)([A-Za-z_]\w*)\s*:(?!:)")
_IDENT_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
_LABELS_MEMO = ("status_cases", "mapped case labels")


class Clash(NamedTuple):
    """A ``case`` label the port cannot keep as the translator writes it.  ``kind``: "duplicate" (another label of
    the switch becomes the same text; ``other``: that label's CUDA name) or "foreign" (the --roc port writes a HIP
    library's name there, whose header it does not include; ``other``: that header)."""

    name: str
    start: int
    end: int
    port: str  # what the port writes for the label's name
    kind: str
    other: str
    fix: object
    note: str


def mapped_labels(ctx) -> list[tuple[str, int]]:
    """The ``case`` labels whose value is a name of the mapping database (or ends in one: ``ns::NAME``), as (name,
    where it starts), in file order.  A file without the words ``switch`` and ``case`` is not searched."""
    memo = ctx.index.memo
    found = memo.get(_LABELS_MEMO)
    if found is None:
        found = memo[_LABELS_MEMO] = _mapped_labels(ctx.source)
    return found


def _mapped_labels(source: bytes) -> list[tuple[str, int]]:
    if b"switch" not in source or b"case" not in source:
        return []
    from porter.mapping import load_database

    ids = load_database().identifiers
    out = []
    for m in _CASE_LABEL.finditer(source):
        if m.start() and source[m.start() - 1] in _IDENT_BYTES:
            continue  # (`showcase x:`)
        name = m.group(2).decode("ascii")
        if name in ids:
            out.append((name, m.start(2)))
    return out


def label_clashes(ctx) -> list[Clash]:
    """The ``case`` labels that stop the port of a switch: two labels of different CUDA names that the port writes
    as one name (a duplicate case value: CUSOLVER_STATUS_IRS_PARAMS_INVALID and CUSOLVER_STATUS_INVALID_VALUE are
    both HIPSOLVER_STATUS_INVALID_VALUE; under --roc CUBLAS_STATUS_ALLOC_FAILED and CUBLAS_STATUS_NOT_SUPPORTED are
    both rocblas_status_not_implemented), and under --roc a label the port writes as a HIP library's name, where
    the roc* library has none, in a port that includes no header of that library (CUBLAS_STATUS_LICENSE_ERROR ->
    HIPBLAS_STATUS_UNKNOWN beside rocblas/rocblas.h: undeclared).

    What the port writes is the translator's own answer for the labels' names alone (one look-up with ``only``),
    with the file's options (--roc, the target).  Of the labels that become one name, the one whose CUDA name
    reads most like it (the most words in common, then the fewest other words; then the first) keeps it, and
    each other one is reported, with the removal fix: in the port the value reaches the kept label."""
    ported, twice, foreign = _ported_labels(ctx)
    if not twice and not foreign:
        return []
    out = []
    groups: dict[tuple, list] = {}
    for name, start, text in ported:
        if text not in twice and start not in foreign:
            continue
        end = start + len(name)
        case, value = _case_of(ctx, start, end)
        if case is None:
            continue
        if start in foreign:  # (its removal is the duplicate's too)
            out.append(_foreign_label(ctx, case, value, name, start, end, text, foreign[start]))
            continue
        qualifier = re.sub(rb"\s+", b"", ctx.source[value.start_byte:start])
        groups.setdefault((case.parent.parent.id, qualifier, text), []).append((name, start, end, case, value))
    for (_switch, _qualifier, text), members in groups.items():
        if len({m[0] for m in members}) < 2:
            continue
        words = _words(text)
        kept = max(members, key=lambda m: (len(_words(m[0]) & words), -len(_words(m[0]) - words), -m[1]))[0]
        for name, start, end, case, value in members:
            if name == kept:
                continue
            where = (f"as a `case` label it becomes `case {text}:`, which `case {kept}:` of this switch becomes too: "
                     "two labels of one value do not compile, and that value reaches the other label")
            the_fix, note = _removal(ctx, case, value, name, where, "its value reaches the other label") or (None, "")
            out.append(Clash(name, start, end, text, "duplicate", kept, the_fix, note))
    return sorted(out, key=lambda c: c.start)


def clash_words(ctx) -> set[bytes]:
    """The names of the labels ``label_clashes`` looks at (without reading the syntax tree)."""
    ported, twice, foreign = _ported_labels(ctx)
    return {name.encode() for name, start, text in ported if text in twice or start in foreign}


def _ported_labels(ctx):
    """(the labels the port renames, as (name, start, what it writes), the texts two of them of different names
    become, {start: header} of the labels --roc writes as a HIP library's name whose header the port lacks)."""
    memo = ctx.index.memo
    key = ("status_cases", "ported labels", ctx.options)
    found = memo.get(key)
    if found is None:
        found = memo[key] = _port_labels(ctx)
    return found


def _port_labels(ctx):
    labels = mapped_labels(ctx)
    roc = ctx.options.roc
    if not labels or (not roc and len({n for n, _s in labels}) < 2):
        return [], set(), {}
    from porter.mapping import load_database
    from porter.translate import translate

    result = translate(ctx.source, ctx.path, ctx.options, index=ctx.index,
                       only=frozenset(n.encode() for n, _s in labels))
    renamed = {e.start: e.replacement for e in result.edits if e.kind == "rename"}
    ported = [(name, start, renamed[start].decode()) for name, start in labels if start in renamed]
    first: dict[str, str] = {}
    twice = {text for name, _s, text in ported if first.setdefault(text, name) != name}
    foreign: dict[int, str] = {}
    if roc:
        ids = load_database().identifiers
        included = None
        for name, start, text in ported:
            entry = ids[name]
            if entry.roc or text != entry.hip or not entry.header:
                continue  # a roc* name (or none): the roc* library's
            included = _port_includes(ctx, result) if included is None else included
            if not _includes(included, entry.header):
                foreign[start] = entry.header
    return ported, twice, foreign


def _words(name: str) -> frozenset[str]:
    """The words of a name, lower case (CUBLAS_STATUS_NOT_SUPPORTED, rocblas_status_not_implemented,
    cudaErrorInvalidValue)."""
    return frozenset(w.lower() for w in re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+", name))


def _case_of(ctx, start: int, end: int):
    """(the case_statement, its value node) where [start, end) is the name a ``case`` label's value is or ends in,
    and the label stands in a switch's body itself (not under a preprocessor branch); (None, None) elsewhere."""
    node = ctx.index.node_at(start, end)
    while node is not None and node.parent is not None and node.parent.type == "qualified_identifier":
        node = node.parent
    case = node.parent if node is not None else None
    if case is None or case.type != "case_statement":
        return None, None
    value = case.child_by_field_name("value")
    if value is None or (value.start_byte, value.end_byte) != (node.start_byte, node.end_byte):
        return None, None
    body = case.parent
    switch = body.parent if body is not None else None
    if body.type != "compound_statement" or switch is None or switch.type != "switch_statement":
        return None, None
    return case, value


def _port_includes(ctx, result) -> set[str]:
    """The header paths the port's #include lines name (a CUDA header's as the port writes it)."""
    written = {e.start: e.replacement.decode("utf-8", "replace") for e in result.edits if e.kind == "header"}
    src = ctx.source
    return {written.get(n.start_byte + 1, src[n.start_byte + 1:n.end_byte - 1].decode("utf-8", "replace"))
            for n in ctx.index.includes}


def _includes(included: set[str], header: str) -> bool:
    base = header.rsplit("/", 1)[-1]
    return any(h == header or h.rsplit("/", 1)[-1] == base for h in included)


def _foreign_label(ctx, case, value, name: str, start: int, end: int, text: str, header: str) -> Clash:
    """A label the --roc port writes as a HIP library's name (``text``, declared by ``header``, which the port
    does not include): it can go where the switch is over the roc* library's type, none of whose values the
    label names."""
    where = f"as a `case` label it becomes `case {text}:`, a name of {header}, which this port does not include"
    over = _roc_type_switched_on(ctx, case.parent.parent)
    if over is None:
        return Clash(name, start, end, text, "foreign", header, None,
                     f"; {where}: remove the case if the switch is over a roc* library's status (porter cannot tell "
                     "what it is over)")
    cuda_type, roc_type = over
    where += f"; the switch is over a `{cuda_type}` (`{roc_type}` in the port), no value of which stands for it"
    the_fix, note = _removal(ctx, case, value, name, where, f"no `{roc_type}` value stands for it") or (None, "")
    return Clash(name, start, end, text, "foreign", header, the_fix, note)


def _roc_type_switched_on(ctx, switch) -> tuple[str, str] | None:
    """(the CUDA type, the roc* type the --roc port writes for it) of the name the switch is over, where the
    enclosing function declares that name with a CUDA type that has a roc* counterpart; None elsewhere."""
    from porter.mapping import load_database

    name = _switched_name(ctx, switch)
    fn = ctx.function_of(switch) if name is not None else None
    if fn is None:
        return None
    ids = load_database().identifiers
    before = ctx.source[fn.start_byte:switch.start_byte].decode("utf-8", "replace")
    decl = re.compile(rf"(?<![\w:.])([A-Za-z_]\w*)\s+(?:const\s+)?&?\s*{re.escape(name)}\s*[,)=;]")
    for m in decl.finditer(before):
        entry = ids.get(m.group(1))
        if entry is not None and entry.roc and entry.renames:
            return m.group(1), entry.roc
    return None


def _removal(ctx, case, value, name: str, where: str, why: str, enum: StatusEnum | None = None):
    """(the fix removing ``case`` (or its label alone), a note) where nothing falls into or out of it; (None,
    the reason) elsewhere; None where ``case`` stands in no switch's body.  ``why``: why its statements may go
    with it (the fix's title says it); ``enum``: the switch must be over a name of that enum's CUDA type (None:
    the label cannot stay in any switch)."""
    body = case.parent
    switch = body.parent if body is not None else None
    if body is None or switch is None or switch.type != "switch_statement":
        return None
    if enum is not None and not _switches_on(ctx, switch, enum):
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
    return (fix(f"remove `case {name}:` and its statements (they end in `{last}`; {why})", _case_edit(ctx, case)),
            f"; {where}: the fix removes the case (its statements end in `{last}`, so nothing falls into or out of it)")


def _switches_on(ctx, switch, enum: StatusEnum) -> bool:
    """The switch's condition is a name the enclosing function declares with the enum's CUDA type."""
    name = _switched_name(ctx, switch)
    fn = ctx.function_of(switch) if name is not None else None
    if fn is None:
        return False
    before = ctx.source[fn.start_byte:switch.start_byte].decode("utf-8", "replace")
    types = "|".join(re.escape(t) for t in enum.cuda_types)
    decl = re.compile(rf"(?<![\w:.])(?:const\s+)?(?:{types})\s+(?:const\s+)?&?\s*{re.escape(name)}\s*[,)=;]")
    return decl.search(before) is not None


def _switched_name(ctx, switch) -> str | None:
    """The name a switch is over (``switch (e)``, ``switch ((e))``), None where its condition is no plain name."""
    cond = switch.child_by_field_name("condition")
    m = re.fullmatch(r"\(\s*\(*\s*([A-Za-z_]\w*)\s*\)*\s*\)", ctx.text(cond)) if cond is not None else None
    return m.group(1) if m is not None else None


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
