"""The review app's first diff on a tree of real CUDA files, measured from the shell (a benchmark, not a test).

    .venv/bin/python benchmarks/bench_app_first_diff.py --from DIR [--files 1000] [--runs 5]
        [--size 160x45] [--workdir /var/tmp] [--base TREE]

A tree of ``--files`` files is made by copying DIR's files whole (every file under it: sources,
headers, build files, READMEs; ``--sources-only``: its sources and headers), copy after copy
(``copyNNN/<DIR's layout>``), until the count is reached; e.g. ``--from /work/eval/hecbench_build/src`` (22 public HeCBench programs, 56 files).
Each run starts ``python -m porter TREE -o OUT`` in a new detached tmux session of ``--size``
(a terminal, as a user has), the clock read in this process just before `tmux new-session`, and
polls `tmux capture-pane` until the first file's diff is on screen: the pane shows the first file's
name in the diff's heading and no "converting FILE …" line (the app's message while that file is
not converted yet), and the file's first changed HIP line is drawn.  The run then quits the app
(`q`, then `tmux kill-session`) and a fresh output folder is used for the next run, so that
no run restores a session.  ``--base TREE``: another porter tree (an export of an older commit),
run the same way in turn with this one (interleaved: a slow minute falls on both).

Printed: each run's time to the first diff in ms, median and range per tree, and the load average.
Target (issue 34): < 1 s.
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT = 60.0  # seconds a run may take to show its first diff
POLL = 0.01


SOURCE_SUFFIXES = (".cu", ".cuh", ".h", ".hpp", ".cpp", ".cc", ".c")


def make_tree(src: Path, dest: Path, files: int, sources_only: bool = False) -> int:
    """Copy ``src``'s files (``sources_only``: its C/C++/CUDA sources and headers) into
    ``dest/copyNNN/...`` until ``files`` files are written; returns the count."""
    sources = sorted(p for p in src.rglob("*") if p.is_file() and not p.is_symlink()
                     and (not sources_only or p.suffix in SOURCE_SUFFIXES))
    if not sources:
        raise SystemExit(f"bench_app_first_diff: {src}: no files")
    written = copy = 0
    while written < files:
        for path in sources:
            if written >= files:
                break
            target = dest / f"copy{copy:03d}" / path.relative_to(src)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
            written += 1
        copy += 1
    return written


def first_file(tree: Path, out: Path) -> tuple[str, str]:
    """The file the app opens first (the project's first file) and a piece of its first changed HIP line."""
    sys.path.insert(0, str(ROOT))
    from porter.project.convert import ConvertOptions, convert_data
    from porter.project.review_project import ReviewProject

    project = ReviewProject(tree, out)
    fr = project.files[0]
    source = fr.path.read_bytes()
    output, _report = convert_data(source, fr.rel, fr.kind, ConvertOptions(findings=False))
    before = set(source.decode("utf-8", "replace").splitlines())
    for line in output.decode("utf-8", "replace").splitlines():
        if line not in before and line.strip():
            piece = line.strip()[:24]  # short enough for the HIP column of an 80-column terminal
            return fr.rel, piece
    raise SystemExit(f"bench_app_first_diff: {fr.rel}: the port changes nothing; use other files")


def _tmux(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(["tmux", *args], capture_output=True, text=True, timeout=20, check=check)


def one_run(porter_tree: Path, tree: Path, out: Path, rel: str, piece: str, size: tuple[int, int]) -> float:
    name = f"porter-bench-{os.getpid()}-{out.name}"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    # the shell stays after porter (its exit status and last lines stay on screen for the report)
    command = (f"cd {shlex.quote(str(porter_tree))} && PYTHONPATH={shlex.quote(str(porter_tree))} "
               f"{shlex.quote(sys.executable)} -m porter {shlex.quote(str(tree))} -o {shlex.quote(str(out))}; "
               f"echo porter exited $?; sleep 60")
    waiting = f"converting {rel}"
    start = time.perf_counter()
    made = subprocess.run(["tmux", "new-session", "-d", "-P", "-F", "#{pane_pid}", "-s", name, "-x", str(size[0]),
                           "-y", str(size[1]), command], env=env, check=True, timeout=20, capture_output=True, text=True)
    shell = int(made.stdout.strip())
    pid = None
    try:
        last = ""
        while True:
            took = time.perf_counter() - start
            shown = _tmux("capture-pane", "-p", "-t", name, check=False)
            last = shown.stdout
            if shown.returncode != 0 or "porter exited" in last:
                raise SystemExit(f"bench_app_first_diff: the app ended before its first diff: {last.strip()[-800:]}")
            if pid is None:
                pid = _child(shell)
            if piece in last and waiting not in last:
                return took
            if took > TIMEOUT:
                raise SystemExit(f"bench_app_first_diff: no first diff after {TIMEOUT:.0f} s; the screen:\n{last}")
            time.sleep(POLL)
    finally:
        _quit(name, pid or _child(shell))


def _child(shell: int) -> int | None:
    """The porter process the pane's shell started (None before it has)."""
    try:
        with open(f"/proc/{shell}/task/{shell}/children") as f:
            kids = f.read().split()
    except OSError:
        return None
    return int(kids[0]) if kids else None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def _gone_within(pid: int, seconds: float) -> bool:
    end = time.monotonic() + seconds
    while _alive(pid):
        if time.monotonic() > end:
            return False
        time.sleep(0.05)
    return True


def _quit(name: str, pid: int | None) -> None:
    """`q`, as a user quits; then the terminal closed; a porter still running after both is said and killed
    (it would hold its output folder's lock)."""
    _tmux("send-keys", "-t", name, "q", check=False)
    if pid is None:
        _tmux("kill-session", "-t", name, check=False)
        return
    quit_ok = _gone_within(pid, 15)
    _tmux("kill-session", "-t", name, check=False)
    if not quit_ok and not _gone_within(pid, 10):
        print(f"  note: porter (pid {pid}) still ran after q and the terminal closed: killed", flush=True)
        os.kill(pid, 9)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--from", dest="source", required=True, metavar="DIR", help="a folder of real CUDA files")
    ap.add_argument("--files", type=int, default=1000)
    ap.add_argument("--sources-only", action="store_true",
                    help="copy only the sources and headers (the first file is then a CUDA source: its findings "
                         "are part of its first diff; with build files, a Makefile sorts first)")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--size", default="160x45", help="the terminal, COLSxROWS (default 160x45)")
    ap.add_argument("--workdir", default="/var/tmp", help="where the tree is made (default /var/tmp, a disk)")
    ap.add_argument("--base", action="append", default=[], metavar="TREE", help="another porter tree, timed in turn")
    args = ap.parse_args()
    if shutil.which("tmux") is None:
        ap.error("tmux is not installed")
    try:
        cols, rows = (int(x) for x in args.size.split("x"))
    except ValueError:
        ap.error("--size takes COLSxROWS, e.g. 160x45")
    trees = [ROOT, *(Path(b).resolve() for b in args.base)]
    with tempfile.TemporaryDirectory(prefix="porter-first-diff-", dir=args.workdir) as tmp:
        tree = Path(tmp) / "tree"
        count = make_tree(Path(args.source).resolve(), tree, args.files, args.sources_only)
        rel, piece = first_file(tree, Path(tmp) / "probe-out")
        print(f"{count} files copied from {args.source}; the first file {rel}, waiting for {piece!r}; "
              f"terminal {cols}x{rows}; load average {os.getloadavg()[0]:.2f}")
        times: dict[Path, list[float]] = {t: [] for t in trees}
        for run in range(args.runs + 1):  # run 0 untimed: bytecode caches and the mapping copy written
            for porter_tree in trees:
                out = Path(tmp) / f"out-{run}-{trees.index(porter_tree)}"
                took = one_run(porter_tree, tree, out, rel, piece, (cols, rows))
                if run:
                    times[porter_tree].append(took)
                    print(f"  {porter_tree}: run {run}: first diff {took * 1000:.0f} ms", flush=True)
        print(f"load average {os.getloadavg()[0]:.2f} at the end")
        for porter_tree, ts in times.items():
            print(f"{porter_tree}: first diff median {statistics.median(ts) * 1000:.0f} ms "
                  f"({min(ts) * 1000:.0f}-{max(ts) * 1000:.0f}) over {len(ts)} runs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
