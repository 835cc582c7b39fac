"""Run a test's subprocess in its own process group, killed whole when it runs past its time."""

from __future__ import annotations

import os
import signal
import subprocess

import pytest


def run(cmd: list[str], timeout: float, env: dict | None = None, what: str = "", cwd=None) -> tuple[int, str]:
    """(exit code, stdout and stderr together) of ``cmd``; the test fails when it times out."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, start_new_session=True,
                            cwd=cwd)
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail(f"{what or cmd[0]} timed out after {timeout:.0f} s")
    return proc.returncode, out.decode("utf-8", "replace")


def running(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie waiting for its reaper does not count)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False
