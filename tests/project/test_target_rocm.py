"""The target ROCm release: --target-rocm on convert and scan, porter.toml's [port] table, the review model."""

from __future__ import annotations

import re

import pytest

from porter.cli.main import main
from porter.project.settings import SettingsError, load_settings

# cudaDeviceSetLimit -> hipDeviceSetLimit came with ROCm 5.3 (AMD's HIPIFY tables; not in the HIP 5.2 headers)
SRC = b"""#include <cuda_runtime.h>
int main() {
    cudaDeviceSetLimit(cudaLimitMallocHeapSize, 1 << 20);
    return 0;
}
"""


def _project(tmp_path, toml: str | None = None):
    root = tmp_path / "proj"
    root.mkdir()
    (root / "main.cu").write_bytes(SRC)
    if toml is not None:
        (root / "porter.toml").write_text(toml)
    return root


def test_convert_keeps_an_api_the_target_lacks_and_emits_it_for_a_newer_one(tmp_path, capsys):
    root = _project(tmp_path)
    assert main(["convert", str(root / "main.cu"), "--target-rocm", "5.2"]) == 0
    assert "cudaDeviceSetLimit(" in capsys.readouterr().out
    assert main(["convert", str(root / "main.cu"), "--target-rocm", "6.1"]) == 0
    assert "hipDeviceSetLimit(" in capsys.readouterr().out
    assert main(["convert", str(root / "main.cu"), "--target-hip", "5.2"]) == 0  # the old spelling
    assert "cudaDeviceSetLimit(" in capsys.readouterr().out


def test_scan_reports_the_api_for_an_older_target_only(tmp_path, capsys):
    root = _project(tmp_path)
    assert main(["scan", str(root), "--target-rocm", "5.2", "-j", "1"]) == 0
    out = capsys.readouterr().out
    assert "main.cu:3:5: error: PORT032" in out and "ROCm 5.3" in out
    assert main(["scan", str(root), "-j", "1"]) == 0
    assert "PORT032" not in capsys.readouterr().out


def test_the_project_file_sets_the_target_and_the_command_line_wins(tmp_path, capsys):
    root = _project(tmp_path, '[port]\ntarget_rocm = "5.2"\n')
    assert main(["scan", str(root), "-j", "1"]) == 0
    assert "PORT032" in capsys.readouterr().out
    assert main(["scan", str(root), "-j", "1", "--target-rocm", "6.2"]) == 0
    assert "PORT032" not in capsys.readouterr().out


@pytest.mark.parametrize("toml, words", [
    ('[port]\ntarget = "5.2"\n', "unknown key 'target'"),
    ('[port]\ntarget_rocm = 5.2\n', "must be a str"),
    ('[port]\ntarget_rocm = "five"\n', "target_rocm 'five'"),
    ("[port\n", "cannot read"),
    # a misspelt table silently dropped its target release: it is named, with the nearest known one
    ('[ports]\ntarget_rocm = "5.2"\n', "unknown table [ports]: did you mean 'port'?"),
    ('[port]\ntarget_rcom = "5.2"\n', "did you mean 'target_rocm'?"),
    ("[port]\nx = " + "[" * 3000 + "]" * 3000 + "\n", "cannot read"),
])
def test_a_bad_project_file_is_one_line_naming_the_file(tmp_path, capsys, toml, words):
    root = _project(tmp_path, toml)
    with pytest.raises(SettingsError, match=re.escape(words)):
        load_settings(root)
    assert main(["scan", str(root)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "porter.toml" in err and words in err


def test_a_bad_target_on_the_command_line_is_a_usage_error(tmp_path, capsys):
    root = _project(tmp_path)
    assert main(["convert", str(root / "main.cu"), "--target-rocm", "latest"]) == 2
    assert "expected a ROCm release" in capsys.readouterr().err


def test_the_review_model_uses_the_projects_target(tmp_path):
    from porter.project.review_project import ReviewProject
    from porter.translate import TranslateOptions

    root = _project(tmp_path)
    for target, kept in (("5.2", True), ("6.1", False)):
        project = ReviewProject(root, tmp_path / f"out-{target}", TranslateOptions(target_rocm=target))
        [f] = [f for f in project.files if f.rel == "main.cu"]
        f.load()
        assert ("cudaDeviceSetLimit(" in f.hip) is kept
        assert any(x.rule == "PORT032" for x in f.findings) is kept
