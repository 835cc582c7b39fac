"""Start-up: a 1-line `porter convert` as a whole process (a benchmark, not a test).

    .venv/bin/python benchmarks/bench_startup.py [--runs 30] [--base DIR ...] [--cases stdout,file]

Each case is one whole process, `python -m porter convert ONE_LINE.cu` (``stdout``: the converted
line to stdout, no findings: nothing uses them) and `... -o OUT.hip` (``file``: the summary line says
whether the port has findings, so the rules run); the interpreter's own start-up (`python -c pass`)
is timed beside them as the floor.  ``--base DIR``: another porter tree (an export of an older commit:
`git archive COMMIT | tar -x -C DIR`), timed with the same interpreter in the same minutes: each
round runs every tree's every case once, in turn, so a slow minute of a shared machine falls on all.
Processes find what a user's do: bytecode caches (pip compiles them at install) and porter's built
mapping database copy, both warmed by one untimed run per tree and case (PYTHONDONTWRITEBYTECODE is
dropped from the environment).  Printed per tree and case: median, min and max wall time in ms, the
median and min CPU time (user + system: less moved by other processes than the wall time), and the
load average before and after.  Target (issue 34): the median of the 1-line convert <= 100 ms.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT = 60

# one line of CUDA: a kernel (so the HIP runtime include is added) and one runtime call to rename
ONE_LINE = b"__global__ void zero(float *a) { a[threadIdx.x] = 0.0f; } void sync() { cudaDeviceSynchronize(); }\n"


def _env(tree: Path) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def _commands(src: Path, out: Path, cases: list[str]) -> dict[str, list[str]]:
    cmds = {"floor": [sys.executable, "-c", "pass"]}
    if "stdout" in cases:
        cmds["stdout"] = [sys.executable, "-m", "porter", "convert", str(src)]
    if "file" in cases:
        cmds["file"] = [sys.executable, "-m", "porter", "convert", str(src), "-o", str(out)]
    return cmds


def _once(cmd: list[str], tree: Path) -> tuple[float, float]:
    """(wall, CPU) seconds of one process; the CPU time (user + system, from wait4) is less moved by
    other processes of a shared machine than the wall time."""
    with tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=tree, env=_env(tree), stdout=subprocess.DEVNULL, stderr=err)
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        except BaseException:
            proc.kill()
            raise
        took = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            err.seek(0)
            raise SystemExit(f"bench_startup: {' '.join(cmd[1:])} in {tree} exited {proc.returncode}: "
                             f"{err.read().decode(errors='replace').strip()[-300:]}")
    return took, usage.ru_utime + usage.ru_stime


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--base", action="append", default=[], metavar="DIR", help="another porter tree to time beside")
    ap.add_argument("--cases", default="stdout,file", help="stdout, file (comma-separated)")
    args = ap.parse_args()
    cases = [c for c in args.cases.split(",") if c]
    if not set(cases) <= {"stdout", "file"} or args.runs < 1:
        ap.error("--cases takes stdout and/or file; --runs >= 1")
    trees = [ROOT, *(Path(b).resolve() for b in args.base)]
    for tree in trees:
        if not (tree / "porter" / "__main__.py").is_file():
            ap.error(f"{tree}: not a porter tree (no porter/__main__.py)")
    with tempfile.TemporaryDirectory(prefix="porter-startup-") as tmp:
        src = Path(tmp) / "one_line.cu"
        src.write_bytes(ONE_LINE)
        cmds = _commands(src, Path(tmp) / "one_line.hip", cases)
        load_before = os.getloadavg()
        for tree in trees:  # untimed: bytecode caches and the mapping copy written
            for cmd in cmds.values():
                _once(cmd, tree)
        times: dict[tuple[str, str], list[tuple[float, float]]] = {}
        for _ in range(args.runs):
            for tree in trees:
                for case, cmd in cmds.items():
                    times.setdefault((str(tree), case), []).append(_once(cmd, tree))
        load_after = os.getloadavg()
    print(f"1-line convert, whole processes, {args.runs} runs each, interleaved; load average "
          f"{load_before[0]:.2f} before, {load_after[0]:.2f} after ({os.cpu_count()} cores)")
    print(f"{'tree':36s} {'case':7s} {'wall median':>11s} {'min':>7s} {'max':>7s}   {'CPU median':>10s} {'min':>7s}")
    for (tree, case), runs in times.items():
        wall, cpu = [w * 1000 for w, _ in runs], [c * 1000 for _, c in runs]
        print(f"{tree[-36:]:36s} {case:7s} {statistics.median(wall):9.1f}ms {min(wall):5.1f}ms {max(wall):5.1f}ms"
              f"   {statistics.median(cpu):8.1f}ms {min(cpu):5.1f}ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
