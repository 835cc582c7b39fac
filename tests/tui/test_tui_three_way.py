"""An edited file whose CUDA changed after the edit: the question offers a
three-way view (the CUDA the edit was made against, the CUDA now, the edit),
from which k keeps the edit and r re-converts.  The base is kept in the
session; a session saved before it was kept still opens."""

from __future__ import annotations

import json

from porter.project.file_review import S_EDITED
from tui_helpers import SIZE, add_cuda_line, edit_top, make_app, open_file, sync


def _column(app, cid) -> list[tuple[str, bool]]:
    """(text, marked) of each drawn line of a column of the three-way view."""
    col = app.screen.query_one(f"#three-{cid}")
    out = []
    for strip in col._strips:
        segs = list(strip)
        text = "".join(s.text for s in segs)
        out.append((text, any(s.style is not None and s.style.bgcolor is not None and s.text.strip() for s in segs)))
    return out


def _edited_then_changed(project_dir):
    """Edit reduce_kernels.h in one session, then change its CUDA on disk."""
    import asyncio

    async def run():
        app = make_app(project_dir)
        async with app.run_test(size=SIZE) as pilot:
            fr = await open_file(app, pilot, "reduce_kernels.h")
            await pilot.press("A")
            await edit_top(app, pilot, "// mine")
            assert fr.state == S_EDITED
        return app

    app = asyncio.run(run())
    src = project_dir / "reduce_kernels.h"
    before = add_cuda_line(src)
    return app.project.output / ".porter" / "session.json", before


def test_the_three_way_view_shows_base_new_and_the_edit_and_k_keeps_it(project_dir):
    session, before = _edited_then_changed(project_dir)
    saved = json.loads(session.read_text())["files"]["reduce_kernels.h"]
    assert saved["edit_base_cuda"] == before  # the CUDA the edit was made against is kept

    @sync
    async def run():
        app = make_app(project_dir)
        async with app.run_test(size=SIZE) as pilot:
            fr = await open_file(app, pilot, "reduce_kernels.h")
            assert fr.edit_stale and type(app.screen).__name__ == "ChoiceScreen"
            await pilot.press("3")
            await pilot.pause()
            assert type(app.screen).__name__ == "ThreeWayScreen"
            base, new, mine = _column(app, "base"), _column(app, "new"), _column(app, "mine")
            assert not any("NEW_IN_CUDA" in t for t, _ in base)  # the base is the CUDA before the change
            assert [m for t, m in new if "NEW_IN_CUDA" in t] == [True]  # the new line, marked
            assert [t for t, m in new if m] == [t for t, _ in new if "NEW_IN_CUDA" in t]  # and only it
            assert not any(m for _, m in base)  # a line added: nothing of the base is changed
            assert [m for t, m in mine if "// mine" in t] == [True]  # the edit's own line, marked
            assert not any("NEW_IN_CUDA" in t for t, _ in mine)  # the edit misses the new CUDA line
            # a blank line and the #define
            assert "2 CUDA lines changed" in str(app.screen.query_one("#three-title").render())
            await pilot.press("escape")  # back to the question
            await pilot.pause()
            assert type(app.screen).__name__ == "ChoiceScreen"
            await pilot.press("3")
            await pilot.pause()
            await pilot.press("k")
            await pilot.pause()
            assert type(app.screen).__name__ == "MainScreen"
            assert not fr.edit_stale and "// mine" in fr.output_text()

    run()


def test_r_in_the_three_way_view_reconverts_and_an_old_session_without_the_base_opens(project_dir):
    session, _ = _edited_then_changed(project_dir)
    data = json.loads(session.read_text())
    data["files"]["reduce_kernels.h"].pop("edit_base_cuda")  # as saved before the base was kept
    session.write_text(json.dumps(data))

    @sync
    async def run():
        app = make_app(project_dir)
        async with app.run_test(size=SIZE) as pilot:
            fr = await open_file(app, pilot, "reduce_kernels.h")
            assert fr.edit_stale and fr.edited is not None and "// mine" in fr.edited
            await pilot.press("3")
            await pilot.pause()
            base = _column(app, "base")
            assert "not known" in base[0][0] and len([t for t, _ in base if t.strip()]) <= 3
            assert any("NEW_IN_CUDA" in t for t, _ in _column(app, "new"))
            await pilot.press("r")
            await pilot.pause()
            assert type(app.screen).__name__ == "MainScreen"
            assert fr.edited is None and "#define NEW_IN_CUDA hipSuccess" in fr.output_text()

    run()


@sync
async def test_a_fix_under_an_edit_shows_the_fixed_cuda_in_the_three_way_view(project_dir, with_findings):
    app = make_app(project_dir)
    async with app.run_test(size=SIZE) as pilot:
        await open_file(app, pilot, "warp_utils.cuh")
        await edit_top(app, pilot, "// mine")
        await pilot.press("right_square_bracket", "f")
        await pilot.pause()
        assert type(app.screen).__name__ == "ChoiceScreen"
        await pilot.press("3")
        await pilot.pause()
        base, new = _column(app, "base"), _column(app, "new")
        assert not any("0xffffffffffffffffull" in t for t, _ in base)
        assert [m for t, m in new if "0xffffffffffffffffull" in t] == [True]
