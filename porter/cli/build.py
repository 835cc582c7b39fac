"""``porter build DIR``: compile a converted tree with hipcc and report
diagnostics on the reviewed source lines."""

from __future__ import annotations

import json
import os
import signal
import sys
import threading

from porter.cli.main import UsageError
from porter.cli.target import add_target_argument, check_arch


def register(sub) -> None:
    p = sub.add_parser("build", help="compile a converted tree with hipcc or clang++-19", description=(
        "Build a converted tree: through its Makefile or CMake project when it has one, otherwise (or with "
        "--per-file) each translation unit with `-c` in parallel, linking when there is a main(). "
        "The toolchain is the first that knows the arch: hipcc, else a plain clang++-NN (e.g. Debian's clang-19 "
        "for gfx942 against ROCm's HIP headers and device libraries). "
        "Rebuilds only what changed. Compiler messages are mapped back to the reviewed source lines."))
    p.add_argument("directory", help="the converted project folder (porter convert's output)")
    p.add_argument("--arch", help="AMD GPU target, e.g. gfx942 (MI300X), gfx90a (MI250X); "
                                  "default: the local GPU, else gfx942")
    add_target_argument(p)
    p.add_argument("--toolchain", choices=("auto", "hipcc", "clang"), default="auto",
                   help="hipcc, a plain clang++-NN, or auto: the first that knows the arch (default)")
    p.add_argument("-j", "--jobs", type=int, default=0, help="parallel compiles (default: all cores)")
    p.add_argument("--per-file", action="store_true", help="ignore Makefile/CMake and compile unit by unit")
    p.add_argument("--system", choices=("auto", "make", "cmake", "per-file"), default="auto",
                   help="which build to run (default: Makefile, else CMake, else per file)")
    p.add_argument("--project", metavar="PATH",
                   help="a folder of several projects (each with its own Makefile or CMakeLists.txt, e.g. a "
                        "samples tree with a shared Common/): build only the one holding PATH, a folder or a file "
                        "in it (default: each of them, on its own)")
    p.add_argument("--timeout", type=float, default=600.0, help="seconds one compile or build step may take (default 600)")
    p.add_argument("--flag", action="append", default=[], metavar="FLAG",
                   help="extra compiler flag (repeatable), e.g. --flag=-DUSE_X or --flag=-isystem/opt/inc: on "
                        "every per-file compile; in a Makefile build on each hipcc command that compiles a source "
                        "(through HIPCC_COMPILE_FLAGS_APPEND; with a plain clang, through porter's $(HIPCC) front); "
                        "in a CMake build on the project's HIP compiles (C++ when it enables no HIP). Not on links. "
                        "A relative path (-Idir, -isystemdir, -include f) that exists from here is made absolute. "
                        "Objects built with other flags are built again")
    p.add_argument("--no-link", action="store_true", help="per-file: compile only")
    p.add_argument("--json", action="store_true", help="print the build report as JSON (one line)")
    p.add_argument("-v", "--verbose", action="store_true", help="echo the compiler output as it comes")
    p.set_defaults(run=run)


def _print_text(report, out) -> None:
    from porter.build.report import code_object_notes

    for d in report.diagnostics:
        if d.unit == "write" and d.message == report.write_error:
            continue  # the last line, on stderr
        print(d.one_line(), file=out)
        for n in d.notes[:3]:
            print("    " + n.one_line(), file=out)
    for m in report.messages:
        print(f"note: {m}", file=out)
    for line in code_object_notes(report.outputs, report.code_objects, report.arch):
        print(f"note: {line}", file=out)
    counts: dict[str, int] = {}
    for u in report.units:
        counts[u.status] = counts.get(u.status, 0) + 1
    states = ", ".join(f"{v} {k}" for k, v in sorted(counts.items())) or "nothing built"
    for proj in report.projects:  # a folder of several: one line per project
        what = f"{proj.errors} error{'s' if proj.errors != 1 else ''}" if proj.errors else ""
        progs = f"programs: {', '.join(proj.outputs)}" if proj.outputs else ""
        extra = "; ".join(x for x in (what, progs) if x)
        print(f"project {proj.path}: {proj.verdict} ({proj.system})" + (f", {extra}" if extra else ""), file=out)
    if report.projects:
        built = sum(1 for proj in report.projects if proj.ok)
        states = f"{built} of {len(report.projects)} projects built, " + states
    verdict = "ok" if report.ok else ("cancelled" if report.cancelled else "FAILED")
    with_tc = f" with {report.toolchain}" if report.toolchain else ""
    print(f"build {verdict}: {report.system} for {report.arch}{with_tc}, {states}, {len(report.errors)} errors, "
          f"{report.duration_s:.1f} s" + (f"; programs: {', '.join(report.outputs)}" if report.outputs else ""), file=out)


def _target(args) -> tuple[str, str]:
    """(the ROCm release the port targets, where that comes from, "" for porter's default): --target-rocm,
    else what porter convert recorded in the tree (.porter/manifest.json), else the tree's porter.toml
    (copied from the CUDA project), else the default."""
    from porter.build.tree_kind import port_record, recorded_target
    from porter.cli.target import project_options, target_from

    given = target_from(args)
    if given:
        return given, "--target-rocm"
    recorded = recorded_target(args.directory)
    if recorded:
        where = port_record(args.directory)[0]
        up = os.path.relpath(where, os.path.abspath(args.directory))
        manifest = os.path.join(up, ".porter", "manifest.json") if up != "." else ".porter/manifest.json"
        return recorded, f"as porter convert recorded in {manifest}"
    options = project_options(args.directory, args)
    return options.target, "from porter.toml" if options.target_rocm else ""


def _cannot_write(args, exc: OSError) -> int:
    """One line (and, with --json, a report that says so), exit 1."""
    where = f" {exc.filename}" if getattr(exc, "filename", None) else ""
    line = f"cannot write porter's build state{where}: {exc.strerror or exc}"
    if args.json:
        print(json.dumps({"ok": False, "verdict": "FAILED", "directory": args.directory, "error": line,
                          "diagnostics": [{"file": "", "line": 0, "column": 0, "severity": "error", "message": line}]}))
    print(f"porter: error: {line}", file=sys.stderr)
    return 1


def _write_report(text: str) -> str:
    """Print the --json report (one line) to stdout; "" when it went through, else why not.  A report cut short
    by a full disk is taken back when stdout is a file (so a reader finds no half line), as far as the file allows."""
    out = sys.stdout
    try:
        start = os.lseek(out.fileno(), 0, os.SEEK_CUR) if os.path.isfile(f"/proc/self/fd/{out.fileno()}") else None
    except (OSError, ValueError):
        start = None
    try:
        out.write(text + "\n")
        out.flush()
        return ""
    except OSError as exc:
        if start is not None:
            try:
                os.ftruncate(out.fileno(), start)
            except OSError:
                pass
        try:  # what is still buffered goes nowhere (the interpreter's flush at exit would fail again)
            fd = os.open(os.devnull, os.O_WRONLY)
            os.dup2(fd, out.fileno())
            os.close(fd)
        except (OSError, ValueError):
            pass
        return exc.strerror or str(exc)


def run(args) -> int:
    from porter.build import BuildError, BuildOptions, run_build
    from porter.build.user_flags import anchor_paths

    if args.jobs < 0:
        raise UsageError("--jobs must be 0 (all cores) or more")
    if args.timeout <= 0:
        raise UsageError("--timeout must be more than 0 seconds")
    check_arch(args.arch)
    if any(not f.strip() for f in args.flag):
        raise UsageError("--flag needs a compiler flag (e.g. --flag=-DUSE_X), not an empty value")
    target, target_from = _target(args)
    options = BuildOptions(arch=args.arch, jobs=args.jobs, per_file=args.per_file, system=args.system,
                           timeout=args.timeout, extra_flags=anchor_paths(args.flag), link=not args.no_link,
                           toolchain=args.toolchain, target_rocm=target, target_from=target_from,
                           project=args.project)
    cancel = threading.Event()
    on_line = (lambda line: print(line, file=sys.stderr, flush=True)) if args.verbose else None
    # SIGTERM (how a UI or a job runner cancels) behaves like Ctrl-C: the
    # compilers run in their own process groups and are stopped by us
    previous = None
    if threading.current_thread() is threading.main_thread():
        def _term(signum, frame):
            raise KeyboardInterrupt
        previous = signal.signal(signal.SIGTERM, _term)
    try:
        report = run_build(args.directory, options, on_line=on_line, cancel=cancel)
    except BuildError as exc:
        raise UsageError(str(exc)) from None
    except OSError as exc:  # porter's build state cannot be written (a read-only folder, a full disk)
        return _cannot_write(args, exc)
    except KeyboardInterrupt:
        cancel.set()
        print("porter: build interrupted; compilers stopped", file=sys.stderr)
        return 130
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
    if report.system == "none" and not args.json:  # could not start: no compiler, unknown arch
        for d in report.errors:
            print(f"porter: error: {d.message}", file=sys.stderr)
        return 1
    lost = ""
    if args.json:
        lost = _write_report(json.dumps(report.as_dict()))  # one line: UIs read it line by line
    else:
        _print_text(report, sys.stdout)
    if report.write_error:  # the last line says what could not be written, and where the disk is full
        also = f"; the --json report could not be written to stdout either ({lost})" if lost else ""
        print(f"porter: error: {report.write_error}{also}", file=sys.stderr)
        return 1
    if lost:
        print(f"porter: error: the --json report could not be written to stdout: {lost}", file=sys.stderr)
        return 1
    return report.exit_code
