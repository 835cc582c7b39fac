"""Build-file rules (Makefile, CMakeLists.txt, *.cmake, *.mk, setup.py): nvcc flags, as data.

Each ``scope = "build"`` rule in the catalogue lists ``patterns``: a regular
expression, and optionally ``replace`` (a ``re`` expansion template) and ``safe``.
Matches inside ``#`` comments are skipped.
"""

from __future__ import annotations

import bisect
import functools
import re

from porter.findings.catalogue import catalogue
from porter.findings.model import Finding, Fix, FixEdit


@functools.cache
def _compiled() -> tuple:
    out = []
    for rule in catalogue().values():
        if rule.scope != "build":
            continue
        for pat in rule.patterns:
            out.append((rule, re.compile(pat["regex"], re.M), pat.get("replace"), pat.get("safe", True),
                        pat.get("advice", "")))
    return tuple(out)


def _comment_spans(text: str) -> list[tuple[int, int]]:
    spans = []
    for m in re.finditer(r"(?m)^[^\n]*$", text):
        line = m.group()
        quote = None
        for i, ch in enumerate(line):
            if quote:
                if ch == quote:
                    quote = None
            elif ch in "\"'":
                quote = ch
            elif ch == "#" and (i == 0 or line[i - 1] != "\\"):
                spans.append((m.start() + i, m.end()))
                break
    return spans


def scan_build_file(text: str, path: str = "<build>") -> list[Finding]:
    """Findings for one build file; fix offsets are byte offsets into ``text`` encoded as UTF-8."""
    data = text.encode("utf-8")
    comments = _comment_spans(text)
    starts = [s for s, _ in comments]
    line_starts = [0] + [m.end() for m in re.finditer(r"\n", text)]

    def in_comment(pos: int) -> bool:
        i = bisect.bisect_right(starts, pos) - 1
        return i >= 0 and pos < comments[i][1]

    def line_col(pos: int) -> tuple[int, int]:
        i = bisect.bisect_right(line_starts, pos) - 1
        return i + 1, pos - line_starts[i] + 1

    def byte(pos: int) -> int:
        return len(text[:pos].encode("utf-8")) if not text.isascii() else pos

    out: list[Finding] = []
    seen: set[tuple[str, int]] = set()
    for rule, regex, replace, safe, advice in _compiled():
        for m in regex.finditer(text):
            if in_comment(m.start()) or (rule.id, m.start()) in seen:
                continue
            seen.add((rule.id, m.start()))
            line, col = line_col(m.start())
            end_line, end_col = line_col(m.end())
            fix = None
            params = {"flag": m.group().strip(), "advice": advice}
            if replace is not None:
                replacement = m.expand(replace)
                if rule.id == "PORT143":  # -Xcompiler a,b -> a b
                    replacement = replacement.replace(",", " ")
                params["replacement"] = replacement or "nothing"
                fix = Fix(safe, f"`{m.group().strip()}` -> `{replacement}`" if replacement else f"remove `{m.group().strip()}`",
                          (FixEdit(byte(m.start()), byte(m.end()), replacement),))
            out.append(Finding(rule.id, rule.category, rule.severity, path, line, col, end_line, end_col,
                               rule.render_message(params), fix, byte(m.start()), byte(m.end()), params))
    out.sort(key=lambda f: (f.start_byte, f.rule))
    del data
    return out
