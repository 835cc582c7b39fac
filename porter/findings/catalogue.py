"""The rule catalogue: rule metadata and pages, loaded from ``catalogue.toml``.

A rule is data: an id, a category, a severity, a message template, the query
file (``grammars/rules/<query>.scm``) whose ``@PORTnnn`` capture marks what it
reports, optional regular expressions (build-file rules), and its page.  A
short Python predicate (``porter.findings.predicates``) refines a match only
where a query cannot express the check.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

from porter.findings.model import CATEGORIES, SEVERITIES
from porter.mapping.cache import load_toml

CATALOGUE_FILE = Path(__file__).with_name("catalogue.toml")
DOC_SITES_FILE = Path(__file__).with_name("doc_sites.toml")
_ID = re.compile(r"^PORT\d{3}$")
_KEYS = {"id", "category", "severity", "title", "message", "query", "scope", "patterns", "fix", "docs", "page",
         "summary", "triggers", "device_only", "requires", "reported_by"}


@dataclass(frozen=True)
class Rule:
    id: str
    category: str
    severity: str
    title: str
    message: str  # str.format template; fields come from the predicate
    summary: str = ""  # one line: what it detects
    query: str | None = None  # grammars/rules/<query>.scm
    scope: str = "source"  # source | build | engine (reported by the engine itself)
    patterns: tuple[dict, ...] = ()  # build rules: {regex, fix, replace, safe}
    fix: str | None = None  # description of the suggested fix
    docs: tuple[str, ...] = ()  # HIP/ROCm documentation topics, by name
    page: str = ""  # markdown body: why it matters on gfx942, before/after
    # byte strings: the rule's query runs only on a source that contains one of them (speed);
    # empty = always.  A trigger must occur in every construct the rule can report.
    triggers: tuple[bytes, ...] = ()
    # the rule only reports inside __global__/__device__ functions: host functions are not queried
    device_only: bool = False
    # file-level conditions its predicate checks before it can report anything: each entry is a
    # set of byte strings of which one must occur somewhere in the file (speed: a file that misses
    # one is not queried for this rule, and not parsed if no other rule needs the tree).  A
    # condition must hold for every finding the rule reports (tests/findings: trigger words).
    requires: tuple[tuple[bytes, ...], ...] = ()
    # a rule whose places another rule's predicate finds while it looks (PORT019: PORT013's shared
    # arrays): it has no query or check of its own, and runs where that rule runs
    reported_by: str = ""

    def render_message(self, params: dict | None) -> str:
        if not params:
            return self.message
        try:
            return self.message.format(**params)
        except (KeyError, IndexError, ValueError):
            return self.message

    def page_text(self) -> str:
        """The page ``porter explain`` prints."""
        lines = [f"{self.id}: {self.title}", "",
                 f"Category: {self.category}    Severity: {self.severity}", ""]
        if self.summary:
            lines += ["What it detects", "", self.summary.strip(), ""]
        if self.page:
            lines += [self.page.strip(), ""]
        if self.fix:
            lines += ["Suggested fix", "", self.fix.strip(), ""]
        if self.docs:
            lines += ["HIP/ROCm documentation", ""]
            lines += [f"- {title}" + (f"\n  {url}" if url else "") for title, url in self.doc_links()] + [""]
        return "\n".join(lines).rstrip() + "\n"

    def doc_links(self) -> list[tuple[str, str]]:
        """Each cited document with the link to it ("" where ``doc_sites.toml`` has none)."""
        sites = doc_sites()
        return [(d, sites.get(d.split(":", 1)[0].strip(), "")) for d in self.docs]

    def as_sarif(self) -> dict:
        level = {"error": "error", "warning": "warning", "info": "note"}[self.severity]
        link = next((url for _, url in self.doc_links() if url), None)
        return {
            "id": self.id,
            **({"helpUri": link} if link else {}),
            "name": re.sub(r"[^A-Za-z0-9]+", " ", self.title).title().replace(" ", ""),
            "shortDescription": {"text": self.title},
            "fullDescription": {"text": (self.summary or self.title).strip()},
            "help": {"text": self.page_text(), "markdown": self.page_text()},
            "defaultConfiguration": {"level": level},
            "properties": {"category": self.category, "tags": [self.category]},
        }


def _rule(raw: dict, where: str) -> Rule:
    unknown = set(raw) - _KEYS
    rid = raw.get("id", "?")
    if unknown:
        raise ValueError(f"{where}: rule {rid}: unknown key(s) {sorted(unknown)}")
    if not _ID.match(rid):
        raise ValueError(f"{where}: rule id {rid!r} is not PORTnnn")
    if raw.get("category") not in CATEGORIES:
        raise ValueError(f"{where}: rule {rid}: category {raw.get('category')!r} not in {CATEGORIES}")
    if raw.get("severity") not in SEVERITIES:
        raise ValueError(f"{where}: rule {rid}: severity {raw.get('severity')!r} not in {SEVERITIES}")
    for key in ("title", "message"):
        if not raw.get(key):
            raise ValueError(f"{where}: rule {rid}: missing {key}")
    raw = dict(raw)
    raw["patterns"] = tuple(raw.get("patterns", ()))
    raw["docs"] = tuple(raw.get("docs", ()))
    raw["triggers"] = tuple(t.encode("utf-8") for t in raw.get("triggers", ()))
    requires = raw.get("requires", [])
    if not isinstance(requires, list) or not all(isinstance(r, list) and r and all(isinstance(w, str) and w for w in r)
                                                 for r in requires):
        raise ValueError(f"{where}: rule {rid}: requires must be a list of non-empty lists of words")
    raw["requires"] = tuple(tuple(w.encode("utf-8") for w in r) for r in requires)
    return Rule(**raw)


@functools.cache
def doc_sites(path: Path = DOC_SITES_FILE) -> dict[str, str]:
    """Document name -> the link to its entry page (``doc_sites.toml``)."""
    sites = load_toml(path).get("sites", {})
    bad = [name for name, url in sites.items() if not (isinstance(url, str) and url.startswith("https://"))]
    if bad:
        raise ValueError(f"{path.name}: not an https link: {', '.join(bad)}")
    return sites


@functools.cache
def catalogue(path: Path = CATALOGUE_FILE) -> dict[str, Rule]:
    """Every rule, by id, in id order."""
    doc = load_toml(path)
    rules: dict[str, Rule] = {}
    for raw in doc.get("rule", []):
        rule = _rule(raw, path.name)
        if rule.id in rules:
            raise ValueError(f"{path.name}: duplicate rule id {rule.id}")
        rules[rule.id] = rule
    return dict(sorted(rules.items()))
