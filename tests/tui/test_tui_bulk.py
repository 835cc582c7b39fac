"""Every safe fix of the project, from the palette: a preview first, then one `u` takes all of
them back (issue 14: "apply every safe fix ... in the project, from the palette, with a preview")."""

from __future__ import annotations

from tui_helpers import SIZE, make_app, open_file, settle, sync


@sync
async def test_the_project_wide_safe_fixes_preview_apply_and_undo_in_one_step(project_dir):
    app = make_app(project_dir)
    async with app.run_test(size=SIZE) as pilot:
        await open_file(app, pilot, "main.cu")
        ready = [fr for fr in app.project.files if fr.status == "ready"]
        fixable = {fr.rel: len(fr.safe_fixes()) for fr in ready if fr.safe_fixes()}
        assert len(fixable) >= 2  # the sample has safe fixes in more than one file
        app.action_apply_project_safe_fixes()
        await pilot.pause()
        question = str(app.screen.query_one("#question").render())
        assert f"Apply {sum(fixable.values())} safe fixes in {len(fixable)} file(s)" in question
        assert all(f"{rel}: {n}" in question for rel, n in fixable.items())
        await pilot.press("n")  # the preview alone changes nothing
        await pilot.pause()
        assert not any(fr.applied_fixes for fr in ready)
        app.action_apply_project_safe_fixes()
        await pilot.pause()
        await pilot.press("y")
        await settle(app, pilot)
        assert {fr.rel: len(fr.applied_fixes) for fr in ready if fr.applied_fixes} == fixable
        await pilot.press("u")
        await settle(app, pilot)
        assert not any(fr.applied_fixes for fr in ready)  # one undo for the whole change
        assert all(fr.safe_fixes() for fr in ready if fr.rel in fixable)  # offered again
