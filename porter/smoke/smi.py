"""What amd-smi / rocm-smi / nvidia-smi say about a GPU (kept apart from torch's own figures)."""

from __future__ import annotations

import json
import shutil

from porter.proc import output

TIMEOUT_S = 10


def _find_key(obj, keys: tuple[str, ...]):
    """Depth-first search of a JSON value for the first key in keys (amd-smi's layout varies by version)."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            if k.lower() in keys:
                return v
        for v in obj.values():
            found = _find_key(v, keys)
            if found is not None:
                return found
    elif isinstance(obj, list):
        for v in obj:
            found = _find_key(v, keys)
            if found is not None:
                return found
    return None


def _value(v):
    if isinstance(v, dict) and "value" in v:
        return f"{v['value']} {v.get('unit', '')}".strip()
    return v


def parse_amd_smi_metric(text: str) -> dict | None:
    """``amd-smi metric -m --json`` output -> {"tool", "vram_used", "vram_total"} (None when unreadable)."""
    try:
        data = json.loads(text)
    except ValueError:
        return None
    used, total = _find_key(data, ("used_vram", "vram_used")), _find_key(data, ("total_vram", "vram_total"))
    if used is None and total is None:
        return None
    return {"tool": "amd-smi", "vram_used": _value(used), "vram_total": _value(total)}


def parse_rocm_smi_meminfo(text: str) -> dict | None:
    """``rocm-smi --showmeminfo vram --json`` output -> {"tool", "vram_used_bytes", "vram_total_bytes"}."""
    try:
        data = json.loads(text)
    except ValueError:
        return None
    card = next(iter(data.values()), None) if isinstance(data, dict) and data else None
    if not isinstance(card, dict):
        return None
    as_int = lambda v: int(v) if isinstance(v, (int, str)) and str(v).isdigit() else None  # noqa: E731
    return {"tool": "rocm-smi", "vram_used_bytes": as_int(card.get("VRAM Total Used Memory (B)")),
            "vram_total_bytes": as_int(card.get("VRAM Total Memory (B)"))}


def query(index: int = 0) -> dict | None:
    """VRAM use as the management tool reports it, or None when no such tool is installed."""
    if shutil.which("amd-smi"):
        out = output(["amd-smi", "metric", "-g", str(index), "-m", "--json"], timeout=TIMEOUT_S)
        found = parse_amd_smi_metric(out) if out else None
        if found:
            return found
    if shutil.which("rocm-smi"):
        out = output(["rocm-smi", "-d", str(index), "--showmeminfo", "vram", "--json"], timeout=TIMEOUT_S)
        found = parse_rocm_smi_meminfo(out) if out else None
        if found:
            return found
    if shutil.which("nvidia-smi"):
        out = output(["nvidia-smi", "-i", str(index), "--query-gpu=memory.used,memory.total",
                      "--format=csv,noheader,nounits"], timeout=TIMEOUT_S)
        if out and "," in out:
            used, total = (x.strip() for x in out.splitlines()[0].split(",")[:2])
            return {"tool": "nvidia-smi", "vram_used_mib": used, "vram_total_mib": total}
    return None
