"""`a` / `x` with the cursor on an unchanged line decide the next hunk below it, and say which:
the info bar shows no hunk there, so the decision must not pass unseen (issue 14: work is
never hidden)."""

from __future__ import annotations

from tui_helpers import SIZE, make_app, notes, open_file, sync


@sync
async def test_a_decision_from_between_hunks_names_the_hunk_it_decided(project_dir):
    app = make_app(project_dir)
    async with app.run_test(size=SIZE) as pilot:
        fr = await open_file(app, pilot, "main.cu")
        gap = next(r for r in range(len(fr.rows)) if r not in fr.row_hunk and any(h.start > r for h in fr.hunks[1:]))
        target = next(h for h in fr.hunks if h.start > gap)
        app.diff.move_to_row(gap)
        await pilot.pause()
        assert app.diff.current_hunk_at_cursor() is None
        await pilot.press("x")
        await pilot.pause()
        assert fr.decision(target.index) == "rejected"
        line = fr.rows[target.start].left + 1 if fr.rows[target.start].left is not None else None
        said = [n for n in notes(app) if n.startswith("rejected hunk")]
        assert said and said[-1].startswith(f"rejected hunk {target.index + 1} of {len(fr.hunks)}")
        if line is not None:
            assert f"CUDA line {line}" in said[-1]
        await pilot.press("a")  # on a hunk now (the cursor moved on): nothing extra is said
        await pilot.pause()
        assert not any(n.startswith("accepted hunk") for n in notes(app))
