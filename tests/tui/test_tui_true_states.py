"""What the file list says about a file stays true (issue 32): after a restart, the findings
that the applied fixes answered stay answered (defect 2); an edit that an outside editor takes
back again is not a change of the CUDA source (defect 5)."""

from __future__ import annotations

import sys

from tui_helpers import SIZE, edit_top, make_app, open_file, quit_app, settle, started, sync


def _label(app, rel: str) -> str:
    return app.file_tree.label_of(rel).plain


@sync
async def test_the_re_check_after_fixes_survives_quitting_and_reopening(project_dir):
    app = make_app(project_dir)
    async with app.run_test(size=SIZE) as pilot:
        fr = await open_file(app, pilot, "warp_utils.cuh")
        assert fr.severity_counts()["warning"] > 0
        await pilot.press("F", "y")  # every safe fix: the PORT020 widths, which answer the PORT012 loops
        await settle(app, pilot)
        after = fr.severity_counts()
        resolved = set(fr.resolved)
        assert after["warning"] == 0 and resolved and "W" not in _label(app, fr.rel).split()[-1]
        await quit_app(pilot)

    app2 = make_app(project_dir, preload=False)  # converted in worker processes, as in real use
    async with app2.run_test(size=SIZE) as pilot:
        await started(pilot)
        fr2 = app2.project.by_rel["warp_utils.cuh"]
        while fr2.status != "ready":
            await pilot.pause(0.05)
        await pilot.pause()
        assert fr2.applied_fixes == fr.applied_fixes  # (the session restored the fixes)
        assert fr2.severity_counts() == after and fr2.resolved == resolved
        assert "W" not in _label(app2, fr2.rel).split()[-1]  # not `12W` again
        await quit_app(pilot)


@sync
async def test_an_edit_that_the_external_editor_takes_back_is_not_stale(project_dir, tmp_path, monkeypatch):
    script = tmp_path / "undo_editor.py"  # an editor that deletes the first line (the one `e` added)
    script.write_text("import sys, pathlib\n"
                      "path = pathlib.Path(sys.argv[2])\n"
                      "path.write_text(path.read_text().split('\\n', 1)[1])\n")
    monkeypatch.setenv("EDITOR", f"{sys.executable} {script}")
    monkeypatch.delenv("VISUAL", raising=False)
    app = make_app(project_dir)
    async with app.run_test(size=SIZE) as pilot:
        fr = await open_file(app, pilot, "reduce_kernels.h")
        await edit_top(app, pilot, "// mine")
        await pilot.press("A", "w")
        await settle(app, pilot)
        assert fr.edited is not None and fr.state == "edited"
        await pilot.press("E")
        await settle(app, pilot)
        assert fr.edited is None and "// mine" not in fr.output_text()
        assert "stale" not in _label(app, fr.rel)
        info = str(app.main.query_one("#file-info").render())
        assert "source changed" not in info and fr.state == "accepted"
