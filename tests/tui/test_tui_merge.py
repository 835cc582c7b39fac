"""An edited file whose CUDA changed after the edit: besides keep and re-convert, m merges
(issue 32, defect 7): the edit re-applied onto the new conversion, both kept where they do not
overlap; where they do, the conflict is marked in the edit and the file stays pending."""

from __future__ import annotations

import asyncio

from tui_helpers import SIZE, add_cuda_line, edit_top, make_app, notes, open_file, settle, sync

from porter.project.file_review import S_EDITED, S_PENDING


def _edit_top_then(project_dir, change) -> None:
    """`A` and a new first line "// mine" in reduce_kernels.h in one session; then ``change``
    its CUDA on disk."""

    async def run():
        app = make_app(project_dir)
        async with app.run_test(size=SIZE) as pilot:
            fr = await open_file(app, pilot, "reduce_kernels.h")
            await pilot.press("A")
            await edit_top(app, pilot, "// mine")
            assert fr.state == S_EDITED

    asyncio.run(run())
    change(project_dir / "reduce_kernels.h")


def test_m_in_the_three_way_view_keeps_the_edit_and_the_new_cuda_line(project_dir):
    _edit_top_then(project_dir, add_cuda_line)

    @sync
    async def run():
        app = make_app(project_dir)
        async with app.run_test(size=SIZE) as pilot:
            fr = await open_file(app, pilot, "reduce_kernels.h")
            assert fr.edit_stale and type(app.screen).__name__ == "ChoiceScreen"
            await pilot.press("3")
            await pilot.pause()
            assert type(app.screen).__name__ == "ThreeWayScreen"
            await pilot.press("m")
            await pilot.pause()
            assert type(app.screen).__name__ == "MainScreen"
            out = fr.output_text()
            assert out.startswith("// mine\n") and "#define NEW_IN_CUDA hipSuccess" in out  # both
            assert not fr.edit_stale and fr.edit_conflicts == 0
            assert any("merged reduce_kernels.h" in n for n in notes(app))
            await pilot.press("u")  # one undo takes the merge back: the stale edit again
            await pilot.pause()
            assert fr.edit_stale and "NEW_IN_CUDA" not in (fr.edited or "")

    run()


def test_m_on_overlapping_changes_marks_the_conflict_and_the_file_stays_pending(project_dir):
    def change_first_line(path):
        text = path.read_text()
        path.write_text(text.replace("// reduce_kernels.h - ", "// reduce_kernels.h (changed) - ", 1))

    _edit_top_then(project_dir, change_first_line)

    @sync
    async def run():
        app = make_app(project_dir)
        async with app.run_test(size=SIZE) as pilot:
            fr = await open_file(app, pilot, "reduce_kernels.h")
            assert type(app.screen).__name__ == "ChoiceScreen"
            await pilot.press("m")  # the question offers the merge too
            await pilot.pause()
            assert type(app.screen).__name__ == "MainScreen"
            assert fr.edit_conflicts == 1 and fr.state == S_PENDING
            assert fr.edited.startswith("<<<<<<< your edit\n// mine\n")
            assert "(changed)" in fr.edited and ">>>>>>> new conversion\n" in fr.edited
            assert any("1 conflict marked" in n for n in notes(app))
            await pilot.press("A", "w")
            await pilot.pause()
            await settle(app, pilot)
            assert not (app.project.output / "reduce_kernels.h").exists() or \
                "<<<<<<<" not in (app.project.output / "reduce_kernels.h").read_text()

    run()


def test_m_without_the_cuda_the_edit_was_made_against_says_so_and_asks_again(project_dir):
    import json

    _edit_top_then(project_dir, add_cuda_line)
    session = project_dir.with_name("warp_reduce-hip") / ".porter" / "session.json"
    data = json.loads(session.read_text())
    data["files"]["reduce_kernels.h"].pop("edit_base_cuda")  # as saved before the base was kept
    session.write_text(json.dumps(data))

    @sync
    async def run():
        app = make_app(project_dir)
        async with app.run_test(size=SIZE) as pilot:
            fr = await open_file(app, pilot, "reduce_kernels.h")
            edited = fr.edited
            await pilot.press("m")
            await pilot.pause()
            assert any("no merge" in n for n in notes(app))
            assert type(app.screen).__name__ == "ChoiceScreen"  # keep or re-convert remain
            assert fr.edited == edited and fr.edit_stale

    run()
