"""Silent compile failures: lines where hipcc fails and no porter finding said so beforehand.

    .venv/bin/python benchmarks/silent_failures.py [--target-rocm 5.2] [--arch gfx90a] [PROJECT ...]

For each CUDA project (default: every folder of sample_projects/), convert it with the target
ROCm, compile the port file by file with the installed hipcc (no link), and scan the CUDA
project with the same target.  Every compile error on a line of the project is matched with the
findings on that CUDA line:

* flagged -- some finding (any rule) is on the line the error points at, or on the line of a macro
  definition the error was expanded from;
* library -- the error is a header of a library that is not installed here (hipBLAS, MIOpen,
  PyTorch...): an environment gap, not a porting one, counted apart;
* silent  -- neither: the port fails where porter said nothing.  Listed one per line.

Prints one line per project and the totals; exit 1 when a silent failure remains.  Needs Debian's
hipcc (the target of its HIP is 5.2)."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _porter(*argv: str, env=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "porter", *argv], capture_output=True, text=True, env=env, timeout=1800)


def measure(project: Path, target: str, arch: str, work: Path) -> dict:
    out = work / project.name
    conv = _porter("convert", str(project), "-o", str(out), "--target-rocm", target, "-q")
    if conv.returncode not in (0, 1):
        raise SystemExit(f"{project}: porter convert failed: {conv.stderr.strip()}")
    env = dict(os.environ, HIP_PLATFORM="amd")
    build = _porter("build", str(out), "--arch", arch, "--per-file", "--no-link", "--json", env=env)
    report = json.loads(build.stdout.strip().splitlines()[-1])
    scan = _porter("scan", str(project), "--target-rocm", target, "--format", "json", "-j", "1")
    found = json.loads(scan.stdout)
    flagged_lines = {}
    for f in found.get("findings", found if isinstance(found, list) else []):
        loc = f.get("location", f)
        flagged_lines.setdefault(Path(loc.get("file", "")).as_posix(), set()).add(loc.get("line"))
    result = {"project": project.name, "errors": 0, "flagged": 0, "library": 0, "silent": []}
    seen = set()
    for d in report.get("diagnostics", []):
        if d.get("severity") not in ("error", "fatal error"):
            continue
        src, line = d.get("source_file"), d.get("source_line")
        if not src or line is None:
            continue
        try:
            rel = Path(src).resolve().relative_to(project.resolve()).as_posix()
        except ValueError:
            continue  # an error inside a system header
        key = (rel, line, d.get("message"))
        if key in seen:
            continue
        seen.add(key)
        result["errors"] += 1
        # the error and the macro definitions it was expanded from ("expanded from macro" notes)
        places = [(rel, line)]
        for n in d.get("notes", []):
            if n.get("message", "").startswith("expanded from macro") and n.get("source_file") and n.get("source_line"):
                try:
                    places.append((Path(n["source_file"]).resolve().relative_to(project.resolve()).as_posix(),
                                   n["source_line"]))
                except ValueError:
                    pass
        if d.get("message", "").startswith("missing library"):
            result["library"] += 1
        elif any(ln in flagged_lines.get(f, ()) for f, ln in places):
            result["flagged"] += 1
        else:
            result["silent"].append(f"{rel}:{line}: {d.get('message')}")
    return result


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("projects", nargs="*", type=Path)
    ap.add_argument("--target-rocm", default="5.2")
    ap.add_argument("--arch", default="gfx90a")
    args = ap.parse_args()
    projects = args.projects or sorted(p for p in (ROOT / "sample_projects").iterdir() if p.is_dir())
    totals = {"errors": 0, "flagged": 0, "library": 0, "silent": 0}
    with tempfile.TemporaryDirectory() as tmp:
        for project in projects:
            r = measure(project, args.target_rocm, args.arch, Path(tmp))
            print(f"{r['project']:<16} errors {r['errors']:>3}  flagged {r['flagged']:>3}  missing library {r['library']:>2}"
                  f"  silent {len(r['silent'])}")
            for s in r["silent"]:
                print(f"    silent: {s}")
            for k in ("errors", "flagged", "library"):
                totals[k] += r[k]
            totals["silent"] += len(r["silent"])
    print(f"{'total':<16} errors {totals['errors']:>3}  flagged {totals['flagged']:>3}  missing library {totals['library']:>2}"
          f"  silent {totals['silent']}  (target ROCm {args.target_rocm}, {args.arch})")
    return 1 if totals["silent"] else 0


if __name__ == "__main__":
    sys.exit(main())
