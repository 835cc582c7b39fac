"""Compiler and linker output -> diagnostics, mapped back to reviewed files.

Parses clang's ``file:line:col: severity: message`` lines (notes attach to the
diagnostic before them, ``In file included from`` lines give the include
chain), driver/linker errors and clang's own errors without a location, and ``make[N]: Entering
directory`` lines (so paths resolve from the right folder).  Duplicates (the
host and each device pass report the same error) are dropped.  Known porting
problems (``known_errors.toml``) get the findings rule that fixes them, and a
missing ROCm library becomes one named diagnostic.
"""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

KNOWN_ERRORS = Path(__file__).with_name("known_errors.toml")

_LOC = re.compile(r"^(?P<file>[^:\n]+?):(?P<line>\d+):(?:(?P<col>\d+):)?\s*"
                  r"(?P<sev>fatal error|error|warning|note|remark):\s*(?P<msg>.*)$")
_INCLUDED = re.compile(r"^In file included from (?P<file>[^:\n]+?):(?P<line>\d+)[:,]")
_INCLUDED_MORE = re.compile(r"^\s+from (?P<file>[^:\n]+?):(?P<line>\d+)[:,]")
_TOOL = re.compile(r"^(?P<tool>clang(?:\+\+)?(?:-\d+)?|ld(?:\.lld)?|lld|/usr/bin/ld|hipcc|c\+\+|g\+\+|collect2|make(?:\[\d+\])?|"
                   r"cmake|CMake Error|ld\.lld)\S*?:\s*(?P<sev>fatal error|error|warning|\*\*\*)?:?\s*(?P<msg>.*)$")
# clang's own errors without a place (cc1: "fatal error: cannot open file '…/ocml.bc': Invalid encoding")
_BARE = re.compile(r"^(?P<sev>fatal error|error): (?P<msg>.+)$")
_MAKE_DIR = re.compile(r"^make(?:\[\d+\])?: (?P<what>Entering|Leaving) directory ['`](?P<dir>.*)'$")
_GENERATED = re.compile(r"\d+ (?:errors?|warnings?)(?: and \d+ errors?)? generated")
UNDEFINED = re.compile(r"undefined (?:reference to|symbol:?)\s*[`']?(?P<sym>[^'`\n]+)")


@dataclass(slots=True)
class Diagnostic:
    file: str  # as the compiler printed it, made relative to the build folder when inside it
    line: int
    column: int
    severity: str  # error | warning | note
    message: str
    unit: str = ""  # the translation unit (or build step) that printed it
    included_from: list[tuple[str, int]] = field(default_factory=list)
    notes: list["Diagnostic"] = field(default_factory=list)
    source_file: str | None = None  # the reviewed CUDA file, when the manifest maps it
    source_line: int | None = None
    rule: str = ""  # findings rule that fixes it
    hint: str = ""
    library: str = ""  # a missing ROCm library, by name
    cause: str = ""  # "file:line" of the earlier error this one follows from (a template that did not compile)

    def key(self) -> tuple:
        return (self.file, self.line, self.column, self.severity, self.message)

    def as_dict(self) -> dict:
        d = {"file": self.file, "line": self.line, "column": self.column, "severity": self.severity,
             "message": self.message}
        if self.unit:
            d["unit"] = self.unit
        if self.source_file is not None:
            d["source_file"] = self.source_file
            d["source_line"] = self.source_line
        if self.included_from:
            d["included_from"] = [{"file": f, "line": n} for f, n in self.included_from]
        if self.notes:
            d["notes"] = [n.as_dict() for n in self.notes]
        for k in ("rule", "hint", "library", "cause"):
            if getattr(self, k):
                d[k] = getattr(self, k)
        return d

    def one_line(self) -> str:
        where = f"{self.file}:{self.line}:{self.column}" if self.line else (self.file or "build")
        src = f" [CUDA source line {self.source_line}]" if self.source_file and self.source_line != self.line else ""
        extra = f" ({self.rule}: {self.hint})" if self.rule else (f" ({self.hint})" if self.hint else "")
        return f"{where}: {self.severity}: {self.message}{src}{extra}"


@dataclass(frozen=True, slots=True)
class _Problem:
    regex: re.Pattern
    rule: str
    hint: str
    library: str = ""


def _with_triggers(pattern: str, rule: str) -> str:
    """A pattern's ``{triggers}``: the names of its findings rule (the catalogue's triggers), as alternatives,
    so the list of names a message may quote is written once."""
    if "{triggers}" not in pattern:
        return pattern
    from porter.findings.catalogue import catalogue

    return pattern.replace("{triggers}", "|".join(re.escape(t.decode()) for t in catalogue()[rule].triggers))


@lru_cache(maxsize=1)
def known_problems() -> tuple[tuple[_Problem, ...], tuple[_Problem, ...]]:
    with open(KNOWN_ERRORS, "rb") as fh:
        data = tomllib.load(fh)
    problems = tuple(_Problem(re.compile(_with_triggers(p["pattern"], p.get("rule", ""))), p.get("rule", ""), p["hint"])
                     for p in data.get("problem", []))
    libs = tuple(_Problem(re.compile(p["pattern"]), "", f"install {p['package']}", p["name"])
                 for p in data.get("library", []))
    return problems, libs


def classify(d: Diagnostic) -> None:
    """Attach the findings rule / hint / missing library a message (and its notes) match."""
    problems, libs = known_problems()
    text = "\n".join([d.message, *(n.message for n in d.notes)])
    for lib in libs:
        if lib.regex.search(d.message):
            d.library = lib.library
            d.hint = lib.hint
            if not d.message.startswith("missing library"):
                d.message = f"missing library {lib.library}: {d.message}"
            return
    for p in problems:
        if p.regex.search(text):
            d.rule, d.hint = p.rule, p.hint
            return


def _rel(path: str, cwd: str, root: str) -> str:
    full = os.path.normpath(path if os.path.isabs(path) else os.path.join(cwd, path))
    try:
        rel = os.path.relpath(full, root)
    except ValueError:
        return full
    return full if rel.startswith("..") else rel.replace(os.sep, "/")


def parse(output: str, *, cwd: str, root: str, unit: str = "") -> list[Diagnostic]:
    """Diagnostics in ``output`` (one tool's stdout+stderr); paths relative to
    ``root`` when inside it (``cwd``: where the tool ran)."""
    out: list[Diagnostic] = []
    seen: set[tuple] = set()
    chain: list[tuple[str, int]] = []
    dirs = [cwd]
    last: Diagnostic | None = None
    last_kept = True
    # a header's include stack as clang last printed it: clang prints "In file included from" only when the
    # stack changes, so the next diagnostic in the same header comes without one (forgotten at the end of a
    # compile's output, "N errors generated", and when make changes folder)
    stacks: dict[str, list[tuple[str, int]]] = {}

    def keep(d: Diagnostic) -> None:  # once per key: a diagnostic repeated by several compile steps is one
        if d.key() not in seen:
            seen.add(d.key())
            out.append(d)

    for raw in output.splitlines():
        line = raw.rstrip("\r")
        m = _MAKE_DIR.match(line)
        if m:
            if m.group("what") == "Entering":
                dirs.append(m.group("dir"))
            elif len(dirs) > 1:
                dirs.pop()
            stacks.clear()
            continue
        if _GENERATED.search(line):
            stacks.clear()
        here = dirs[-1]
        m = _INCLUDED.match(line) or (_INCLUDED_MORE.match(line) if chain else None)
        if m:
            chain.append((_rel(m.group("file"), here, root), int(m.group("line"))))
            continue
        m = _LOC.match(line)
        if m and not line.startswith(" "):
            sev = m.group("sev")
            sev = "error" if sev == "fatal error" else ("note" if sev == "remark" else sev)
            file = _rel(m.group("file"), here, root)
            stack = list(reversed(chain)) if chain else list(stacks.get(file, ()))
            if chain:
                stacks[file] = stack
            d = Diagnostic(file, int(m.group("line")), int(m.group("col") or 0), sev,
                           m.group("msg").strip(), unit=unit, included_from=stack)
            chain = []
            if sev == "note":
                if last is not None and last_kept:
                    if d.key() not in {n.key() for n in last.notes}:
                        last.notes.append(d)
                continue
            last = d
            last_kept = d.key() not in seen
            if last_kept:
                seen.add(d.key())
                out.append(d)
            continue
        if line.startswith(("In file included from",)):
            continue
        m = _TOOL.match(line)
        if m and (m.group("sev") in ("error", "fatal error", "warning", "***")
                  or re.search(r"cannot find|undefined|not found|No such file", line)):
            msg = m.group("msg").strip()
            if not msg or re.match(r"\d+ errors? generated", msg) or "linker command failed" in msg \
                    or msg.startswith("Error ") or m.group("sev") == "***":
                continue
            sev = "warning" if m.group("sev") == "warning" else "error"
            d = Diagnostic("", 0, 0, sev, msg, unit=unit)
            u = UNDEFINED.search(msg)
            if u:
                d.hint = "a function defined in a file that did not compile, or a library missing from the link"
            classify(d)
            keep(d)
            last, last_kept, chain = d, True, []
            continue
        m = _BARE.match(line)
        if m and not re.match(r"\d+ errors? generated", m.group("msg")):
            d = Diagnostic("", 0, 0, "error", m.group("msg").strip(), unit=unit)
            classify(d)
            keep(d)
            last, last_kept, chain = d, True, []
            continue
        m = UNDEFINED.search(line)
        if m and "undefined" in line:
            d = Diagnostic("", 0, 0, "error", line.strip(), unit=unit,
                           hint="a function defined in a file that did not compile, or a library missing from the link")
            keep(d)
    for d in out:
        if d.line and not d.rule and not d.library:
            classify(d)
    _follow_failed_templates(out)
    _follow_typo_corrections(out)
    _follow_invalid_declarations(out)
    return out


_STEP_FAILED = re.compile(r"(?:amdgcn-link|linker|ld\.lld|lld|clang-offload-bundler|clang-offload-wrapper) command "
                          r"failed\b")


def follow_failed_steps(ds: list[Diagnostic]) -> None:
    """The driver's "amdgcn-link command failed with exit code 1" (or "linker command failed") after the errors
    of that step: it says only that the step stopped, at the first of them that has a place (an undefined
    symbol porter located at its declaration): that error is its ``cause``."""
    for i, d in enumerate(ds):
        if d.severity != "error" or d.line or d.cause or not _STEP_FAILED.search(d.message):
            continue
        first = next((e for e in ds[:i] if e.severity == "error" and e.line and e.unit == d.unit), None)
        if first is not None:
            d.rule, d.cause = d.rule or first.rule, f"{first.file}:{first.line}"
            d.hint = f"the step stopped at the error at {d.cause}" + (f": {first.hint}" if first.hint else "")


_NO_MATCH = re.compile(r"no matching (?:function|member function|constructor) for call to '(?:[\w:]*::)?(?P<name>\w+)'")
_SUBSTITUTION = re.compile(r"candidate template ignored: substitution failure")
_INSTANTIATION = re.compile(r"in instantiation of (?:function|member function) template specialization "
                            r"'(?:[\w:]*::)?(?P<name>\w+)<")


def _follow_failed_templates(ds: list[Diagnostic]) -> None:
    """A call clang rejects only because the template it names failed to compile earlier ("no matching
    function for call to 'f'" with "candidate template ignored: substitution failure": clang marks a function
    template whose instantiation had an error as invalid, and ignores it at the later calls) follows from that
    error: it gets that error's rule and says where it is.  The earlier error is the one clang printed inside
    an instantiation of ``f`` (its "in instantiation of function template specialization 'f<...>'" note)."""
    failed: dict[str, Diagnostic] = {}
    for d in ds:
        if d.severity != "error":
            continue
        m = _NO_MATCH.search(d.message)
        if m and not d.rule and any(_SUBSTITUTION.search(n.message) for n in d.notes):
            cause = failed.get(m.group("name"))
            if cause is not None:
                d.rule, d.cause = cause.rule, f"{cause.file}:{cause.line}"
                d.hint = (f"a consequence of the error at {d.cause}: {m.group('name')} did not compile there, so "
                          f"clang ignores it at this call; {cause.hint}" if cause.hint else
                          f"a consequence of the error at {d.cause}")
                continue
        for n in d.notes:
            i = _INSTANTIATION.search(n.message)
            if i and d.rule:
                failed.setdefault(i.group("name"), d)
                break


_TYPO = re.compile(r"use of undeclared identifier '(?P<name>\w+)'; did you mean '(?:[\w:]*::)?(?P<fix>\w+)'\?")
# clang's notes on an argument error that point into the declaration it checked the call against
_AT_DECLARATION = re.compile(r"passing argument to parameter|declared here")
_STATEMENT_LINES = 10  # how far below the name clang's error about the call's arguments may be (one statement)
_DECLARATION_LINES = 40  # how far below a function's "declared here" line its parameters may be


def _follow_typo_corrections(ds: list[Diagnostic]) -> None:
    """An undeclared name clang corrects to another ("use of undeclared identifier 'cudaGraphAddMemFreeNode';
    did you mean 'hipGraphAddMemsetNode'?") is checked as that other function, so the call's arguments get an
    error of their own, often on the next line (an argument on a line of its own): that error follows from the
    undeclared name and gets its rule and ``cause``.  It is the next error in the same file, within the
    statement, and clang ties it to the correction: "no matching function for call to" it, or a note
    ("passing argument to parameter ... here", "... declared here") inside the declaration the correction's
    own "declared here" note points at."""
    typo: Diagnostic | None = None
    names = ("", "")
    decl: tuple[str, int] | None = None
    for d in ds:
        if d.severity != "error":
            continue
        m = _TYPO.search(d.message)
        if m:
            typo, names = d, (m.group("name"), m.group("fix"))
            decl = next(((n.file, n.line) for n in d.notes if n.message.endswith(f"'{names[1]}' declared here")), None)
            continue
        if typo is not None and not d.cause and d.file == typo.file and typo.line <= d.line <= typo.line + _STATEMENT_LINES:
            named = _NO_MATCH.search(d.message)
            tied = (named.group("name") == names[1]) if named else decl is not None and any(
                n.file == decl[0] and decl[1] <= n.line <= decl[1] + _DECLARATION_LINES and _AT_DECLARATION.search(n.message)
                for n in d.notes)
            if tied:
                d.rule, d.cause = d.rule or typo.rule, f"{typo.file}:{typo.line}"
                d.hint = (f"a consequence of the error at {d.cause}: clang took the undeclared `{names[0]}` for "
                          f"`{names[1]}` and checked the arguments against it; fix `{names[0]}` there")
        typo = None


_NOT_VIABLE = re.compile(r"candidate function (?:template )?not viable")


def _follow_invalid_declarations(ds: list[Diagnostic]) -> None:
    """"no matching function for call to 'f'" where every candidate clang lists ("candidate function not viable")
    is a declaration it already reported an error in (an unknown type name among its parameters, which clang
    reads as int from then on: NVIDIA's simpleCUFFT_2d_MGPU declares ``solvePoissonEquation(cudaLibXtDesc *,
    ...)``, a name the target's HIP lacks) follows from that error: it gets its rule and ``cause``.  The
    declaration's error is on the candidate's line or within its parameter list's lines below it."""
    earlier: dict[tuple[str, str], list[Diagnostic]] = {}
    for d in ds:
        if d.severity != "error":
            continue
        if not d.cause and _NO_MATCH.search(d.message):
            places = [(n.file, n.line) for n in d.notes if _NOT_VIABLE.search(n.message)]
            causes = [next((e for e in earlier.get((d.unit, file), ())
                            if line <= e.line <= line + _STATEMENT_LINES), None) for file, line in places]
            if places and all(causes):
                cause = causes[0]
                d.rule, d.cause = d.rule or cause.rule, f"{cause.file}:{cause.line}"
                d.hint = (f"a consequence of the error at {d.cause}: clang could not read a parameter type of the "
                          "function declared there, so no call matches it; fix that declaration")
                continue
        earlier.setdefault((d.unit, d.file), []).append(d)


# ---------------------------------------------------------------- mapping back

@dataclass(slots=True)
class SourceMap:
    root: str
    files: dict  # rel (to the converted tree's root) -> {"source": abs path, "inserted_lines": [[after, count], ...]}
    tree: str = ""  # the converted tree's root (absolute), where the manifest is: ``root`` or a folder above

    @classmethod
    def load(cls, root: str | os.PathLike) -> "SourceMap":
        """The map of the converted tree ``root`` is in (its manifest may be in a parent folder: a sub-project
        of a converted tree built from its own folder)."""
        from porter.build.tree_kind import port_record

        root = str(root)
        found = port_record(root)
        files = found[1].get("files", {}) if found else {}
        if not found or not isinstance(files, dict) or not files:
            return cls(root, {})
        return cls(root, files, str(found[0]))

    def map_line(self, rel: str, line: int) -> tuple[str, int] | None:
        """(CUDA source, line) of ``line`` of ``rel`` (relative to the folder built, or absolute)."""
        if self.tree:
            full = os.path.normpath(rel if os.path.isabs(rel) else os.path.join(os.path.abspath(self.root), rel))
            rel = os.path.relpath(full, self.tree).replace(os.sep, "/")
        entry = self.files.get(rel)
        if not isinstance(entry, dict) or not entry.get("source"):
            return None
        return entry["source"], map_line(line, entry.get("inserted_lines") or [])

    def apply(self, diags: list[Diagnostic]) -> None:
        """Set source_file/source_line; a diagnostic in a header outside the
        tree maps to the innermost in-tree line that includes it."""
        for d in diags:
            for x in [d, *d.notes]:
                if x.file and x.line:
                    hit = self.map_line(x.file, x.line)
                    if hit is None and os.path.isabs(x.file):
                        hit = next(filter(None, (self.map_line(f, n) for f, n in x.included_from)), None)
                    if hit:
                        x.source_file, x.source_line = hit


def map_line(out_line: int, inserted: list) -> int:
    """Output line -> source line, given ``[after_source_line, count]`` insertions.
    A line porter inserted maps to the source line it was inserted after
    (or line 1 when inserted at the top); a negative count: that many source lines
    after ``after_source_line`` are not in the output (a build file's migration)."""
    shift = 0
    for after, count in sorted((int(a), int(c)) for a, c in inserted):
        start = after + shift + 1  # first inserted output line (the first after the dropped ones)
        if out_line < start:
            break
        if out_line < start + count:
            return max(1, after)
        shift += count
    return out_line - shift
