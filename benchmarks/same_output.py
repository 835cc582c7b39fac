"""Whether porter's output is byte-identical before and after a change (a check for performance work,
not a test): `porter convert` of each input and `porter scan --format json` of it, hashed per file.

    .venv/bin/python benchmarks/same_output.py save BASELINE.json [INPUT ...]
    .venv/bin/python benchmarks/same_output.py check BASELINE.json [INPUT ...]

INPUT: a file or a folder (default: every sample project).  `save` records the hashes, `check`
compares and prints each input whose output differs; exit 1 when one does.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT = 600


def _porter(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "porter", *args], capture_output=True, env=env, timeout=TIMEOUT)


def _tree_hash(root: Path) -> dict[str, str]:
    if root.is_file():
        return {root.name: hashlib.sha256(root.read_bytes()).hexdigest()}
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file() and ".porter" not in p.parts}


def outputs(target: Path) -> dict:
    with tempfile.TemporaryDirectory(prefix="porter-same-") as tmp:
        out = Path(tmp) / (target.name if target.is_dir() else target.name + ".hip")
        conv = _porter("convert", str(target), "-o", str(out), "-q", "-j", "1")
        converted = _tree_hash(out) if out.exists() else {}
    scan = _porter("scan", str(target), "--format", "json", "-j", "1")
    return {"convert_rc": conv.returncode, "convert": converted,
            "convert_stderr": hashlib.sha256(conv.stderr).hexdigest(),
            "scan_rc": scan.returncode, "scan": hashlib.sha256(scan.stdout).hexdigest()}


def main() -> int:
    if len(sys.argv) < 3 or sys.argv[1] not in ("save", "check"):
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    mode, baseline = sys.argv[1], Path(sys.argv[2])
    inputs = [Path(p) for p in sys.argv[3:]] or sorted(p for p in (ROOT / "sample_projects").iterdir() if p.is_dir())
    got = {str(p.resolve()): outputs(p) for p in inputs}
    if mode == "save":
        tmp = baseline.with_name(baseline.name + ".tmp")
        tmp.write_text(json.dumps(got, indent=1, sort_keys=True) + "\n")
        os.replace(tmp, baseline)
        print(f"{len(got)} inputs recorded in {baseline}")
        return 0
    before = json.loads(baseline.read_text())
    differ = [k for k in got if before.get(k) != got[k]]
    for k in differ:
        old = before.get(k) or {}
        what = [f for f in ("convert_rc", "convert", "convert_stderr", "scan_rc", "scan") if old.get(f) != got[k][f]]
        print(f"DIFFERS {k}: {', '.join(what)}")
    print(f"{len(got) - len(differ)} of {len(got)} inputs byte-identical")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
