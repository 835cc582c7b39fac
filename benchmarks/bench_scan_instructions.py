"""Instructions per scanned line (benchmark, not a test): a figure that does not move with the machine.

    .venv/bin/python benchmarks/bench_scan_instructions.py [--cold] [PATH ...]

Wall-clock throughput on a shared 2-core VM swings by a third from minute to minute, which
hides a 10 % change in the scan's cost.  This script runs one warm scan of the corpus (the
sample projects' sources by default, each scanned where it lies so its project headers are
read) under valgrind's callgrind, counting instructions only while the scan runs, and prints
instructions per line and the share spent in tree-sitter's parser.  Compare two commits with
it; convert to lines/s with benchmarks/bench_convert.py on a quiet machine.

--cold counts the process's first scan of the files instead: what a `porter scan` of one file pays
on top of the warm figure (the rule queries compiled, the tables and the mapping database loaded,
the modules the scan imports on first use).

Needs valgrind (`apt-get install valgrind`); about 20 s.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def child(paths: list[str], cold: bool = False) -> None:
    sys.path.insert(0, str(ROOT))
    from porter.findings import scan  # noqa: PLC0415
    from porter.project.files import discover  # noqa: PLC0415

    files = []
    for p in map(Path, paths):
        found = [f.path for f in discover(p) if f.kind == "source"] if p.is_dir() else [p]
        files += [(str(f), f.read_bytes()) for f in found]
    if not cold:
        for path, data in files:  # warm: queries compiled, tables and headers loaded
            scan(data, path)
    lines = sum(d.count(b"\n") for _, d in files)
    control = ["callgrind_control", "-i"]
    subprocess.run([*control, "on", str(os.getpid())], stdout=subprocess.DEVNULL, check=True)
    for path, data in files:
        scan(data, path)
    subprocess.run([*control, "off", str(os.getpid())], stdout=subprocess.DEVNULL, check=True)
    print(f"LINES {lines} FILES {len(files)}")


def main() -> int:
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        child(sys.argv[3:], cold=sys.argv[2] == "cold")
        return 0
    args = sys.argv[1:]
    cold = "--cold" in args
    args = [a for a in args if a != "--cold"]
    paths = args or [str(ROOT / "sample_projects")]
    for tool in ("valgrind", "callgrind_control", "callgrind_annotate"):
        if shutil.which(tool) is None:
            print(f"{tool} is not installed (apt-get install valgrind)", file=sys.stderr)
            return 2
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        run = subprocess.run(["valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={out}",
                              sys.executable, __file__, "--child", "cold" if cold else "warm", *paths], capture_output=True, text=True)
        m = re.search(r"LINES (\d+) FILES (\d+)", run.stdout)
        if run.returncode != 0 or m is None or not out.exists():
            print(run.stdout[-2000:] + run.stderr[-2000:], file=sys.stderr)
            return 1
        lines, files = int(m.group(1)), int(m.group(2))
        annotated = subprocess.run(["callgrind_annotate", "--inclusive=yes", str(out)], capture_output=True,
                                   text=True).stdout
    total = int(re.search(r"([\d,]+) \(100\.0%\)\s+PROGRAM TOTALS", annotated).group(1).replace(",", ""))
    parse = re.search(r"([\d,]+) \(\s*[\d.]+%\)\s+\S*parser\.c:ts_parser_parse ", annotated)
    parse_ir = int(parse.group(1).replace(",", "")) if parse else 0
    print(f"{'first (cold) scan' if cold else 'scanned'} {lines} lines in {files} files: {total:,} instructions, {total / lines:,.0f} per line; "
          f"tree-sitter's parse {parse_ir / total:.0%} of them")
    return 0


if __name__ == "__main__":
    sys.exit(main())
