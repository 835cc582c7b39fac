"""The review model (porter.project.review) and the session file, without the UI."""

from __future__ import annotations

import json
import pytest

from porter.project.review import (ACCEPTED, REJECTED, S_ACCEPTED, S_EDITED, S_ERROR, S_PENDING, S_UNCHANGED,
                                   FileReview, ReviewProject, align_by_insertions, convert_file)
from porter.project.session import SessionStore

from tui_helpers import fake_scan, tree_bytes

CUDA = "#include <cuda_runtime.h>\nint a;\ncudaMalloc(&p, n);\nint b;\nint c;\ncudaFree(p);\n"


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


def test_align_by_insertions_refuses_counts_that_do_not_add_up():
    assert align_by_insertions(3, 5, [(0, 1)]) is None
    rows = align_by_insertions(2, 3, [(1, 1)])
    assert [(r.left, r.right) for r in rows] == [(0, 0), (None, 1), (1, 2)]


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


@pytest.mark.parametrize("data,why", [(b"\x7fELF\x00\x00\x01", "binary"), (b"int \xff\xfe x;\n", "UTF-8")])
def test_binary_and_undecodable_files_become_error_state(tmp_path, data, why):
    p = tmp_path / "bad.cu"
    p.write_bytes(data)
    fr = FileReview(rel="bad.cu", path=p)
    fr.load()
    assert fr.state == S_ERROR and why in fr.error


def test_write_skips_pending_copies_others_and_leaves_source_alone(project_dir):
    before = tree_bytes(project_dir)
    out = project_dir.with_name("out")
    proj = ReviewProject(project_dir, out)
    for fr in proj.files:
        proj.load_file(fr)
    main = proj.by_rel["main.cu"]
    main.accept_all()
    rep = proj.write()
    assert "main.cu" in rep.written and "reduce_kernels.cu" in rep.skipped
    assert "README.md" in rep.copied
    assert "hipMalloc" in (out / "main.cu").read_text()
    assert not (out / "reduce_kernels.cu").exists()
    assert "skipped" in rep.summary()
    assert tree_bytes(project_dir) == before


def test_write_to_an_unwritable_output_reports_errors(project_dir, tmp_path):
    blocker = tmp_path / "blocker"
    blocker.write_text("a file where the output folder's parent should be")
    proj = ReviewProject(project_dir, blocker / "out")
    for fr in proj.files:
        proj.load_file(fr)
        fr.accept_all()
    rep = proj.write()
    assert rep.errors and not rep.written
    assert "cannot create" in rep.summary()


def test_session_round_trip_and_corrupt_file_set_aside(tmp_path):
    store = SessionStore(tmp_path)
    store.save({"project": "/p", "files": {"a.cu": {"decisions": {"k": "accepted"}}}})
    data, msg = store.load("/p")
    assert msg is None and data["files"]["a.cu"]["decisions"] == {"k": "accepted"}
    assert json.loads(store.path.read_text())["version"] == 1
    store.path.write_text('{"version": 1, "files": {"a.cu": ')  # truncated by a crash of something else
    data, msg = store.load("/p")
    assert data is None and "session.json.bad" in msg
    assert store.path.with_name("session.json.bad").exists() and not store.path.exists()
    store.save({"project": "/other", "files": {}})
    data, msg = store.load("/p")
    assert data is None and "belongs to" in msg


def test_the_composed_highlight_query_is_up_to_date_and_compiles():
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    r = subprocess.run([sys.executable, str(root / "scripts" / "compose_highlights.py"), "--check"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    from porter.tui.highlight import highlight_lines

    spans = highlight_lines("__global__ void k(int *p) { // note\n  p[0] = 42;\n}\n")
    names = {name for line in spans for _, _, name in line}
    assert {"keyword", "comment", "number", "function"} <= names


def test_identical_hunks_get_their_own_decisions():
    src = "int a;\ncudaFree(p);\nint a;\n" * 3
    fr = FileReview.from_text("r.cpp", src)  # a .cpp: no runtime include to insert, just the three renames
    assert len(fr.hunks) == 3 and len({h.key for h in fr.hunks}) == 3
    fr.decide(1, REJECTED)
    assert [fr.decision(i) for i in range(3)] == ["pending", REJECTED, "pending"]
