"""Build-file migration: CMake and Make projects from nvcc/CUDA to hipcc/HIP.

``migrate(path, text, arch="gfx942") -> Migration`` (``.output``, ``.changes``,
``.findings``) and ``is_build_file(path)``.  The rewrite rules are data
(``make.toml``, ``cmake.toml``, ``flags.toml``, ``libraries.toml``); the
output is byte-identical outside the rewritten spans and migrating it again
changes nothing.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from porter.buildfiles import make_text
from porter.buildfiles.rewrite import (Context, apply_edits, arch_foreach_once, arch_set_once,
                                       cmake_insertions, collect_edits, comment_spans, compile_arch_added,
                                       compiler_indirection, empty_genex_goes, make_insertions, rdc_link_added,
                                       unused_nv_arch_goes, unused_rocm_path_goes)
from porter.buildfiles.rules import load_rules
from porter.findings.model import Finding

MAKE_NAMES = frozenset({"makefile", "gnumakefile"})
__all__ = ["Change", "Migration", "build_file_kind", "is_build_file", "migrate"]


@dataclass(frozen=True, slots=True)
class Change:
    line: int  # 1-based line of the original text (an insertion: the line it goes before)
    old: str  # the original line(s), "" for an insertion
    new: str  # what they became
    why: str
    rules: tuple[str, ...] = ()

    def as_dict(self) -> dict:
        return {"line": self.line, "old": self.old, "new": self.new, "why": self.why, "rules": list(self.rules)}


@dataclass(slots=True)
class Migration:
    path: str
    kind: str  # "cmake" | "make" | "" (not a build file: unchanged)
    output: str
    changes: list[Change] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return bool(self.changes)

    def inserted_lines(self, original: str) -> list[tuple[int, int]]:
        """The manifest's ``[after_source_line, count]`` for this migration: the lines it added (a line that
        became several: the extra ones follow it) and, with a negative count, the lines of ``original`` it
        dropped after ``after_source_line``; so a build error on a line of the output maps back to the line of
        ``original`` it came from (porter.build.diagnostics.map_line)."""
        import difflib

        old, new = original.splitlines(), self.output.splitlines()
        out = []
        for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
            extra = (j2 - j1) - (i2 - i1)
            if op != "equal" and extra > 0:
                out.append((i2, extra))
            elif op != "equal" and extra < 0:
                out.append((i1 + (j2 - j1), extra))  # the block's first lines stay, its last ones go
        return out

    def as_dict(self) -> dict:
        return {"path": self.path, "kind": self.kind, "changes": [c.as_dict() for c in self.changes],
                "findings": [f.as_dict() for f in self.findings]}


def build_file_kind(path: str) -> str:
    name = os.path.basename(str(path))
    low = name.lower()
    if name == "CMakeLists.txt" or low.endswith(".cmake"):
        return "cmake"
    if low in MAKE_NAMES or low.endswith(".mk") or low.startswith("makefile."):
        return "make"
    return ""


def is_build_file(path: str) -> bool:
    return build_file_kind(path) != ""


def _line_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def _changes(text: str, edits) -> list[Change]:
    """Group edits by the original lines they touch."""
    groups: list[list] = []
    for e in sorted(edits, key=lambda e: (e.start, e.end)):
        a = text.rfind("\n", 0, e.start) + 1
        b = text.find("\n", max(e.end - 1, e.start) if e.end > e.start else e.start)
        b = len(text) if b < 0 else b
        if e.start == e.end:  # insertion: a change of its own
            groups.append([e.start, e.start, [e], True])
            continue
        if groups and not groups[-1][3] and a <= groups[-1][1]:
            groups[-1][1] = max(groups[-1][1], b)
            groups[-1][2].append(e)
        else:
            groups.append([a, b, [e], False])
    out = []
    for a, b, es, insertion in groups:
        old = text[a:b]
        if insertion:
            new = "".join(e.text for e in es)
            out.append(Change(_line_of(text, a), "", new.rstrip("\r\n"), es[0].why, tuple(e.rule for e in es)))
            continue
        shifted = [type(e)(e.start - a, e.end - a, e.text, e.rule, e.why) for e in es]
        new = apply_edits(old, shifted)
        whys = list(dict.fromkeys(e.why for e in es if e.why))
        out.append(Change(_line_of(text, a), old.rstrip("\r"), new.rstrip("\r"), "; ".join(whys),
                          tuple(dict.fromkeys(e.rule for e in es))))
    return out


def _own_findings(path: str, text: str, ruleset, edits) -> list[Finding]:
    """Leftovers the rewrite rules did not handle (outside rewritten spans and comments)."""
    comments = comment_spans(text)
    covered = [(e.start, e.end) for e in edits if e.end > e.start]
    taken: list[tuple[int, int]] = []
    out: list[Finding] = []
    for rule in ruleset.findings:
        for m in rule.regex.finditer(text):
            a, b = m.span()
            if a == b or any(x <= a < y for x, y in comments) or any(a < y and x < b for x, y in covered + taken):
                continue
            taken.append((a, b))
            ls = text.rfind("\n", 0, a) + 1
            le = text.rfind("\n", 0, b) + 1
            out.append(Finding(
                rule=rule.id, category="build-flag", severity=rule.severity, file=path,
                line=_line_of(text, a), column=a - ls + 1, end_line=_line_of(text, b), end_column=b - le + 1,
                message=f"{m.group(0).rstrip('( ')}: {rule.message}", start_byte=len(text[:a].encode()),
                end_byte=len(text[:b].encode())))
    return out


def _findings(path: str, text: str, ruleset, edits) -> list[Finding]:
    """Our own leftovers plus the findings catalogue's build rules, minus what
    the migration already rewrote."""
    from porter.findings import scan_build_file

    out = _own_findings(path, text, ruleset, edits)
    theirs = list(scan_build_file(text, path))
    if theirs:
        data = text.encode()
        spans = [(len(text[:e.start].encode()), len(text[:e.end].encode())) for e in edits if e.end > e.start]
        mine = {(f.line, f.column) for f in out}
        for f in theirs:
            a, b = f.start_byte, max(f.end_byte, f.start_byte + 1)
            if b <= len(data) and any(a < y and x < b for x, y in spans):
                continue  # already rewritten
            if (f.line, f.column) not in mine:
                out.append(f)
    return sorted(out, key=lambda f: (f.line, f.column, f.rule))


def migrate(path: str, text: str, arch: str = "gfx942") -> Migration:
    """Migrate one build file's text for ``arch`` (the AMD GPU target)."""
    kind = build_file_kind(path)
    if not kind:
        return Migration(str(path), "", text)
    ruleset = load_rules(kind)
    ctx = Context(kind, arch, [], variables=make_text.variables(text) if kind == "make" else None)
    edits = collect_edits(text, ruleset, ctx)
    if kind == "make":
        arch_ref = ruleset.settings.get("arch_ref", "{arch}").replace("{arch}", arch)
        edits = arch_foreach_once(text, edits, f"--offload-arch={arch_ref}")
        edits = compiler_indirection(text, edits)
        edits = compile_arch_added(text, edits, ctx, arch_ref)
        edits = rdc_link_added(text, edits)
        edits = unused_nv_arch_goes(text, edits)
        edits += make_insertions(text, ctx, ruleset, edits)
        edits = unused_rocm_path_goes(text, edits)
    else:
        probe = apply_edits(text, edits)
        edits = empty_genex_goes(text, arch_set_once(text, edits + cmake_insertions(text, probe, ctx)))
    output = apply_edits(text, edits)
    return Migration(str(path), kind, output, _changes(text, edits), _findings(str(path), text, ruleset, edits))
