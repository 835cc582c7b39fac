"""Line accuracy of porter's translation against a hand-written expected port.

    .venv/bin/python benchmarks/line_accuracy.py [EXPECTED_ROOT] [SOURCE_ROOT]

For each file of EXPECTED_ROOT/<project>/<rel> (default tests/expected_hip) the
CUDA source is SOURCE_ROOT/<project>/<rel> (default sample_projects).  The
lines that need changing are the lines of the expected port that differ from
the CUDA source; a line counts as right when porter's output has the same
line at the aligned place (difflib alignment of expected vs. output).
"""

from __future__ import annotations

import difflib
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def changed_lines(before: list[bytes], after: list[bytes]) -> set[int]:
    """Indexes of ``after`` lines that are not an unchanged copy of a ``before`` line."""
    sm = difflib.SequenceMatcher(None, before, after)
    keep = set()
    for tag, _, _, j1, j2 in sm.get_opcodes():
        if tag == "equal":
            keep.update(range(j1, j2))
    return set(range(len(after))) - keep


def over_edits(source: bytes, expected: bytes, output: bytes) -> list[int]:
    """1-based lines the expected port keeps as they were but porter's output changed."""
    src, exp, out = source.splitlines(), expected.splitlines(), output.splitlines()
    need = changed_lines(src, exp)
    wrong = changed_lines(out, exp)
    return [j + 1 for j in range(len(exp)) if j not in need and j in wrong]


def file_accuracy(source: bytes, expected: bytes, output: bytes) -> tuple[int, int, list[tuple[int, bytes, bytes]]]:
    src, exp, out = source.splitlines(), expected.splitlines(), output.splitlines()
    need = changed_lines(src, exp)
    wrong = changed_lines(out, exp)  # expected lines with no equal aligned output line
    misses = []
    sm = difflib.SequenceMatcher(None, exp, out)
    aligned = {}
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        for k in range(i2 - i1):
            aligned[i1 + k] = out[j1 + k] if j1 + k < j2 else b""
    for j in sorted(need & wrong):
        misses.append((j + 1, exp[j], aligned.get(j, b"")))
    return len(need), len(need - wrong), misses


def measure(expected_root: Path, source_root: Path, verbose: bool = False) -> tuple[int, int]:
    right, total, _ = measure_all(expected_root, source_root, verbose)
    return right, total


def measure_all(expected_root: Path, source_root: Path, verbose: bool = False) -> tuple[int, int, int]:
    """(right, total, over-edited lines) over every expected file."""
    from porter.translate import translate

    total = right = over = 0
    for exp_file in sorted(p for p in expected_root.rglob("*") if p.is_file() and p.suffix != ".md"):
        rel = exp_file.relative_to(expected_root)
        src_file = source_root / rel
        if not src_file.is_file():
            continue
        source = src_file.read_bytes()
        output = translate(source, str(rel)).output
        need, ok, misses = file_accuracy(source, exp_file.read_bytes(), output)
        extra = over_edits(source, exp_file.read_bytes(), output)
        total += need
        right += ok
        over += len(extra)
        if verbose:
            print(f"{rel}: {ok}/{need}" + (f", over-edited lines {extra}" if extra else ""))
            for line, exp, got in misses:
                print(f"  line {line}: expected {exp.decode(errors='replace').strip()!r}")
                print(f"  {' ' * len(str(line))}       got      {got.decode(errors='replace').strip()!r}")
    return right, total, over


def main() -> None:
    sys.path.insert(0, str(ROOT))
    expected_root = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "tests" / "expected_hip"
    source_root = Path(sys.argv[2]) if len(sys.argv) > 2 else ROOT / "sample_projects"
    right, total, over = measure_all(expected_root, source_root, verbose=True)
    pct = 100.0 * right / total if total else 0.0
    print(f"line accuracy: {right}/{total} lines that need changing match the expected HIP ({pct:.1f}%); "
          f"{over} lines changed that should have been kept")


if __name__ == "__main__":
    main()
