"""Work is never lost or hidden: a stale edit asks keep / re-convert, q during a
job asks, undo brings decisions, fixes and edits back."""

from __future__ import annotations

import sys

from porter.project.file_review import ACCEPTED, REJECTED, S_EDITED, S_PENDING
from tui_helpers import SIZE, add_cuda_line, edit_top, make_app, notes, open_file, settle, started, sync


@sync
async def test_an_edited_file_whose_cuda_changes_asks_keep_or_reconvert(project_dir):
    app = make_app(project_dir)
    async with app.run_test(size=SIZE) as pilot:
        fr = await open_file(app, pilot, "reduce_kernels.h")
        await pilot.press("A")
        await edit_top(app, pilot, "// mine")
        assert fr.state == S_EDITED
    src = project_dir / "reduce_kernels.h"
    add_cuda_line(src)

    for answer, keeps in (("k", True), ("r", False)):
        app2 = make_app(project_dir)
        async with app2.run_test(size=SIZE) as pilot:
            fr = await open_file(app2, pilot, "reduce_kernels.h")
            assert fr.edit_stale and fr.state == S_PENDING  # not written as it stands
            assert "stale" in str(app2.file_tree.label_of("reduce_kernels.h"))
            assert type(app2.screen).__name__ == "ChoiceScreen"
            if answer == "r":
                await pilot.press("r")
                await pilot.pause()
                assert fr.edited is None and "hipErrorInvalidValue" in fr.output_text()
                await pilot.press("u")  # undo brings the edit back
                await pilot.pause()
                assert fr.edited is not None and "// mine" in fr.output_text()
                continue
            await pilot.press("escape")  # cancel: still stale, asked again on the next visit
            await pilot.pause()
            assert fr.edit_stale and "CUDA changed after your edit" in str(app2.main.query_one("#file-info").render())
            other = next(f.rel for f in app2.project.files if f.rel != fr.rel)
            await open_file(app2, pilot, other)
            await open_file(app2, pilot, fr.rel)
            assert type(app2.screen).__name__ == "ChoiceScreen"
            await pilot.press("k")
            await pilot.pause()
            assert not fr.edit_stale and "// mine" in fr.output_text()
            await pilot.press("A")  # the new CUDA line is a pending hunk of its own: review it
            assert fr.state == S_EDITED
            await pilot.press("q", "y")
        # kept: no question after the next restart
        app3 = make_app(project_dir)
        async with app3.run_test(size=SIZE) as pilot:
            fr = await open_file(app3, pilot, "reduce_kernels.h")
            assert keeps and not fr.edit_stale and type(app3.screen).__name__ == "MainScreen"
            await pilot.press("e")  # edit again, so that the r round below finds a stale edit
            await pilot.pause()
            await pilot.press("ctrl+s", "escape")
        src.write_text(src.read_text() + "#define NEWER cudaErrorInvalidValue\n")


@sync
async def test_q_while_a_job_runs_asks_before_stopping_it(project_dir):
    app = make_app(project_dir)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        app.start_job("smoke", [sys.executable, "-c", "import time; print('slow', flush=True); time.sleep(60)"], 90)
        await _until(pilot, lambda: app._job_worker is not None and app._job_worker.is_running, 30)
        await pilot.press("q")
        await pilot.pause()
        assert type(app.screen).__name__ == "ConfirmScreen"
        assert "still running" in str(app.screen.query_one("#question").render())
        await pilot.press("n")
        await pilot.pause()
        assert app.is_running and app._job_worker.is_running
        await pilot.press("q", "y")
        await _until(pilot, lambda: not app.is_running, 30)
    assert app.return_code == 0


@sync
async def test_u_undoes_decisions_and_fixes_in_order(project_dir, with_findings):
    app = make_app(project_dir)
    async with app.run_test(size=SIZE) as pilot:
        main = await open_file(app, pilot, "main.cu")
        await pilot.press("a", "x")
        assert main.decision(0) == ACCEPTED and main.decision(1) == REJECTED
        fr = await open_file(app, pilot, "warp_utils.cuh")
        await pilot.press("a")
        assert fr.decision(0) == ACCEPTED
        hip_before = fr.hip
        await pilot.press("right_square_bracket", "f")
        await pilot.pause()
        assert fr.applied_fixes and fr.hip != hip_before
        await pilot.press("u")
        await pilot.pause()
        assert not fr.applied_fixes and fr.hip == hip_before and fr.decision(0) == ACCEPTED
        await pilot.press("u")
        assert fr.decision(0) == "pending"
        await pilot.press("u")  # the next undo is in main.cu: it opens there
        await pilot.pause()
        assert app.current is main and main.decision(1) == "pending" and main.decision(0) == ACCEPTED
        await pilot.press("u", "u")
        await pilot.pause()
        assert main.decision(0) == "pending"
        assert "nothing to undo" in " ".join(str(n.message) for n in app._notifications)


@sync
async def test_a_fix_under_an_edit_asks_keep_or_reconvert(project_dir, with_findings):
    app = make_app(project_dir)
    async with app.run_test(size=SIZE) as pilot:
        fr = await open_file(app, pilot, "warp_utils.cuh")
        await edit_top(app, pilot, "// mine")
        await pilot.press("right_square_bracket", "f")
        await pilot.pause()
        assert fr.edit_stale and type(app.screen).__name__ == "ChoiceScreen"
        await pilot.press("r")  # re-convert: the fix reaches the written text
        await pilot.pause()
        assert fr.edited is None and "0xffffffffffffffffull" in fr.output_text()


@sync
async def test_E_edits_in_EDITOR_at_the_hunk_line_and_takes_the_result_back(project_dir, tmp_path, monkeypatch):
    script = tmp_path / "fake_editor.py"
    script.write_text("import sys, pathlib\n"
                      "line, path = int(sys.argv[1][1:]), pathlib.Path(sys.argv[2])\n"
                      "rows = path.read_text().split('\\n')\n"
                      "rows.insert(line - 1, f'// from the editor at {line}')\n"
                      "path.write_text('\\n'.join(rows))\n")
    monkeypatch.setenv("EDITOR", f"{sys.executable} {script}")
    monkeypatch.delenv("VISUAL", raising=False)
    app = make_app(project_dir)
    async with app.run_test(size=SIZE) as pilot:
        fr = await open_file(app, pilot, "main.cu")
        await pilot.press("n")
        h = fr.hunks[app.diff.current_hunk()]
        want = fr.right_text(h.start)
        await pilot.press("E")
        await settle(app, pilot)
        lines = fr.output_text().split("\n")
        at = next(i for i, x in enumerate(lines) if x.startswith("// from the editor at "))
        assert lines[at + 1] == want  # inserted just above the hunk's line
        assert fr.edited is not None and any(x.edited for x in fr.hunks)
    assert "from the editor" not in (project_dir / "main.cu").read_text()  # the source is untouched


async def _until(pilot, cond, timeout: float = 10.0) -> None:
    import time

    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, "the app never noticed"
        await pilot.pause(0.05)


@sync
async def test_a_cuda_file_saved_by_another_editor_while_on_screen_is_converted_again(project_dir):
    """Mid-session, not only at the next start: the file on screen is watched.  The decisions
    stay; the new CUDA line is a hunk of its own, undecided."""
    app = make_app(project_dir)
    async with app.run_test(size=SIZE) as pilot:
        fr = await open_file(app, pilot, "reduce_kernels.h")
        await pilot.press("A")
        assert fr.state != S_PENDING and fr.pending_hunks == 0
        decided = len(fr.hunks)
        src = project_dir / "reduce_kernels.h"
        add_cuda_line(src)
        await _until(pilot, lambda: "NEW_IN_CUDA" in fr.cuda)  # the watch looks every second
        await pilot.pause()
        assert "hipSuccess" in fr.hip  # converted again, from the new source
        assert fr.state == S_PENDING and fr.pending_hunks == 1 and len(fr.hunks) == decided + 1
        assert any("reduce_kernels.h changed on disk" in n for n in notes(app))
        assert app.diff.file is fr and any("NEW_IN_CUDA" in line for line in fr.left)
        await pilot.press("q", "y")


@sync
async def test_an_edit_goes_stale_when_its_cuda_is_saved_elsewhere_mid_session(project_dir):
    app = make_app(project_dir)
    async with app.run_test(size=SIZE) as pilot:
        fr = await open_file(app, pilot, "reduce_kernels.h")
        await pilot.press("A")
        await edit_top(app, pilot, "// mine")
        assert fr.state == S_EDITED
        old_cuda = fr.cuda
        src = project_dir / "reduce_kernels.h"
        add_cuda_line(src)
        await _until(pilot, lambda: type(app.screen).__name__ == "ChoiceScreen")
        assert fr.edit_stale and fr.state == S_PENDING  # not written as it stands
        assert fr.edit_base_cuda == old_cuda  # the three-way view has the CUDA the edit was made against
        await pilot.press("k")
        await pilot.pause()
        assert not fr.edit_stale and "// mine" in fr.output_text()
        await pilot.press("q", "y")


@sync
async def test_w_does_not_write_a_file_from_a_source_that_changed_since_it_was_read(project_dir):
    app = make_app(project_dir)
    out = app.project.output
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        for fr in app.project.files:
            fr.accept_all()
        src = project_dir / "warp_utils.cuh"  # not on screen: noticed at the write
        add_cuda_line(src)
        await pilot.press("w")
        await settle(app, pilot)
        fr = app.project.by_rel["warp_utils.cuh"]
        assert "NEW_IN_CUDA" in fr.cuda and fr.state == S_PENDING  # converted again: to be reviewed
        assert not (out / "warp_utils.cuh").exists()  # not written from the old source
        assert (out / "reduce_kernels.h").exists()  # the others are
        assert any("warp_utils.cuh changed on disk" in n for n in notes(app))
        await pilot.press("q", "y")


@sync
async def test_u_takes_back_an_edit(project_dir):
    app = make_app(project_dir)
    async with app.run_test(size=SIZE) as pilot:
        fr = await open_file(app, pilot, "reduce_kernels.h")
        before, pending = fr.output_text(), fr.pending_hunks
        await edit_top(app, pilot, "// mine")
        assert fr.edited is not None and "// mine" in fr.output_text()
        await pilot.press("u")
        await pilot.pause()
        assert fr.edited is None and fr.output_text() == before
        assert fr.state == S_PENDING and fr.pending_hunks == pending == len(fr.hunks)
        await pilot.press("q", "y")


def test_a_file_saved_unchanged_is_not_converted_again(project_dir):
    """A touch, a save without changes or a checkout of the same text changes the file's time only."""
    import os

    from porter.project.file_review import FileReview

    src = project_dir / "reduce_kernels.h"
    fr = FileReview("reduce_kernels.h", src)
    fr.load()
    assert not fr.changed_on_disk()
    st = src.stat()
    os.utime(src, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))
    assert not fr.changed_on_disk() and not fr.changed_on_disk()  # (and it is not read again each time)
    src.write_text(src.read_text().replace("warp", "wave", 1))
    assert fr.changed_on_disk()


def test_a_deleted_file_is_not_changed_but_one_made_unreadable_is(project_dir):
    from porter.project.file_review import FileReview

    src = project_dir / "reduce_kernels.h"
    fr = FileReview("reduce_kernels.h", src)
    fr.load()
    src.write_bytes(b"// caf\xe9\n")  # no longer UTF-8: converting it again says so
    assert fr.changed_on_disk()
    src.unlink()  # gone: the version read stays shown (the app says it was deleted)
    assert not fr.changed_on_disk()
