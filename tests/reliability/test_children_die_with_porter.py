"""Issue 33 items 8-9: what porter starts (compilers, make, smoke ranks) dies with porter, SIGKILL included,
and SIGTERM of ``porter smoke`` still writes the --json report, marked interrupted, with a message."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from killable import running
from reliability_helpers import ROOT, need



def _wait_for(predicate, what: str, limit: float = 60.0):
    deadline = time.monotonic() + limit
    while not predicate():
        if time.monotonic() > deadline:
            pytest.fail(f"waited {limit:.0f} s for {what}")
        time.sleep(0.05)


def _start(args, cwd, **kw):
    env = dict(os.environ, PYTHONPATH=ROOT)
    return subprocess.Popen([sys.executable, "-m", "porter", *args], cwd=cwd, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **kw)


def _slow_make_tree(root):
    """A converted tree whose Makefile's recipe stands for a long compile: it records its pid, then waits."""
    root.mkdir()
    (root / "main.cpp").write_text("int main() { return 0; }\n")
    (root / "Makefile").write_text("all:\n\techo $$$$ > compiler.pid; exec sleep 600\n")
    return root


def _kill_later(pid):
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_a_compile_dies_with_porter_build(tmp_path, sig):
    need("hipcc", "make")
    tree = _slow_make_tree(tmp_path / "port")
    p = _start(["build", str(tree), "--arch", "gfx90a", "--toolchain", "hipcc", "--json"], tmp_path)
    pidfile = tree / "compiler.pid"
    _wait_for(lambda: pidfile.is_file() and pidfile.read_text().strip(), "the compile to start")
    compiler = int(pidfile.read_text())
    try:
        p.send_signal(sig)
        p.communicate(timeout=60)
        _wait_for(lambda: not running(compiler), "the compiler to die with porter", limit=20)
    finally:
        _kill_later(compiler)


def _children(pid: int) -> list[int]:
    out = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat") as fh:
                    if int(fh.read().rsplit(")", 1)[1].split()[1]) == pid:
                        out.append(int(name))
            except (OSError, ValueError, IndexError):
                continue
    return out


def _smoke(tmp_path):
    pytest.importorskip("torch")
    report = tmp_path / "smoke.json"
    p = _start(["smoke", "--nproc", "2", "--device", "cpu", "--steps", "5000", "--no-baseline", "--json",
                str(report)], tmp_path)
    line = ""
    while "step " not in line:  # the ranks are training
        line = p.stdout.readline()
        if not line and p.poll() is not None:
            pytest.fail(f"smoke ended before a step: {p.stderr.read()[-500:]}")
    ranks = _children(p.pid)
    assert len(ranks) >= 2
    return p, ranks, report


def test_smoke_ranks_die_with_a_killed_launcher(tmp_path):
    p, ranks, _ = _smoke(tmp_path)
    try:
        p.kill()
        p.communicate(timeout=30)
        _wait_for(lambda: not any(running(r) for r in ranks), "the ranks to die with the launcher", limit=5)  # they lingered about 10 s
    finally:
        for r in ranks:
            _kill_later(r)


def test_smoke_sigterm_writes_the_report_marked_interrupted(tmp_path):
    p, ranks, report = _smoke(tmp_path)
    try:
        p.terminate()
        out, err = p.communicate(timeout=60)
        assert p.returncode == 130
        assert "interrupted" in err and "ranks stopped" in err
        rep = json.loads(report.read_text())
        assert rep["verdict"] == "interrupted" and rep["steps_done"] >= 1
        _wait_for(lambda: not any(running(r) for r in ranks), "the ranks to stop", limit=20)
    finally:
        for r in ranks:
            _kill_later(r)
