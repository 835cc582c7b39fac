"""``porter explain PORTnnn``: print a rule's page."""

from __future__ import annotations

import sys

from porter.cli.main import UsageError


def register(sub) -> None:
    p = sub.add_parser("explain", help="print a findings rule's page (what, why on MI300X, before/after, docs)",
                       description="Print the page of a findings rule, or list every rule.")
    p.add_argument("rule", nargs="?", help="a rule id, e.g. PORT020 (or 20)")
    p.add_argument("--list", action="store_true", help="list every rule: id, severity, category, title")
    p.set_defaults(run=run)


def rule_id(text: str) -> str:
    """A rule id as written on the command line, as the catalogue names it: 20, port20, PORT020 -> PORT020."""
    rid = text.strip().upper()
    digits = rid.removeprefix("PORT")
    if digits.isdigit():
        rid = f"PORT{int(digits):03d}"
    return rid


def run(args) -> int:
    from porter.findings import catalogue

    rules = catalogue()
    if args.list or not args.rule:
        if not args.list:
            raise UsageError("give a rule id (e.g. porter explain PORT020) or --list")
        for r in rules.values():
            print(f"{r.id}  {r.severity:<7}  {r.category:<19}  {r.title}")
        return 0
    rid = rule_id(args.rule)
    rule = rules.get(rid)
    if rule is None:
        raise UsageError(f"unknown rule {args.rule} (porter explain --list shows them)")
    sys.stdout.write(rule.page_text())
    return 0
