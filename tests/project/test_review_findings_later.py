"""A big file on screen is translated first and scanned second (``findings_later``): the diff
must be the one a whole conversion gives, and the findings that come after it the same too."""

from __future__ import annotations

from pathlib import Path

import pytest

import porter.project.file_conversion as file_conversion
from porter.project.file_conversion import convert_file, finding_key, scan_file
from porter.project.file_review import FileReview

ROOT = Path(__file__).resolve().parents[2]
FILES = sorted(p for p in (ROOT / "sample_projects").rglob("*") if p.suffix in (".cu", ".cuh", ".cpp", ".h"))


def _shape(findings):
    return [(f.rule, f.start_byte, f.end_byte, f.message, f.fix) for f in findings]


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.relative_to(ROOT / "sample_projects").as_posix())
def test_translated_first_then_scanned_equals_one_conversion(path):
    rel = path.name
    whole = convert_file(rel, path, "source")
    first = convert_file(rel, path, "source", findings_later=True)
    assert first["findings_pending"] and first["findings"] == []
    assert (first["hip"], first["inserted"], first["source_hash"]) == (whole["hip"], whole["inserted"], whole["source_hash"])
    later = scan_file(rel, path.read_bytes(), first["source_hash"], None, path)  # the index kept by the call above
    assert _shape(later["findings"]) == _shape(whole["findings"])
    file_conversion._KEPT_INDEX = None  # another process: parsed again, the same findings
    assert _shape(scan_file(rel, path.read_bytes(), first["source_hash"], None, path)["findings"]) == \
        _shape(whole["findings"])


def test_a_kept_index_of_another_file_is_not_used(tmp_path):
    a, b = tmp_path / "a.cu", tmp_path / "b.cu"
    a.write_text("__global__ void k(unsigned *o) { *o = __ballot_sync(0xffffffff, 1); }\n")
    b.write_text("__global__ void k(float *x) { x[threadIdx.x] = 1.f; }\n")
    convert_file("a.cu", a, "source", findings_later=True)  # keeps a's index
    first_b = convert_file("b.cu", b, "source")  # a whole conversion keeps nothing
    res = scan_file("b.cu", b.read_bytes(), first_b["source_hash"], None, b)
    assert _shape(res["findings"]) == _shape(first_b["findings"])


def test_with_a_chosen_fix_the_file_is_scanned_first():
    """The fix is applied to the CUDA before translating, so the findings are needed at once."""
    cuda = b"__global__ void k(unsigned *o) { *o = __ballot_sync(0xffffffff, threadIdx.x < 7); }\n"
    whole = convert_file("k.cu", None, "source", data=cuda)
    fixable = [f for f in whole["findings"] if f.fix is not None and f.fix.edits]
    assert fixable, "the sample needs a finding with a fix"
    res = convert_file("k.cu", None, "source", data=cuda, applied=(finding_key(fixable[0]),), findings_later=True)
    assert not res["findings_pending"] and res["fixed"] and res["findings"]


def test_findings_are_taken_only_for_the_text_they_were_scanned_from(tmp_path):
    p = tmp_path / "k.cu"
    p.write_text("__global__ void k(unsigned *o) { *o = __ballot_sync(0xffffffff, 1); }\n")
    fr = FileReview("k.cu", p)
    fr.apply_result(convert_file("k.cu", p, "source", findings_later=True))
    assert fr.status == "ready" and fr.findings_pending and fr.findings == [] and fr.hunks
    res = scan_file("k.cu", p.read_bytes(), fr.source_hash, None, p)
    assert res["findings"]
    assert not fr.take_findings(dict(res, source_hash="0" * 16))  # another text's
    assert fr.findings_pending and fr.findings == []
    assert fr.take_findings(res)
    assert not fr.findings_pending and fr.findings == res["findings"]
    assert not fr.take_findings(res)  # nothing pending any more
    assert fr.severity_counts()["error"] >= 1


def test_a_failing_scan_keeps_the_diff_and_says_so(tmp_path, monkeypatch):
    import porter.findings

    def broken(*args, **kwargs):
        raise RuntimeError("rule query exploded")

    monkeypatch.setattr(porter.findings, "scan", broken)
    res = scan_file("k.cu", b"__global__ void k() {}\n", "h", None)
    assert res["status"] == "ready" and res["findings"] == []
    assert res["warnings"] == ["findings scan failed: RuntimeError: rule query exploded"]


def test_the_header_says_the_error_count_is_not_final_while_findings_are_checked(tmp_path):
    """Issue 32: at 80 columns the top line was cut before "(converting …)", and a file whose
    findings were still being checked counted 0 errors: the line read "0 error findings" for a
    project with errors.  What is still running comes first, then the counts."""
    from porter.project.review_project import ReviewProject

    src = tmp_path / "proj"
    src.mkdir()
    (src / "k.cu").write_text("__global__ void k(unsigned *o) { *o = __ballot_sync(0xffffffff, threadIdx.x < 7); }\n")
    (src / "m.cu").write_text("__global__ void m(float *x) { x[threadIdx.x] = 1.f; }\n")
    project = ReviewProject(src, tmp_path / "out")
    assert project.header().startswith("converting 0/2 · ")
    k, m = project.by_rel["k.cu"], project.by_rel["m.cu"]
    k.apply_result(convert_file("k.cu", k.path, "source", findings_later=True))
    m.apply_result(convert_file("m.cu", m.path, "source"))
    assert project.header().startswith("checking findings (1 file left) · ")
    assert k.take_findings(scan_file("k.cu", k.path.read_bytes(), k.source_hash, None, k.path))
    final = project.header()
    errors = sum(f.severity_counts()["error"] for f in project.files)
    assert errors > 0 and final == f"0/2 files reviewed, {errors} error finding{'s' if errors != 1 else ''}"
