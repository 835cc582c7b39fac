"""Reading a Makefile's text: its logical lines (backslash continuations joined), its variable assignments
and every value each variable is given, ``$(VAR)`` expansion over those values, rule heads and recipe lines.

Shared by the migration's rewrites (rewrite.py) and the reading of why make found no rule (make_rules.py).
Nothing here runs make: a variable's values are all the values the file gives it, in every branch of its
conditionals, so a question asked of them ("is every value an NVIDIA arch?") holds whichever branch make takes."""

from __future__ import annotations

import re

# NAME = value, NAME := value, NAME ?= value, NAME += value (override / export before it)
ASSIGN = re.compile(r"^[ \t]*(?:override[ \t]+|export[ \t]+)*([A-Za-z_][\w.-]*)[ \t]*(::?=|\?=|\+=|=)(.*)$")
# $(NAME) or ${NAME}
REF = re.compile(r"\$(?:\(([A-Za-z_][\w.-]*)\)|\{([A-Za-z_][\w.-]*)\})")
# a rule's head: its targets, then (after one colon) its prerequisites up to a ; or a comment
RULE_HEAD = re.compile(r"^([^:=#]+):(?!=)([^;#]*)")

_MAKE_IF = re.compile(r"^[ \t]*(?:ifeq|ifneq|ifdef|ifndef)\b")
_MAKE_ENDIF = re.compile(r"^[ \t]*endif\b")


def logical_lines(text: str):
    """(start, end) of each line with its backslash continuations."""
    pos, n = 0, len(text)
    while pos < n:
        end = text.find("\n", pos)
        while end > 0 and text[end - 1:end] == "\\" or end > 1 and text[end - 2:end] == "\\\r":
            end = text.find("\n", end + 1)
        end = n if end < 0 else end
        yield pos, end
        pos = end + 1


def assignments(text: str) -> dict[str, list[tuple[str, str, bool]]]:
    """(operator, value, whether it sits in a conditional) of each assignment of each Make variable."""
    out: dict[str, list[tuple[str, str, bool]]] = {}
    depth = 0
    for a, b in logical_lines(text):
        if text.startswith("\t", a):
            continue
        line = text[a:b].replace("\\\n", " ")
        if _MAKE_IF.match(line):
            depth += 1
        elif _MAKE_ENDIF.match(line):
            depth = max(depth - 1, 0)
        elif m := ASSIGN.match(line):
            out.setdefault(m.group(1), []).append((m.group(2), m.group(3), depth > 0))
    return out


def variables(text: str, given: dict | None = None) -> dict[str, list[str]]:
    """Every value each Make variable is given (all branches of a conditional, appends included); from the
    file's ``assignments`` where they are read already (``given``)."""
    given_all = assignments(text) if given is None else given
    return {name: [value for _, value, _ in values] for name, values in given_all.items()}


def expand(value: str, values: dict[str, list[str]], depth: int = 0) -> str:
    """``value`` with the variables it names replaced by all their ``values`` (cycles and depth cut)."""
    if depth > 12:
        return value
    return REF.sub(lambda m: " ".join(expand(v, values, depth + 1)
                                      for v in values.get(m.group(1) or m.group(2), ())), value)


def recipes(text: str):
    """(start, end, the prerequisites of its rule) of each recipe line of a Makefile."""
    prereqs = ""
    for a, b in logical_lines(text):
        line = text[a:b]
        if line.startswith("\t"):
            yield a, b, prereqs
        elif line.strip() and not line.lstrip().startswith("#") and not ASSIGN.match(line):
            rule = RULE_HEAD.match(line.replace("\\\n", " "))
            prereqs = rule.group(2) if rule else ""
