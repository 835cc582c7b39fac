"""Reading NCCL_DEBUG=INFO output: which fabric the ranks talk over."""

from pathlib import Path

from porter.smoke import nccl

FIX = Path(__file__).parent / "fixtures"


def test_issue_sample_lines_are_classified():
    s = nccl.parse_transports([
        "NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC",
        "NCCL INFO Channel 00/0 : 0[0] -> 1[1] via NET/Socket/0",
        "NCCL INFO Channel 00/0 : 0[0] -> 1[1] via SHM/direct/direct",
        "NCCL INFO Channel 03/0 : 1[1] -> 0[0] via NET/IB/0",
        "NCCL INFO Connected all rings",
    ])
    assert s["counts"] == {"P2P": 1, "NET/Socket": 1, "SHM": 1, "NET/IB": 1}
    assert s["links"][0] == (0, 1, "P2P")


def test_rccl_p2p_log_has_no_warning():
    s = nccl.parse_transports((FIX / "nccl_rocm_p2p.log").read_text().splitlines())
    assert s["counts"] == {"P2P": 4}
    assert nccl.transport_warnings(s, rocm=True) == []


def test_socket_and_shm_fallback_warns_with_the_knobs():
    s = nccl.parse_transports((FIX / "nccl_fallback.log").read_text().splitlines())
    assert s["counts"] == {"NET/Socket": 2, "SHM": 2, "P2P": 1}
    (w,) = nccl.transport_warnings(s, rocm=True)
    assert w.startswith("fabric-fallback:")
    assert "0->1" in w and "1->0" in w and "xGMI" in w
    for knob in ("NCCL_SOCKET_IFNAME", "NCCL_IB_HCA", "NCCL_P2P_LEVEL", "HSA_FORCE_FINE_GRAIN_PCIE", "HIP_VISIBLE_DEVICES"):
        assert knob in w
