"""A rank that crashes while leaving the process group, after every step ran and its report was
written, is a warning that names the rank -- not a failed run; a rank that crashes before its
report is still a failure.  gloo's teardown aborts a rank now and then ("terminate called without
an active exception"), which made a passing two-rank run fail at random in the test suite.

The ranks here are small stand-ins for porter.smoke.worker (the launcher's side is under test):
each writes a finished report the way the worker does, then exits or aborts."""

import subprocess
import sys

import pytest

pytest.importorskip("torch")

from porter.smoke import SmokeOptions, dist  # noqa: E402

RANK = r"""
import os, sys
from porter.smoke import report as srep
rank = int(os.environ["RANK"])
mode = sys.argv[1]
if mode == "abort-before-report" and rank == 1:
    print("terminate called without an active exception", flush=True)
    os.abort()
if rank == 0:
    print("step 1/2 loss 2.5000 time 0.010s", flush=True)
    print("step 2/2 loss 2.4000 time 0.010s", flush=True)
rep = srep.empty_report(steps=2, steps_done=2, batch_size=2, seq_len=32, world_size=2,
                        losses=[2.5, 2.4], step_times_s=[0.01, 0.01], error=None)
rep["ranks"] = [{"rank": rank, "pid": os.getpid()}]
srep.write_json(rep, os.environ["PORTER_SMOKE_RESULT"])
if mode == "abort-after-report" and rank == 1:
    print("terminate called without an active exception", flush=True)
    os.abort()
"""


def _run(monkeypatch, mode: str) -> dict:
    real_popen = subprocess.Popen

    def popen(cmd, *a, **k):
        return real_popen([sys.executable, "-c", RANK, mode], *a, **k)

    monkeypatch.setattr(dist.subprocess, "Popen", popen)
    opts = SmokeOptions(device="cpu", nproc=2, steps=2, batch_size=2, seq_len=32, timeout_s=60, baseline=False)
    return dist.run_ranks(opts, 2, emit=None, t0=0.0, gpu=False, timeout_s=60)


def test_a_crash_after_the_report_is_a_warning_naming_the_rank(monkeypatch):
    rep = _run(monkeypatch, "abort-after-report")
    assert rep["error"] is None and rep["failed_rank"] is None
    assert [r["steps_done"] for r in rep["ranks"]] == [2, 2]
    assert rep["ranks"][1]["exit"] == "killed by SIGABRT"
    warning = [w for w in rep["warnings"] if w.startswith("rank 1 ")]
    assert warning and "SIGABRT" in warning[0] and "leaving the process group" in warning[0]
    assert "terminate called" in warning[0]


def test_a_crash_before_the_report_still_fails_the_run(monkeypatch):
    rep = _run(monkeypatch, "abort-before-report")
    assert rep["failed_rank"] == 1
    assert "rank 1 killed by SIGABRT" in rep["error"]
    assert not any("leaving the process group" in w for w in rep["warnings"])


def test_clean_ranks_leave_no_warning(monkeypatch):
    rep = _run(monkeypatch, "clean")
    assert rep["error"] is None and rep["failed_rank"] is None
    assert not any(w.startswith("rank ") for w in rep["warnings"])
