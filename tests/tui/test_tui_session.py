"""Session restore, stale decisions after a source change, and bad input inside the app."""

from __future__ import annotations

import json
import time

import pytest

from porter.project.file_review import ACCEPTED, REJECTED, S_ERROR
from tui_helpers import SIZE, make_app, notes, open_file, settle, started, sync, tree_bytes

@sync
async def test_decisions_are_restored_and_stale_ones_marked(project_dir):
    app = make_app(project_dir)
    async with app.run_test(size=SIZE) as pilot:
        fr = await open_file(app, pilot, "main.cu")
        await pilot.press("a", "x")  # accept hunk 0, reject hunk 1
        keys = [h.key for h in fr.hunks[:2]]
        old_second = fr.hunks[1].old
    session = app.project.output / ".porter" / "session.json"
    saved = json.loads(session.read_text())
    assert saved["version"] == 1 and saved["files"]["main.cu"]["decisions"] == {keys[0]: ACCEPTED, keys[1]: REJECTED}

    app2 = make_app(project_dir)
    async with app2.run_test(size=SIZE) as pilot:
        fr = await open_file(app2, pilot, "main.cu")
        assert fr.decision(0) == ACCEPTED and fr.decision(1) == REJECTED
        assert not any(h.stale for h in fr.hunks)
        assert any("restored the review session of 1 file" in n for n in notes(app2))

    # the CUDA source changes inside the rejected hunk: that decision goes stale, the other stays
    src = project_dir / "main.cu"
    text = src.read_text()
    assert old_second[0] in text
    src.write_text(text.replace(old_second[0], old_second[0] + "  // touched", 1))
    app3 = make_app(project_dir)
    async with app3.run_test(size=SIZE) as pilot:
        fr = await open_file(app3, pilot, "main.cu")
        assert fr.decision(0) == ACCEPTED
        assert fr.decision(1) == "pending" and fr.hunks[1].stale
        assert fr.stale_decisions == 1
        assert "need review again" in str(app3.main.query_one("#file-info").render())
        assert "stale" in str(app3.file_tree.label_of("main.cu"))


@sync
async def test_a_corrupt_session_is_reported_and_set_aside(project_dir):
    out = project_dir.with_name("warp_reduce-hip")
    (out / ".porter").mkdir(parents=True)
    (out / ".porter" / "session.json").write_bytes(b'{"version": 1, "files": {"main.cu": {"deci')
    app = make_app(project_dir)
    async with app.run_test(size=SIZE) as pilot:
        await open_file(app, pilot, "main.cu")
        assert any("session.json.bad" in n for n in notes(app))
        await pilot.press("a")  # keeps working, and saves a fresh session
    assert (out / ".porter" / "session.json.bad").exists()
    assert json.loads((out / ".porter" / "session.json").read_text())["version"] == 1


@pytest.mark.parametrize("files", [
    {"main.cu": {"decisions": [1, 2]}},
    {"main.cu": {"fixes": {"a": 1}}},
    {"main.cu": {"edited": 3}},
    {"main.cu": {"decisions": {"0": 7}}},
    {"main.cu": ["not", "an", "object"]},
])
@sync
async def test_a_session_of_the_wrong_inner_types_is_set_aside_not_crashed_on(project_dir, files):
    """A readable JSON whose fields have other types than porter writes once crashed the app at every
    start: it is set aside (kept as session.json.bad), said in one line, and the review starts clean."""
    out = project_dir.with_name("warp_reduce-hip")
    (out / ".porter").mkdir(parents=True)
    bad = json.dumps({"version": 1, "project": str(project_dir), "files": files}).encode()
    (out / ".porter" / "session.json").write_bytes(bad)
    app = make_app(project_dir)
    async with app.run_test(size=SIZE) as pilot:
        await open_file(app, pilot, "main.cu")
        said = [n for n in notes(app) if "session.json.bad" in n]
        assert said and all("\n" not in n for n in said)
        await pilot.press("a")
    assert (out / ".porter" / "session.json.bad").read_bytes() == bad  # the user's file, kept as it was
    assert json.loads((out / ".porter" / "session.json").read_text())["version"] == 1


@sync
async def test_binary_undecodable_and_deleted_files_show_a_message(project_dir):
    (project_dir / "blob.cu").write_bytes(b"\x00\x01\x02binary")
    (project_dir / "latin1.h").write_bytes("// caf\xe9\n".encode("latin-1"))  # converted (issue 33 item 11)
    app = make_app(project_dir, preload=False)
    gone = app.project.by_rel["reduce_kernels.cu"]
    (project_dir / "reduce_kernels.cu").unlink()  # deleted after discovery, before it was converted
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        for rel, words in (("blob.cu", "binary"), ("reduce_kernels.cu", "no longer exists")):
            app.open_file(rel)
            for _ in range(50):
                await pilot.pause(0.05)
                if app.project.by_rel[rel].status != "converting":
                    break
            app.show_current()
            assert app.project.by_rel[rel].state == S_ERROR
            assert words in app.diff.message
        assert gone.state == S_ERROR
        fr = await open_file(app, pilot, "main.cu")
        for _ in range(50):
            await pilot.pause(0.05)
            if fr.status == "ready":
                break
        (project_dir / "main.cu").unlink()  # deleted while open
        app.open_file("main.cu")
        await pilot.pause()
        assert any("deleted from the source tree" in n for n in notes(app))
        await pilot.press("A", "w")
        await settle(app, pilot)
        assert app.is_running
    out = app.project.output
    assert (out / "blob.cu").read_bytes() == (project_dir / "blob.cu").read_bytes()  # copied as it is
    assert "hipMalloc" in (out / "main.cu").read_text()


@sync
async def test_an_unwritable_output_folder_shows_a_message(project_dir, tmp_path):
    before = tree_bytes(project_dir)
    blocker = tmp_path / "blocker"
    blocker.write_text("not a folder")
    app = make_app(project_dir, out=blocker / "out")
    async with app.run_test(size=SIZE) as pilot:
        await open_file(app, pilot, "main.cu")
        await pilot.press("A", "w")
        await settle(app, pilot)
        # the session is saved on a timer after a change: wait (bounded) for its message, not for a time
        deadline = time.monotonic() + 10
        while not any("session not saved" in n for n in notes(app)) and time.monotonic() < deadline:
            await pilot.pause(0.02)
        msgs = notes(app)
        assert any("session not saved" in n for n in msgs)
        assert any("cannot create" in n for n in msgs)
        assert app.is_running and app.unwritten
    assert tree_bytes(project_dir) == before


def test_default_output_is_under_the_current_directory_not_beside_the_package(tmp_path, project_dir):
    from porter.cli.review import _sample, default_output

    work = tmp_path / "work"
    work.mkdir()
    assert default_output(_sample(), cwd=work) == work / "warp_reduce-hip"  # not inside the installed tree
    assert default_output(project_dir, cwd=work) == work / "warp_reduce-hip"
    # run from inside the project: beside it, never inside the source tree
    assert default_output(project_dir, cwd=project_dir) == project_dir.with_name("warp_reduce-hip")
    assert default_output(project_dir, cwd=project_dir / "sub") == project_dir.with_name("warp_reduce-hip")


@sync
async def test_the_header_says_where_the_output_goes(project_dir, tmp_path, monkeypatch):
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    app = make_app(project_dir, out=work / "warp_reduce-hip")
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        assert "warp_reduce → ./warp_reduce-hip" in str(app.main.query_one("#summary").render())


@sync
async def test_the_chosen_theme_is_kept_for_the_next_start(project_dir):
    app = make_app(project_dir)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        app.theme = "nord"
        await pilot.pause(0.4)  # saved 0.2 s after the change
    saved = json.loads((app.project.output / ".porter" / "session.json").read_text())
    assert saved["theme"] == "nord"
    again = make_app(project_dir)
    async with again.run_test(size=SIZE) as pilot:
        await started(pilot)
        assert again.theme == "nord"
