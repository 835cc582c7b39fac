"""Convert throughput and peak memory (benchmark, not a test).

    .venv/bin/python benchmarks/bench_convert.py [--lines 1000000] [--jobs 0] [--workdir DIR]

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


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lines", type=int, default=200_000)
    ap.add_argument("--jobs", type=int, default=0)
    ap.add_argument("--no-findings", action="store_true")
    ap.add_argument("--workdir", type=Path, default=None, help="where the temporary trees go")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(dir=args.workdir) as tmp:
        src, out = Path(tmp) / "src", Path(tmp) / "out"
        n = build_input(src, args.lines)
        opts = ConvertOptions(jobs=args.jobs, findings=not args.no_findings)
        t0 = time.perf_counter()
        report = convert_tree(src, out, opts)
        dt = time.perf_counter() - t0
        files = len(report.files)
        shutil.rmtree(out)
        t_copy = copy_tree_time(src, out)
        t0 = time.perf_counter()
        scanned = scan_path(src, jobs=args.jobs)
        t_scan = time.perf_counter() - t0
    print(f"target: convert >= 150,000 lines/s -> {'met' if n / dt >= 150_000 else 'NOT met'}; "
          f"scan >= 100,000 lines/s -> {'met' if scanned.lines / t_scan >= 100_000 else 'NOT met'}")
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    print(f"CPU seconds: parent {me.ru_utime + me.ru_stime:.2f} (system {me.ru_stime:.2f}), "
          f"workers {kids.ru_utime + kids.ru_stime:.2f} (system {kids.ru_stime:.2f}), input set-up included")
    self_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    child_rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"converted {n} lines in {files} files in {dt:.2f} s: {n / dt:,.0f} lines/s "
          f"(findings {'off' if args.no_findings else 'on'}, jobs {args.jobs or 'all'})")
    print(f"scanned {scanned.lines} lines in {scanned.files} files in {t_scan:.2f} s: {scanned.lines / t_scan:,.0f} lines/s "
          f"(porter scan: parse + rules, {len(scanned.findings)} findings, jobs {args.jobs or 'all'})")
    print(f"the file system alone (a Python loop writing the same {files} files into new folders): "
          f"{t_copy:.2f} s, {n / t_copy:,.0f} lines/s")
    print(f"peak RSS: parent {self_rss:.0f} MB, largest worker {child_rss:.0f} MB")


if __name__ == "__main__":
    main()
