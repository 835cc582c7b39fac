"""Moving about a big project (issue 32): the file list's home / end / page keys and its `/` filter
(lazygit's list filter), the search's match count with n / N, `:` past the last line, redo."""

from __future__ import annotations

from pathlib import Path

import pytest

from tui_helpers import make_app, notes, open_file, started, sync

KERNEL = """#include <cuda_runtime.h>
__global__ void k{i}(float *p) {{ p[threadIdx.x] = {i}.0f; }}
void launch{i}(float *p) {{ k{i}<<<1, 32>>>(p); cudaDeviceSynchronize(); }}
"""


@pytest.fixture
def big_project(tmp_path) -> Path:
    """61 files in four folders, as the samples folder of a real project."""
    root = tmp_path / "samples"
    for i in range(61):
        folder = ("Common", "reduction", "scan", "matmul")[i % 4]
        p = root / folder / f"{folder}_{i:02d}.cu"
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(KERNEL.format(i=i))
    return root


def _shown(tree) -> list[str]:
    return [rel for _, _, rel in tree.rows if rel is not None]


def _visible(tree) -> bool:
    top = tree.scroll_offset.y
    return top <= tree.cursor < top + tree.scrollable_content_region.height


@sync
async def test_file_list_home_end_and_page_keys_move_by_what_is_on_screen(big_project):
    app = make_app(big_project)
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot)
        tree = app.file_tree
        await pilot.press("1", "end")
        await pilot.pause()
        assert tree.cursor == len(tree.rows) - 1 and _visible(tree)
        await pilot.press("enter")
        await pilot.pause()
        assert app.current.rel == _shown(tree)[-1]
        await pilot.press("1", "home")
        await pilot.pause()
        assert tree.cursor == 0 and tree.scroll_offset.y == 0
        page = tree.scrollable_content_region.height - 1
        await pilot.press("pagedown")
        await pilot.pause()
        assert tree.cursor == page and _visible(tree)
        await pilot.press("pagedown", "pageup")
        await pilot.pause()
        assert tree.cursor == page and _visible(tree)


@sync
async def test_slash_in_the_file_list_filters_it_enter_keeps_escape_clears(big_project):
    app = make_app(big_project)
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot)
        tree = app.file_tree
        every = _shown(tree)
        assert len(every) == 61
        await pilot.press("1", "slash")
        await pilot.pause()
        line = app.main.query_one("#file-filter")
        assert line.display and app.focused is line  # the search of the diff did not open
        await pilot.press(*"SCAN_1")
        await pilot.pause()
        kept = _shown(tree)
        assert kept and all("scan_1" in rel.lower() for rel in kept) and len(kept) < 61
        assert [r for r in tree.rows if r[2] is None] == [(0, "scan/", None)]  # their folder only
        await pilot.press("enter")  # the list again, still filtered, the filter line still shown
        await pilot.pause()
        assert app.focused is tree and _shown(tree) == kept and line.display
        assert tree.rows[tree.cursor][2] == kept[0]  # the cursor on the first file the filter keeps
        await pilot.press("down", "enter")
        await pilot.pause()
        assert app.current.rel == kept[1]
        await pilot.press("1", "escape")
        await pilot.pause()
        assert _shown(tree) == every and not line.display
        assert tree.rows[tree.cursor][2] == kept[1]  # the cursor stays on the open file
        await pilot.press("slash", *"nothing-like-this", "enter")
        await pilot.pause()
        assert _shown(tree) == [] and "no file matches" in tree.render_line(0).text


@sync
async def test_search_counts_its_matches_and_n_N_go_through_them_until_escape(project_dir):
    app = make_app(project_dir)
    async with app.run_test(size=(160, 45)) as pilot:
        fr = await open_file(app, pilot, "main.cu")
        rows = [i for i in range(len(fr.rows)) if "cudamalloc" in ((fr.left_text(i) or "") + (fr.right_text(i) or "")).lower()]
        assert len(rows) >= 2
        info = app.main.query_one("#file-info")
        start = app.diff.current_row()
        await pilot.press("slash", *"cudaMalloc", "enter")
        await pilot.pause()
        assert app.diff.current_row() == next((r for r in rows if r > start), rows[0])  # the next one down
        at = rows.index(app.diff.current_row()) + 1
        assert f"match {at} of {len(rows)}" in str(info.render())
        await pilot.press("n")
        await pilot.pause()
        assert f"match {at % len(rows) + 1} of {len(rows)}" in str(info.render())
        await pilot.press("N")
        await pilot.pause()
        assert f"match {at} of {len(rows)}" in str(info.render())
        await pilot.press("N")  # before the first match: wraps to the last
        await pilot.pause()
        if at == 1:
            assert f"match {len(rows)} of {len(rows)}" in str(info.render())
        await pilot.press("escape")
        await pilot.pause()
        assert "match" not in str(info.render())
        hunk = app.diff.current_hunk()
        await pilot.press("n")  # the next hunk again
        await pilot.pause()
        assert app.diff.current_hunk() != hunk or "no more hunks" in notes(app)[-1]


@sync
async def test_goto_past_the_last_line_says_how_many_lines_the_file_has(project_dir):
    app = make_app(project_dir)
    async with app.run_test(size=(160, 45)) as pilot:
        fr = await open_file(app, pilot, "main.cu")
        row = app.diff.current_row()
        await pilot.press("colon", *"9999", "enter")
        await pilot.pause()
        assert app.diff.current_row() == row  # not moved to the last line without a word
        assert f"main.cu has {len(fr.left)} CUDA lines" in notes(app)[-1]
        await pilot.press("colon", *"h9999", "enter")
        await pilot.pause()
        assert f"has {len(fr.right)} HIP lines" in notes(app)[-1]
        await pilot.press("colon", *str(len(fr.left)), "enter")
        await pilot.pause()
        assert fr.rows[app.diff.current_row()].left == len(fr.left) - 1


@sync
async def test_ctrl_r_redoes_what_u_undid_and_a_new_change_drops_it(project_dir):
    app = make_app(project_dir)
    async with app.run_test(size=(160, 45)) as pilot:
        fr = await open_file(app, pilot, "main.cu")
        await pilot.press("A")
        assert fr.pending_hunks == 0
        await pilot.press("u")
        await pilot.pause()
        assert fr.pending_hunks == len(fr.hunks)
        await pilot.press("ctrl+r")
        await pilot.pause()
        assert fr.pending_hunks == 0 and "redone: main.cu is accepted" in notes(app)[-1]
        await pilot.press("u", "u")  # the redone change undoes again; then nothing is left
        await pilot.pause()
        assert fr.pending_hunks == len(fr.hunks) and "nothing to undo" in notes(app)[-1]
        await pilot.press("ctrl+r", "x")  # redo, then a new change: what was undone is gone
        await pilot.pause()
        await pilot.press("ctrl+r")
        await pilot.pause()
        assert "nothing to redo" in notes(app)[-1]
