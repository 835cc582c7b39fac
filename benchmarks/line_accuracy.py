"""Line accuracy of porter's translation against a hand-written expected port.

    .venv/bin/python benchmarks/line_accuracy.py [EXPECTED_ROOT] [SOURCE_ROOT] [-v]

For each file of EXPECTED_ROOT/<project>/<rel> (default tests/expected_hip) the
CUDA source is SOURCE_ROOT/<project>/<rel> (default sample_projects), converted
with the options EXPECTED_ROOT/conversion.toml gives for <project> (e.g.
``[sparse_roc] roc = true``: that sample is converted as with ``--roc``).

The whole file is compared (difflib alignment of porter's output with the
expected file), so a line porter adds, drops or changes is never free:

- *need*: expected lines that differ from the CUDA source (the lines a
  translator must change, including inserted ``#include`` lines);
- *right*: need lines that porter's output has at the aligned place;
- *over*: expected lines kept as in CUDA that porter changed or dropped;
- *extra*: output lines that align with no expected line (inserted lines).

Headline: right / (need + over + extra) -- every over-edit and every inserted
line is a miss as well as every wrong change.  Also reported: the plain
whole-file figure, aligned equal lines / max(len(expected), len(output)).
"""

from __future__ import annotations

import difflib
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OPTIONS_FILE = "conversion.toml"
NOT_SOURCES = {".md", ".toml"}


def changed_lines(before: list[bytes], after: list[bytes]) -> set[int]:
    """Indexes of ``after`` lines that are not an unchanged copy of a ``before`` line."""
    sm = difflib.SequenceMatcher(None, before, after, autojunk=False)
    keep = set()
    for tag, _, _, j1, j2 in sm.get_opcodes():
        if tag == "equal":
            keep.update(range(j1, j2))
    return set(range(len(after))) - keep


@dataclass
class FileScore:
    need: int = 0  # expected lines that differ from the CUDA source
    right: int = 0  # ... that porter's output has at the aligned place
    over: list[int] = field(default_factory=list)  # 1-based expected lines kept in CUDA, changed/dropped by porter
    extra: list[int] = field(default_factory=list)  # 1-based output lines aligned with no expected line
    equal: int = 0  # expected lines equal to an aligned output line (whole-file figure)
    longest: int = 0  # max(len(expected), len(output))
    misses: list[tuple[int, bytes, bytes]] = field(default_factory=list)  # (line, expected, got) for need lines

    @property
    def total(self) -> int:
        return self.need + len(self.over) + len(self.extra)


def score_file(source: bytes, expected: bytes, output: bytes) -> FileScore:
    src, exp, out = source.splitlines(), expected.splitlines(), output.splitlines()
    need = changed_lines(src, exp)
    sm = difflib.SequenceMatcher(None, exp, out, autojunk=False)
    s = FileScore(need=len(need), longest=max(len(exp), len(out)))
    matched, aligned = set(), {}
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag == "equal":
            matched.update(range(i1, i2))
        for k in range(i2 - i1):
            aligned[i1 + k] = out[j1 + k] if j1 + k < j2 else b""
        if j2 - j1 > i2 - i1:  # output lines beyond the expected block: inserted by porter
            s.extra.extend(range(j1 + (i2 - i1) + 1, j2 + 1))
    s.equal = len(matched)
    s.right = len(need & matched)
    s.over = [j + 1 for j in range(len(exp)) if j not in need and j not in matched]
    s.misses = [(j + 1, exp[j], aligned.get(j, b"")) for j in sorted(need - matched)]
    return s


def file_accuracy(source: bytes, expected: bytes, output: bytes) -> tuple[int, int, list[tuple[int, bytes, bytes]]]:
    """(need, right, misses) for the lines that need changing (the pre-whole-file view)."""
    s = score_file(source, expected, output)
    return s.need, s.right, s.misses


def over_edits(source: bytes, expected: bytes, output: bytes) -> list[int]:
    """1-based lines the expected port keeps as they were but porter's output changed or dropped."""
    return score_file(source, expected, output).over


def conversion_options(expected_root: Path) -> dict[str, dict]:
    """{project: TranslateOptions keyword arguments} from EXPECTED_ROOT/conversion.toml."""
    path = expected_root / OPTIONS_FILE
    return tomllib.loads(path.read_text()) if path.is_file() else {}


@dataclass
class Result:
    need: int = 0
    right: int = 0
    over: int = 0
    extra: int = 0
    equal: int = 0
    longest: int = 0
    files: dict[str, FileScore] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return self.need + self.over + self.extra

    @property
    def accuracy(self) -> float:
        """right / (need + over + extra): the headline figure."""
        return self.right / self.total if self.total else 1.0

    @property
    def whole_file(self) -> float:
        return self.equal / self.longest if self.longest else 1.0

    def line(self) -> str:
        return (f"{self.right}/{self.total} ({100 * self.accuracy:.1f}%): {self.right} of {self.need} lines that need "
                f"changing right, {self.over} kept lines changed, {self.extra} lines inserted; whole files "
                f"{self.equal}/{self.longest} lines equal ({100 * self.whole_file:.1f}%)")


def measure_result(expected_root: Path, source_root: Path, projects: set[str] | None = None,
                   verbose: bool = False) -> Result:
    from porter.translate import TranslateOptions, translate

    options = conversion_options(expected_root)
    res = Result()
    for exp_file in sorted(p for p in expected_root.rglob("*") if p.is_file() and p.suffix not in NOT_SOURCES):
        rel = exp_file.relative_to(expected_root)
        project = rel.parts[0]
        if projects is not None and project not in projects:
            continue
        src_file = source_root / rel
        if not src_file.is_file():
            continue
        source = src_file.read_bytes()
        opts = TranslateOptions(**options.get(project, {}))
        output = translate(source, str(rel), opts).output
        s = score_file(source, exp_file.read_bytes(), output)
        res.files[rel.as_posix()] = s
        res.need += s.need
        res.right += s.right
        res.over += len(s.over)
        res.extra += len(s.extra)
        res.equal += s.equal
        res.longest += s.longest
        if verbose:
            print(f"{rel}: {s.right}/{s.total} (need {s.need}, over-edited {s.over or 'none'}, "
                  f"inserted {s.extra or 'none'})")
            for line, exp, got in s.misses:
                print(f"  line {line}: expected {exp.decode(errors='replace').strip()!r}")
                print(f"  {' ' * len(str(line))}       got      {got.decode(errors='replace').strip()!r}")
    return res


def measure_all(expected_root: Path, source_root: Path, verbose: bool = False,
                projects: set[str] | None = None) -> tuple[int, int, int]:
    """(right, need, over-edited lines) -- the pre-whole-file triple, kept for callers."""
    r = measure_result(expected_root, source_root, projects, verbose)
    return r.right, r.need, r.over


def measure(expected_root: Path, source_root: Path, verbose: bool = False) -> tuple[int, int]:
    right, total, _ = measure_all(expected_root, source_root, verbose)
    return right, total


def main() -> None:
    sys.path.insert(0, str(ROOT))
    args = [a for a in sys.argv[1:] if not a.startswith("-")]
    verbose = "-v" in sys.argv[1:] or "--verbose" in sys.argv[1:]
    expected_root = Path(args[0]) if args else ROOT / "tests" / "expected_hip"
    source_root = Path(args[1]) if len(args) > 1 else ROOT / "sample_projects"
    res = measure_result(expected_root, source_root, verbose=verbose)
    by_project: dict[str, Result] = {}
    for rel, s in res.files.items():
        r = by_project.setdefault(rel.split("/")[0], Result())
        r.need += s.need
        r.right += s.right
        r.over += len(s.over)
        r.extra += len(s.extra)
        r.equal += s.equal
        r.longest += s.longest
    options = conversion_options(expected_root)
    for name, r in sorted(by_project.items()):
        flags = " ".join(f"--{k}" if v is True else f"--{k}={v}" for k, v in options.get(name, {}).items())
        print(f"{name}{' (' + flags + ')' if flags else ''}: {r.line()}")
    print(f"line accuracy: {res.line()}")


if __name__ == "__main__":
    main()
