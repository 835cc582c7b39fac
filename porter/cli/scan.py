"""``porter scan PATH``: list every construct that needs a human, with rule ids and fixes."""

from __future__ import annotations

import json
import sys

from porter.cli.main import UsageError, loading_modules
from porter.cli.target import add_target_argument, project_options

_RANK = {"info": 0, "warning": 1, "error": 2}


def register(sub) -> None:
    p = sub.add_parser("scan", help="list constructs that need a human (findings with suggested fixes)",
                       description="Scan a CUDA (or HIP) file or project folder for constructs that cannot be "
                                   "converted automatically. `porter explain PORTnnn` describes a rule. "
                                   "A `// porter: ignore` comment (or `// porter: ignore PORT011`) silences its line.")
    p.add_argument("path", help="a source file, a build file or a project folder")
    p.add_argument("--format", choices=("text", "json", "sarif"), default="text", help="output format (default text)")
    p.add_argument("--fail-on", choices=("warning", "error"),
                   help="exit 1 when a finding at or above this severity exists (for CI)")
    p.add_argument("--rule", action="append", metavar="PORTnnn", help="only these rules (repeatable; 20 is PORT020)")
    p.add_argument("--category", action="append", metavar="NAME", help="only these categories (repeatable)")
    p.add_argument("-o", "--output", help="write the report to this file instead of stdout")
    p.add_argument("-j", "--jobs", type=int, default=0, help="worker processes for a folder (default: all cores)")
    add_target_argument(p)
    p.add_argument("--roc", action="store_true", help="judge the roc* library names (as porter convert --roc)")
    p.set_defaults(run=run)


def run(args) -> int:
    from pathlib import Path

    with loading_modules():
        from porter.findings import CATEGORIES, catalogue, report
        from porter.project.scan import scan_path
        from porter.project.atomic import atomic_write_text

    target = Path(args.path)
    if args.jobs < 0:
        raise UsageError("--jobs must be >= 0")
    if not target.exists():
        raise UsageError(f"{args.path}: no such file or folder")
    from porter.cli.explain import rule_id

    rules = catalogue()
    args.rule = [rule_id(r) for r in args.rule or ()]  # 20 or PORT020, as `porter explain` takes them
    for rid in args.rule:
        if rid not in rules:
            raise UsageError(f"unknown rule {rid} (see `porter explain --list`)")
    for cat in args.category or ():
        if cat not in CATEGORIES:
            raise UsageError(f"unknown category {cat}; one of: {', '.join(CATEGORIES)}")
    result = scan_path(target, jobs=args.jobs, options=project_options(target, args))
    findings = result.findings
    if args.rule:
        wanted = {r.upper() for r in args.rule}
        findings = [f for f in findings if f.rule in wanted]
    if args.category:
        findings = [f for f in findings if f.category in set(args.category)]

    if args.format == "json":
        text = json.dumps(report.to_json(findings, {"files_scanned": result.files, "lines_scanned": result.lines,
                                                    "errors": [{"file": f, "error": e} for f, e in result.errors]}),
                          indent=2) + "\n"
    elif args.format == "sarif":
        text = json.dumps(report.to_sarif(findings), indent=2) + "\n"
    else:
        text = report.to_text(findings)
    if args.output:
        try:
            atomic_write_text(args.output, text)
        except OSError as exc:  # nothing written (atomic): one line, exit 1 whatever the findings
            print(f"porter: cannot write {args.output}: {exc.strerror or exc}", file=sys.stderr)
            return 1
    else:
        sys.stdout.write(text)
    for file, note in result.notes:
        print(f"porter: note: {file}: {note}", file=sys.stderr)
    for file, error in result.errors:
        print(f"porter: {file}: {error}", file=sys.stderr)
    if args.fail_on and any(_RANK[f.severity] >= _RANK[args.fail_on] for f in findings):
        return 1
    return 1 if result.errors else 0
