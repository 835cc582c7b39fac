"""porter scan, porter convert and the review app scan a file where it lies, so a warp width
that a project header names (``#define WARP_SIZE 32`` in warp.cuh) is seen in the sources that
include it.  Scanned as bytes alone, kernels.cu's ``threadIdx.x / WARP_SIZE`` is just a macro."""

from __future__ import annotations

import shutil
from pathlib import Path

from porter.project.convert import ConvertOptions, convert_tree
from porter.project.file_conversion import convert_file
from porter.project.scan import scan_path

PROJECT = Path(__file__).resolve().parents[1] / "findings" / "projects" / "named_width"
# kernels.cu: `const int warp = threadIdx.x / WARP_SIZE;` (CUDA: 32 lanes; gfx942: 64)
LINE = next(i for i, text in enumerate((PROJECT / "kernels.cu").read_text().splitlines(), 1)
            if "threadIdx.x / WARP_SIZE" in text)


def _width_lines(findings) -> set[int]:
    return {(f["line"] if isinstance(f, dict) else f.line) for f in findings
            if (f["rule"] if isinstance(f, dict) else f.rule) == "PORT015"}


def test_scan_of_a_folder_reads_the_project_header(tmp_path):
    shutil.copytree(PROJECT, tmp_path / "p")
    result = scan_path(tmp_path / "p")
    kernels = [f for f in result.findings if f.file.endswith("kernels.cu")]
    assert LINE in _width_lines(kernels)


def test_convert_report_reads_the_project_header(tmp_path):
    shutil.copytree(PROJECT, tmp_path / "p")
    report = convert_tree(tmp_path / "p", tmp_path / "out", ConvertOptions())
    kernels = next(f for f in report.files if f.rel.endswith("kernels.cu"))
    assert LINE in _width_lines(kernels.findings)


def test_review_scan_reads_the_project_header(tmp_path):
    shutil.copytree(PROJECT, tmp_path / "p")
    result = convert_file("kernels.cu", tmp_path / "p" / "kernels.cu", "source")
    assert LINE in _width_lines(result["findings"])
