"""How porter's cost grows with the input: whole `porter convert` / `porter scan` processes (a benchmark, not a test).

    .venv/bin/python benchmarks/bench_growth.py [--sizes 1000,10000,100000,1000000] [--shapes single,tree]
        [--inputs shapes,samples] [--from DIR ...] [--fs tmpfs,disk] [--commands convert,scan] [--runs 3]
        [--jobs 0] [--hipify-perl PATH] [--json FILE] [--cold]

For each shape (one amalgamated source, or a project tree of the same total) and size, an input is
built once per source of code: ``shapes`` (benchmarks/real_shapes.py: the shapes real CUDA code has
and the samples lack: macros tree-sitter cannot read, deep #if nesting, braces opened in both
branches of #ifdef/#else, long initialiser tables, template-heavy headers), ``samples``
(benchmarks/corpus.py from porter's sample projects), and each ``--from DIR`` (a user's own CUDA
files, each folder under DIR a project, built the same way as the samples: copies, names suffixed per
copy), on tmpfs (/dev/shm) and on disk (a folder under --disk-dir, default /var/tmp).  Every command
runs --runs times as its own process, the inputs of one size interleaved (run 1 of every input and
command, then run 2, ...: a slow minute of a shared machine falls on all of them)
(`python -m porter ...`: interpreter start-up, imports, the mapping database and the query
compilation are all inside the figure).  By default the processes find what a user's do: the
bytecode caches (pip compiles them at install) and porter's copy of the built mapping database
(written by the first run), both warmed by one untimed run; --cold gives every process neither.
Printed per row: the median wall time and its range over the runs, lines/s at the median, and the peak RSS: the largest of the
process and its workers (os.wait4's ru_maxrss, taken by a small launcher process so that the
benchmark's own memory is not counted; workers of a tree convert are separate processes, so the
memory of the whole run can be up to jobs + 1 times that), the highest over the runs.

hipify-perl (HIPIFY's Perl translator, the baseline of issues 12 and 34) is timed in the same run when
it is found (--hipify-perl PATH, or on PATH): on single files only, as `hipify-perl -quiet-warnings
FILE -o OUT`, the mode scripts use (without -quiet-warnings it compiles thousands of regular
expressions per line to warn, 100-200x slower for the same output).  It is one
script, bin/hipify-perl in https://github.com/ROCm/HIPIFY; Debian 13 packages HIPIFY 6.0.2's (fetch
pool/main/h/hipify/hipify-perl_6.0.2+dfsg-1_all.deb from deb.debian.org, `dpkg-deb -x` it, run
x/usr/bin/hipify-perl).  Without it the column says "n/a".

Targets (issue 12): single files 10k -> 1M lines within 1.5x of constant lines/s; a 1M-line single
file under 300 MB peak RSS; trees as fast as before or faster.  Issue 34, on real sources: convert
>= 10x and scan >= 3x hipify-perl's speed in the same run, 1M lines under 300 MB.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import corpus  # noqa: E402
import real_shapes  # noqa: E402

FS = {"tmpfs": "/dev/shm", "disk": "/var/tmp"}


class TimedOut(Exception):
    pass


# runs argv, passes its exit code on, and says on stderr's last line the peak RSS of it or its largest worker
_LAUNCH = """
import os, signal, sys
pid = os.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
signal.signal(signal.SIGTERM, lambda *a: os.kill(pid, signal.SIGTERM))
_, status, usage = os.wait4(pid, 0)
sys.stderr.write("\\nmaxrss_kb %d\\n" % usage.ru_maxrss)
sys.exit(os.waitstatus_to_exitcode(status))
"""


def run_once(argv: list[str], env: dict, timeout: float) -> tuple[float, float, int]:
    """(wall seconds, peak RSS in MB of the process or its largest worker, exit code) of one process;
    TimedOut when it runs past ``timeout`` (it is killed)."""
    t0 = time.perf_counter()
    # through a small launcher: a child's ru_maxrss starts at the RSS of the process that forked it (the
    # kernel keeps the high-water mark across exec), and this one holds the generated inputs
    proc = subprocess.Popen([sys.executable, "-S", "-c", _LAUNCH, *argv], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, env=env, pass_fds=())
    deadline = t0 + timeout
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.perf_counter() > deadline:
            proc.terminate()  # porter stops its workers on SIGTERM
            os.wait4(proc.pid, 0)
            proc.stderr.close()
            raise TimedOut()
        time.sleep(0.005)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode(errors="replace").strip()
    proc.stderr.close()
    err, _, tail = err.rpartition("\n")
    if not tail.startswith("maxrss_kb "):
        err, tail = err + tail, "maxrss_kb 0"
    if proc.returncode not in (0, 1):  # 1: the run found problems (unsupported names, findings), still a full run
        raise SystemExit(f"{' '.join(argv)}: exit {proc.returncode}: {err[-500:]}")
    return wall, int(tail.split()[1]) / 1024, proc.returncode


def summarize(walls: list[float], rss: list[float], timed_out: float | None) -> dict:
    """Median, range and peak RSS of the runs made; ``{"timed_out": T}`` when the first one timed out."""
    if not walls:
        return {"timed_out": timed_out}
    return {"median_s": statistics.median(walls), "min_s": min(walls), "max_s": max(walls), "peak_rss_mb": max(rss),
            "runs": len(walls)}


def measure(argv: list[str], runs: int, env: dict, timeout: float, cleanup=None, long: float = 120.0) -> dict | None:
    """Median, range and peak RSS over ``runs`` runs of one command; a run longer than ``long`` seconds
    is not repeated (its row says 1 run)."""
    return measure_interleaved([(argv, cleanup)], runs, env, timeout, long)[0]


def measure_interleaved(jobs: list[tuple[list[str], object]], runs: int, env: dict, timeout: float,
                        long: float = 120.0) -> list[dict]:
    """``measure`` of several commands ((argv, cleanup) each), run 1 of each in turn, then run 2...;
    a command that took longer than ``long`` or timed out is not run again."""
    walls: list[list[float]] = [[] for _ in jobs]
    rss: list[list[float]] = [[] for _ in jobs]
    done = [False] * len(jobs)
    timed_out: list[float | None] = [None] * len(jobs)
    for _ in range(runs):
        for k, (argv, cleanup) in enumerate(jobs):
            if done[k]:
                continue
            if cleanup:
                cleanup()
            try:
                wall, peak, _ = run_once(argv, env, timeout)
            except TimedOut:
                timed_out[k], done[k] = timeout, True
                continue
            walls[k].append(wall)
            rss[k].append(peak)
            done[k] = wall > long
    return [summarize(w, r, t) for w, r, t in zip(walls, rss, timed_out)]


def fmt_row(shape: str, lines: int, files: int, fs: str, what: str, m: dict | None, source: str = "samples") -> str:
    head = f"{source:10} {shape:6} {lines:>9,} {files:>6} {fs:5} {what:12}"
    if m is None:
        return head + "  n/a (hipify-perl not found: see the docstring)"
    if "timed_out" in m:
        return head + f"  > {m['timed_out']:g} s (killed at the time-out)"
    rate = lines / m["median_s"]
    runs = "" if m["runs"] > 1 else "  (1 run)"
    return (head + f" {m['median_s']:8.2f} s ({m['min_s']:.2f}-{m['max_s']:.2f}) {rate:>10,.0f} lines/s"
            f" {m['peak_rss_mb']:6.0f} MB{runs}")


def build_input(origin, shape: str, where: Path, size: int) -> tuple[int, int]:
    """Write the input of ``shape`` (single, tree) and about ``size`` lines from ``origin`` (shapes,
    samples, or a folder) at ``where``; returns (lines, files)."""
    if origin == "shapes":
        return (real_shapes.single_file(where, size), 1) if shape == "single" else real_shapes.tree(where, size)
    root = corpus.SAMPLES if origin == "samples" else origin
    return (corpus.single_file(where, size, root), 1) if shape == "single" else corpus.tree(where, size, root)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1000,10000,100000,1000000")
    ap.add_argument("--shapes", default="single,tree")
    ap.add_argument("--inputs", default="shapes,samples",
                    help="built-in sources of code: shapes (real-code shapes, benchmarks/real_shapes.py), samples")
    ap.add_argument("--from", dest="from_dirs", action="append", type=Path, default=[], metavar="DIR",
                    help="also build inputs from the CUDA files under DIR (repeatable)")
    ap.add_argument("--fs", default="tmpfs,disk", help="where inputs and outputs go: tmpfs (/dev/shm), disk (--disk-dir)")
    ap.add_argument("--disk-dir", default=FS["disk"])
    ap.add_argument("--commands", default="convert,scan")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--jobs", type=int, default=0, help="porter -j (0: all cores)")
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds per process (killed after: the row says so)")
    ap.add_argument("--long", type=float, default=120.0, help="a run longer than this many seconds is not repeated")
    ap.add_argument("--hipify-perl", default=shutil.which("hipify-perl"))
    ap.add_argument("--json", type=Path, help="also write the rows as JSON")
    ap.add_argument("--cold", action="store_true",
                    help="no bytecode caches and an empty porter cache for every process (default: both allowed, "
                         "warmed by one run first, as a user's processes find them)")
    args = ap.parse_args()
    fs_dirs = {"tmpfs": FS["tmpfs"], "disk": args.disk_dir}
    python = sys.executable
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    cold = tempfile.TemporaryDirectory(prefix="porter-growth-cache-") if args.cold else None
    if cold:  # every process as the first after an install: no bytecode, no database copy
        env.update(PYTHONDONTWRITEBYTECODE="1", PORTER_CACHE_DIR=cold.name)
    else:  # what a user's processes find: the bytecode pip compiled, the database a first run kept
        env.pop("PYTHONDONTWRITEBYTECODE", None)
    rows = []
    print(f"porter {ROOT} ({subprocess.run(['git', '-C', str(ROOT), 'rev-parse', '--short', 'HEAD'], capture_output=True, text=True).stdout.strip() or '?'}), "
          f"{os.cpu_count()} cores, {args.runs} runs per row, jobs {args.jobs or 'all'}; hipify-perl: {args.hipify_perl or 'not found'}; "
          f"{'cold (no bytecode, empty cache)' if cold else 'bytecode and the database cache warm'}")
    with tempfile.TemporaryDirectory(prefix="porter-growth-", dir=fs_dirs["tmpfs"]) as tmp:
        one = Path(tmp) / "one.cu"
        one.write_bytes(b"int f() { return 0; }\n")
        if not cold:  # writes the bytecode and the database copy the timed runs then read
            run_once([python, "-m", "porter", "convert", str(one), "-o", str(Path(tmp) / "out.cu"), "-q"], env, args.timeout)
        startup = measure([python, "-m", "porter", "convert", str(one), "-o", str(Path(tmp) / "out.cu"), "-q"],
                          args.runs, env, args.timeout)
    print(f"start-up (porter convert of a 1-line file): {startup['median_s']:.2f} s ({startup['min_s']:.2f}-"
          f"{startup['max_s']:.2f}), {startup['peak_rss_mb']:.0f} MB")
    rows.append({"input": "-", "shape": "startup", "lines": 1, "files": 1, "fs": "tmpfs", "command": "porter convert", **startup})
    sources: list[tuple[str, object]] = []
    for name in filter(None, args.inputs.split(",")):
        if name not in ("shapes", "samples"):
            raise SystemExit(f"--inputs: unknown source {name!r} (shapes, samples; a folder: --from DIR)")
        sources.append((name, name))
    for d in args.from_dirs:
        if not d.is_dir():
            raise SystemExit(f"--from {d}: not a folder")
        sources.append((d.name or str(d), d.resolve()))
    print(f"{'input':10} {'shape':6} {'lines':>9} {'files':>6} {'fs':5} {'command':12} {'median':>8}   (range)      lines/s    peak RSS")
    for shape in args.shapes.split(","):
        for size in map(int, args.sizes.split(",")):
            for fs in args.fs.split(","):
                with tempfile.TemporaryDirectory(prefix="porter-growth-", dir=fs_dirs[fs]) as tmp:
                    jobs, meta = [], []
                    for name, origin in sources:
                        where = Path(tmp) / name
                        where.mkdir()
                        src, out = (where / "amalgamated.cu", where / "out.cu") if shape == "single" else (where / "proj", where / "proj-hip")
                        lines, files = build_input(origin, shape, src, size)

                        def clean(out=out):
                            if out.is_dir():
                                shutil.rmtree(out)
                            elif out.exists():
                                out.unlink()

                        for command in args.commands.split(","):
                            if command == "convert":
                                argv = [python, "-m", "porter", "convert", str(src), "-o", str(out), "-q", "-j", str(args.jobs)]
                            else:
                                argv = [python, "-m", "porter", "scan", str(src), "-j", str(args.jobs)]
                            jobs.append((argv, clean))
                            meta.append((name, lines, files, f"porter {command}"))
                        if shape == "single" and args.hipify_perl:
                            jobs.append((["perl", args.hipify_perl, "-quiet-warnings", str(src), "-o", str(out)], clean))
                            meta.append((name, lines, files, "hipify-perl"))
                    results = measure_interleaved(jobs, args.runs, env, args.timeout, args.long)
                    for (name, lines, files, what), m in zip(meta, results):
                        rows.append({"input": name, "shape": shape, "lines": lines, "files": files, "fs": fs, "command": what, **m})
                        print(fmt_row(shape, lines, files, fs, what, m, name), flush=True)
                    if shape == "single" and not args.hipify_perl:
                        print(fmt_row(shape, 0, 1, fs, "hipify-perl", None, "-"), flush=True)
                    for name, _origin in sources:
                        by = {r["command"]: r for r in rows if r.get("input") == name and r["shape"] == shape
                              and r["fs"] == fs and r["lines"] >= size and "median_s" in r}
                        base = by.get("hipify-perl")
                        if base is None:
                            continue
                        for what, want in (("porter convert", 10), ("porter scan", 3)):
                            if what in by:
                                ratio = base["median_s"] / by[what]["median_s"]
                                print(f"target: {name} {shape} {by[what]['lines']:,} lines: {what} {ratio:.2f}x hipify-perl's "
                                      f"speed [>= {want}x: {'met' if ratio >= want else 'NOT met'}]")
    fs0 = args.fs.split(",")[0]
    singles = {r["lines"]: r for r in rows if r["shape"] == "single" and r["command"] == "porter convert"
               and r["fs"] == fs0 and "median_s" in r and r.get("input") == sources[0][0]} if sources else {}
    wanted = {n: r for n, r in singles.items() if n >= 10_000}
    if len(wanted) >= 2:
        rates = [n / r["median_s"] for n, r in wanted.items()]
        spread = max(rates) / min(rates)
        print(f"target: single-file convert ({fs0}) lines/s from {min(wanted):,} to {max(wanted):,} lines within 1.5x "
              f"of constant: {spread:.2f}x whole process -> {'met' if spread <= 1.5 else 'NOT met'}")
        net = [n / max(r["median_s"] - startup["median_s"], 1e-3) for n, r in wanted.items()]
        spread = max(net) / min(net)
        print(f"        the same less the start-up of a 1-line run ({startup['median_s']:.2f} s): {spread:.2f}x "
              f"-> {'met' if spread <= 1.5 else 'NOT met'}")
    big = [r for r in rows if r["shape"] == "single" and r["lines"] >= 1_000_000 and r["command"].startswith("porter")]
    for r in big:
        if "peak_rss_mb" not in r:
            continue
        print(f"target: {r['command']} of a {r['lines']:,}-line file ({r.get('input')}, {r['fs']}) under 300 MB peak RSS: "
              f"{r['peak_rss_mb']:.0f} MB -> {'met' if r['peak_rss_mb'] < 300 else 'NOT met'}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n")
    if cold:
        cold.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
