"""`porter scan` and `porter explain` as a user runs them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from porter.cli.main import main

SAMPLE = b"""__device__ float f(float v)
{
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);
    return v;
}
"""


@pytest.fixture
def project(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "k.cu").write_bytes(SAMPLE)
    (tmp_path / "src" / "clean.cpp").write_text("int main() { return 0; }\n")
    (tmp_path / "Makefile").write_text("NVCCFLAGS = -O3 -arch=sm_80\n")
    (tmp_path / "README.md").write_text("__shfl_down_sync(0xffffffff, v, 1) in prose\n")
    return tmp_path


def test_scan_text_lists_findings_with_rule_and_position(project, capsys):
    assert main(["scan", str(project)]) == 0
    out = capsys.readouterr().out
    assert "src/k.cu:3:43: error: PORT020 [lane-mask]" in out
    assert "Makefile:1:17: error: PORT140 [build-flag]" in out
    assert "README.md" not in out


def test_scan_json_and_fail_on(project, capsys):
    assert main(["scan", str(project), "--format", "json", "--fail-on", "error"]) == 1
    doc = json.loads(capsys.readouterr().out)
    rules = {(f["file"], f["rule"]) for f in doc["findings"]}
    assert ("src/k.cu", "PORT020") in rules and ("Makefile", "PORT140") in rules
    assert doc["summary"]["files_scanned"] == 3
    assert main(["scan", str(project / "src" / "clean.cpp"), "--fail-on", "warning"]) == 0


def test_fail_on_warning_counts_warnings_only_at_or_above(tmp_path, capsys):
    f = tmp_path / "w.cu"
    f.write_bytes(b"#define WARP_SIZE 32\n")
    assert main(["scan", str(f), "--fail-on", "error"]) == 0
    assert main(["scan", str(f), "--fail-on", "warning"]) == 1


def test_scan_sarif_to_a_file(project, tmp_path, capsys):
    out = tmp_path / "r.sarif"
    assert main(["scan", str(project), "--format", "sarif", "-o", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert doc["version"] == "2.1.0" and doc["runs"][0]["results"]


def test_scan_bad_usage_is_one_line_exit_2(tmp_path, capsys):
    assert main(["scan", str(tmp_path / "missing")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no such file" in err
    assert main(["scan", str(tmp_path), "--rule", "PORT999"]) == 2


def test_unreadable_file_exit_1(project, capsys, monkeypatch):
    bad = project / "src" / "secret.cu"
    bad.write_bytes(SAMPLE)
    import porter.project.scan as project_scan

    real = project_scan.read_regular

    def read_regular(path):  # tests run as root, for whom chmod 000 does not stop a read
        if Path(path).name == "secret.cu":
            raise PermissionError(13, "Permission denied")
        return real(path)
    monkeypatch.setattr(project_scan, "read_regular", read_regular)  # a small project is scanned in this process
    assert main(["scan", str(project)]) == 1
    captured = capsys.readouterr()
    assert "src/secret.cu: Permission denied" in captured.err
    assert "src/k.cu:3:43" in captured.out


def test_explain_prints_the_page(capsys):
    assert main(["explain", "PORT020"]) == 0
    page = capsys.readouterr().out
    assert page.startswith("PORT020: ") and "Before" in page and "After" in page and "gfx942" in page
    assert "HIP/ROCm documentation" in page
    assert main(["explain", "20"]) == 0
    assert main(["explain", "PORT999"]) == 2
    assert main(["explain", "--list"]) == 0
    listing = capsys.readouterr().out
    assert "PORT001" in listing and "PORT147" in listing


def test_porter_scan_as_a_subprocess(project):
    proc = subprocess.run([sys.executable, "-m", "porter", "scan", str(project), "--format", "json"],
                          capture_output=True, timeout=120)
    assert proc.returncode == 0, proc.stderr.decode()
    assert json.loads(proc.stdout)["summary"]["total"] >= 3


def test_scan_rule_takes_a_rule_number_as_explain_does(project, capsys):
    """Issue 32: `explain 20` worked, `scan --rule 20` was refused as an unknown rule."""
    assert main(["scan", str(project), "--rule", "20"]) == 0
    out = capsys.readouterr().out
    assert "PORT020" in out and "PORT140" not in out
    assert main(["scan", str(project), "--rule", "PORT020"]) == 0
    assert capsys.readouterr().out == out
    assert main(["scan", str(project), "--rule", "999"]) == 2
    assert "unknown rule PORT999" in capsys.readouterr().err
