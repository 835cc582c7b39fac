"""Whole projects through their own build files: what a user with a HeCBench-shaped tree sees.

    .venv/bin/python benchmarks/project_builds.py SRC [NAME ...] [--out DIR] [-I DIR ...] [--target-rocm X.Y]
        [--json FILE]
    .venv/bin/python benchmarks/project_builds.py --tree SRC [SUBPATH ...] [same options]

SRC holds CUDA projects, one folder each (HeCBench's ``src/NAME-cuda``: a Makefile and the sources; fetch them
yourself, they are not part of porter); NAME picks some (default: every folder, ``-cuda`` dropped).  Each is
run as a user would, as whole ``porter`` processes:

1. ``porter convert --target-rocm X.Y --fix SRC/NAME-cuda -o OUT/NAME-hip`` (the migrated Makefile included);
2. ``porter scan --target-rocm X.Y --format json SRC/NAME-cuda``: the findings a reviewer sees;
3. ``porter build --json OUT/NAME-hip`` for gfx942 (the default toolchain: hipcc, else clang-19) and
   ``--arch gfx90a --toolchain hipcc``, each with ``--flag=-isystemDIR`` per ``-I`` (library headers the
   machine lacks, e.g. the ones scripts/fetch_library_headers.py extracts).

With ``--tree``, SRC is one folder of several projects sharing files (NVIDIA's cuda-samples: ``Common/`` and
``Samples/CAT/NAME`` each with its own CMakeLists.txt): the tree is converted and scanned once, and each project
porter build finds in it (or each SUBPATH) is built on its own with ``porter build --project``.

An error of a build is *predicted* when it maps back (porter's manifest) to a CUDA line a finding covers (a
finding over at most predicted.SPAN_LINES lines covers each of them), or one of its "in instantiation of ...
requested here" notes does (an error inside a template, a header's or HIP's, that a flagged line instantiates;
clang prints that backtrace with the first error of an instantiation only, so the errors after it in the same
unit and file are read as under it), or the macro body its "expanded from macro" note points at does (the code
clang rejects is written there), or it follows from a predicted error (porter build's ``cause``: a call
clang rejects because the template it names failed to compile at that error), or it names a missing library; *unflagged*
otherwise (an error with no line, such as a failed link, is unflagged unless it names a library).  An unflagged
error is counted apart as *absent* when it names a file the CUDA project itself lacks (no file of that name
anywhere under its folder, or the tree): make's "No rule to make target" for a prerequisite (or the ones porter
build's hint names for a pattern rule's object), or "file not found" for an ``#include "..."`` of the CUDA line:
a corpus fetched in part, or a Makefile naming a sibling project's file; the CUDA original does not build
either.  Printed: one line per project (built or not, per arch, errors, unflagged, absent), the unflagged errors
(at their CUDA line), and the totals.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import predicted  # noqa: E402

from porter.build.subprojects import find_subprojects  # noqa: E402

PORTER = [sys.executable, "-m", "porter"]
ARCHES = (("gfx942", ()), ("gfx90a", ("--toolchain", "hipcc")))


def _porter(args: list[str], timeout: float) -> subprocess.CompletedProcess:
    return subprocess.run([*PORTER, *args], capture_output=True, text=True, timeout=timeout)


def _covered(cuda: Path, target: str) -> set[tuple[str, int]]:
    """(resolved CUDA file, line) of every line a finding of the scan covers."""
    r = _porter(["scan", "--format", "json", "--target-rocm", target, str(cuda)], 600)
    try:
        findings = json.loads(r.stdout)["findings"]
    except (ValueError, KeyError):
        raise SystemExit(f"porter scan of {cuda} printed no report: {r.stderr.strip()[-300:]}")
    lines = set()
    for f in findings:
        lines.update((str((cuda / f["file"]).resolve()), n) for n in predicted.lines_of(f["line"], f["end_line"]))
    return lines


def _instantiation_notes(d: dict) -> list[dict]:
    return [n for n in d.get("notes") or () if "requested here" in n.get("message", "")
            or n.get("message", "").startswith("in instantiation of")]


def _with_contexts(errors: list[dict]) -> list[dict]:
    """The errors, each with the instantiation notes it is under: clang prints a template's "in instantiation
    of ... requested here" backtrace once, with the first error inside that instantiation; the errors after it
    in the same unit and file (nlll's reference.h:21 and :26 after :20) are in the same one."""
    out, last = [], None
    for d in errors:
        notes = _instantiation_notes(d)
        if notes:
            last = (d.get("unit"), d.get("source_file") or d.get("file"), notes)
        elif last is not None and last[:2] == (d.get("unit"), d.get("source_file") or d.get("file")) and d.get("line"):
            d = dict(d, notes=[*(d.get("notes") or ()), *last[2]])
        else:
            last = None
        out.append(d)
    return out


def _macro_notes(d: dict) -> list[dict]:
    return [n for n in d.get("notes") or () if n.get("message", "").startswith("expanded from macro")]


def _predicted(d: dict, covered: set[tuple[str, int]]) -> bool:
    """A finding covers the error's CUDA line, or the line that instantiates the template (or HIP header
    template) it is in: clang's "in instantiation of ... requested here" notes, mapped back like the error;
    or the macro body it was expanded from (clang's "expanded from macro" note: the code it rejects is there)."""
    places = [d, *_instantiation_notes(d), *_macro_notes(d)]
    return any((str(Path(x.get("source_file") or "?").resolve()), x.get("source_line")) in covered for x in places)


def _convert(cuda: Path, hip: Path, target: str) -> str | None:
    """The port of ``cuda`` written afresh to ``hip``; what went wrong, or None."""
    shutil.rmtree(hip, ignore_errors=True)
    r = _porter(["convert", "-q", "--target-rocm", target, "--fix", str(cuda), "-o", str(hip)], 600)
    return r.stderr.strip()[-300:] if r.returncode else None


def measure(cuda: Path, out: Path, target: str, includes: list[str]) -> dict:
    hip = out / (cuda.name.removesuffix("-cuda") + "-hip")
    failed = _convert(cuda, hip, target)
    if failed:
        return {"convert": failed}
    return _builds(hip, _covered(cuda, target), includes, cuda=cuda)


_NO_RULE = re.compile(r"No rule to make target '([^']+)'")
_NOT_THERE = re.compile(r"and (.+?) (?:is|are) not there")  # (porter build's hint on a pattern rule's object)
_NOT_FOUND = re.compile(r"^'?([^':]+?)'?(?: file not found|: No such file or directory)")
_QUOTED_INCLUDE = re.compile(r'^\s*#\s*include\s*"')


def _absent_names(d: dict) -> list[str]:
    """The files an error says are missing, as a CUDA project names them: make's targets it has no rule for
    (for an object, the prerequisites porter build's hint names), or the header of a quoted #include on the
    error's CUDA line; [] for anything else (a system header, a CUDA header left unconverted)."""
    message = d.get("message", "")
    targets = _NO_RULE.findall(message)
    if targets:
        named = [n.strip() for m in _NOT_THERE.findall(d.get("hint") or "") for n in m.split(",")]
        files = [t for t in targets if not t.endswith(".o")]
        # an object make has no rule for is absent only as far as the hint names what its rule lacks
        return [] if len(files) < len(targets) and not named else named + files
    m = _NOT_FOUND.match(message)
    source, line = d.get("source_file"), d.get("source_line")
    if not m or not source or not line:
        return []
    try:
        text = Path(source).read_text(errors="replace").splitlines()[line - 1]
    except (OSError, IndexError):
        return []
    return [m.group(1)] if _QUOTED_INCLUDE.match(text) else []


def _absent(d: dict, cuda: Path | None, present: dict) -> bool:
    """Every file ``d`` says is missing is missing from the CUDA project too (no file of its name under it)."""
    names = _absent_names(d) if cuda is not None else []
    if not names:
        return False
    if cuda not in present:
        present[cuda] = {p.name for p in cuda.rglob("*") if p.is_file()}
    return all(Path(n).name not in present[cuda] for n in names)


def _builds(hip: Path, covered: set[tuple[str, int]], includes: list[str], project: str | None = None,
            cuda: Path | None = None) -> dict:
    """Each arch's build of ``hip`` (only its sub-project ``project``, a path relative to it, where given);
    ``cuda``: the CUDA folder it was converted from (its files tell an absent file from a lost one)."""
    present: dict = {}
    result = {}
    for arch, extra in ARCHES:
        flags = [f"--flag=-isystem{d}" for d in includes]
        only = ["--project", str(hip / project)] if project else []
        b = _porter(["build", "--arch", arch, *extra, *flags, *only, "--json", str(hip)], 1800)
        lines = b.stdout.strip().splitlines()
        try:
            report = json.loads(lines[-1])
        except (ValueError, IndexError):
            result[arch] = {"ok": False, "errors": 1, "unflagged": [f"no build report: {b.stderr.strip()[-200:]}"]}
            continue
        errors = [d for d in report.get("diagnostics", []) if d.get("severity") in ("error", "fatal error")
                  and not d.get("message", "").startswith("too many errors emitted")]  # (clang giving up: no error)
        errors = _with_contexts(errors)
        at = {f"{d.get('file')}:{d.get('line')}": d for d in errors}
        unpredicted = [d for d in errors if not d.get("library") and not _predicted(d, covered)
                       and not (d.get("cause") in at and _predicted(at[d["cause"]], covered))]
        absent, unflagged = [], []
        for d in unpredicted:
            (absent if _absent(d, cuda, present) else unflagged).append(
                f"{Path(d.get('source_file') or d.get('file') or '?').name}:{d.get('source_line') or d.get('line')}: "
                f"{d.get('message', '')[:160]}")
        result[arch] = {"ok": bool(report.get("ok")), "errors": len(errors), "unflagged": unflagged, "absent": absent,
                        "code_objects": sorted({t for ts in (report.get("code_objects") or {}).values() for t in ts})}
    return result


def measure_tree(src: Path, out: Path, target: str, includes: list[str], subpaths: list[str]):
    """(sub-project, its result) of each project of the tree, as each is built."""
    hip = out / (src.name + "-hip")
    failed = _convert(src, hip, target)
    if failed:
        yield src.name, {"convert": failed}
        return
    covered = _covered(src, target)
    for p in subpaths or [sub.rel for sub in find_subprojects(hip)]:  # (what porter build builds on its own)
        yield p, _builds(hip, covered, includes, p, cuda=src)


def _report(name: str, res: dict) -> None:
    if "convert" in res:
        print(f"{name:28s} convert failed: {res['convert']}", flush=True)
        return
    print(f"{name:28s} " + "  ".join(
        f"{a}: {'built' if r['ok'] else 'FAILED'} ({r['errors']} errors, {len(r['unflagged'])} unflagged"
        + (f", {len(r.get('absent', ()))} absent" if r.get("absent") else "") + ")"
        for a, r in res.items()), flush=True)
    for a, r in res.items():
        for u in r["unflagged"][:6]:
            print(f"    {a} unflagged {u}", flush=True)
        for u in r.get("absent", [])[:2]:
            print(f"    {a} absent {u}", flush=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("src", type=Path)
    ap.add_argument("names", nargs="*")
    ap.add_argument("--out", type=Path, default=Path("/tmp/porter-project-builds"))
    ap.add_argument("-I", dest="includes", action="append", default=[])
    ap.add_argument("--target-rocm", default="5.2")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--tree", action="store_true", help="SRC is one folder of several projects (NAME: a sub-path)")
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    results = {}
    if args.tree:
        for name, res in measure_tree(args.src, args.out, args.target_rocm, args.includes, args.names):
            results[name] = res
            _report(name, res)
    else:
        folders = [args.src / f"{n}-cuda" for n in args.names] if args.names else sorted(args.src.glob("*-cuda"))
        for cuda in folders:
            if not cuda.is_dir():
                print(f"{cuda.name}: not a folder", file=sys.stderr)
                continue
            res = results[cuda.name] = measure(cuda, args.out, args.target_rocm, args.includes)
            _report(cuda.name, res)
    print()
    for arch, _extra in ARCHES:
        runs = [r[arch] for r in results.values() if arch in r]  # (a failed conversion has no build)
        print(f"{arch}: {sum(r['ok'] for r in runs)} of {len(results)} built; "
              f"{sum(r['errors'] for r in runs)} errors, {sum(len(r['unflagged']) for r in runs)} unflagged, in "
              f"{sum(1 for r in runs if r['unflagged'])} projects; {sum(len(r.get('absent', ())) for r in runs)} "
              f"name a file the CUDA project lacks, in {sum(1 for r in runs if r.get('absent'))} projects")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
