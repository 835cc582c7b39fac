"""Cold load time of the mapping database (target: load_database() < 150 ms).

Runs each measurement in a fresh interpreter so nothing is cached, and prints the
median and the spread, plus the entry count and the data size.
Usage: python benchmarks/bench_mapping_load.py [--runs N]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

PROBE = r"""
import json, time
t0 = time.perf_counter()
import porter.mapping as m
t1 = time.perf_counter()
db = m.load_database()
t2 = time.perf_counter()
print(json.dumps({"import_s": t1 - t0, "load_s": t2 - t1, "entries": len(db)}))
"""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args()
    loads, imports = [], []
    entries = 0
    for _ in range(args.runs):
        out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=60, check=True)
        r = json.loads(out.stdout)
        loads.append(r["load_s"] * 1000)
        imports.append(r["import_s"] * 1000)
        entries = r["entries"]
    data = Path(__file__).resolve().parent.parent / "porter" / "mapping" / "data"
    size = sum(p.stat().st_size for p in data.glob("*.json"))
    print(f"entries            {entries}")
    print(f"data size          {size / 1e6:.2f} MB")
    print(f"import porter.mapping  median {statistics.median(imports):.1f} ms")
    print(f"load_database() cold   median {statistics.median(loads):.1f} ms  "
          f"(min {min(loads):.1f}, max {max(loads):.1f}, {args.runs} runs; target < 150 ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
