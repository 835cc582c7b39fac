"""Scan throughput in lines/s: the sample projects' sources, repeated to a sizeable corpus.

    .venv/bin/python benchmarks/bench_scan.py [--repeat N] [PATH ...]

Prints three figures, per CPU core: the full scan (parse + index + rules), the rules
alone on a shared parse and index (what the review UI pays per keystroke after
re-parsing), and the parse + index share.  The target (>= 100,000 lines/s) is for
`porter scan` of a project, which uses every core: benchmarks/bench_convert.py
measures that.

Warm figures: every rule query is compiled and the tables are loaded before the
timing starts (porter.findings.engine.prepare), so no round pays for them.  The
cold start of a `porter scan` process (start-up, imports, query compilation) is in
benchmarks/bench_growth.py, which times whole processes.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from porter.findings import scan  # noqa: E402
from porter.project.files import discover  # noqa: E402
from porter.translate.source_index import index_source  # noqa: E402


def corpus(paths: list[Path]) -> list[tuple[str, bytes]]:
    files = []
    for p in paths:
        if p.is_dir():
            files += [(f.rel, f.path.read_bytes()) for f in discover(p) if f.kind == "source"]
        else:
            files.append((p.name, p.read_bytes()))
    return files


def best_of(fn, rounds: int) -> float:
    """Best CPU time of ``rounds`` runs (process time: on a shared machine wall time mostly
    measures the other processes)."""
    best = float("inf")
    for _ in range(rounds):
        t = time.process_time()
        fn()
        best = min(best, time.process_time() - t)
    return best


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="*", type=Path, default=[ROOT / "sample_projects"])
    ap.add_argument("--repeat", type=int, default=5, help="scan the corpus this many times per round")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    files = corpus(args.paths)
    if not files:
        print("no source files found", file=sys.stderr)
        return 2
    lines = sum(d.count(b"\n") for _, d in files) * args.repeat
    from porter.findings.engine import prepare

    prepare()  # every rule query compiled, the tables loaded: the rounds measure warm scans
    scan(files[0][1], files[0][0])  # and the database caches
    indexes = [(name, data, index_source(data)) for name, data in files]
    for _name, _data, idx in indexes:
        idx.tree  # parsed here, so that the second figure is the rules alone

    def full():
        for _ in range(args.repeat):
            for name, data in files:
                scan(data, name)

    def rules_only():
        for _ in range(args.repeat):
            for name, data, idx in indexes:
                scan(data, name, idx)

    def parse_only():
        for _ in range(args.repeat):
            for _name, data in files:
                index_source(data).tree  # the lexical index, and the tree the rules need

    t_full, t_rules, t_parse = best_of(full, args.rounds), best_of(rules_only, args.rounds), best_of(parse_only, args.rounds)
    findings = sum(len(scan(d, n)) for n, d in files)
    print(f"corpus: {len(files)} files, {lines // args.repeat} lines x {args.repeat}, {findings} findings per pass")
    print("lines per CPU-second (process time, best of rounds):")
    print(f"full scan (parse + index + rules): {lines / t_full:12,.0f} lines/s")
    print(f"rules on a shared parse and index: {lines / t_rules:12,.0f} lines/s")
    print(f"parse + index alone:               {lines / t_parse:12,.0f} lines/s")
    print("(one core; porter scan of a folder uses every core: benchmarks/bench_convert.py measures it)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
