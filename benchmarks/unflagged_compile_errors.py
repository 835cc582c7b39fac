"""Compile failures no finding predicts, on AMD's own conformance data (hipify-clang's lit tests).

    .venv/bin/python benchmarks/unflagged_compile_errors.py --tests DIR [--target-rocm X.Y]
        [--toolchain hipcc|clang] [--arch ARCH] [-I DIR ...] [--json FILE] [-v]

DIR holds test files of ROCm/HIPIFY's ``tests/unit_tests`` (fetch them yourself: they are not part of
porter).  Each ``.cu``/``.cpp`` file is translated as ``porter convert`` would (its ``// RUN:`` line's
``--roc`` and ``--hip-kernel-execution-syntax``; the target ROCm given here) and scanned with the same
options; the port is then compiled:

- ``--toolchain hipcc``: ``hipcc --offload-arch=ARCH -fsyntax-only`` (the front end: every error, no
  device code);
- ``--toolchain clang``: the plain clang++ porter's builds use for gfx942 (``-c``: device code is
  generated for a file that gets that far, so a back-end failure counts too).

Each error of the port is mapped back to its CUDA line (lines the translator inserts are skipped over)
and counted as *predicted* when a finding of the scan is on that line (or spans it: a finding over at most
predicted.SPAN_LINES lines, such as a call written over several), *unflagged* otherwise.  A file
whose port cannot find a header (a library the machine lacks, a header the test folder does not hold)
is *skipped* and counted apart: its errors would say nothing about porter.  ``-I`` adds include
folders (``-isystem``), e.g. library headers extracted from packages this machine does not install.

Printed: files compiled / skipped (with the missing headers), errors, unflagged errors and the files
holding them, then each unflagged error (file, CUDA line, message) with ``-v``.  The figure the project
aims at is 0 unflagged errors.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import predicted  # noqa: E402
from porter import proc  # noqa: E402
from porter.build.toolchain import detect_toolchain  # noqa: E402
from porter.findings import scan  # noqa: E402
from porter.translate import TranslateOptions, translate  # noqa: E402

COMPILE_TIMEOUT_S = 300
RUN = re.compile(r"//\s*RUN:(.*)$", re.M)


def _lines_of(finding) -> range:
    return predicted.lines_of(finding.line, finding.end_line)


def options_of(text: str, target: str | None) -> TranslateOptions:
    """The translation options of a test file's RUN line (as hipify_conformance.py reads them)."""
    m = RUN.search(text)
    words = m.group(1).split() if m else []
    return TranslateOptions(target_rocm=target, roc="-roc" in words or "--roc" in words,
                            kernel_launch_syntax=any(w.lstrip("-") == "hip-kernel-execution-syntax" for w in words))


def compile_argv(tc, arch: str, port: Path, test_dir: Path, includes: list[str]) -> list[str]:
    extra = [a for d in includes for a in ("-isystem", d)]
    if tc.compiler_kind == "clang":
        return [*tc.compile_prefix(arch), "-c", "-o", os.devnull, "-ferror-limit=0", "-I", str(test_dir), *extra,
                str(port)]
    return [*tc.compile_prefix(arch), "-fsyntax-only", "-ferror-limit=0", "-x", "hip", "-I", str(test_dir), *extra,
            str(port)]


def measure(tests: Path, target: str | None, toolchain: str, arch: str, includes: list[str]) -> dict:
    tc = detect_toolchain(arch, toolchain)
    if not tc.compiler:
        raise SystemExit(f"error: no {toolchain} toolchain for {arch}: {tc.reason}")
    env = dict(os.environ, HIP_PLATFORM="amd")
    files = sorted(p for p in tests.rglob("*") if p.is_file() and p.suffix in (".cu", ".cpp"))
    out: dict = {"toolchain": tc.name, "arch": arch,
                 "target_rocm": target, "files": {}}
    with tempfile.TemporaryDirectory(prefix="porter-unflagged-") as tmp:
        for n, path in enumerate(files):
            rel = path.relative_to(tests).as_posix()
            source = path.read_bytes()
            opts = options_of(source.decode("utf-8", "replace"), target)
            result = translate(source, str(path), opts)
            port = Path(tmp) / f"{n}-{path.stem}.hip"
            port.write_bytes(result.output)
            r = proc.run(compile_argv(tc, arch, port, path.parent, includes), timeout=COMPILE_TIMEOUT_S, env=env)
            if r.returncode is None or r.timed_out:
                out["files"][rel] = {"skipped": r.error or f"the compiler ran past {COMPILE_TIMEOUT_S} s"}
                continue
            errors = [(int(m.group(1)), m.group(2)) for m in
                      re.finditer(rf"^{re.escape(str(port))}:(\d+):\d+: (?:fatal )?error: (.*)$", r.stderr, re.M)]
            missing = [msg for _, msg in errors if msg.endswith("file not found")]
            if missing:
                out["files"][rel] = {"skipped": missing[0]}
                continue
            flagged = {n for f in scan(source, str(path), options=opts) for n in _lines_of(f)}
            unflagged = [(line, msg) for line, msg in ((result.output_line_to_source(h), m) for h, m in errors)
                         if line not in flagged]
            out["files"][rel] = {"errors": len(errors), "unflagged": unflagged}
    return out


def summary(res: dict) -> dict:
    done = {k: v for k, v in res["files"].items() if "errors" in v}
    skipped = {k: v["skipped"] for k, v in res["files"].items() if "skipped" in v}
    return {"compiled": len(done), "skipped": len(skipped), "errors": sum(v["errors"] for v in done.values()),
            "unflagged": sum(len(v["unflagged"]) for v in done.values()),
            "unflagged_files": sorted(k for k, v in done.items() if v["unflagged"]),
            "missing": Counter(skipped.values()).most_common()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tests", required=True, type=Path, help="a copy of ROCm/HIPIFY's tests/unit_tests")
    ap.add_argument("--target-rocm", default="5.2", help="the ROCm release the port targets (default 5.2: "
                    "the headers installed here)")
    ap.add_argument("--toolchain", choices=("hipcc", "clang"), default="hipcc")
    ap.add_argument("--arch", help="default: gfx90a with hipcc, gfx942 with clang")
    ap.add_argument("-I", dest="includes", action="append", default=[], help="more include folders (-isystem)")
    ap.add_argument("--json", type=Path, help="also write the per-file results here")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every unflagged error")
    a = ap.parse_args(argv)
    if not a.tests.is_dir():
        print(f"error: {a.tests} is not a folder", file=sys.stderr)
        return 2
    arch = a.arch or ("gfx942" if a.toolchain == "clang" else "gfx90a")
    res = measure(a.tests, a.target_rocm, a.toolchain, arch, a.includes)
    s = summary(res)
    print(f"{res['toolchain']}, {arch}, --target-rocm {a.target_rocm}: {s['compiled']} files compiled, "
          f"{s['skipped']} skipped (a header not found)")
    print(f"errors {s['errors']}, on lines no finding flags {s['unflagged']}, in {len(s['unflagged_files'])} files: "
          + ", ".join(s["unflagged_files"]))
    if a.verbose:
        for rel, v in res["files"].items():
            for line, msg in v.get("unflagged", ()):
                print(f"  {rel}:{line}: {msg}")
        for msg, count in s["missing"]:
            print(f"  skipped x{count}: {msg}")
    if a.json:
        a.json.write_text(json.dumps({"summary": s, **res}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
