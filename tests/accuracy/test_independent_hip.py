"""porter against tests/independent_hip: expected HIP written from the CUDA sources, AMD's HIPIFY tables
and the HIP 5.2 headers, each batch committed before porter was ever run on its files (see its README).

Measured when each batch was first scored (the command, then its last line):
    .venv/bin/python benchmarks/line_accuracy.py tests/independent_hip/expected tests/independent_hip/src -v
    first batch (4 programs):  104/104 (100.0%), whole files 335/335
    both batches (7 programs): 196/200 (98.0%): 196 of 197 lines that need changing right, 1 kept line
                               changed, 2 lines inserted; whole files 563/566 (99.5%)
The four misses are the three places where porter's choice differs from a judgement call of the set
(README, calls 7 and 9); both choices compile.  They are listed below, each with its reason, and any
other difference fails: fix porter, or add the line here with a written reason -- never edit an
expected file just to match."""

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SET = ROOT / "tests" / "independent_hip"
spec = importlib.util.spec_from_file_location("line_accuracy", ROOT / "benchmarks" / "line_accuracy.py")
line_accuracy = importlib.util.module_from_spec(spec)
sys.modules.setdefault("line_accuracy", line_accuracy)
spec.loader.exec_module(line_accuracy)

# (file, kind, 1-based line): why porter and the set differ
KNOWN = {
    ("driver_module/main.cpp", "miss", 4): "<cuda.h>: porter writes <hip/hip_runtime.h> (HIPIFY's mapping), "
                                           "the set <hip/hip_runtime_api.h> (where the driver API is declared)",
    ("driver_module/kernels.cu", "extra", 3): "runtime include in a file with no include: porter puts it after "
                                              "the blank line that follows the leading comments, the set before it",
    ("driver_module/kernels.cu", "over", 4): "the same line, seen from the expected side",
    ("complex_fir/fir.cu", "extra", 3): "porter adds the runtime include to fir.cu too; the set does not, since "
                                        "its first include (fir_math.h) brings it once ported",
    ("complex_fir/fir.cu", "extra", 4): "the same for hip/hip_complex.h: fir.cu uses the complex type, and the "
                                        "translator, which reads one file, does not see that fir_math.h's port "
                                        "includes it (a missing one does not compile; a repeated one is harmless)",
}


def _differences(res) -> set:
    found = set()
    for rel, s in res.files.items():
        found |= {(rel, "miss", line) for line, _, _ in s.misses}
        found |= {(rel, "over", line) for line in s.over}
        found |= {(rel, "extra", line) for line in s.extra}
    return found


def test_porter_differs_from_the_independent_set_only_where_a_judgement_call_is_known():
    res = line_accuracy.measure_result(SET / "expected", SET / "src")
    assert len(res.files) == 10 and res.need >= 190  # both batches were measured
    assert _differences(res) == set(KNOWN), res.line()
    assert res.right == res.need - 1  # the one miss above; every other line that must change is right


def test_porter_convert_writes_the_expected_bytes(tmp_path):
    """CRLF (device_info.cpp) and a byte order mark (nbody.cuh) included: the files as written."""
    from porter.project.convert import ConvertOptions, convert_tree

    report = convert_tree(SET / "src", tmp_path / "out", ConvertOptions(findings=False, jobs=1))
    assert report.exit_code == 0
    expected = {p.relative_to(SET / "expected").as_posix(): p.read_bytes()
                for p in (SET / "expected").rglob("*") if p.is_file()}
    differ = sorted(rel for rel in expected if (tmp_path / "out" / rel).read_bytes() != expected[rel])
    assert differ == sorted({rel for rel, _, _ in KNOWN})
