"""Multi-process runs on CPU through gloo: two ranks, scaling efficiency, a rank that dies."""

import time

import pytest

pytest.importorskip("torch")

from porter.smoke import SmokeOptions, report as srep, run_smoke  # noqa: E402


@pytest.mark.slow
def test_two_cpu_processes_report_world_size_and_scaling():
    lines = []
    rep = run_smoke(SmokeOptions(device="cpu", nproc=2, steps=3, batch_size=2, seq_len=64, timeout_s=180), emit=lines.append)
    assert srep.validate(rep) == []
    assert rep["error"] is None, rep["error"]
    assert rep["world_size"] == 2 and rep["steps_done"] == 3
    assert [r["rank"] for r in rep["ranks"]] == [0, 1] and all(r["steps_done"] == 3 for r in rep["ranks"])
    assert isinstance(rep["scaling_efficiency"], float) and rep["scaling_efficiency"] > 0
    assert rep["baseline_step_time_s"] > 0
    assert rep["tokens_per_s"] == pytest.approx(2 * 2 * 64 / rep["step_time_s"], rel=1e-3)
    assert rep["allreduce"]["busbw_gbps"] > 0
    # only rank 0 prints progress, one line per step
    assert [srep.parse_progress_line(ln)["step"] for ln in lines if srep.parse_progress_line(ln)] == [1, 2, 3]


@pytest.mark.slow
def test_a_dying_rank_is_named_and_nothing_hangs(monkeypatch):
    monkeypatch.setenv("PORTER_SMOKE_KILL_RANK", "1:1")
    t0 = time.monotonic()
    rep = run_smoke(SmokeOptions(device="cpu", nproc=2, steps=20, batch_size=2, seq_len=64, timeout_s=120), emit=None)
    assert time.monotonic() - t0 < 100
    assert rep["verdict"] == "fail" and rep["failed_rank"] == 1
    assert rep["error"].startswith("rank 1 killed by SIGKILL after step 1")
    assert "other ranks were stopped" in rep["error"]
    assert rep["steps_done"] == 1  # rank 0's partial figures are kept
    assert rep["scaling_efficiency"] is None


def test_a_run_past_its_time_limit_is_stopped():
    t0 = time.monotonic()
    rep = run_smoke(SmokeOptions(device="cpu", nproc=2, steps=1000, timeout_s=2), emit=None)
    assert time.monotonic() - t0 < 30
    assert rep["verdict"] == "fail" and rep["error"] == "timed out after 2 s; all ranks stopped"
