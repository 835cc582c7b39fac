"""The review re-checks its findings against the CUDA with the applied fixes: a finding that
the scan of the fixed text no longer has is resolved, and is not open any more."""

from __future__ import annotations

from pathlib import Path

from porter.findings import scan
from porter.project.file_conversion import finding_key
from porter.project.file_review import FileReview, _mapped, _unmapped

ROOT = Path(__file__).resolve().parents[2]


def test_a_fix_that_answers_another_finding_resolves_it_and_only_it():
    path = ROOT / "sample_projects" / "warp_reduce" / "warp_utils.cuh"
    fr = FileReview.from_text(path.name, path.read_text(encoding="utf-8"))
    before = fr.severity_counts()
    fr.apply_fixes([f for f in fr.findings if f.rule == "PORT020"])
    assert fr.resolved == set()  # nothing is known until the fixed CUDA is scanned
    fr.recheck()
    # the two loops from 16 and the scan loop to WARP_SIZE: each shuffle has width 32 now
    assert sorted(f.rule for f in fr.findings if finding_key(f) in fr.resolved) == ["PORT012", "PORT012", "PORT014"]
    # the open findings are those a fresh scan of the fixed CUDA gives, at its severities (every
    # shuffle has width 32 now: 32-lane logical warps, the unit's warp-size findings are infos)
    fresh = scan(fr.fixed_source()[0], fr.rel)
    assert fr.severity_counts() == {sev: sum(f.severity == sev for f in fresh) for sev in before}
    assert before["error"] > 0 and fr.severity_counts()["error"] == 0
    assert [n.rule for n in fr.introduced] == ["PORT017", "PORT015"]  # the scan loop's bound, now an info
    assert {fr.regraded[k] for k in fr.regraded} == {"info"} and len(fr.regraded) == 9
    fr.applied_fixes = fr.applied_fixes[:1]  # another set of fixes: the old answer does not hold for it
    assert fr.resolved == set() and fr.regraded == {} and fr.introduced == []


def test_positions_map_through_the_fixes():
    spans = [(10, 14, 2), (20, 20, 5)]  # bytes 10-14 become 2 bytes; 5 bytes inserted at 20
    assert _mapped(5, spans, False) == 5  # before every fix
    assert _mapped(10, spans, False) == 10 and _mapped(14, spans, True) == 12  # the replaced span itself
    assert _mapped(12, spans, False) == 10 and _mapped(12, spans, True) == 12  # inside it: onto the replacement
    assert _mapped(16, spans, False) == 14  # after it: shifted by -2
    assert _mapped(30, spans, False) == 33  # after the insertion too


def test_positions_in_the_fixed_cuda_map_back():
    spans = [(10, 14, 2), (20, 20, 5)]  # as above
    assert _unmapped(5, spans) == 5
    assert _unmapped(11, spans) == 10  # inside a replacement: the start of what it replaced
    assert _unmapped(12, spans) == 14  # just after it
    assert _unmapped(18, spans) == 20 and _unmapped(22, spans) == 20  # the inserted bytes
    assert _unmapped(23, spans) == 20 and _unmapped(30, spans) == 27
    for pos in (0, 5, 9, 14, 16, 19, 25, 40):  # a byte no fix touched goes there and back
        assert _unmapped(_mapped(pos, spans, False), spans) == pos
