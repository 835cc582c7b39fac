"""`porter convert` of a tree killed from outside: no worker outlives it (a CI runner that sends
SIGTERM, or SIGKILL after a time-out, must not hang on workers still holding its pipes)."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

KERNEL = b"#include <cuda_runtime.h>\n__global__ void k(float* a) { a[threadIdx.x] = 0; }\nint main() { cudaFree(0); }\n"


def _tree(root: Path, files: int = 1500) -> Path:
    for i in range(files):
        d = root / f"d{i // 50:02d}" / f"e{i:04d}"
        d.mkdir(parents=True)
        (d / "k.cu").write_bytes(KERNEL * 40)
    return root


def _children(pid: int) -> list[int]:
    kids = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        kids += [int(x) for x in (task / "children").read_text().split()]
    return kids


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in ("Z", "X")  # a zombie has exited (nobody reaped it yet)


def _start(src: Path, out: Path):
    p = subprocess.Popen([sys.executable, "-m", "porter", "convert", str(src), "-o", str(out), "-q", "-j", "2",
                          "--print-stats"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.time() + 60
    while time.time() < deadline and p.poll() is None and (len(_children(p.pid)) < 2 or not any(out.rglob("k.cu"))):
        time.sleep(0.02)
    assert p.poll() is None, "the conversion ended before it could be killed; make the tree bigger"
    workers = _children(p.pid)
    assert len(workers) >= 2
    return p, workers


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads /proc to find the workers")
def test_sigkill_of_the_parent_takes_the_workers_with_it(tmp_path):
    p, workers = _start(_tree(tmp_path / "src"), tmp_path / "out")
    os.kill(p.pid, signal.SIGKILL)
    p.communicate(timeout=20)  # returns only when no worker holds the pipes any more
    deadline = time.time() + 10
    while any(map(_alive, workers)) and time.time() < deadline:
        time.sleep(0.05)
    assert not any(map(_alive, workers))


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads /proc to find the workers")
def test_sigterm_stops_the_run_as_ctrl_c_does(tmp_path):
    from porter.project.convert import ConvertOptions, convert_bytes

    out = tmp_path / "out"
    p, workers = _start(_tree(tmp_path / "src"), out)
    os.kill(p.pid, signal.SIGTERM)  # the parent alone, as a CI runner or `timeout` sends it
    _, err = p.communicate(timeout=20)
    assert p.returncode == 143 and err.decode().strip() == "porter: terminated"
    deadline = time.time() + 10
    while any(map(_alive, workers)) and time.time() < deadline:
        time.sleep(0.05)
    assert not any(map(_alive, workers))
    assert not list(out.rglob("*.tmp"))
    expected = convert_bytes(KERNEL * 40, "k.cu", ConvertOptions(findings=False))[0]
    written = list(out.rglob("k.cu"))
    assert written and all(f.read_bytes() == expected for f in written)
