"""Helpers of the reliability tests: run porter as a user does, skip when a tool is missing."""

import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def need(*tools: str) -> None:
    missing = [t for t in tools if not shutil.which(t)]
    if missing:
        if os.environ.get("PORTER_REQUIRE_HIPCC") == "1":
            pytest.fail(f"{', '.join(missing)} required (PORTER_REQUIRE_HIPCC=1) but not installed")
        pytest.skip(f"{', '.join(missing)} not installed")


def porter(*args: str, cwd=None, timeout: float = 300, stdout=subprocess.PIPE) -> subprocess.CompletedProcess:
    """``python -m porter ARGS`` as a user runs it (no shell, time-limited)."""
    env = dict(os.environ, PYTHONPATH=ROOT)
    return subprocess.run([sys.executable, "-m", "porter", *args], cwd=cwd, env=env, stdout=stdout,
                          stderr=subprocess.PIPE, text=True, timeout=timeout)
