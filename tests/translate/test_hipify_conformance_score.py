"""benchmarks/hipify_conformance.py reads lit/FileCheck directives the way FileCheck does."""

import importlib.util
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("hipify_conformance", REPO / "benchmarks" / "hipify_conformance.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


TEST = """// RUN: %run_test hipify "%s" "%t" %hipify_args 2 --roc --hip-kernel-execution-syntax %clang_args
// CHECK: #include <hip/hip_runtime.h>
#include <cuda_runtime.h>
// CHECK-NOT: cudaFree
// CHECK: hipFree(p);
// CHECK-NEXT: hipFree(  q );
cudaFree(p);
cudaFree(q);
// CHECK: int v = {{[0-9]+}};
int v = 3;
"""


def _test(bench, tmp_path, text=TEST):
    (tmp_path / "a.cu").write_text(text)
    return bench.read_test(tmp_path, tmp_path / "a.cu")


def test_run_line_options_map_to_porter_options(bench, tmp_path):
    t = _test(bench, tmp_path)
    assert t.options == ("--hip-kernel-execution-syntax", "--roc")
    assert [c.negative for c in t.checks] == [False, True, False, False, False]


def test_patterns_match_in_order_as_substrings_with_whitespace_squashed(bench, tmp_path):
    t = _test(bench, tmp_path)
    good = "#include <hip/hip_runtime.h>\nhipFree(p);\nhipFree(\t q );\nint v = 3;\n"
    r = bench.score(t, good)
    assert (r.matched, r.expected, r.whole) == (4, 4, True)


def test_a_check_line_in_the_output_does_not_match_itself(bench, tmp_path):
    t = _test(bench, tmp_path)
    # porter keeps the comments: the CHECK text is cut off before matching (hipify's run_test does so)
    r = bench.score(t, TEST)
    assert r.matched == 1 and not r.whole  # only `int v = 3;`, a code line


def test_a_miss_keeps_the_position_and_check_not_counts_apart(bench, tmp_path):
    t = _test(bench, tmp_path)
    out = "#include <hip/hip_runtime.h>\ncudaFree(p);\nhipFree( q );\nint v = x;\n"
    r = bench.score(t, out)
    assert (r.matched, r.expected) == (2, 4)  # hipFree(p) and the regex line missed, hipFree(q) still found
    assert r.not_violated == 1 and not r.whole
