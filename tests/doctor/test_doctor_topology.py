"""porter doctor's multi-GPU check: which GPU pairs are not on xGMI (read from stand-in amd-smi /
rocm-smi executables on PATH that print the shapes AMD's tools print), and the RCCL settings that
keep traffic off peer-to-peer links (issue 31 item 8)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from porter.doctor.topology import comm_problems, parse_amd_smi, parse_rocm_smi

ROOT = Path(__file__).resolve().parents[2]


def _amd_smi_json(n: int, pcie_gpu: int | None = None, old: bool = False) -> str:
    """`amd-smi topology --json` for n GPUs; ``pcie_gpu`` reaches the others over PCIe only.
    ``old``: ROCm 6.0-6.1's spelling (0 on the diagonal, "XMGI")."""
    out = []
    for a in range(n):
        types = {}
        for b in range(n):
            if a == b:
                types[f"gpu_{b}"] = 0 if old else "SELF"
            elif pcie_gpu in (a, b):
                types[f"gpu_{b}"] = "PCIE"
            else:
                types[f"gpu_{b}"] = "XMGI" if old else "XGMI"
        out.append({"gpu": a, "bdf": f"0000:{0x0c + a:02x}:00.0",
                    "weight": {f"gpu_{b}": 0 if a == b else (15 if "G" in types[f"gpu_{b}"] else 40) for b in range(n)},
                    "hops": {f"gpu_{b}": 0 if a == b else 1 for b in range(n)}, "link_type": types})
    return json.dumps(out, indent=4)


ROCM_SMI_TOPO = """\
============================ ROCm System Management Interface ============================
================================ Weight between two GPUs =================================
       GPU0         GPU1         GPU2         GPU3
GPU0   0            15           15           40
GPU1   15           0            15           40
GPU2   15           15           0            40
GPU3   40           40           40           0
=============================== Link Type between two GPUs ===============================
       GPU0         GPU1         GPU2         GPU3
GPU0   0            XGMI         XGMI         PCIE
GPU1   XGMI         0            XGMI         PCIE
GPU2   XGMI         XGMI         0            PCIE
GPU3   PCIE         PCIE         PCIE         0
================================== End of ROCm SMI Log ===================================
"""


def _tool(bin_dir: Path, name: str, argv: list[str], stdout: str) -> None:
    """An executable ``name`` that prints ``stdout`` when called with ``argv`` and fails otherwise."""
    bin_dir.mkdir(exist_ok=True)
    data = bin_dir / f"{name}.out"
    data.write_text(stdout)
    script = bin_dir / name
    script.write_text(f"#!{sys.executable}\nimport sys\n"
                      f"if sys.argv[1:] != {argv!r}:\n    sys.exit(2)\n"
                      f"sys.stdout.write(open({str(data)!r}).read())\n")
    script.chmod(0o755)


def _doctor(bin_dir: Path, **env) -> dict:
    full = dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}", PYTHONPATH=str(ROOT), **env)
    for k in ("NCCL_P2P_DISABLE", "NCCL_SOCKET_IFNAME", "NCCL_P2P_LEVEL"):
        if k not in env:
            full.pop(k, None)
    p = subprocess.run([sys.executable, "-m", "porter", "doctor", "--json"], capture_output=True, text=True,
                       env=full, timeout=300)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def test_eight_gpus_all_on_xgmi_read_from_amd_smi(tmp_path):
    _tool(tmp_path / "bin", "amd-smi", ["topology", "--json"], _amd_smi_json(8))
    info = _doctor(tmp_path / "bin")
    topo = info["topology"]
    assert topo["source"] == "amd-smi topology --json" and topo["not_xgmi"] == []
    assert len(topo["links"]) == 8 * 7
    assert "multi-GPU: ok (all pairs of the 8 GPUs on xGMI" in info["verdict"]["line"]


def test_a_gpu_on_pcie_is_named_with_each_pair(tmp_path):
    _tool(tmp_path / "bin", "amd-smi", ["topology", "--json"], _amd_smi_json(4, pcie_gpu=2, old=True))
    info = _doctor(tmp_path / "bin")
    assert info["topology"]["not_xgmi"] == [[0, 2, "PCIE"], [1, 2, "PCIE"], [2, 3, "PCIE"]]
    assert "multi-GPU: DEGRADED by 3 GPU pair(s) not linked by xGMI" in info["verdict"]["line"]
    assert "GPU0-GPU2 PCIE, GPU1-GPU2 PCIE, GPU2-GPU3 PCIE" in info["verdict"]["multi_gpu"][0]


def test_rocm_smi_is_read_where_amd_smi_is_missing(tmp_path):
    _tool(tmp_path / "bin", "rocm-smi", ["--showtopo"], ROCM_SMI_TOPO)
    topo = _doctor(tmp_path / "bin")["topology"]
    assert topo["source"] == "rocm-smi --showtopo"
    assert topo["not_xgmi"] == [[0, 3, "PCIE"], [1, 3, "PCIE"], [2, 3, "PCIE"]]


def test_p2p_disabled_degrades_a_machine_whose_links_are_all_xgmi(tmp_path):
    _tool(tmp_path / "bin", "amd-smi", ["topology", "--json"], _amd_smi_json(2))
    info = _doctor(tmp_path / "bin", NCCL_P2P_DISABLE="1")
    assert info["topology"]["not_xgmi"] == []
    assert "multi-GPU: DEGRADED by NCCL_P2P_DISABLE=1 turns off peer-to-peer transfers" in info["verdict"]["line"]


def test_no_smi_tool_says_unknown_and_claims_nothing(tmp_path):
    (tmp_path / "bin").mkdir()
    info = _doctor(tmp_path / "bin")
    assert info["topology"]["source"] is None and "multi-GPU" not in info["verdict"]["line"]


def test_socket_interface_on_ethernet_without_an_ib_hca_is_named(tmp_path):
    for name, kind in (("eth0", "1"), ("ib0", "32")):
        (tmp_path / name).mkdir()
        (tmp_path / name / "type").write_text(kind + "\n")
    said = comm_problems({"NCCL_SOCKET_IFNAME": "eth0"}, sysnet=tmp_path)
    assert len(said) == 1 and "Ethernet device eth0" in said[0]
    assert comm_problems({"NCCL_SOCKET_IFNAME": "eth0", "NCCL_IB_HCA": "mlx5_0"}, sysnet=tmp_path) == []
    assert comm_problems({"NCCL_SOCKET_IFNAME": "ib0"}, sysnet=tmp_path) == []
    assert comm_problems({"NCCL_SOCKET_IFNAME": "^docker,lo"}, sysnet=tmp_path) == []  # an exclusion list
    assert "P2P_LEVEL" in comm_problems({"NCCL_P2P_LEVEL": "LOC"})[0]


def test_parsers_refuse_other_shapes():
    assert parse_amd_smi("not json") is None and parse_amd_smi(json.dumps([{"gpu": 0}])) is None
    assert parse_rocm_smi("GPU0 GPU1\nGPU0 0 XGMI\n") is None  # no link-type table


def _running(pid: int) -> bool:
    """The process exists and is not a zombie (killed, waiting to be reaped)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


def test_a_hung_smi_tool_is_stopped_with_what_it_started(tmp_path, monkeypatch):
    """An amd-smi that never answers (a wedged driver) after starting a helper of its own: doctor gives up
    at its time limit, reports no topology, and ends the tool's whole process group: nothing it started
    is left running."""
    import porter.doctor as doctor

    bin_dir, pid_file = tmp_path / "bin", tmp_path / "helper.pid"
    bin_dir.mkdir()
    tool = bin_dir / "amd-smi"
    tool.write_text(f"#!{sys.executable}\nimport subprocess, sys, time\n"
                    "helper = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(300)'])\n"
                    f"open({str(pid_file)!r}, 'w').write(str(helper.pid))\ntime.sleep(300)\n")
    tool.chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_dir))
    monkeypatch.setattr(doctor, "TIMEOUT_S", 3)
    helper = None
    try:
        topo = doctor.topology_info(env={})
        assert topo["source"] is None and topo["links"] == []
        helper = int(pid_file.read_text())
        deadline = time.monotonic() + 30  # SIGTERM, then SIGKILL, reach the group: wait for them to land
        while _running(helper) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _running(helper), "the tool's helper outlived the tool"
    finally:
        if helper is not None and _running(helper):
            os.kill(helper, signal.SIGKILL)
