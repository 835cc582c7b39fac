"""The project under review (porter.project.review_project): writing the port out, and the
saved session, without the UI."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from porter.project.review_project import ReviewProject
from porter.project.session import SessionStore

SAMPLE = Path(__file__).resolve().parents[2] / "sample_projects" / "warp_reduce"


@pytest.fixture
def project_dir(tmp_path) -> Path:
    dst = tmp_path / "warp_reduce"
    shutil.copytree(SAMPLE, dst)
    return dst


def tree_bytes(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


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


def _reopened(project: ReviewProject) -> ReviewProject:
    """The project as the next start has it: a new one with the saved session, its files read again."""
    again = ReviewProject(project.root, project.output)
    again.restore(json.loads(json.dumps(project.to_session())))
    for fr in again.files:
        again.load_file(fr)
    return again


def test_the_re_check_of_applied_fixes_holds_after_a_restart(project_dir):
    """Issue 32, defect 2: the safe fixes of warp_utils.cuh give every shuffle a width, which
    answers the PORT012 loops (resolved) and makes the unit's other warp-size warnings infos.
    After a restart the fixes come back from the session and so must what they answered: the
    file was listed with its 12 warnings open again."""
    project = ReviewProject(project_dir, project_dir.with_name("out"))
    fr = project.by_rel["warp_utils.cuh"]
    project.load_file(fr)
    before = fr.severity_counts()
    assert fr.apply_fixes(fr.safe_fixes())
    fr.recheck()
    after = fr.severity_counts()
    assert after["warning"] == 0 < before["warning"]
    fr2 = _reopened(project).by_rel["warp_utils.cuh"]
    assert fr2.applied_fixes == fr.applied_fixes
    assert fr2.severity_counts() == after
    assert (fr2.resolved, fr2.regraded, fr2.introduced) == (fr.resolved, fr.regraded, fr.introduced)


def test_after_the_cuda_changed_under_applied_fixes_the_re_check_is_of_the_new_text(project_dir):
    """The re-check is made again with the conversion, not carried over: a finding the fixes
    answered in the old text but that the new text brings back is open."""
    project = ReviewProject(project_dir, project_dir.with_name("out"))
    fr = project.by_rel["warp_utils.cuh"]
    project.load_file(fr)
    fr.apply_fixes(fr.safe_fixes())
    fr.recheck()
    assert fr.severity_counts()["warning"] == 0
    fr.read_again()  # another editor adds a width-less shuffle loop to the file
    fr.path.write_text(fr.cuda + "\n__device__ float more(float v) {\n"
                       "    for (int offset = 16; offset > 0; offset /= 2)\n"
                       "        v += __shfl_down_sync(0xffffffff, v, offset);\n    return v;\n}\n")
    project.load_file(fr)
    assert fr.applied_fixes  # the old fixes are still applied (their spans did not move)
    fresh = fr.fixed_source()
    from porter.findings import scan

    expected = {sev: sum(f.severity == sev for f in scan(fresh[0], fr.rel)) for sev in ("error", "warning", "info")}
    assert fr.severity_counts() == expected and expected["warning"] > 0
