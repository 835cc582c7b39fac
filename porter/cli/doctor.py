"""``porter doctor``: environment report for porting, compiling and smoke-testing (engine: porter.doctor)."""

from __future__ import annotations

import json
import sys


def register(subparsers):
    p = subparsers.add_parser("doctor", help="report OS, Python, torch build, GPUs, ROCm/HIP, hipcc, RCCL settings",
                              description="One screen on what this machine has and what blocks compiling or the smoke test.")
    p.add_argument("--json", nargs="?", const="-", metavar="FILE",
                   help="write the report as JSON to FILE (or to stdout with no FILE)")
    p.set_defaults(run=run)


def run(args) -> int:
    from porter.doctor import collect, format_text

    info = collect()
    if args.json == "-":
        json.dump(info, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        print(format_text(info))
        if args.json:
            from porter.smoke.report import write_json

            try:
                write_json(info, args.json)
            except OSError as exc:
                print(f"porter doctor: error: cannot write {args.json}: {exc.strerror or exc}", file=sys.stderr)
                return 1
    return 0
