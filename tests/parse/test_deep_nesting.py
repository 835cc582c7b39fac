"""Code nested 10,000 conditionals deep (issue 33 item 10, issue 34): `porter scan` finishes within a
generous bound enforced on the process (a time-out and an address-space limit), reports what lies
outside the deep part, and says in one line what it did not analyse."""

import os
import re
import resource
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DEPTH = 10_000
LIMIT_S = 120  # the scan took 9-239 s and 2.1 GB before; a few seconds and < 100 MB now
LIMIT_AS = 1 << 30  # address space of the scanning process: 1 GiB


def _nested(depth: int, inner: str) -> str:
    """``depth`` nested ``#ifdef/#else`` groups, a declaration in each branch, ``inner`` at the
    bottom, then a shallow kernel after every ``#endif``."""
    parts = [f"#ifdef FEATURE_{i}\nint on_{i} = {i};\n#else\n" for i in range(depth)]
    parts.append(inner)
    parts.append("#endif\n" * depth)
    # CUDA's full 32-bit member mask: on a 64-lane AMD wave a *_sync shuffle needs a 64-bit mask
    parts.append("__global__ void shallow(float *x) {\n"
                 "  x[threadIdx.x] = __shfl_down_sync(0xffffffff, x[threadIdx.x], 1);\n"
                 "}\n")
    return "".join(parts)


def _limit():
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT_AS, LIMIT_AS))


def _scan(path: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "porter", "scan", str(path), "--format", "json", "-j", "1"],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=LIMIT_S,
                          preexec_fn=_limit)


@pytest.mark.slow
def test_ten_thousand_nested_ifdefs_scan_bounded_and_say_what_was_not_analysed(tmp_path):
    # the kernel at the bottom launches work from device code: CUDA's device runtime (dynamic
    # parallelism), which HIP lacks on AMD GPUs; nested 10,000 deep it is past what porter analyses
    deep = ("__global__ void deep(float *x) {\n"
            "  x[0] = __shfl_down_sync(0xffffffff, x[0], 1);\n"
            "  cudaDeviceSynchronize();\n"
            "}\n")
    src = tmp_path / "nested.cu"
    src.write_text(_nested(DEPTH, deep))
    assert src.stat().st_size > 360_000  # the file: 368 KB
    done = _scan(src)
    assert done.returncode in (0, 1), done.stderr[-2000:]
    import json
    findings = json.loads(done.stdout)["findings"]
    lines = src.read_text().splitlines()
    shallow_line = next(i for i, t in enumerate(lines, 1) if "shallow" in t) + 1
    # what lies outside the deep part is still reported: the shallow kernel's 32-bit mask
    assert any(f["line"] == shallow_line and "mask" in f["message"] for f in findings), findings
    # no internal error (a rule that failed: recursion, memory) anywhere
    assert not [f for f in findings if f["rule"] == "PORT900"], findings
    notes = [t for t in done.stderr.splitlines() if t.startswith("porter: note:")]
    assert len(notes) == 1, done.stderr
    assert re.search(r"not analysed: \d+ places nested deeper than \d+ syntax levels \(lines \d+-\d+\)", notes[0]), notes
    # the deep kernel's lines fall inside the range the note names
    first, last = map(int, re.search(r"lines (\d+)-(\d+)", notes[0]).groups())
    deep_line = next(i for i, t in enumerate(lines, 1) if "cudaDeviceSynchronize" in t)
    assert first <= deep_line <= last


def test_ordinary_nesting_is_analysed_whole_and_says_nothing(tmp_path):
    src = tmp_path / "nested.cu"
    deep = ("__global__ void deep(float *x) {\n"
            "  x[0] = __shfl_down_sync(0xffffffff, x[0], 1);\n"
            "}\n")
    src.write_text(_nested(50, deep))  # 50 levels: more than real code nests (26 syntax levels at most
    done = _scan(src)                   # in the samples and the HeCBench/wave64 sources)
    assert done.returncode in (0, 1), done.stderr[-2000:]
    import json
    findings = json.loads(done.stdout)["findings"]
    lines = src.read_text().splitlines()
    deep_line = next(i for i, t in enumerate(lines, 1) if "__shfl_down_sync" in t)
    assert any(f["line"] == deep_line for f in findings), findings
    assert "porter: note:" not in done.stderr
