"""After a fix, the review pairs each CUDA line with its HIP line from the fix's own edits, not
from a diff of the whole file.  A diff was the fallback, and above ``DIFFLIB_LIMIT`` lines it
paired lines by position: a fix that adds lines (PORT010's ``#if``/``#else`` around a
``#define``) then shifted every later row. Every later hunk changed its key, so the decisions
made on it were lost."""

from __future__ import annotations

from pathlib import Path

import pytest

import porter.project.alignment as alignment
from porter.project.alignment import align_by_diff
from porter.project.file_conversion import convert_file
from porter.project.file_review import ACCEPTED, FileReview

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "findings" / "fixtures"


def _project(functions: int) -> str:
    body = "".join(f"void f{i}(float* p{i})\n{{\n    cudaFree(p{i});\n}}\n" for i in range(functions))
    return "#include <cuda_runtime.h>\nstatic int n;\n#define WARP_SIZE 32\n" + body


def _check_rows(fr: FileReview) -> None:
    """Every CUDA and HIP line is shown once, in order; a row shown as unchanged holds the same text."""
    lefts = [r.left for r in fr.rows if r.left is not None]
    rights = [r.right for r in fr.rows if r.right is not None]
    assert lefts == list(range(len(fr.left))) and rights == list(range(len(fr.right)))
    for i, r in enumerate(fr.rows):
        if not fr.row_changed(i):
            assert fr.left_text(i) == fr.right_text(i)


def test_decisions_after_a_line_adding_fix_survive_in_a_file_too_long_to_diff(monkeypatch):
    monkeypatch.setattr(alignment, "DIFFLIB_LIMIT", 50)  # the file below has 203 lines
    fr = FileReview.from_text("big.cu", _project(50))
    assert len(fr.hunks) == 51  # the include and each cudaFree -> hipFree
    fr.accept_all()
    fix = next(f for f in fr.findings if f.rule == "PORT010")
    assert fr.apply_fix(fix)
    assert len(fr.right) == len(fr.left) + 4  # the #if/#else/#endif around the new 64
    _check_rows(fr)
    frees = [h for h in fr.hunks if h.old and h.old[0].strip().startswith("cudaFree")]
    assert len(frees) == 50
    assert all(h.new == (h.old[0].replace("cudaFree", "hipFree"),) for h in frees)
    assert all(fr.decisions.get(h.key) == ACCEPTED for h in frees)  # nothing to review again
    assert fr.stale_decisions == 0  # every decision still has its hunk; only the fixed #define is new
    # to review: the lines the fix added around the #define it keeps for CUDA, nothing else
    new = [line for h in fr.hunks if h.key not in fr.decisions for line in h.old + h.new]
    assert new == ["#if defined(__HIP_PLATFORM_AMD__)", "#define WARP_SIZE 64  // gfx942: 64-lane waves", "#else", "#endif"]


def _fixable(paths):
    for p in paths:
        data = p.read_bytes()
        res = convert_file(p.name, None, "source", data=data)
        if res["status"] == "ready" and any(f.fix and f.fix.edits for f in res["findings"]):
            yield pytest.param(p, id=str(p.relative_to(FIXTURES)))


@pytest.mark.parametrize("path", list(_fixable(sorted(FIXTURES.glob("*/positive.cu*")))))
def test_rows_after_every_fix_of_a_fixture_are_a_true_pairing_no_worse_than_a_diff(path):
    data = path.read_text(encoding="utf-8")
    fr = FileReview.from_text(path.name, data)
    assert fr.apply_fixes([f for f in fr.findings if f.fix and f.fix.edits])
    full = convert_file(path.name, None, "source", data=data.encode(), applied=tuple(fr.applied_fixes))
    assert fr.hip == full["hip"]
    _check_rows(fr)
    diffed = align_by_diff([x.rstrip("\r\n") for x in fr.left], [x.rstrip("\r\n") for x in fr.right])
    changed = sum(1 for i in range(len(fr.rows)) if fr.row_changed(i))
    fr.rows = diffed
    assert changed <= sum(1 for i in range(len(diffed)) if fr.row_changed(i))



def _samples_with_fixes():
    from porter.project.files import discover

    for pf in discover(ROOT / "sample_projects"):
        if pf.kind == "source":
            res = convert_file(pf.rel, None, "source", data=pf.path.read_bytes())
            if res["status"] == "ready" and sum(1 for f in res["findings"] if f.fix and f.fix.edits) >= 2:
                yield pytest.param(pf.path, id=pf.rel)


@pytest.mark.parametrize("path", list(_samples_with_fixes()))
def test_fixes_applied_one_by_one_give_what_a_whole_conversion_with_them_gives(path):
    data = path.read_text(encoding="utf-8")
    fr = FileReview.from_text(path.name, data)
    for f in [f for f in fr.findings if f.fix and f.fix.edits][:8]:
        fr.apply_fix(f)
        full = convert_file(path.name, None, "source", data=data.encode(), applied=tuple(fr.applied_fixes))
        assert (fr.hip, fr.inserted_lines, fr.warnings) == (full["hip"], full["inserted"], full["warnings"]), f.rule
        _check_rows(fr)
