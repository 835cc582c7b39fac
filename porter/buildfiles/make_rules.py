"""Why make found no rule for a target: the pattern rules of a Makefile that would make it and the
prerequisites of theirs that do not exist.

GNU make applies a pattern rule (``%.o: %.cu support/timer.h``) only when every prerequisite exists or can be
made; when one is missing it says "No rule to make target 'main.o'" and nothing about which file.  HeCBench's
Makefiles list their headers, and sibling projects' (``../qkv-cuda/common.h``), as prerequisites of the one
pattern rule, so a port written away from those files stops there.  This reads the rules (variables of the
file expanded, every value each one is given) and names the files that are not there."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from porter.buildfiles import make_text


@dataclass(frozen=True)
class UnmadeRule:
    line: int  # 1-based line of the rule in the Makefile
    rule: str  # the rule's head as written
    missing: tuple[str, ...]  # its prerequisites (for this target) that do not exist


def _matches(pattern: str, target: str) -> str | None:
    """The stem of ``target`` for a make pattern with one ``%``, or None."""
    head, _, tail = pattern.partition("%")
    if len(target) >= len(head) + len(tail) and target.startswith(head) and target.endswith(tail):
        return target[len(head):len(target) - len(tail)]
    return None


def unmade(makefile: Path, target: str) -> list[UnmadeRule]:
    """The pattern rules of ``makefile`` whose target pattern matches ``target`` and that list a
    prerequisite that does not exist (relative to the Makefile's folder, where make runs) and that no rule
    of the file makes."""
    try:
        text = makefile.read_text(errors="replace")
    except OSError:
        return []
    variables = make_text.variables(text)
    rules = []
    for a, b in make_text.logical_lines(text):
        line = text[a:b].replace("\\\n", " ")
        if line.startswith("\t") or make_text.ASSIGN.match(line):
            continue
        m = make_text.RULE_HEAD.match(line)
        if m:
            rules.append((a, line, m))
    made = {t for _a, _line, m in rules for t in make_text.expand(m.group(1), variables).split() if "%" not in t}
    out = []
    for a, line, m in rules:
        targets = make_text.expand(m.group(1), variables).split()
        stems = [s for s in (_matches(t, target) for t in targets if t.count("%") == 1) if s is not None]
        if not stems:
            continue
        missing = []
        for word in make_text.expand(m.group(2), variables).split():
            name = word.replace("%", stems[0])
            if "$" in name or "(" in name or name in missing:
                continue  # (an automatic variable or a function make expands itself)
            if name not in made and not (makefile.parent / name).exists():
                missing.append(name)
        if missing:
            out.append(UnmadeRule(text.count("\n", 0, a) + 1, " ".join(line.split()), tuple(missing)))
    return out
