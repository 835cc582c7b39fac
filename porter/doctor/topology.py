"""Is RCCL's traffic between this machine's GPUs on Infinity Fabric (xGMI)?

Multi-GPU scaling on MI300X falls when RCCL moves data over PCIe or the network instead of
xGMI.  Two things decide it: the links the GPUs have (what ``amd-smi topology --json`` or
``rocm-smi --showtopo`` report) and the RCCL/NCCL variables that keep traffic off peer-to-peer
links.  This module reads both; ``porter.doctor`` shows the result.

Output shapes read (facts about AMD's tools, not copied code):
- ``amd-smi topology --json``: a list with one object per GPU, ``{"gpu": N, ..., "link_type":
  {"gpu_0": "SELF", "gpu_1": "XGMI", ...}}``; link types are ``SELF``, ``XGMI``, ``PCIE``,
  ``UNKNOWN`` or ``N/A`` (amdsmi_cli/amdsmi_commands.py, ROCm 6.2+); ROCm 6.0-6.1's amd-smi wrote
  ``0`` for a GPU to itself and spelled xGMI ``XMGI``.
- ``rocm-smi --showtopo``: a text table headed "Link Type between two GPUs", one row per GPU
  (``GPU0 0 XGMI XGMI XGMI``), the diagonal a number.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

XGMI = "XGMI"
_SPELLINGS = {"XMGI": XGMI}  # ROCm 6.0-6.1 amd-smi's spelling


def _link_name(value) -> str:
    text = str(value).strip().upper()
    return _SPELLINGS.get(text, text)


def parse_amd_smi(text: str) -> dict[tuple[int, int], str] | None:
    """{(gpu a, gpu b): link type} from ``amd-smi topology --json`` (None: not that shape)."""
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if isinstance(data, dict):  # some versions wrap the list: {"topology": [...]} or similar
        lists = [v for v in data.values() if isinstance(v, list)]
        data = lists[0] if len(lists) == 1 else None
    if not isinstance(data, list):
        return None
    links = {}
    for entry in data:
        if not isinstance(entry, dict) or not isinstance(entry.get("link_type"), dict):
            continue
        try:
            src = int(str(entry.get("gpu")).strip())
        except ValueError:
            continue
        for key, value in entry["link_type"].items():
            m = re.fullmatch(r"gpu_(\d+)", str(key))
            if m is None or int(m.group(1)) == src:
                continue
            links[(src, int(m.group(1)))] = _link_name(value)
    return links or None


def parse_rocm_smi(text: str) -> dict[tuple[int, int], str] | None:
    """{(gpu a, gpu b): link type} from ``rocm-smi --showtopo``'s link-type table."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if re.search(r"link type between two gpus", line, re.I)), None)
    if start is None:
        return None
    header = None
    links = {}
    for line in lines[start + 1:]:
        words = line.split()
        if not words:
            continue
        if line.lstrip().startswith("="):
            break
        if header is None:
            header = [int(w[3:]) for w in words if re.fullmatch(r"GPU\d+", w)]
            continue
        if not re.fullmatch(r"GPU\d+", words[0]) or len(words) - 1 != len(header):
            continue
        src = int(words[0][3:])
        for dst, value in zip(header, words[1:]):
            if dst != src:
                links[(src, dst)] = _link_name(value)
    return links or None


def read_links(run) -> dict:
    """The GPU links as the installed tool reports them.  ``run(argv) -> stdout or None`` runs a
    tool found on PATH (None where it is missing or fails).  {"source", "links": [[a, b, type]],
    "not_xgmi": [[a, b, type]]}; "source" None when no tool answered."""
    for argv, parse in ((["amd-smi", "topology", "--json"], parse_amd_smi), (["rocm-smi", "--showtopo"], parse_rocm_smi)):
        out = run(argv)
        links = parse(out) if out else None
        if links:
            pairs = sorted(links.items())
            seen, not_xgmi = set(), []
            for (a, b), t in pairs:  # each pair once, whichever direction reported it
                if t != XGMI and frozenset((a, b)) not in seen:
                    seen.add(frozenset((a, b)))
                    not_xgmi.append([min(a, b), max(a, b), t or "N/A"])
            return {"source": " ".join(argv), "links": [[a, b, t] for (a, b), t in pairs], "not_xgmi": not_xgmi}
    return {"source": None, "links": [], "not_xgmi": []}


def _interface_kind(name: str, sysnet: Path) -> str | None:
    """"ethernet", "infiniband" or None (unknown) for a network interface, from sysfs."""
    try:
        kind = int((sysnet / name / "type").read_text().strip())
    except (OSError, ValueError):
        return None
    return {1: "ethernet", 32: "infiniband"}.get(kind)


def comm_problems(env: dict[str, str], sysnet: Path = Path("/sys/class/net")) -> list[str]:
    """RCCL/NCCL settings that move GPU-to-GPU traffic off xGMI (one sentence each)."""
    out = []
    if env.get("NCCL_P2P_DISABLE", "").strip() in ("1", "true", "TRUE", "yes"):
        out.append("NCCL_P2P_DISABLE=1 turns off peer-to-peer transfers: RCCL moves data between GPUs of "
                   "this node through host memory instead of xGMI (unset it)")
    level = env.get("NCCL_P2P_LEVEL", "").strip().upper()
    if level in ("LOC", "0"):
        out.append(f"NCCL_P2P_LEVEL={env['NCCL_P2P_LEVEL']} allows peer-to-peer only within one GPU: xGMI is "
                   "not used between GPUs (unset it)")
    if env.get("NCCL_SHM_DISABLE", "").strip() == "1" and out:
        out.append("NCCL_SHM_DISABLE=1 as well: with peer-to-peer off, GPUs of one node talk over the network")
    ifname = env.get("NCCL_SOCKET_IFNAME", "").strip()
    if ifname and not ifname.startswith("^") and not env.get("NCCL_IB_HCA", "").strip():
        names = [n.lstrip("=") for n in ifname.split(",") if n.strip()]
        ether = [n for n in names if _interface_kind(n, sysnet) == "ethernet"]
        if ether:
            ib_off = env.get("NCCL_IB_DISABLE", "").strip() == "1"
            out.append(f"NCCL_SOCKET_IFNAME={ifname} names the Ethernet device {', '.join(ether)} and NCCL_IB_HCA is "
                       + ("unset with NCCL_IB_DISABLE=1" if ib_off else "unset")
                       + ": traffic between nodes goes over TCP on that device (within a node xGMI is still used "
                       "unless peer-to-peer is off)")
    return out


def rccl_version(torch) -> str | None:
    """RCCL's (or NCCL's) version as torch was built with it, "2.18.3"; None where torch has none."""
    try:
        v = torch.cuda.nccl.version()
    except Exception:  # noqa: BLE001 - a CPU build has no NCCL/RCCL and raises
        return None
    if isinstance(v, tuple):
        return ".".join(str(x) for x in v)
    if isinstance(v, int) and v > 0:  # NCCL_VERSION_CODE: major*10000 + minor*100 + patch (2.9+)
        return f"{v // 10000}.{v // 100 % 100}.{v % 100}"
    return None
