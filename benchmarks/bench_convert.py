"""Convert throughput and peak memory (benchmark, not a test).

    .venv/bin/python benchmarks/bench_convert.py [--lines 1000000] [--jobs 0] [--workdir DIR]
        [--from DIR [DIR ...]]

The input and output trees go to a temporary folder under --workdir (default:
the system's temporary folder). Creating thousands of files in new folders is
the file system's cost, not porter's, and it differs a lot between file
systems: the script also times a plain Python loop that writes the same tree
(no conversion), so the two can be told apart.

Builds a tree from the sample projects' source files copied many times (in a
temp folder), converts it end to end as `porter convert` does (all cores), and
prints lines/s, the scan throughput of the findings rules, and peak RSS of the
parent and of the worker processes.  The work is timed inside this already
running process: interpreter start-up and imports are not in the figure, and
one best-case input shape is used (~100-line files).  For whole `porter`
processes, big single files and deep trees, median and range, tmpfs and disk:
benchmarks/bench_growth.py.

``--from DIR [DIR ...]``: the tree is built from real projects instead (the shape users have): each
folder under a DIR is a project (a DIR of loose files is one), and whole projects are copied, with
their folder layout, Makefiles and other files, until the line count is reached, the names each copy
defines given a per-copy suffix (benchmarks/corpus.py's ``tree``: five folders deep,
``libs/lN/modM/copyK/[<DIR's name>/]<project>/...``, the DIR's name where there are several).
Without it the input stays the sample sources copied as they are (the README's rows). Either way the
script says how many files converted, were copied or failed, and how many findings the scan
reported.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import corpus  # noqa: E402
from porter.project.convert import ConvertOptions, convert_tree  # noqa: E402
from porter.project.files import discover  # noqa: E402
from porter.project.scan import scan_path  # noqa: E402


def build_input(dest: Path, lines: int) -> int:
    sources = [pf for pf in discover(ROOT / "sample_projects") if pf.kind == "source"]
    if not sources:
        raise SystemExit("no sample sources found")
    texts = [(pf.rel, pf.path.read_bytes()) for pf in sources]
    total = copy = 0
    while total < lines:
        for rel, data in texts:
            target = dest / f"copy{copy:04d}" / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            total += data.count(b"\n")
        copy += 1
    return total


def build_tree(dest: Path, lines: int, from_dirs: list[Path] = ()) -> tuple[int, str]:
    """The input tree under ``dest``: (source lines, what it was built from, one line)."""
    if not from_dirs:
        return build_input(dest, lines), "sample sources copied as they are"
    n, files = corpus.tree(dest, lines, [d.resolve() for d in from_dirs])
    copies = sum(1 for _ in (dest / "libs").glob("l*/mod*/copy*"))
    projects = sum(len(corpus._projects(d.resolve())) for d in from_dirs)
    return n, f"{files} files: {copies} copies of {projects} projects from {len(from_dirs)} folder{'s' if len(from_dirs) > 1 else ''} ({from_dirs[0]}{', ...' if len(from_dirs) > 1 else ''})"


def copy_tree_time(src: Path, out: Path) -> float:
    """Seconds a plain loop takes to read every file and write it under ``out`` (same layout)."""
    t0 = time.perf_counter()
    made: set[Path] = set()
    for pf in discover(src):
        target = out / pf.rel
        if target.parent not in made:
            target.parent.mkdir(parents=True, exist_ok=True)
            made.add(target.parent)
        target.write_bytes(pf.path.read_bytes())
    dt = time.perf_counter() - t0
    shutil.rmtree(out)
    return dt


def _cpu() -> float:
    """CPU seconds so far of this process and of its finished (waited-for) workers."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def timed_convert(src: Path, out: Path, opts: ConvertOptions):
    """(seconds, CPU seconds, report) of converting the tree ``src`` into ``out`` (left there)."""
    t0, c0 = time.perf_counter(), _cpu()
    report = convert_tree(src, out, opts)
    return time.perf_counter() - t0, _cpu() - c0, report


def timed_scan(src: Path, jobs: int):
    """(seconds, CPU seconds, result) of `porter scan`'s work on the tree ``src``."""
    t0, c0 = time.perf_counter(), _cpu()
    scanned = scan_path(src, jobs=jobs)
    return time.perf_counter() - t0, _cpu() - c0, scanned


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lines", type=int, default=200_000)
    ap.add_argument("--jobs", type=int, default=0)
    ap.add_argument("--no-findings", action="store_true")
    ap.add_argument("--workdir", type=Path, default=None, help="where the temporary trees go")
    ap.add_argument("--from", dest="from_dirs", nargs="+", type=Path, default=[], metavar="DIR",
                    help="build the tree from the projects under these folders (default: the sample sources)")
    args = ap.parse_args()
    for d in args.from_dirs:
        if not d.is_dir():
            ap.error(f"--from {d}: not a folder")
    with tempfile.TemporaryDirectory(dir=args.workdir) as tmp:
        src, out = Path(tmp) / "src", Path(tmp) / "out"
        n, origin = build_tree(src, args.lines, args.from_dirs)
        opts = ConvertOptions(jobs=args.jobs, findings=not args.no_findings)
        dt, cpu_convert, report = timed_convert(src, out, opts)
        files = len(report.files)
        status = report.totals()["files"]
        shutil.rmtree(out)
        t_copy = copy_tree_time(src, out)
        t_scan, cpu_scan, scanned = timed_scan(src, args.jobs)
    print(f"input: {origin}")
    print(f"target: convert >= 150,000 lines/s -> {'met' if n / dt >= 150_000 else 'NOT met'}; "
          f"scan >= 100,000 lines/s -> {'met' if scanned.lines / t_scan >= 100_000 else 'NOT met'}")
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    print(f"CPU seconds: parent {me.ru_utime + me.ru_stime:.2f} (system {me.ru_stime:.2f}), "
          f"workers {kids.ru_utime + kids.ru_stime:.2f} (system {kids.ru_stime:.2f}), input set-up included")
    # CPU seconds are less disturbed than wall time by other work on the machine's cores (their
    # workers finish with each call, so the children's part is counted)
    print(f"CPU seconds of the work, parent and workers: convert {cpu_convert:.2f} ({n / cpu_convert:,.0f} lines per "
          f"CPU second), scan {cpu_scan:.2f} ({scanned.lines / cpu_scan:,.0f} lines per CPU second)")
    self_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    child_rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"converted {n} lines in {files} files in {dt:.2f} s: {n / dt:,.0f} lines/s "
          f"(findings {'off' if args.no_findings else 'on'}, jobs {args.jobs or 'all'})")
    print("files: " + ", ".join(f"{status.get(k, 0)} {k}" for k in ("converted", "unchanged", "copied"))
          + f", {len(report.errors)} failed" + "".join(f" ({e.rel}: {e.message})" for e in report.errors[:3])
          + (f"; run problems: {'; '.join(report.problems)}" if report.problems else ""))
    print(f"scanned {scanned.lines} lines in {scanned.files} files in {t_scan:.2f} s: {scanned.lines / t_scan:,.0f} lines/s "
          f"(porter scan: parse + rules, {len(scanned.findings)} findings, {len(scanned.errors)} files unreadable, "
          f"jobs {args.jobs or 'all'})")
    print(f"the file system alone (a Python loop writing the same {files} files into new folders): "
          f"{t_copy:.2f} s, {n / t_copy:,.0f} lines/s")
    print(f"peak RSS: parent {self_rss:.0f} MB, largest worker {child_rss:.0f} MB")


if __name__ == "__main__":
    main()
