"""``porter convert``: translate a file or a project tree to HIP."""

from __future__ import annotations

import sys

from porter.cli.main import UsageError, loading_modules
from porter.cli.target import add_target_argument, check_arch, project_options


def register(sub) -> None:
    p = sub.add_parser("convert", help="convert CUDA sources to HIP", description=(
        "Convert a CUDA file or project folder to HIP. The directory layout and file names are kept; "
        "the source is never modified unless --inplace (which keeps a .prehip backup of each changed file)."))
    p.add_argument("path", help="a CUDA source file or a project folder")
    p.add_argument("-o", "--output", help="output file or folder (default: PATH-hip beside a folder; stdout for one file)")
    p.add_argument("--inplace", action="store_true", help="convert in place, keeping FILE.prehip backups")
    p.add_argument("--examine", action="store_true", help="statistics only, write nothing")
    p.add_argument("--print-stats", action="store_true", help="print per-file and total statistics")
    p.add_argument("--json", action="store_true", help="print the statistics as JSON")
    p.add_argument("--roc", action="store_true", help="map libraries to roc* (rocBLAS, rocSPARSE, rocRAND…) where possible")
    p.add_argument("--hip-kernel-execution-syntax", action="store_true",
                   help="rewrite kernel<<<...>>>(...) launches to hipLaunchKernelGGL(...)")
    add_target_argument(p)
    p.add_argument("--fix", action="store_true", help="apply every finding fix marked safe")
    p.add_argument("--annotate", action="store_true", help="write remaining findings as // PORTnnn: comments")
    p.add_argument("--no-findings", action="store_true", help="do not run the findings rules")
    p.add_argument("--arch", default="gfx942", help="GPU arch for migrated build files (default gfx942, MI300X)")
    p.add_argument("-j", "--jobs", type=int, default=0, help="worker processes (default: all cores)")
    p.add_argument("-q", "--quiet", action="store_true", help="only errors")
    p.set_defaults(run=run)


def _print_stats(report, out) -> None:
    from porter.mapping import user_note

    for f in report.files:
        s = f.stats
        line = f"{f.rel}: {f.status}" + (f" ({f.message})" if f.message else "")
        if f.kind == "source" and f.status != "error":
            line += (f", {s.get('converted', 0)} converted, {len(f.unsupported)} unsupported, "
                     f"{len(f.leftovers)} leftover, {s.get('lines_changed', 0)} lines changed, {len(f.findings)} findings")
        print(line, file=out)
        for u in f.unsupported:
            alt = f" (alternative: {u['alternative']})" if u.get("alternative") else ""
            why = f": {user_note(u['why'])}" if u.get("why") else ""
            print(f"  {f.rel}:{u['line']}:{u['column']}: unsupported {u['name']}{why}{alt}", file=out)
        for x in f.findings:
            print(f"  {f.rel}:{x['line']}:{x['column']}: {x['severity']} {x['rule']} {x['message'].splitlines()[0]}", file=out)
        names = sorted({x["name"] for x in f.leftovers})
        if names:
            print(f"  leftover CUDA-looking identifiers: {', '.join(names)}", file=out)
    t = report.totals()
    print(f"total: {sum(t['files'].values())} files ({', '.join(f'{v} {k}' for k, v in sorted(t['files'].items()))}), "
          f"{t['lines']} lines, {t['converted']} references converted, {t['unsupported']} unsupported, "
          f"{t['leftovers']} leftover, {t['lines_changed']} lines changed, {t['findings']} findings", file=out)
    if t["by_category"]:
        print("by category: " + ", ".join(f"{k} {v}" for k, v in t["by_category"].items()), file=out)


def _findings_part(totals: dict, options, out, src, args) -> str:
    """The summary's end: whether the port has findings, and the command that lists them."""
    if not options.findings:
        return " (findings not checked: --no-findings)"
    n = totals["findings"]
    if not n:
        return ", no findings (--print-stats for details)"
    sev = totals.get("findings_by_severity", {})
    parts = [f"{sev[k]} {k}{'s' if sev[k] != 1 and k != 'info' else ''}" for k in ("error", "warning", "info")
             if sev.get(k)]
    where = src if args.inplace else out
    return f"; the port has {n} finding{'s' if n != 1 else ''} ({', '.join(parts)}): porter scan {where}"


def run(args) -> int:
    from pathlib import Path

    with loading_modules():
        from porter.project.convert import ConvertError, ConvertOptions, convert_tree, default_output

    if args.inplace and args.output:
        raise UsageError("--inplace and --output are exclusive")
    if args.jobs < 0:
        raise UsageError("--jobs must be >= 0")
    check_arch(args.arch)
    src = Path(args.path)
    to_stdout = False
    out = Path(args.output) if args.output else None
    if out is None and not args.inplace and not args.examine:
        if src.is_dir():
            out = default_output(src)
        else:
            to_stdout = True
    options = ConvertOptions(
        translate=project_options(src, args, kernel_launch_syntax=args.hip_kernel_execution_syntax),
        fix=args.fix, annotate=args.annotate,
        # the rules run only when their result is used: fixes, annotations, statistics, or the summary line of a
        # folder's port (it says whether the port has findings); not for one file to stdout or with -q
        findings=not args.no_findings and (args.fix or args.annotate or args.print_stats or args.json or args.examine
                                           or (not to_stdout and not args.quiet)),
        # the translator's warnings are printed unless -q (one file to stdout: always), or listed by --json
        parse_warnings=to_stdout or args.json or not args.quiet,
        write=not (args.examine or to_stdout), inplace=args.inplace, arch=args.arch, jobs=args.jobs)

    if to_stdout:
        from porter.project.convert import convert_data

        try:
            data = src.read_bytes()
        except OSError as exc:
            print(f"porter: {src}: {exc.strerror or exc}", file=sys.stderr)
            return 1
        output, report = convert_data(data, src.name, "source", options, file=src)
        sys.stdout.buffer.write(output)
        sys.stdout.flush()  # a full disk or a closed pipe is seen here (porter.cli.main reports it), not at exit
        for w in report.warnings:
            print(f"porter: warning: {w}", file=sys.stderr)
        if report.status == "error":
            print(f"porter: {src}: {report.message}", file=sys.stderr)
            return 1
        return 0

    def progress(r):
        if r.status == "error":
            print(f"porter: {r.rel}: {r.message}", file=sys.stderr)
        elif not args.quiet:
            for w in r.warnings:
                print(f"porter: warning: {w}", file=sys.stderr)

    try:
        report = convert_tree(src, out, options, progress=progress)
    except ConvertError as exc:
        raise UsageError(str(exc)) from None
    for problem in report.problems:
        print(f"porter: {problem}", file=sys.stderr)
    if args.json:
        import json

        json.dump(report.as_dict(), sys.stdout, indent=1)
        print()
    elif args.print_stats or args.examine:
        _print_stats(report, sys.stdout)
    elif not args.quiet:
        t = report.totals()
        where = "in place" if args.inplace else f"into {out}"
        files = sum(1 for f in report.files if f.kind != "path")  # not the paths left out (links, unreadable folders)
        print(f"porter: converted {files} files {where}: {t['converted']} references converted, "
              f"{t['unsupported']} unsupported, {len(report.errors)} files failed{_findings_part(t, options, out, src, args)}")
    return report.exit_code
