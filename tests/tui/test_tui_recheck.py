"""A fix re-checks the findings it affects (issue 14).

In warp_utils.cuh, the `for (offset = 16; ...)` loops shuffle without a width. PORT012 says
such a loop reduces 32 lanes of a 64-lane wave, and PORT020 says the shuffle needs a width.
Once the PORT020 fix gives each shuffle a width of 32, the loop works on 32-lane logical warps,
so PORT012 is answered too. A scan of the fixed CUDA does not report it. The app used to list
it as open and count it."""

from __future__ import annotations

from tui_helpers import SIZE, make_app, notes, open_file, settle, sync

from porter.findings import scan
from porter.project.file_conversion import finding_key


@sync
async def test_the_warnings_a_width_fix_answers_are_shown_resolved_and_leave_the_counts(project_dir):
    app = make_app(project_dir)
    async with app.run_test(size=SIZE) as pilot:
        fr = await open_file(app, pilot, "warp_utils.cuh")
        loops = [f for f in fr.findings if f.rule == "PORT012"]
        assert len(loops) == 2
        warnings = fr.severity_counts()["warning"]
        assert f"{warnings}W" in str(app.file_tree.label_of(fr.rel))
        await pilot.press("F", "y")  # every safe fix: the PORT020 widths
        await settle(app, pilot)
        assert any(f.rule == "PORT020" for f in fr.findings) and all(
            finding_key(f) in fr.applied_fixes for f in fr.findings if f.rule == "PORT020")
        assert {finding_key(f) for f in loops} <= fr.resolved
        # the counts are those of a scan of the fixed CUDA: every shuffle has width 32 now, so the
        # unit keeps 32-lane logical warps (PORT017, new) and its other warp-size findings are infos
        fresh = scan(fr.fixed_source()[0], fr.rel)
        assert fr.severity_counts() == {sev: sum(f.severity == sev for f in fresh) for sev in ("error", "warning", "info")}
        assert fr.severity_counts()["warning"] == 0 and "W" not in app.file_tree.label_of(fr.rel).plain.split()[-1]
        shown = [str(t) for t in app.findings_list.items]
        assert sum("(resolved by a fix)" in t for t in shown) == 3  # the two loops from 16, the scan loop
        assert all("PORT012" in t or "PORT014" in t for t in shown if "(resolved by a fix)" in t)
        # new: the unit keeps 32-lane logical warps (PORT017), and the scan loop's bound is an info (PORT015)
        assert [t for t in shown if "(new after the fixes)" in t] == [t for t in shown if "PORT017" in t or (
            "PORT015" in t and "(new after the fixes)" in t)] != []
        assert any("(info after the fixes, was warning)" in t for t in shown)
        await pilot.press("u")  # the fixes taken back: the loops are open again
        await settle(app, pilot)
        assert not fr.applied_fixes and not fr.resolved
        assert fr.severity_counts()["warning"] == warnings


@sync
async def test_the_re_check_keeps_the_finding_the_cursor_is_on(project_dir):
    # the re-check ends in a worker after `f`: it restyles the list, and the next `f` or `i` acts
    # on the finding still selected (a reset selection made them say "select a finding first")
    app = make_app(project_dir)
    async with app.run_test(size=SIZE) as pilot:
        fr = await open_file(app, pilot, "warp_utils.cuh")
        await pilot.press("right_square_bracket")
        while app.current_finding() is None or app.current_finding().rule != "PORT020":
            await pilot.press("right_square_bracket")
        chosen = app.findings_list.highlighted
        await pilot.press("f")
        await settle(app, pilot)
        assert fr.applied_fixes and fr.resolved  # the re-check ran and resolved a PORT012
        assert app.findings_list.highlighted == chosen
        await pilot.press("i")
        await pilot.pause()
        assert type(app.screen).__name__ == "TextScreen"


@sync
async def test_a_finding_the_fixes_introduced_is_listed_explained_and_not_fixed(project_dir):
    app = make_app(project_dir)
    async with app.run_test(size=SIZE) as pilot:
        fr = await open_file(app, pilot, "warp_utils.cuh")
        await pilot.press("F", "y")
        await settle(app, pilot)
        # the unit keeps 32-lane logical warps now (PORT017), and the scan loop's bound is an info
        assert sorted(f.rule for f in fr.introduced) == ["PORT015", "PORT017"]
        assert all(f.severity == "info" for f in fr.introduced)
        new = fr.introduced[0]
        assert new.rule == "PORT017"
        # its line in the CUDA as read: where the first widened shuffle is (the fixed text has the same line)
        assert new.line == next(f.line for f in fr.findings if f.rule == "PORT020")
        app.findings_list.highlighted = len(fr.findings)  # the entry after the file's own findings
        await pilot.pause()
        assert fr.rows[app.diff.current_row()].left == new.line - 1
        assert "new after the fixes" in app.main.query_one("#fix-preview").text.plain
        await pilot.press("f")
        await pilot.pause()
        assert any("as your fixes made it" in n for n in notes(app))
        await pilot.press("i")
        await pilot.pause()
        assert type(app.screen).__name__ == "TextScreen" and "PORT017" in app.screen.title_text
