"""What amd-smi / rocm-smi report, read from recorded JSON (kept apart from torch's own memory figures)."""

from pathlib import Path

from porter.smoke import smi

FIX = Path(__file__).parent / "fixtures"


def test_amd_smi_metric_memory():
    got = smi.parse_amd_smi_metric((FIX / "amd_smi_metric_mem.json").read_text())
    assert got == {"tool": "amd-smi", "vram_used": "45123 MB", "vram_total": "196592 MB"}


def test_rocm_smi_meminfo():
    got = smi.parse_rocm_smi_meminfo((FIX / "rocm_smi_meminfo.json").read_text())
    assert got == {"tool": "rocm-smi", "vram_used_bytes": 47315419136, "vram_total_bytes": 206141652992}


def test_unreadable_output_is_none():
    assert smi.parse_amd_smi_metric("ERROR: no GPU") is None
    assert smi.parse_amd_smi_metric('{"gpu": 0}') is None
    assert smi.parse_rocm_smi_meminfo("{}") is None
