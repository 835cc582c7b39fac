"""The translator against hand-written expected ports: tests/expected_hip (a
reviewer's port of four sample projects) and tests/heldout (five programs and
their expected HIP written by someone who had not read porter's code or data)."""

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("line_accuracy", ROOT / "benchmarks" / "line_accuracy.py")
line_accuracy = importlib.util.module_from_spec(spec)
spec.loader.exec_module(line_accuracy)

SETS = {
    "samples": (ROOT / "tests" / "expected_hip", ROOT / "sample_projects", 300),
    "heldout": (ROOT / "tests" / "heldout" / "expected", ROOT / "tests" / "heldout" / "src", 300),
}


@pytest.mark.parametrize("name", sorted(SETS))
def test_at_least_90_percent_of_lines_that_need_changing_match_the_reviewer(name):
    expected, sources, minimum = SETS[name]
    right, total, over = line_accuracy.measure_all(expected, sources)
    assert total > minimum  # the hand-ported files are all there
    assert right / total >= 0.90, f"{right}/{total}"
    assert over <= 0.02 * total, f"{over} lines changed that the reviewer kept"


def test_metric_counts_a_wrong_rename_as_a_miss_and_an_extra_edit_as_over():
    src = b"cudaStream_t s;\ncudaFree(p);\nint x;\n"
    expected = b"hipStream_t s;\nhipFree(p);\nint x;\n"
    need, ok, misses = line_accuracy.file_accuracy(src, expected, b"hipStream_t s;\ncudaFree(p);\nint x;\n")
    assert (need, ok) == (2, 1) and misses[0][0] == 2
    assert line_accuracy.over_edits(src, expected, b"hipStream_t s;\nhipFree(p);\nint y;\n") == [3]
