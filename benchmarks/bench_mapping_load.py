"""Load time of the mapping database in a fresh process (target: load_database() < 150 ms).

Each measurement runs in a fresh interpreter.  "build": an empty porter cache, so the database is
built from the data files (what the first run after an install or a data change pays); "cached":
the copy a first run kept (porter/mapping/cache.py), what every later process pays.  Prints the
median and the spread of each, the entry count and the data size.
Usage: python benchmarks/bench_mapping_load.py [--runs N]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
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


def _probe(cache: str) -> dict:
    env = dict(os.environ, PORTER_CACHE_DIR=cache)
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=60, check=True, env=env)
    return json.loads(out.stdout)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args()
    built, cached, imports = [], [], []
    entries = 0
    with tempfile.TemporaryDirectory(prefix="porter-mapload-") as tmp:
        for i in range(args.runs):
            r = _probe(os.path.join(tmp, f"empty{i}"))
            built.append(r["load_s"] * 1000)
            imports.append(r["import_s"] * 1000)
            entries = r["entries"]
        warm = os.path.join(tmp, "warm")
        _probe(warm)
        for _ in range(args.runs):
            cached.append(_probe(warm)["load_s"] * 1000)
    data = Path(__file__).resolve().parent.parent / "porter" / "mapping" / "data"
    size = sum(p.stat().st_size for p in data.glob("*.json"))
    print(f"entries            {entries}")
    print(f"data size          {size / 1e6:.2f} MB")
    print(f"import porter.mapping  median {statistics.median(imports):.1f} ms")
    for name, ms in (("build ", built), ("cached", cached)):
        print(f"load_database() {name} median {statistics.median(ms):.1f} ms  "
              f"(min {min(ms):.1f}, max {max(ms):.1f}, {args.runs} runs; target < 150 ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
