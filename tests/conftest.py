"""Fixtures shared by every test folder: the hipcc compile helper."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess

import pytest


def _hipcc() -> str | None:
    return shutil.which("hipcc")


@pytest.fixture
def hipcc_compile(tmp_path):
    """compile(hip_source_bytes, name) -> (returncode, output); skips (or fails under
    PORTER_REQUIRE_HIPCC=1) when hipcc is missing."""
    exe = _hipcc()
    if exe is None:
        if os.environ.get("PORTER_REQUIRE_HIPCC") == "1":
            pytest.fail("hipcc is required (PORTER_REQUIRE_HIPCC=1) but not on PATH")
        pytest.skip("hipcc not found: the fixed output is not compile-checked")

    def compile(source: bytes, name: str = "snippet") -> tuple[int, str]:
        src = tmp_path / f"{name}.hip"
        src.write_bytes(source)
        cmd = [exe, "--offload-arch=gfx90a", "-c", "-x", "hip", str(src), "-o", str(tmp_path / f"{name}.o")]
        env = dict(os.environ, HIP_PLATFORM="amd")
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env,
                                start_new_session=True)
        try:
            out, _ = proc.communicate(timeout=180)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            pytest.fail(f"hipcc timed out on {name}")
        return proc.returncode, out.decode("utf-8", "replace")

    return compile
