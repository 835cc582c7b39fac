"""Which fabric NCCL/RCCL peers talk over, read from ``NCCL_DEBUG=INFO`` output (pure functions).

Lines look like ``host:123:456 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC``.
P2P (IPC, direct pointer, CUMEM; xGMI on MI300X) is the fast intra-node path; SHM and NET/Socket
between GPUs of one node mean the traffic fell back to host memory or Ethernet.
"""

from __future__ import annotations

import re

_CHANNEL = re.compile(
    r"NCCL INFO\s+Channel\s+(\d+)(?:/\d+)?\s*:\s*(\d+)\[[^\]]*\]\s*->\s*(\d+)\[[^\]]*\](?:\s*\[\w+\])?\s+via\s+(\S+)")
KNOBS = ("NCCL_SOCKET_IFNAME", "NCCL_IB_HCA", "NCCL_P2P_LEVEL", "HSA_FORCE_FINE_GRAIN_PCIE", "HIP_VISIBLE_DEVICES")


def classify(via: str) -> str:
    """'P2P/IPC' -> 'P2P', 'NET/Socket/0' -> 'NET/Socket', 'NET/IB/0' -> 'NET/IB', 'SHM/direct/direct' -> 'SHM'."""
    parts = via.split("/")
    head = parts[0].upper()
    if head == "NET" and len(parts) > 1:
        kind = parts[1]
        return "NET/IB" if kind.upper() in ("IB", "IBEXT") else f"NET/{kind}"
    if head in ("P2P", "SHM", "COLLNET", "NVLS"):
        return head
    return via


def parse_transports(lines) -> dict:
    """Summarise channel lines: {"links": [(src, dst, transport)], "counts": {transport: n}}."""
    links: list[tuple[int, int, str]] = []
    counts: dict[str, int] = {}
    for line in lines:
        m = _CHANNEL.search(line)
        if not m:
            continue
        kind = classify(m[4])
        links.append((int(m[2]), int(m[3]), kind))
        counts[kind] = counts.get(kind, 0) + 1
    return {"links": links, "counts": counts}


def transport_warnings(summary: dict, *, rocm: bool = False) -> list[str]:
    """A named warning when peers of one node fell back to sockets or shared memory."""
    counts = summary.get("counts", {})
    slow = {k: v for k, v in counts.items() if k in ("NET/Socket", "SHM")}
    if not slow:
        return []
    pairs = sorted({(s, d) for s, d, k in summary.get("links", []) if k in slow})
    shown = ", ".join(f"{s}->{d}" for s, d in pairs[:6]) + (" ..." if len(pairs) > 6 else "")
    fast = "P2P/xGMI (Infinity Fabric)" if rocm else "P2P/NVLink"
    return [f"fabric-fallback: ranks {shown} talk via {'/'.join(sorted(slow))}, not {fast}; check "
            + ", ".join(KNOBS)]
