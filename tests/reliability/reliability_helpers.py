"""Helpers of the reliability tests: run porter as a user does, skip when a tool is missing."""

import contextlib
import os
import shutil
import subprocess
import sys
import warnings

import pytest
from required_tools import require

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def need(*tools: str) -> None:
    missing = [t for t in tools if not shutil.which(t)]
    require(not missing, f"{', '.join(missing)} not installed")


def porter(*args: str, cwd=None, timeout: float = 300, stdout=subprocess.PIPE) -> subprocess.CompletedProcess:
    """``python -m porter ARGS`` as a user runs it (no shell, time-limited)."""
    env = dict(os.environ, PYTHONPATH=ROOT)
    return subprocess.run([sys.executable, "-m", "porter", *args], cwd=cwd, env=env, stdout=stdout,
                          stderr=subprocess.PIPE, text=True, timeout=timeout)


@contextlib.contextmanager
def tmpfs(where, size: int):
    """A real tmpfs of ``size`` bytes mounted at ``where`` (a new folder) for the test, unmounted after it;
    the test skips with the reason when this process may not mount (not root, no CAP_SYS_ADMIN, a container)."""
    os.makedirs(where, exist_ok=True)
    mount, umount = shutil.which("mount"), shutil.which("umount")
    if not mount or not umount:
        pytest.skip("mount/umount not installed: no tmpfs for a full-disk test")
    r = subprocess.run([mount, "-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(where)],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=30)
    if r.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here (a full-disk test needs root): {r.stdout.strip()[:200]}")
    try:
        yield where
    finally:
        r = subprocess.run([umount, str(where)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=60)
        if r.returncode != 0:  # busy (a process still exiting holds a file on it): detached now, freed when it ends
            r = subprocess.run([umount, "--lazy", str(where)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, timeout=60)
        if r.returncode != 0:  # never silent: a mount left behind outlives the test
            warnings.warn(f"tmpfs at {where} left mounted: {r.stdout.strip()[:200]}", stacklevel=1)


def pages(path) -> int:
    """The bytes a tmpfs needs for ``path`` or the files under it (each file's size rounded up to whole pages)."""
    page = os.sysconf("SC_PAGE_SIZE")
    if os.path.isfile(path):
        return -(-os.path.getsize(path) // page) * page
    total = 0
    for dirpath, _, names in os.walk(path):
        for name in names:
            total += -(-os.path.getsize(os.path.join(dirpath, name)) // page) * page
    return total
