"""Translation completeness against AMD's own conformance data: hipify-clang's lit tests.

    .venv/bin/python benchmarks/hipify_conformance.py --tests DIR [--worst N] [--json FILE] [-v]

DIR holds test files of ROCm/HIPIFY's ``tests/unit_tests`` (``.cu .cuh .cpp .c .h .hpp``, kept at
their paths; fetch them yourself: they are not part of porter).  Each file is CUDA source with
FileCheck directives, and its ``// RUN:`` line gives hipify-clang's options.

What is run: the files are copied into one folder per option set and converted with one
``porter convert FOLDER -o OUT --no-findings -q`` per set.  hipify options map to porter's:
``-roc``/``--roc`` -> ``--roc``, ``--hip-kernel-execution-syntax`` -> the same; the others
(``--amap``, ``-experimental``, ``-D...``, ...) have no porter counterpart and are listed.
A file with no RUN line (a header the tests include) is converted with no options.

What is compared (lit's own recipe in hipify's ``run_test``): porter's output with every ``//``
comment cut off (so a CHECK line can never match itself) is checked against the file's
directives as FileCheck reads them:

- ``CHECK:`` (and ``-NEXT``/``-SAME``/``-DAG``, all read as ``CHECK``): the pattern must occur,
  as a substring, after the previous match.  These patterns are the *expected lines*: each counts
  matched or missed; a missed one does not move the position, so one miss does not hide the rest.
- ``CHECK-NOT:``: the pattern must not occur between the matches around it (a violation makes the
  file not whole; it is counted apart, not as an expected line).
- whitespace: runs of spaces and tabs are one space and a pattern's ends are trimmed (FileCheck's
  default, without ``--strict-whitespace``); ``{{re}}`` is a regex, ``[[VAR:re]]`` is ``re`` and
  ``[[VAR]]`` is any text (variables are not bound).

A file is *whole* when every expected line matched and no CHECK-NOT was violated.  Printed:
expected lines matched / total, files whole / files, per-family figures (the family is the test's
folder, or for ``synthetic/libraries`` the file name less its CUDA-version suffix), the options
porter lacks, and the worst lines (a missed pattern with the closest output line after the
position it was sought from).
"""

from __future__ import annotations

import argparse
import difflib
import json
import re
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SUFFIXES = {".cu", ".cuh", ".cpp", ".c", ".h", ".hpp"}
DIRECTIVE = re.compile(r"//\s*CHECK(?P<kind>-NEXT|-SAME|-DAG|-NOT|-EMPTY)?:(?P<pattern>.*)$")
RUN = re.compile(r"//\s*RUN:(.*)$")
CONVERT_TIMEOUT_S = 900


@dataclass
class Check:
    line: int  # 1-based line of the directive
    negative: bool
    text: str  # the pattern as written (trimmed)
    regex: re.Pattern


@dataclass
class TestFile:
    rel: str
    options: tuple[str, ...]  # porter options
    unmapped: tuple[str, ...]  # hipify options porter has no counterpart for
    checks: list[Check]


@dataclass
class Result:
    rel: str
    family: str
    expected: int = 0
    matched: int = 0
    not_violated: int = 0
    misses: list[tuple[int, str, str]] = field(default_factory=list)  # (line, pattern, closest output)
    error: str | None = None

    @property
    def whole(self) -> bool:
        return self.error is None and self.matched == self.expected and not self.not_violated


def _squash(text: str) -> str:
    return re.sub(r"[ \t]+", " ", text)


def pattern_regex(pattern: str) -> re.Pattern:
    """A FileCheck pattern as a Python regex (whitespace runs squashed; ``{{re}}``, ``[[VAR:re]]``)."""
    out, pos = [], 0
    token = re.compile(r"\{\{(.*?)\}\}|\[\[(\w+)(?::(.*?))?\]\]")
    for m in token.finditer(pattern):
        out.append(re.escape(pattern[pos:m.start()]))
        if m.group(1) is not None:
            out.append(f"(?:{m.group(1)})")
        else:
            out.append(f"(?:{m.group(3)})" if m.group(3) is not None else ".*?")
        pos = m.end()
    out.append(re.escape(pattern[pos:]))
    return re.compile("".join(out).replace(r"\ ", " "))


def hipify_options(run: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(porter options, unmapped hipify options) of a RUN line's hipify arguments."""
    words = run.split()
    porter, unmapped = [], []
    try:
        start = words.index("%hipify_args") + 1
    except ValueError:
        return (), ()
    for w in words[start:]:
        if w.startswith("%"):
            break
        if w in ("-roc", "--roc"):
            porter.append("--roc")
        elif w in ("-hip-kernel-execution-syntax", "--hip-kernel-execution-syntax"):
            porter.append("--hip-kernel-execution-syntax")
        elif not w.isdigit():  # the count of extra arguments run_test takes
            unmapped.append(w)
    return tuple(sorted(set(porter))), tuple(unmapped)


def read_test(root: Path, path: Path) -> TestFile | None:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    checks, run = [], None
    for n, line in enumerate(text.splitlines(), 1):
        m = DIRECTIVE.search(line)
        if m:
            pat = _squash(m.group("pattern")).strip()
            if m.group("kind") == "-EMPTY":
                continue  # a blank line: not an expected line, and porter keeps line structure
            checks.append(Check(n, m.group("kind") == "-NOT", pat, pattern_regex(pat)))
            continue
        r = RUN.search(line)
        if r and run is None:
            run = r.group(1)
    if not checks:
        return None
    options, unmapped = hipify_options(run or "")
    return TestFile(path.relative_to(root).as_posix(), options, unmapped, checks)


def family_of(rel: str) -> str:
    parts = rel.split("/")
    if len(parts) >= 3 and parts[0] == "synthetic" and parts[1] == "libraries":
        return re.sub(r"(_(before_|after_)?\d{4,5})+$", "", Path(parts[-1]).stem)
    if parts[0] == "synthetic":
        return "synthetic/" + re.sub(r"(_(before_)?\d{4,5})+$", "", Path(parts[-1]).stem)
    return "/".join(parts[:-1]) or parts[0]


def strip_comments(text: str) -> list[str]:
    """Output lines as run_test hands them to FileCheck: each ``//`` comment cut, whitespace squashed."""
    return [_squash(re.sub(r"//.*", "// ", line)) for line in text.splitlines()]


def score(test: TestFile, output: str) -> Result:
    res = Result(test.rel, family_of(test.rel))
    lines = strip_comments(output)
    pos_line, pos_col = 0, 0
    pending_not: list[Check] = []

    def find(rx: re.Pattern, line: int, col: int):
        for i in range(line, len(lines)):
            m = rx.search(lines[i], col if i == line else 0)
            if m:
                return i, m.start(), m.end()
        return None

    def check_nots(upto_line: int, upto_col: int):
        for c in pending_not:
            for i in range(pos_line, min(upto_line + 1, len(lines))):
                lo = pos_col if i == pos_line else 0
                hi = upto_col if i == upto_line else len(lines[i])
                if c.regex.search(lines[i][lo:hi]):
                    res.not_violated += 1
                    res.misses.append((c.line, "CHECK-NOT: " + c.text, lines[i].strip()))
                    break
        pending_not.clear()

    for c in test.checks:
        if c.negative:
            pending_not.append(c)
            continue
        res.expected += 1
        hit = find(c.regex, pos_line, pos_col)
        if hit is None:
            window = [s.strip() for s in lines[pos_line:pos_line + 60] if s.strip()]
            close = difflib.get_close_matches(c.text, window, n=1, cutoff=0.0)
            res.misses.append((c.line, c.text, close[0] if close else ""))
            continue
        check_nots(hit[0], hit[1])
        res.matched += 1
        pos_line, pos_col = hit[0], hit[2]
    check_nots(len(lines) - 1, 10**9)
    return res


def convert(src_root: Path, tests: list[TestFile], porter: list[str]) -> tuple[dict[str, str], dict[str, str]]:
    """{rel: porter output} and {rel: error} -- one ``porter convert`` per option set, over a copy
    of the whole test tree (so includes resolve) in a temporary folder."""
    outputs, errors = {}, {}
    groups: dict[tuple[str, ...], list[TestFile]] = defaultdict(list)
    for t in tests:
        groups[t.options].append(t)
    with tempfile.TemporaryDirectory(prefix="hipify-conformance-") as tmp:
        for n, (options, members) in enumerate(sorted(groups.items())):
            src = Path(tmp) / f"src{n}"
            out = Path(tmp) / f"out{n}"
            shutil.copytree(src_root, src, ignore=shutil.ignore_patterns(".*"))
            cmd = [*porter, "convert", str(src), "-o", str(out), "--no-findings", "-q", *options]
            try:
                proc = subprocess.run(cmd, capture_output=True, text=True, timeout=CONVERT_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                for t in members:
                    errors[t.rel] = f"porter convert timed out after {CONVERT_TIMEOUT_S}s"
                continue
            for t in members:
                converted = out / t.rel
                if converted.is_file():
                    outputs[t.rel] = converted.read_text(encoding="utf-8", errors="replace")
                elif proc.returncode != 0:
                    errors[t.rel] = (proc.stderr.strip().splitlines() or [f"exit {proc.returncode}"])[-1]
                else:  # porter copied nothing for it: an unchanged file reads as the source
                    outputs[t.rel] = (src_root / t.rel).read_text(encoding="utf-8", errors="replace")
    return outputs, errors


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tests", required=True, type=Path, help="a copy of ROCm/HIPIFY's tests/unit_tests")
    ap.add_argument("--worst", type=int, default=25, help="missed lines to print (default 25)")
    ap.add_argument("--json", type=Path, help="also write the per-file results here")
    ap.add_argument("--porter", default=str(ROOT / ".venv" / "bin" / "porter"), help="the porter command")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every file's figures")
    args = ap.parse_args(argv)
    root = args.tests
    if not root.is_dir():
        print(f"hipify_conformance: --tests {root}: not a folder", file=sys.stderr)
        return 2
    tests = [t for p in sorted(root.rglob("*")) if p.suffix in SUFFIXES and p.is_file()
             for t in [read_test(root, p)] if t is not None]
    if not tests:
        print(f"hipify_conformance: no test file with CHECK lines under {root}", file=sys.stderr)
        return 1
    outputs, errors = convert(root, tests, [args.porter])
    results = []
    for t in tests:
        if t.rel in errors:
            r = Result(t.rel, family_of(t.rel), expected=sum(not c.negative for c in t.checks), error=errors[t.rel])
        else:
            r = score(t, outputs[t.rel])
        results.append(r)

    expected = sum(r.expected for r in results)
    matched = sum(r.matched for r in results)
    whole = sum(r.whole for r in results)
    print(f"expected lines matched: {matched} / {expected} = {100 * matched / max(expected, 1):.1f}%")
    print(f"files whole: {whole} / {len(results)}   (CHECK-NOT violated: {sum(r.not_violated for r in results)})")
    fam: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for r in results:
        f = fam[r.family]
        f[0] += r.matched
        f[1] += r.expected
        f[2] += r.whole
        f[3] += 1
    print("\nper family (missed lines, most first): family  matched/expected  whole/files")
    for name, (m, e, w, n) in sorted(fam.items(), key=lambda kv: (kv[1][0] - kv[1][1], kv[0])):
        print(f"  {name:45s} {m:5d}/{e:<5d} missed {e - m:4d}   {w}/{n}")
    unmapped = defaultdict(int)
    for t in tests:
        for o in t.unmapped:
            unmapped[o] += 1
    if unmapped:
        print("\nhipify options porter has no counterpart for (files): "
              + ", ".join(f"{o} ({n})" for o, n in sorted(unmapped.items())))
    for r in results:
        if r.error:
            print(f"error: {r.rel}: {r.error}")
    if args.verbose:
        print("\nper file:")
        for r in results:
            print(f"  {r.rel:70s} {r.matched}/{r.expected}{'  whole' if r.whole else ''}")
    misses = [(r.rel, *m) for r in results for m in r.misses]
    if args.worst and misses:
        print(f"\nworst lines ({min(args.worst, len(misses))} of {len(misses)}): file:line  expected  |  closest output")
        ranked = sorted(misses, key=lambda m: difflib.SequenceMatcher(None, m[2], m[3]).ratio())
        for rel, line, want, got in ranked[:args.worst]:
            print(f"  {rel}:{line}\n      want: {want}\n      got:  {got}")
    if args.json:
        doc = {"expected": expected, "matched": matched, "whole": whole, "files": len(results),
               "results": [{"file": r.rel, "family": r.family, "expected": r.expected, "matched": r.matched,
                            "not_violated": r.not_violated, "whole": r.whole, "error": r.error,
                            "misses": [{"line": l, "want": w, "closest": g} for l, w, g in r.misses]}
                           for r in results]}
        tmp = args.json.with_name(args.json.name + ".tmp")
        tmp.write_text(json.dumps(doc, indent=1), encoding="utf-8")
        tmp.replace(args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
