"""Load the build-file rewrite rules (the TOML files beside this module)."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

DATA_DIR = Path(__file__).parent


@dataclass(frozen=True, slots=True)
class Rule:
    id: str
    regex: re.Pattern
    why: str
    replace: str | None = None
    transform: str | None = None
    inner: re.Pattern | None = None
    inner_replace: str = ""


@dataclass(frozen=True, slots=True)
class FindingRule:
    id: str
    regex: re.Pattern
    severity: str
    message: str


@dataclass(frozen=True, slots=True)
class RuleSet:
    kind: str  # "make" | "cmake"
    rules: tuple[Rule, ...]
    findings: tuple[FindingRule, ...]
    settings: dict


class RuleError(Exception):
    """A rule file is broken (a bug in porter's data, reported with the file and rule)."""


def _compile(pattern: str, where: str) -> re.Pattern:
    try:
        return re.compile(pattern, re.MULTILINE)
    except re.error as exc:
        raise RuleError(f"{where}: bad pattern: {exc}") from None


def _load_file(name: str) -> dict:
    path = DATA_DIR / name
    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise RuleError(f"{path}: {exc}") from None


def _rules(data: dict, fname: str) -> list[Rule]:
    out = []
    for r in data.get("rule", []):
        where = f"{fname} rule {r.get('id', '?')}"
        if ("replace" in r) == ("transform" in r) and "inner_pattern" not in r:
            raise RuleError(f"{where}: needs exactly one of replace, transform, inner_pattern")
        out.append(Rule(
            id=r["id"], regex=_compile(r["pattern"], where), why=r.get("why", ""),
            replace=r.get("replace"), transform=r.get("transform"),
            inner=_compile(r["inner_pattern"], where) if "inner_pattern" in r else None,
            inner_replace=r.get("inner_replace", ""),
        ))
    return out


@lru_cache(maxsize=None)
def load_rules(kind: str) -> RuleSet:
    data = _load_file(f"{kind}.toml")
    rules = _rules(data, f"{kind}.toml")
    for inc in data.get("include", []):
        rules += _rules(_load_file(inc), inc)
    findings = tuple(
        FindingRule(f["id"], _compile(f["pattern"], f"{kind}.toml finding {f['id']}"), f.get("severity", "warning"),
                    f["message"])
        for f in data.get("finding", []))
    settings = {k: v for k, v in data.items() if k not in ("rule", "finding", "include")}
    return RuleSet(kind, tuple(rules), findings, settings)


@lru_cache(maxsize=None)
def libraries() -> dict[str, dict]:
    return _load_file("libraries.toml")
