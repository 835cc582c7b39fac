"""Convert throughput and peak memory (benchmark, not a test).

    .venv/bin/python benchmarks/bench_convert.py [--lines 1000000] [--jobs 0]

Builds a tree from the sample projects' source files copied many times (in a
temp folder), converts it end to end as `porter convert` does (whole process,
all cores), and prints lines/s, the scan throughput of the findings rules, and
peak RSS of the parent and of the worker processes.
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


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lines", type=int, default=200_000)
    ap.add_argument("--jobs", type=int, default=0)
    ap.add_argument("--no-findings", action="store_true")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        src, out = Path(tmp) / "src", Path(tmp) / "out"
        n = build_input(src, args.lines)
        opts = ConvertOptions(jobs=args.jobs, findings=not args.no_findings)
        t0 = time.perf_counter()
        report = convert_tree(src, out, opts)
        dt = time.perf_counter() - t0
        files = len(report.files)
        shutil.rmtree(out)
    self_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    child_rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"converted {n} lines in {files} files in {dt:.2f} s: {n / dt:,.0f} lines/s "
          f"(findings {'off' if args.no_findings else 'on'}, jobs {args.jobs or 'all'})")
    print(f"peak RSS: parent {self_rss:.0f} MB, largest worker {child_rss:.0f} MB")


if __name__ == "__main__":
    main()
