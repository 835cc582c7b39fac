"""porter smoke on several nodes (issue 31 item 7): torchrun's c10d shape (node 0 holds the
rendezvous store at --rdzv-endpoint, every node's ranks connect to it), run for real on two hosts
made on this machine (two network namespaces joined by a veth pair, gloo on the CPU, one porter
process per namespace); the environment LLaMA-Factory users set (NNODES, NODE_RANK, MASTER_ADDR)
is never ignored; what cannot be honoured is refused in one line."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SMOKE = [sys.executable, "-m", "porter", "smoke", "--device", "cpu", "--steps", "3", "--no-baseline"]


def _env(**extra) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("NNODES", "NODE_RANK", "MASTER_ADDR", "MASTER_PORT")}
    return dict(env, PYTHONPATH=ROOT, **extra)


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, timeout=30)


@pytest.fixture
def two_hosts():
    """Two network namespaces, 10.77.N.1 and 10.77.N.2 on a veth pair; removed afterwards."""
    if os.geteuid() != 0 or shutil.which("ip") is None:
        pytest.skip("needs root and iproute2's ip (network namespaces); CI runs as root")
    tag = f"{os.getpid() % 100000}"
    a, b, net = f"pta{tag}", f"ptb{tag}", f"10.77.{os.getpid() % 250}"
    try:
        _ip("netns", "add", a)
        _ip("netns", "add", b)
        _ip("link", "add", f"va{tag}", "type", "veth", "peer", "name", f"vb{tag}")
        _ip("link", "set", f"va{tag}", "netns", a)
        _ip("link", "set", f"vb{tag}", "netns", b)
        for ns, dev, addr in ((a, f"va{tag}", f"{net}.1"), (b, f"vb{tag}", f"{net}.2")):
            _ip("-n", ns, "addr", "add", f"{addr}/24", "dev", dev)
            _ip("-n", ns, "link", "set", dev, "up")
            _ip("-n", ns, "link", "set", "lo", "up")
    except subprocess.CalledProcessError as exc:
        for ns in (a, b):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)
        pytest.skip(f"network namespaces unavailable here: {exc.stderr.decode(errors='replace').strip()}")
    yield (a, f"{net}.1"), (b, f"{net}.2")
    for ns in (a, b):
        subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=30)


def test_two_hosts_train_together_and_node_0_reports_both(two_hosts, tmp_path):
    (ns_a, addr_a), (ns_b, addr_b) = two_hosts
    endpoint = f"{addr_a}:29555"
    procs = []
    for ns, node in ((ns_a, 0), (ns_b, 1)):
        argv = ["ip", "netns", "exec", ns, *SMOKE, "--nproc", "1", "--nnodes", "2", "--node-rank", str(node),
                "--rdzv-endpoint", endpoint, "--timeout", "240", "--json", str(tmp_path / f"node{node}.json")]
        procs.append(subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT,
                                      env=_env()))
    outs = [p.communicate(timeout=300)[0] for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    rep = json.loads((tmp_path / "node0.json").read_text())
    assert rep["verdict"] == "pass" and rep["world_size"] == 2
    assert [(n["node_rank"], n["address"], n["ranks"], n["steps_done"]) for n in rep["nodes"]] == \
        [(0, addr_a, [0], 3), (1, addr_b, [1], 3)]
    assert rep["allreduce"] is not None  # the all-reduce crossed the veth pair
    assert f"node 1      {addr_b}" in outs[0]
    other = json.loads((tmp_path / "node1.json").read_text())
    assert other["verdict"] == "pass" and any("node 1 of 2" in w for w in other["warnings"])


def test_multi_node_variables_are_honoured_not_run_as_one_node(tmp_path):
    with socket.socket() as s:  # a port nobody listens on: node 0 never came
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    p = subprocess.run([*SMOKE, "--nproc", "2", "--timeout", "20", "--json", str(tmp_path / "r.json")],
                       capture_output=True, text=True, cwd=ROOT, timeout=240,
                       env=_env(NNODES="2", NODE_RANK="1", MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port)))
    assert p.returncode == 1, p.stdout[-1500:] + p.stderr[-1500:]
    rep = json.loads((tmp_path / "r.json").read_text())
    assert rep["verdict"] == "fail" and rep["world_size"] == 4
    assert f"--rdzv-endpoint 127.0.0.1:{port}" in rep["error"]


@pytest.mark.parametrize("args, said", [
    (["--nnodes", "2"], "needs --rdzv-endpoint HOST:PORT"),
    (["--nnodes", "2", "--node-rank", "2", "--rdzv-endpoint", "10.0.0.1:29500"], "--node-rank 2 is not in 0..1"),
    (["--nnodes", "2", "--rdzv-endpoint", "10.0.0.1"], "needs --rdzv-endpoint HOST:PORT"),
    (["--nnodes", "2", "--rdzv-endpoint", "10.0.0.1:29500", "--backend", "llamafactory", "--config", "x.yaml"],
     "run the built-in loop only"),
])
def test_what_cannot_be_honoured_is_one_line(args, said):
    p = subprocess.run([*SMOKE, *args], capture_output=True, text=True, cwd=ROOT, timeout=120, env=_env())
    assert p.returncode == 2 and said in p.stderr and len(p.stderr.strip().splitlines()) == 1, p.stderr
