"""What amd-smi / rocm-smi report, read from recorded JSON (kept apart from torch's own memory figures)."""

import sys
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


def test_query_falls_back_to_rocm_smi_where_amd_smi_fails(tmp_path, monkeypatch):
    """Stand-in tools on PATH: an amd-smi that exits 1 (a ROCm too old for `metric`), a rocm-smi that prints
    its recorded meminfo for GPU 0 only: the figures come from rocm-smi, and a GPU it refuses gives None."""
    fixture = FIX / "rocm_smi_meminfo.json"
    (tmp_path / "amd-smi").write_text(f"#!{sys.executable}\nimport sys\nsys.exit(1)\n")
    (tmp_path / "rocm-smi").write_text(
        f"#!{sys.executable}\nimport sys\n"
        "if sys.argv[1:] != ['-d', '0', '--showmeminfo', 'vram', '--json']:\n    sys.exit(2)\n"
        f"print(open({str(fixture)!r}).read())\n")
    for name in ("amd-smi", "rocm-smi"):
        (tmp_path / name).chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert smi.query(0) == {"tool": "rocm-smi", "vram_used_bytes": 47315419136, "vram_total_bytes": 206141652992}
    assert smi.query(1) is None
