"""benchmarks/unflagged_compile_errors.py: each port is compiled and each error is counted as predicted (a
finding is on its CUDA line) or unflagged; a file whose port misses a header is skipped, not counted."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("unflagged_compile_errors", ROOT / "benchmarks" / "unflagged_compile_errors.py")
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)

# CUDA's integer umin: no HIP header declares it, PORT177 says so on its line (predicted)
PREDICTED = b"""// RUN: %run_test hipify "%s" "%t" %hipify_args 1 --skip-excluded-preprocessor-conditional-blocks
#include <cuda_runtime.h>
__global__ void k(unsigned* out, unsigned n) {
  out[0] = umin(n, blockDim.x);
}
"""
# a stream's address passed as the stream: not valid CUDA either, and no finding is about it (unflagged);
# a line inserted above it (the runtime include) must not shift the line reported
UNFLAGGED = b"""__global__ void k() {}
void run(cudaStream_t s) {
  cudaStreamSynchronize(&s);
}
"""
# a header the test folder does not hold: skipped
MISSING = b"""#include "not_in_this_folder.h"
void f() {}
"""


@pytest.mark.hipcc
def test_errors_are_predicted_unflagged_or_skipped(tmp_path, capsys):
    tests = tmp_path / "unit_tests"
    tests.mkdir()
    (tests / "predicted.cu").write_bytes(PREDICTED)
    (tests / "unflagged.cu").write_bytes(UNFLAGGED)
    (tests / "missing.cu").write_bytes(MISSING)
    res = bench.measure(tests, "5.2", "hipcc", "gfx90a", [])
    files = res["files"]
    assert files["predicted.cu"]["errors"] >= 1 and files["predicted.cu"]["unflagged"] == []
    assert [line for line, _ in files["unflagged.cu"]["unflagged"]] == [3]
    assert "not_in_this_folder.h" in files["missing.cu"]["skipped"]
    s = bench.summary(res)
    assert (s["compiled"], s["skipped"], s["unflagged"], s["unflagged_files"]) == (2, 1, 1, ["unflagged.cu"])
    assert bench.main(["--tests", str(tests), "-v"]) == 0
    out = capsys.readouterr().out
    assert "on lines no finding flags 1, in 1 files: unflagged.cu" in out and "unflagged.cu:3:" in out


def test_a_folder_that_is_not_there_is_one_line_and_exit_2(tmp_path, capsys):
    assert bench.main(["--tests", str(tmp_path / "nope")]) == 2
    assert capsys.readouterr().err.strip().endswith("is not a folder")


def test_a_finding_over_a_few_lines_predicts_an_error_on_any_of_them():
    """A call written over three lines: the compiler may point at an argument's line.  A finding over a whole
    function (more than SPAN_LINES lines) predicts only its first line."""
    from types import SimpleNamespace

    assert list(bench._lines_of(SimpleNamespace(line=10, end_line=12))) == [10, 11, 12]
    assert list(bench._lines_of(SimpleNamespace(line=10, end_line=10 + bench.predicted.SPAN_LINES))) == [10]
