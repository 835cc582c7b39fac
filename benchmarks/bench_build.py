"""porter build figures: cold build, no-op rebuild (engine and `porter build`
CLI) and migration speed, on the converted sample projects.

    .venv/bin/python benchmarks/bench_build.py [--arch gfx90a] [--toolchain hipcc|clang] [--samples a,b] [--per-file]
    .venv/bin/python benchmarks/bench_build.py --arch gfx942      # clang-19 on Debian 12

Prints one line per sample; the target is a no-op rebuild under 1 s."""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--arch", default="gfx90a")
    ap.add_argument("--samples", default="")
    ap.add_argument("--per-file", action="store_true")
    ap.add_argument("--toolchain", default="auto", choices=("auto", "hipcc", "clang"))
    args = ap.parse_args()
    from porter.build import BuildOptions, detect_toolchain, run_build
    from porter.buildfiles import migrate
    from porter.project.convert import ConvertOptions, convert_tree

    names = [n for n in args.samples.split(",") if n] or sorted(
        p.name for p in (ROOT / "sample_projects").iterdir() if p.is_dir())
    files = [p for n in names for p in (ROOT / "sample_projects" / n).glob("*") if p.name in ("Makefile", "CMakeLists.txt")]
    texts = [(str(p), p.read_text()) for p in files]
    t0 = time.perf_counter()
    reps = 50
    for _ in range(reps):
        for path, text in texts:
            migrate(path, text)
    per = (time.perf_counter() - t0) / (reps * max(1, len(texts)))
    print(f"migrate: {len(texts)} build files, {per * 1e3:.2f} ms per file")
    tc = detect_toolchain(args.arch, args.toolchain)
    if not tc.found or tc.arch_problem():
        print(f"build figures skipped: {tc.arch_problem()}")
        return 0
    print(f"toolchain: {tc.reason}")
    opts = BuildOptions(arch=args.arch, per_file=args.per_file, toolchain=args.toolchain)
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            out = Path(tmp) / name
            convert_tree(ROOT / "sample_projects" / name, out, ConvertOptions(fix=True))
            t = time.perf_counter()
            cold = run_build(out, opts)
            t_cold = time.perf_counter() - t
            t = time.perf_counter()
            warm = run_build(out, opts)
            t_warm = time.perf_counter() - t
            t = time.perf_counter()
            cmd = [sys.executable, "-m", "porter", "build", str(out), "--arch", args.arch, "--json",
                   "--toolchain", args.toolchain]
            if args.per_file:
                cmd.append("--per-file")
            subprocess.run(cmd, capture_output=True, timeout=600, cwd=ROOT)
            t_cli = time.perf_counter() - t
            print(f"{name:16s} {cold.system:8s} ok={str(cold.ok):5s} units={len(cold.units):2d} "
                  f"cold {t_cold:6.2f} s  no-op engine {t_warm:5.3f} s  no-op CLI {t_cli:5.3f} s  "
                  f"errors {len(cold.errors)}{' ok' if warm.ok == cold.ok else ' MISMATCH'}"
                  + (f"  code objects {sorted({t for ts in cold.code_objects.values() for t in ts})}"
                     if cold.ok else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
