"""End to end: the real `porter` command in tmux, driven the way a person would
(send-keys, capture-pane), on a copy of a sample project."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import time

import pytest

from tui_helpers import tree_bytes

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


SOCKET = f"porter-e2e-{os.getpid()}"  # a private tmux server: other tmux users are not disturbed


def _tmux(*args: str) -> str:
    return subprocess.run(["tmux", "-L", SOCKET, *args], capture_output=True, text=True, timeout=20).stdout


def _wait_for(session: str, text: str, timeout: float = 30.0) -> str:
    deadline = time.monotonic() + timeout
    screen = ""
    while time.monotonic() < deadline:
        screen = _tmux("capture-pane", "-p", "-t", session)
        if text in screen:
            return screen
        time.sleep(0.2)
    raise AssertionError(f"{text!r} never appeared on the screen:\n{screen}")


def _wait_until(session: str, pred, timeout: float = 30.0) -> str:
    deadline = time.monotonic() + timeout
    screen = ""
    while time.monotonic() < deadline:
        screen = _tmux("capture-pane", "-p", "-t", session)
        if pred(screen):
            return screen
        time.sleep(0.2)
    raise AssertionError(f"the expected screen never appeared:\n{screen}")


def _alive(session: str) -> bool:
    return subprocess.run(["tmux", "-L", SOCKET, "has-session", "-t", session], capture_output=True,
                          timeout=20).returncode == 0


def test_review_accept_all_write_and_quit_in_tmux(project_dir):
    before = tree_bytes(project_dir)
    out = project_dir.with_name("warp_reduce-hip")
    session = f"porter-e2e-{os.getpid()}"
    # COLUMNS/LINES: the pane size as the app sees it (tmux started from pytest can report 80x24)
    cmd = (f"cd {shlex.quote(str(project_dir.parent))} && COLUMNS=160 LINES=45 "
           f"{shlex.quote(sys.executable)} -m porter {shlex.quote(project_dir.name)}")
    env_cmd = ["tmux", "-L", SOCKET, "-f", "/dev/null", "new-session", "-d", "-s", session, "-x", "160", "-y", "45", cmd]
    subprocess.run(env_cmd, check=True, timeout=20)
    try:
        # the first screen, every file converted (the header drops "converting")
        _wait_until(session, lambda sc: "files reviewed" in sc and "warp_utils.cuh" in sc
                             and "converting" not in sc and "│" in sc)
        n = sum(1 for p in project_dir.iterdir() if p.suffix in (".cu", ".cuh", ".h") or p.name in
                ("CMakeLists.txt", "Makefile"))
        for _ in range(n):
            _tmux("send-keys", "-t", session, "A")
            time.sleep(0.3)
            _tmux("send-keys", "-t", session, "Tab")
            time.sleep(0.3)
        _wait_for(session, "every file is reviewed")
        _tmux("send-keys", "-t", session, "w")
        _wait_for(session, "wrote")
        _tmux("send-keys", "-t", session, "q")
        deadline = time.monotonic() + 15
        while _alive(session) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not _alive(session), "porter did not quit on q after writing"
    finally:
        if _alive(session):
            _tmux("kill-session", "-t", session)
        _tmux("kill-server")
    for rel in ("main.cu", "reduce_kernels.cu", "reduce_kernels.h", "warp_utils.cuh"):
        text = (out / rel).read_text()
        assert "cuda_runtime.h" not in text and "hip/hip_runtime.h" in text, rel
    assert "hipMalloc" in (out / "main.cu").read_text()
    assert (out / "README.md").exists()
    assert (out / ".porter" / "session.json").exists()
    assert tree_bytes(project_dir) == before  # the source is untouched
