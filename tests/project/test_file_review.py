"""The review of one file (porter.project.file_review): hunks, decisions, edits, fixes and
the file's state, without the UI."""

from __future__ import annotations

import json

import pytest

from porter.findings.model import Finding, Fix, FixEdit
from porter.project.file_conversion import convert_file, source_bytes
from porter.project.file_review import (ACCEPTED, REJECTED, S_ACCEPTED, S_EDITED, S_ERROR, S_PENDING, S_UNCHANGED,
                                        FileReview)

CUDA = "#include <cuda_runtime.h>\nint a;\ncudaMalloc(&p, n);\nint b;\nint c;\ncudaFree(p);\n"


def fake_scan(source: bytes, path=None, index=None, options=None, file=None):
    """One error per `0xffffffff`, fixed to a 64-bit mask (a lane-mask rule's shape)."""
    out, pos = [], source.find(b"0xffffffff")
    while pos >= 0:
        line = source.count(b"\n", 0, pos) + 1
        col = pos - (source.rfind(b"\n", 0, pos) + 1) + 1
        fix = Fix(True, "use a 64-bit mask", (FixEdit(pos, pos + 10, "0xffffffffffffffffull"),))
        out.append(Finding("PORT900", "lane-mask", "error", str(path), line, col, line, col + 10,
                           "0xffffffff assumes a 32-lane warp", fix, pos, pos + 10))
        pos = source.find(b"0xffffffff", pos + 1)
    return out


def test_hunks_align_line_by_line_and_decisions_choose_the_written_line():
    fr = FileReview.from_text("x.cu", CUDA)
    assert [h.old for h in fr.hunks] == [("#include <cuda_runtime.h>",), ("cudaMalloc(&p, n);",), ("cudaFree(p);",)]
    assert fr.state == S_PENDING
    fr.decide(0, ACCEPTED)
    fr.decide(1, REJECTED)
    assert fr.state == S_PENDING
    fr.decide(2, ACCEPTED)
    assert fr.state == S_ACCEPTED
    out = fr.output_text()
    assert out == "#include <hip/hip_runtime.h>\nint a;\ncudaMalloc(&p, n);\nint b;\nint c;\nhipFree(p);\n"


def test_inserted_runtime_include_is_a_one_sided_row():
    src = "__global__ void k(int *p) { p[0] = 1; }\nint main() { k<<<1, 1>>>(0); }\n"
    fr = FileReview.from_text("k.cu", src)
    assert len(fr.right) == len(fr.left) + 1
    first = fr.rows[0]
    assert first.left is None and fr.right_text(0).startswith("#include")
    fr.decide(0, REJECTED)  # keep the CUDA side: no include line
    fr.accept_all()
    assert fr.output_text() == src


def test_unchanged_file_and_edited_file_states():
    fr = FileReview.from_text("plain.cpp", "int main() { return 0; }\n")
    assert fr.state == S_UNCHANGED and not fr.hunks
    fr2 = FileReview.from_text("x.cu", CUDA.replace("int c;", "int c;\nint d;"))
    fr2.set_edited(fr2.hip.replace("int c;", "int cc;"))
    assert "int cc;" in fr2.output_text()
    mine = [h for h in fr2.hunks if h.new == ("int cc;",)]
    assert len(mine) == 1 and fr2.decision(mine[0].index) == "edited"
    # the edit decides the hunk it touches; the three converted hunks stay pending
    assert fr2.pending_hunks == 3 and fr2.state == S_PENDING
    fr2.accept_all()
    assert fr2.state == S_EDITED


def test_an_edit_keeps_rejected_hunks_rejected_and_writes_only_when_all_are_decided():
    fr = FileReview.from_text("x.cu", CUDA)
    fr.decide(2, REJECTED)  # keep cudaFree(p) as it is
    fr.set_edited(fr.output_text().replace("hipMalloc(&p, n);", "hipMalloc(&p, n * 2);"))
    assert fr.decision(1) == "edited" and fr.decision(0) == "pending"
    assert fr.state == S_PENDING
    fr.decide(0, ACCEPTED)
    assert fr.state == S_EDITED
    out = fr.output_text()
    assert "hipMalloc(&p, n * 2);" in out and "cudaFree(p);" in out and "hip/hip_runtime.h" in out


def test_an_edit_goes_stale_when_its_cuda_source_changes():
    fr = FileReview.from_text("x.cu", CUDA)
    fr.accept_all()
    fr.set_edited(fr.output_text().replace("int a;", "int a = 1;"))
    assert fr.state == S_EDITED and not fr.edit_stale
    saved = json.loads(json.dumps(fr.to_session()))
    changed = CUDA.replace("int c;", "int c;\ncudaDeviceSynchronize();")
    fr2 = FileReview(rel="x.cu")
    fr2.restore(saved)
    fr2.apply_result(convert_file("x.cu", None, "source", data=changed.encode()))
    fr2.after_restore_load()
    assert fr2.edit_stale and fr2.state == S_PENDING  # not written until the user chooses
    assert json.loads(json.dumps(fr2.to_session()))["edit_base"] == saved["edit_base"]  # kept across a restart
    fr2.keep_edit()
    assert not fr2.edit_stale and fr2.state == S_EDITED
    fr3 = FileReview(rel="x.cu")
    fr3.restore(saved)
    fr3.apply_result(convert_file("x.cu", None, "source", data=changed.encode()))
    fr3.after_restore_load()
    fr3.set_edited(None)  # re-convert: the new CUDA line comes through
    assert not fr3.edit_stale and "hipDeviceSynchronize();" in fr3.output_text()


def test_decisions_survive_a_source_change_when_their_hunk_still_matches():
    fr = FileReview.from_text("x.cu", CUDA)
    fr.accept_all()
    saved = fr.to_session()
    changed = CUDA.replace("cudaFree(p);", "cudaFree(q);")
    fr2 = FileReview(rel="x.cu")
    fr2.restore(saved)
    fr2.apply_result(convert_file("x.cu", None, "source", data=changed.encode()))
    stale = [h.old for h in fr2.hunks if h.stale]
    assert stale == [("cudaFree(q);",)]
    assert fr2.stale_decisions == 1  # the old cudaFree(p) decision matches nothing now
    assert fr2.decision(0) == ACCEPTED and fr2.decision(1) == ACCEPTED and fr2.decision(2) == "pending"
    assert fr2.state == S_PENDING


def test_applying_a_fix_changes_the_cuda_before_translation(monkeypatch):
    import porter.findings

    monkeypatch.setattr(porter.findings, "scan", fake_scan, raising=False)
    fr = FileReview.from_text("w.cu", "unsigned m = 0xffffffff;\ncudaFree(p);\n")
    assert [f.rule for f in fr.findings] == ["PORT900"]
    assert fr.apply_fix(fr.findings[0])
    fr.accept_all()
    # a .cu calling the runtime relied on nvcc's implicit cuda_runtime.h: the port includes it
    assert fr.output_text() == "#include <hip/hip_runtime.h>\nunsigned m = 0xffffffffffffffffull;\nhipFree(p);\n"
    assert not fr.apply_fix(fr.findings[0])  # once only


def test_binary_files_become_error_state(tmp_path):
    p = tmp_path / "bad.cu"
    p.write_bytes(b"\x7fELF\x00\x00\x01")
    fr = FileReview(rel="bad.cu", path=p)
    fr.load()
    assert fr.state == S_ERROR and "binary" in fr.error


def test_a_byte_that_is_not_utf8_is_converted_and_written_back_as_it_was(tmp_path):
    # issue 33 item 11: porter convert converts such a file, keeping the byte; the review does too
    p = tmp_path / "odd.cu"
    p.write_bytes(b"int \xff\xfe x;\ncudaFree(p);\n")
    fr = FileReview(rel="odd.cu", path=p)
    fr.load()
    assert fr.status == "ready" and fr.hunks
    assert any("line 1 has a byte that is not UTF-8" in w for w in fr.warnings)
    assert not fr.changed_on_disk()  # the file as read: its size and hash agree with the bytes on disk
    fr.accept_all()
    assert source_bytes(fr.output_text()) == b"#include <hip/hip_runtime.h>\nint \xff\xfe x;\nhipFree(p);\n"


def test_identical_hunks_get_their_own_decisions():
    src = "int a;\ncudaFree(p);\nint a;\n" * 3
    fr = FileReview.from_text("r.cpp", src)  # a .cpp: no runtime include to insert, just the three renames
    assert len(fr.hunks) == 3 and len({h.key for h in fr.hunks}) == 3
    fr.decide(1, REJECTED)
    assert [fr.decision(i) for i in range(3)] == ["pending", REJECTED, "pending"]


def test_an_edit_undone_in_an_editor_leaves_the_file_accepted_not_stale():
    """Issue 32, defect 5: `e` (a line added), `A`, then `E` with an editor that takes the line out
    again.  The CUDA never changed, so nothing is stale: the decision `A` made on the edit's own
    hunk goes with the edit, and the file is accepted as before the edit."""
    fr = FileReview.from_text("x.cu", CUDA)
    proposed = fr.output_text()
    fr.set_edited(proposed.replace("int b;\n", "int b;\n// mine\n"))
    fr.accept_all()
    assert fr.state == S_EDITED
    fr.set_edited(proposed)  # the editor's text: the proposed HIP again
    assert fr.edited is None and fr.state == S_ACCEPTED
    assert fr.stale_decisions == 0 and not any(h.stale for h in fr.hunks)
    assert set(fr.decisions) == {h.key for h in fr.hunks}  # the converted hunks keep their `A`


def test_decisions_a_source_change_left_behind_stay_stale_when_the_edit_is_reconverted():
    """What the fix above must not hide: a decision whose hunk the CUDA change took away is
    still counted when the edit made before the change is re-converted."""
    cuda = CUDA.replace("int b;\n", "int b;\nint b2;\nint b3;\n")  # an edit of b2 touches no converted hunk
    fr = FileReview.from_text("x.cu", cuda)
    fr.accept_all()
    fr.set_edited(fr.output_text().replace("int b2;", "int b2 = 1;"))
    saved = json.loads(json.dumps(fr.to_session()))
    fr2 = FileReview(rel="x.cu")
    fr2.restore(saved)
    fr2.apply_result(convert_file("x.cu", None, "source", data=cuda.replace("cudaFree(p);", "cudaFree(q);").encode()))
    fr2.after_restore_load()
    assert fr2.edit_stale and fr2.stale_decisions == 1
    fr2.set_edited(None)  # re-convert
    assert fr2.stale_decisions == 1 and [h.old for h in fr2.hunks if h.stale] == [("cudaFree(q);",)]
