"""Snapshots (pytest-textual-snapshot) of the main screen (at 80x24 zoomed, side by
side and unified; 100x30, 150x40 and 200x50), the findings view, the editor, the
log and the three-way view of a stale edit (100x30).  Deterministic: fixed terminal size, a copy of the sample
fixed CUDA project (conftest.MINI) under tmp_path shown by relative names, the
fake findings scan, every worker finished first.

Update after an intended change: pytest tests/tui/test_tui_snapshots.py --snapshot-update
"""

from __future__ import annotations

import sys

from tui_helpers import make_app, settle

SIZE = (150, 40)


async def _settle(pilot):
    await settle(pilot.app, pilot)  # (a superseded highlighting worker is cancelled, not waited for)


def _app(project_dir, rel="kernels.cu"):
    app = make_app(project_dir)

    async def run_before(pilot):
        while not app.started:  # the auto-pilot starts before the screen is composed
            await pilot.pause(0.02)
        app.open_file(rel)
        app.file_tree.select_file(rel)
        await _settle(pilot)

    return app, run_before


def _main_screen(mini_project, snap_compare, size, keys=()):
    app, before = _app(mini_project)

    async def run_before(pilot):
        await before(pilot)
        await pilot.press("a", "x", *keys)  # one accepted, one rejected hunk
        await _settle(pilot)

    return snap_compare(app, terminal_size=size, run_before=run_before)


def test_snapshot_main_screen(mini_project, snap_compare):
    assert _main_screen(mini_project, snap_compare, SIZE)


def test_snapshot_main_screen_200x50(mini_project, snap_compare):
    assert _main_screen(mini_project, snap_compare, (200, 50))


def test_snapshot_main_screen_100x30(mini_project, snap_compare):
    assert _main_screen(mini_project, snap_compare, (100, 30))


def test_snapshot_main_screen_80x24_zoomed(mini_project, snap_compare):
    assert _main_screen(mini_project, snap_compare, (80, 24), keys=("z",))


def test_snapshot_findings_view(mini_project, snap_compare):
    app, before = _app(mini_project)

    async def run_before(pilot):
        await before(pilot)
        await pilot.press("right_square_bracket")
        await _settle(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_snapshot_editor(mini_project, snap_compare):
    app, before = _app(mini_project, "include/util.h")

    async def run_before(pilot):
        await before(pilot)
        await pilot.press("e")
        await pilot.pause()
        area = app.screen.query_one("#editor")
        area.cursor_blink = False
        await _settle(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_snapshot_log_with_a_diagnostic(mini_project, snap_compare):
    app, before = _app(mini_project)
    script = "print('compiling kernels.cu'); print('kernels.cu:7:9: error: use of undeclared identifier x')"

    async def run_before(pilot):
        await before(pilot)
        app.start_job("build", [sys.executable, "-c", script], 30)
        await _settle(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_snapshot_main_screen_80x24_unified(mini_project, snap_compare):
    # 80x24: the diff alone (z), in one column (v): - CUDA lines, then + HIP lines
    assert _main_screen(mini_project, snap_compare, (80, 24), keys=("z", "v"))


def test_snapshot_three_way_view_100x30(mini_project, snap_compare):
    # an edit made against an older CUDA (one line since changed): base | CUDA now | the edit
    app, before = _app(mini_project, "include/util.h")

    async def run_before(pilot):
        await before(pilot)
        fr = app.current
        fr.set_edited("// mine\n" + fr.hip)
        fr.edit_base, fr.edit_base_cuda = "older", fr.cuda.replace("cudaSuccess", "0")
        app.ask_stale_edit(fr)
        await pilot.pause()
        await pilot.press("3")
        await _settle(pilot)

    assert snap_compare(app, terminal_size=(100, 30), run_before=run_before)
