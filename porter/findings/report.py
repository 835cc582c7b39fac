"""Finding reports: JSON (porter's own shape), SARIF 2.1.0, and text."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from porter.findings.catalogue import catalogue
from porter.findings.model import SEVERITIES, Finding

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def summary(findings: list[Finding]) -> dict:
    return {
        "total": len(findings),
        "by_severity": {s: sum(1 for f in findings if f.severity == s) for s in SEVERITIES},
        "by_category": dict(sorted(Counter(f.category for f in findings).items())),
        "by_rule": dict(sorted(Counter(f.rule for f in findings).items())),
        "files": len({f.file for f in findings}),
        "fixable": sum(1 for f in findings if f.fix and f.fix.edits),
        "safe_fixes": sum(1 for f in findings if f.fix and f.fix.edits and f.fix.safe),
    }


def to_json(findings: Iterable[Finding], summary_extra: dict | None = None) -> dict:
    findings = list(findings)
    s = summary(findings)
    if summary_extra:
        s.update(summary_extra)
    return {"findings": [f.as_dict() for f in findings], "summary": s}


def to_sarif(findings: Iterable[Finding]) -> dict:
    from porter import __version__

    findings = list(findings)
    rules = catalogue()
    used = sorted({f.rule for f in findings} | set(rules))
    index = {rid: i for i, rid in enumerate(used)}
    results = []
    for f in findings:
        result = {
            "ruleId": f.rule,
            "ruleIndex": index[f.rule],
            "level": {"error": "error", "warning": "warning", "info": "note"}[f.severity],
            "message": {"text": f.message},
            "locations": [{"physicalLocation": {
                "artifactLocation": {"uri": f.file},
                "region": {"startLine": f.line, "startColumn": f.column,
                           "endLine": f.end_line, "endColumn": max(f.end_column, 1)},
            }}],
            "properties": {"category": f.category},
        }
        if f.fix and f.fix.edits:
            result["fixes"] = [{
                "description": {"text": f.fix.description},
                "artifactChanges": [{
                    "artifactLocation": {"uri": f.file},
                    "replacements": [{
                        "deletedRegion": {"byteOffset": e.start_byte, "byteLength": e.end_byte - e.start_byte},
                        "insertedContent": {"text": e.replacement},
                    } for e in f.fix.edits],
                }],
            }]
            result["properties"]["safeFix"] = f.fix.safe
        results.append(result)
    driver_rules = [rules[r].as_sarif() if r in rules else {"id": r} for r in used]
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "porter", "version": __version__, "rules": driver_rules}},
            "results": results,
            "columnKind": "unicodeCodePoints",
        }],
    }


def to_text(findings: Iterable[Finding]) -> str:
    findings = list(findings)
    lines = []
    for f in findings:
        lines.append(f"{f.file}:{f.line}:{f.column}: {f.severity}: {f.rule} [{f.category}] {f.message}")
        if f.fix:
            tag = "fix" if f.fix.safe else "suggested fix (review)"
            lines.append(f"    {tag}: {f.fix.description}")
    s = summary(findings)
    sev = ", ".join(f"{n} {k}{'s' if n != 1 else ''}" for k, n in s["by_severity"].items() if n)
    lines.append(f"{s['total']} finding{'s' if s['total'] != 1 else ''}" + (f" ({sev})" if sev else "")
                 + (f", {s['safe_fixes']} with a safe fix" if s["safe_fixes"] else ""))
    return "\n".join(lines) + "\n"
