"""The review re-checks its findings against the CUDA with the applied fixes: a finding that
the scan of the fixed text no longer has is resolved, and is not open any more."""

from __future__ import annotations

from pathlib import Path

from porter.project.review import FileReview, _mapped, finding_key

ROOT = Path(__file__).resolve().parents[2]


def test_a_fix_that_answers_another_finding_resolves_it_and_only_it():
    path = ROOT / "sample_projects" / "warp_reduce" / "warp_utils.cuh"
    fr = FileReview.from_text(path.name, path.read_text(encoding="utf-8"))
    before = fr.severity_counts()
    fr.apply_fixes([f for f in fr.findings if f.rule == "PORT020"])
    assert fr.resolved == set()  # nothing is known until the fixed CUDA is scanned
    fr.recheck()
    assert sorted(f.rule for f in fr.findings if finding_key(f) in fr.resolved) == ["PORT012", "PORT012"]
    assert fr.severity_counts() == {**before, "error": 0, "warning": before["warning"] - 2}
    fr.applied_fixes = fr.applied_fixes[:1]  # another set of fixes: the old answer does not hold for it
    assert fr.resolved == set()


def test_positions_map_through_the_fixes():
    spans = [(10, 14, 2), (20, 20, 5)]  # bytes 10-14 become 2 bytes; 5 bytes inserted at 20
    assert _mapped(5, spans, False) == 5  # before every fix
    assert _mapped(10, spans, False) == 10 and _mapped(14, spans, True) == 12  # the replaced span itself
    assert _mapped(12, spans, False) == 10 and _mapped(12, spans, True) == 12  # inside it: onto the replacement
    assert _mapped(16, spans, False) == 14  # after it: shifted by -2
    assert _mapped(30, spans, False) == 33  # after the insertion too
