"""Speed of `porter smoke` with the default tiny model on CPU: time to first step from process start
(import time included), median step time and tokens/s.  Target: first step within 5 s on a 2-core CPU.

    .venv/bin/python benchmarks/bench_smoke.py [--runs 3] [--steps 20] [--nproc 1]

Each run is a fresh `python -m porter smoke --device cpu --json FILE` process, so imports count.
Prints one line per run and the median; writes nothing else.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def one_run(steps: int, nproc: int, device: str) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "report.json")
        t0 = time.perf_counter()
        p = subprocess.run([sys.executable, "-m", "porter", "smoke", "--device", device, "--steps", str(steps),
                            "--nproc", str(nproc), "--json", out], cwd=ROOT, capture_output=True, text=True, timeout=600)
        wall = time.perf_counter() - t0
        if not os.path.exists(out):
            raise SystemExit(f"bench_smoke: run failed (exit {p.returncode}): {p.stderr.strip()[-300:]}")
        with open(out) as fh:
            rep = json.load(fh)
    rep["wall_s"] = wall
    return rep


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--nproc", type=int, default=1)
    ap.add_argument("--device", default="cpu")
    a = ap.parse_args()
    try:
        load = os.getloadavg()[0]
    except OSError:
        load = float("nan")
    print(f"bench_smoke: {a.runs} runs, tiny model, {a.steps} steps, nproc {a.nproc}, device {a.device}, "
          f"{os.cpu_count()} CPUs, load average {load:.2f}")
    reps = []
    for i in range(a.runs):
        r = one_run(a.steps, a.nproc, a.device)
        reps.append(r)
        print(f"run {i + 1}: first step {r['time_to_first_step_s']:.2f} s from process start, median step "
              f"{r['step_time_s'] * 1000:.1f} ms, {r['tokens_per_s']:,.0f} tokens/s, "
              f"{(r['achieved_tflops'] or 0) * 1000:.2f} GFLOP/s, loss {r['loss_first']:.3f} -> {r['loss_last']:.3f}, "
              f"whole run {r['wall_s']:.1f} s, verdict {r['verdict']}"
              + (f", scaling {r['scaling_efficiency']:.1%}" if r.get("scaling_efficiency") is not None else ""))
    med = lambda k: statistics.median(r[k] for r in reps)  # noqa: E731
    print(f"median: time_to_first_step_s {med('time_to_first_step_s'):.2f} (target 5.0), step_time_s "
          f"{med('step_time_s'):.4f}, tokens_per_s {med('tokens_per_s'):,.0f}, whole run {med('wall_s'):.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
