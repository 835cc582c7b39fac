"""The merge of an edit whose CUDA changed (issue 32, defect 7): the user's edit re-applied onto
the new conversion where the two do not overlap, conflicts marked where they do, and the three
texts side by side by lines (porter.project.merge, FileReview.merge_edit)."""

from __future__ import annotations

import json

from porter.project.file_conversion import convert_file
from porter.project.file_review import S_EDITED, S_PENDING, FileReview
from porter.project.merge import CONFLICT, MINE, SAME, THEIRS, count_conflicts, merge3
from porter.project.review_project import ReviewProject


def _lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def test_changes_that_do_not_overlap_are_both_kept():
    base = _lines("a\nb\nc\nd\ne\n")
    mine = _lines("a\nB mine\nc\nd\ne\n")
    theirs = _lines("a\nb\nc\nd\nnew\ne\n")
    m = merge3(base, mine, theirs)
    assert m.text() == "a\nB mine\nc\nd\nnew\ne\n" and m.conflicts == 0
    assert [c.kind for c in m.chunks] == [SAME, MINE, SAME, THEIRS, SAME]


def test_changes_that_overlap_are_a_marked_conflict_with_all_three_versions():
    base = _lines("a\nb\nc\n")
    m = merge3(base, _lines("a\nb mine\nc\n"), _lines("a\nb theirs\nc\n"))
    assert m.conflicts == 1 and [c.kind for c in m.chunks] == [SAME, CONFLICT, SAME]
    assert m.text() == ("a\n<<<<<<< your edit\nb mine\n||||||| old conversion\nb\n=======\nb theirs\n"
                        ">>>>>>> new conversion\nc\n")
    assert count_conflicts(m.text()) == 1
    # the same change on both sides is no conflict, and is taken once
    same = merge3(base, _lines("a\nB\nc\n"), _lines("a\nB\nc\n"))
    assert same.conflicts == 0 and same.text() == "a\nB\nc\n"


def test_line_ends_of_the_file_are_kept_and_a_last_line_without_its_end_is_not_glued():
    m = merge3(_lines("a\r\nb\r\nc"), _lines("a\r\nmine\r\nb\r\nc"), _lines("a\r\nb\r\nc\r\nd"))
    assert m.text() == "a\r\nmine\r\nb\r\nc\r\nd" and m.conflicts == 0
    conflict = merge3(_lines("a\r\nb"), _lines("a\r\nB1"), _lines("a\r\nB2"))
    assert "B1\r\n||||||| old conversion\r\nb\r\n=======\r\nB2\r\n>>>>>>> new conversion\r\n" in conflict.text()


def test_rows_show_the_three_texts_side_by_side_and_never_cross_a_chunk():
    base = _lines("a\nb\nc\n")
    mine = _lines("a\nb1\nb2\nc\n")
    theirs = _lines("x\na\nb\nc\n")
    m = merge3(base, mine, theirs)
    rows = m.rows()
    for col, text in enumerate((mine, base, theirs)):  # every line of each text once, in order
        assert [r[col] for r, _ in rows if r[col] is not None] == list(range(len(text)))
    assert [r for r, _ in rows] == [(None, None, 0), (0, 0, 1), (1, 1, 2), (2, None, None), (3, 2, 3)]
    for (r, n), (r2, n2) in zip(rows, rows[1:]):
        assert n2 in (n, n + 1)  # a chunk's rows are one band
    assert {m.chunks[n].kind for r, n in rows if r == (2, None, None)} == {MINE}


CUDA = "#include <cuda_runtime.h>\nint a;\nint a2;\ncudaMalloc(&p, n);\nint b;\nint c;\ncudaFree(p);\n"


def _stale(edit_from: str, edit_to: str, new_cuda: str) -> FileReview:
    """``CUDA`` converted and accepted, edited (``edit_from`` -> ``edit_to``), saved; then read
    again from ``new_cuda`` with the saved session, as after a restart."""
    fr = FileReview.from_text("x.cu", CUDA)
    fr.accept_all()
    fr.set_edited(fr.output_text().replace(edit_from, edit_to))
    saved = json.loads(json.dumps(fr.to_session()))
    fr2 = FileReview(rel="x.cu")
    fr2.restore(saved)
    fr2.apply_result(convert_file("x.cu", None, "source", data=new_cuda.encode()))
    fr2.after_restore_load()
    assert fr2.edit_stale
    return fr2


def test_merge_keeps_the_edit_and_brings_the_new_cuda_line_through():
    fr = _stale("int a;", "int a = 1;", CUDA.replace("int c;", "int c;\ncudaDeviceSynchronize();"))
    merged = fr.merge_edit()
    assert merged is not None and merged.conflicts == 0
    out = fr.output_text()
    assert "int a = 1;" in out and "hipDeviceSynchronize();" in out  # both: the edit and the new conversion
    assert not fr.edit_stale and fr.edit_conflicts == 0
    fr.accept_all()  # the new line's own hunk is reviewed like any other
    assert fr.state == S_EDITED


def test_a_conflicting_merge_is_marked_and_keeps_the_file_pending_and_unwritten(tmp_path):
    fr = _stale("int a;", "int a = 1;", CUDA.replace("int a;", "int a; cudaFree(q);"))
    merged = fr.merge_edit()
    assert merged is not None and merged.conflicts == 1
    assert "<<<<<<< your edit\nint a = 1;\n||||||| old conversion\nint a;\n=======\nint a; hipFree(q);\n" \
           ">>>>>>> new conversion\n" in fr.edited
    fr.accept_all()
    assert fr.edit_conflicts == 1 and fr.state == S_PENDING  # not written with markers in it
    project = ReviewProject(tmp_path / "src", tmp_path / "out")
    project.files, project.by_rel = [fr], {fr.rel: fr}
    assert project.write().skipped == ["x.cu"] and not (tmp_path / "out" / "x.cu").exists()
    resolved = fr.edited.replace("<<<<<<< your edit\n", "").split("||||||| old conversion\n")[0] + \
        fr.edited.split(">>>>>>> new conversion\n")[1]
    fr.set_edited(resolved)  # the user keeps their line and deletes the markers
    fr.accept_all()
    assert fr.edit_conflicts == 0 and fr.state == S_EDITED


def test_no_merge_without_the_cuda_the_edit_was_made_against():
    fr = _stale("int a;", "int a = 1;", CUDA.replace("int c;", "int c;\ncudaDeviceSynchronize();"))
    fr.edit_base_cuda = ""  # a session saved before porter kept it
    edited = fr.edited
    assert fr.edit_merge() is None and fr.merge_edit() is None
    assert fr.edited == edited and fr.edit_stale  # nothing changed: keep or re-convert remain


def test_the_three_way_view_columns_are_aligned_by_lines():
    fr = _stale("int b;", "int b = 2;", CUDA.replace("int a2;\n", "int a2;\nint added;\n"))
    base, new, mine = (t.splitlines() for t in (fr.edit_base_cuda, fr.effective_cuda(), fr.edited))
    rows = fr.three_way_rows()
    for col, text in enumerate((base, new, mine)):
        assert [r[col] for r in rows if r[col] is not None] == list(range(len(text)))
    added = next(r for r in rows if r[1] is not None and new[r[1]] == "int added;")
    assert added[0] is None and added[2] is None  # the new CUDA line faces gaps, not other lines
    edit = next(r for r in rows if r[2] is not None and mine[r[2]] == "int b = 2;")
    assert base[edit[0]] == new[edit[1]] == "int b;"  # the edited line beside the CUDA line it came from
    assert all(r[0] is not None and r[1] is not None for r in rows if r != added)
