"""The rendezvous port of a multi-process smoke run is held by porter from before the first rank
starts until the run ends, so another process cannot take it in between.

Before, the launcher bound a free port, closed it, and handed the number to the ranks: another
process (another test, another run) could bind it first and rank 0 failed with "address already
in use" -- the unexplained smoke failure seen once in a full test run.  Here the other process is
the test itself, at the worst moment: right when the first rank is started."""

import errno
import socket
import subprocess

import pytest

pytest.importorskip("torch")

from porter.smoke import SmokeOptions, dist, run_smoke  # noqa: E402


@pytest.mark.slow
def test_nothing_can_take_the_rendezvous_port_while_the_ranks_start(monkeypatch):
    real_popen = subprocess.Popen
    thief: list[socket.socket] = []
    refused: list[int] = []
    ports: list[int] = []

    def popen(cmd, *a, env=None, **k):
        if env and "MASTER_PORT" in env and not thief and not refused:
            ports.append(int(env["MASTER_PORT"]))
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            try:
                s.bind(("127.0.0.1", int(env["MASTER_PORT"])))
                s.listen()
                thief.append(s)  # got it: held for the whole run, as a stranger would
            except OSError as exc:
                refused.append(exc.errno)
                s.close()
        return real_popen(cmd, *a, env=env, **k)

    monkeypatch.setattr(dist.subprocess, "Popen", popen)
    try:
        rep = run_smoke(SmokeOptions(device="cpu", nproc=2, steps=2, batch_size=2, seq_len=32, timeout_s=120,
                                     baseline=False), emit=None)
    finally:
        for s in thief:
            s.close()
    assert refused == [errno.EADDRINUSE], "the port was free for another process while the ranks started"
    assert rep["error"] is None, rep["error"]
    assert rep["world_size"] == 2 and [r["steps_done"] for r in rep["ranks"]] == [2, 2]
    # and the port is given back once the run is over
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # the ranks' closed connections may linger
        s.bind(("127.0.0.1", ports[0]))
