"""The keyboard loop: focus keys 1-5, the diagnostics of the last job (errors
first, counted, cleared by the next job), } / { through the errors with the
findings cursor on the finding there."""

from __future__ import annotations

import sys

from textual.widgets import OptionList

from tui_helpers import SIZE, make_app, notes, open_file, settle, started, sync


@sync
async def test_number_keys_focus_the_panes_and_an_accepted_file_reopens_from_the_keyboard(project_dir):
    app = make_app(project_dir)
    async with app.run_test(size=SIZE) as pilot:
        fr = await open_file(app, pilot, "main.cu")
        await pilot.press("A", "tab")
        assert app.current is not fr and fr.state == "accepted"
        await pilot.press("1")
        assert app.focused is app.file_tree
        app.file_tree.select_file(app.current.rel)
        await pilot.press("up", "enter")  # main.cu sits above the next file
        await pilot.pause()
        assert app.current is fr and app.focused is app.diff
        await pilot.press("3")
        assert app.focused is app.findings_list
        await pilot.press("2")
        assert app.focused is app.diff
        assert not app.main.query_one("#log-panel").display
        await pilot.press("4")
        assert app.main.query_one("#log-panel").display and app.focused.id == "diagnostics"
        await pilot.press("5")
        assert app.focused.id == "log"


def _script(out, lines):
    return "".join(f"print({line!r})\n" for line in lines)


@sync
async def test_diagnostics_come_errors_first_with_counts_and_a_new_job_clears_them(project_dir):
    app = make_app(project_dir)
    out = app.project.output
    first = [f"{out / 'main.cu'}:3:1: warning: unused variable 'x'",
             f"{out / 'main.cu'}:20:5: error: no such thing",
             f"{out / 'main.cu'}:4:1: warning: another",
             f"{out / 'reduce_kernels.cu'}:9:2: error: bad"]
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        app.start_job("build", [sys.executable, "-c", _script(out, first)], 30)
        await app._job_worker.wait()
        await pilot.pause()
        assert [d.severity for d in app.diagnostics] == ["error", "error", "warning", "warning"]
        labels = [str(o.prompt) for o in app.main.query_one("#diagnostics", OptionList).options]
        assert "error: no such thing" in labels[0] and "warning" in labels[2]
        assert str(app.main.query_one("#diag-title").render()) == "2 errors, 2 warnings"
        await pilot.press("4", "down", "down", "enter")  # keyboard only: the second error
        await pilot.pause()
        assert app.current.rel == "reduce_kernels.cu" and app.focused is app.diff
        assert app.current.rows[app.diff.current_row()].right == 8
        app.start_job("build", [sys.executable, "-c", _script(out, [f"{out / 'main.cu'}:5:1: warning: only"])], 30)
        await app._job_worker.wait()
        await pilot.pause()
        assert len(app.diagnostics) == 1
        assert app.main.query_one("#diagnostics", OptionList).option_count == 1
        assert str(app.main.query_one("#diag-title").render()) == "1 warning"


@sync
async def test_next_error_jumps_to_the_line_and_puts_the_findings_cursor_there(project_dir, with_findings):
    app = make_app(project_dir)
    out = app.project.output
    async with app.run_test(size=SIZE) as pilot:
        fr = await open_file(app, pilot, "warp_utils.cuh")
        target = fr.findings[1]  # the second 0xffffffff: ] from it must go on to the third
        hip_line = fr.rows[fr.row_of_left_line(target.line)].right + 1
        main = app.project.by_rel["main.cu"]
        lines = [f"{out / 'warp_utils.cuh'}:{hip_line}:9: error: lane mask too narrow",
                 f"{out / 'main.cu'}:20:5: error: no such thing"]
        await open_file(app, pilot, "main.cu")
        app.start_job("build", [sys.executable, "-c", _script(out, lines)], 30)
        await app._job_worker.wait()
        await pilot.pause()
        await pilot.press("right_curly_bracket")
        await pilot.pause()
        assert app.current is fr
        assert fr.rows[app.diff.current_row()].right == hip_line - 1
        assert app.findings_list.highlighted == 1 and app.focused is app.diff
        await pilot.press("f")  # the fix of the finding on the error's line, without choosing it first
        await pilot.pause()
        assert fr.applied_fixes and fr.applied_fixes[0].startswith("PORT900@")
        await pilot.press("right_curly_bracket")
        await pilot.pause()
        assert app.current is main and main.rows[app.diff.current_row()].right == 19
        await pilot.press("right_curly_bracket")  # round again
        await pilot.pause()
        assert app.current is fr
        await pilot.press("left_curly_bracket")
        await pilot.pause()
        assert app.current is main
        await pilot.press("right_curly_bracket")  # back on the error's finding, then ] goes on from it
        await pilot.pause()
        assert app.current is fr and app.findings_list.highlighted == 1
        await pilot.press("right_square_bracket")
        await pilot.pause()
        assert app.findings_list.highlighted == 2


@sync
async def test_next_finding_starts_from_the_diff_cursor(project_dir, with_findings):
    app = make_app(project_dir)
    async with app.run_test(size=SIZE) as pilot:
        fr = await open_file(app, pilot, "warp_utils.cuh")
        assert len(fr.findings) >= 3
        app.diff.move_to_row(fr.row_of_left_line(fr.findings[1].line))
        await pilot.press("right_square_bracket")
        assert app.findings_list.highlighted == 1


@sync
async def test_next_error_with_no_job_says_so(project_dir):
    app = make_app(project_dir)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await pilot.press("right_curly_bracket")
        await pilot.pause()
        assert any("no errors from the last compile" in n for n in notes(app))


LOOP_KEYS = ("a accept", "x reject", "n hunk", "A all", "tab file", "] finding", "f fix", "w write", "T test",
             "c compile", "} error", "q quit", "? help")


@sync
async def test_the_footer_keeps_the_loop_keys_at_80_and_100_columns_and_z_zooms(project_dir):
    """Issue 32: at 80 columns the footer had lost n, tab, c, ] and }, though the README says it keeps
    the loop keys.  The key bar wraps onto a second line instead of cutting them."""
    from porter.tui.widgets.key_bar import KeyBar

    for width, height in ((80, 24), (100, 30), (200, 50)):
        app = make_app(project_dir)
        async with app.run_test(size=(width, height)) as pilot:
            await open_file(app, pilot, "main.cu")
            await pilot.pause()
            bar = app.main.query_one(KeyBar)
            lines = bar.render().plain.splitlines()
            assert bar.region.height == len(lines) <= 2 and bar.region.bottom == height
            assert all(len(line) <= width for line in lines), lines  # nothing cut off at the edge
            shown = " ".join(lines)
            for key in LOOP_KEYS:
                assert key in shown, (width, key, lines)
            if width == 200:
                assert len(lines) == 1  # room for everything on one line
            await pilot.click(KeyBar, offset=(shown.index("n hunk"), 0) if "n hunk" in lines[0] else (0, 0))
            await pilot.pause()
            assert app.diff.current_hunk() == 1  # a click on a key presses it
            if width == 80:
                await pilot.press("z")
                assert not app.main.query_one("#files-pane").display and not app.main.query_one("#side").display
                assert app.diff.size.width > 70
                await pilot.press("1")  # focusing a hidden pane shows it again
                await pilot.pause()
                assert app.main.query_one("#files-pane").display and app.focused is app.file_tree


@sync
async def test_counts_fall_as_fixes_land_and_A_warns_about_open_errors(project_dir, with_findings):
    app = make_app(project_dir)
    async with app.run_test(size=SIZE) as pilot:
        fr = await open_file(app, pilot, "warp_utils.cuh")
        errors = fr.severity_counts()["error"]
        assert errors >= 2
        header = str(app.main.query_one("#summary").render())
        total = app.project.counts()["errors"]
        assert f"{total} error findings" in header
        await pilot.press("right_square_bracket", "f")
        await pilot.pause()
        assert fr.severity_counts()["error"] == errors - 1
        assert f"{total - 1} error finding" in str(app.main.query_one("#summary").render())
        assert f"{errors - 1}E" in str(app.file_tree.label_of(fr.rel))
        await pilot.press("A")
        await pilot.pause()
        assert any(f"{errors - 1} error findings are still open" in n for n in notes(app))


@sync
async def test_a_file_with_a_rejected_hunk_is_not_labelled_accepted(project_dir):
    app = make_app(project_dir)
    async with app.run_test(size=SIZE) as pilot:
        fr = await open_file(app, pilot, "main.cu")
        await pilot.press("x", "A")
        label = str(app.file_tree.label_of("main.cu"))
        assert fr.state == "accepted" and "reviewed" in label and "accepted" not in label and "1✗" in label


@sync
async def test_F_applies_every_safe_fix_of_the_file_after_a_preview_and_u_takes_them_back(project_dir, with_findings):
    app = make_app(project_dir)
    async with app.run_test(size=SIZE) as pilot:
        fr = await open_file(app, pilot, "warp_utils.cuh")
        safe = [f for f in fr.findings if f.fix is not None and f.fix.safe]
        assert len(safe) >= 2
        await pilot.press("F")
        await pilot.pause()
        question = str(app.screen.query_one("#question").render())
        assert f"Apply {len(safe)} safe fixes in warp_utils.cuh" in question and "PORT900 line" in question
        await pilot.press("n")  # the preview changes nothing
        await pilot.pause()
        assert not fr.applied_fixes
        await pilot.press("F", "y")
        await settle(app, pilot)
        assert len(fr.applied_fixes) == len(safe) and "0xffffffff," not in fr.hip
        assert fr.severity_counts()["error"] == 0
        await pilot.press("u")
        await pilot.pause()
        assert not fr.applied_fixes
        titles = [c.title for c in app.get_system_commands(app.main)]
        assert "Apply every safe fix in the project" in titles


@sync
async def test_the_build_report_is_summarised_with_the_known_error_hint(project_dir):
    import json

    app = make_app(project_dir)
    hint = "use the maskless form (__shfl_down(v, d, width))"
    report = {"ok": False, "arch": "gfx942", "toolchain": "clang++-19 (clang 19.1.7)",
              "diagnostics": [{"file": "main.cu", "line": 20, "column": 5, "severity": "error",
                               "message": "use of undeclared identifier '__shfl_down_sync'", "rule": "PORT020",
                               "hint": hint},
                              {"file": "", "line": 0, "column": 0, "severity": "warning",
                               "message": "'-x none' after last input file has no effect"}],
              "messages": ["toolchain: clang++-19 for gfx942"]}
    async with app.run_test(size=(100, 40)) as pilot:  # a log pane narrower than RichLog's default min_width
        await open_file(app, pilot, "CMakeLists.txt")
        app.start_job("build", [sys.executable, "-c", f"print({json.dumps(report)!r})"], 30)
        await app._job_worker.wait()
        await pilot.pause()
        log = "".join("".join(str(line.text) for line in app.main.query_one("#log").lines).split())  # unwrapped

        def flat(text: str) -> str:
            return "".join(text.split())

        assert flat('{"ok"') not in log  # no raw JSON line
        assert flat("build failed: gfx942 with clang++-19 (clang 19.1.7); 1 error, 1 warning") in log
        assert flat(f"hint: {hint}") in log
        logw = app.main.query_one("#log")
        width = logw.scrollable_content_region.width
        assert all(line.cell_length <= width for line in logw.lines)  # wrapped to the pane, nothing cut off
        flat = "".join(str(line.text) for line in logw.lines).replace(" ", "")
        assert hint.replace(" ", "") in flat
        labels = [str(o.prompt) for o in app.main.query_one("#diagnostics", OptionList).options]
        assert labels[0].endswith("[PORT020]") and labels[1].startswith("warning: '-x none'")  # no ':0:1:'
        assert "build gfx942 with clang++-19 (clang 19.1.7): failed" in str(app.main.query_one("#summary").render())
        await pilot.press("right_curly_bracket")
        await pilot.pause()
        assert app.current.rel == "main.cu"
        assert any("PORT020: " + hint in n for n in notes(app))


@sync
async def test_the_fix_preview_scrolls_to_the_fix_whatever_the_message_length(project_dir, monkeypatch):
    import porter.findings
    from tui_helpers import fake_scan

    def long_scan(source, path=None, index=None, options=None, file=None):
        out = fake_scan(source, path, index, options)
        return [type(f)(*[(f.message + " because" * 120) if name == "message" else getattr(f, name)
                          for name in f.__dataclass_fields__]) if hasattr(f, "__dataclass_fields__") else f
                for f in out]

    monkeypatch.setattr(porter.findings, "scan", long_scan, raising=False)
    app = make_app(project_dir)
    async with app.run_test(size=SIZE) as pilot:
        fr = await open_file(app, pilot, "warp_utils.cuh")
        assert len(fr.findings[0].message) > 800
        await pilot.press("3", "down")  # the findings focused, the first one chosen
        await pilot.pause()
        pane = app.main.query_one("#fix-preview")
        assert pane.virtual_size.height > pane.scrollable_content_region.height  # longer than the pane
        rows = [strip.text for strip in pane._strips]
        assert any("0xffffffffffffffffull" in r for r in rows)  # the after line is there, not cut off
        assert any(line.startswith("+ ") and "0xffffffffffffffffull" in line for line in pane.text.plain.splitlines())
        await pilot.press("pagedown", "pagedown", "pagedown", "pagedown")
        await pilot.pause()
        assert pane.scroll_offset.y > 0
        visible = [pane.render_line(y).text for y in range(pane.scrollable_content_region.height)]
        assert any("0xffffffffffffffffull" in r for r in visible)


@sync
async def test_slash_searches_the_diff_and_colon_goes_to_a_line(project_dir):
    app = make_app(project_dir)
    async with app.run_test(size=SIZE) as pilot:
        fr = await open_file(app, pilot, "main.cu")
        hits = [i for i in range(len(fr.rows)) if "hipMalloc" in (fr.right_text(i) or "")]
        assert len(hits) >= 2
        app.diff.move_to_row(0)
        await pilot.press("slash")
        await pilot.pause()
        assert type(app.screen).__name__ == "InputScreen"
        await pilot.press(*"hipmalloc", "enter")  # either side, any case
        await pilot.pause()
        assert app.diff.current_row() == hits[0]
        await pilot.press("slash", "enter")  # empty: the next match
        await pilot.pause()
        assert app.diff.current_row() == hits[1]
        await pilot.press("colon", *"12", "enter")
        await pilot.pause()
        assert fr.rows[app.diff.current_row()].left == 11
        await pilot.press("colon", *"h3", "enter")
        await pilot.pause()
        assert fr.rows[app.diff.current_row()].right == 2
        await pilot.press("slash", *"no such text anywhere", "enter")
        await pilot.pause()
        assert any("is not in main.cu" in n for n in notes(app))


@sync
async def test_the_palette_goes_to_a_file_and_to_a_finding(project_dir, with_findings):
    app = make_app(project_dir)
    async with app.run_test(size=SIZE) as pilot:
        await open_file(app, pilot, "warp_utils.cuh")
        cmds = {c.title: c for c in app.get_system_commands(app.main)}
        finding = next(t for t in cmds if t.startswith("Go to finding PORT900"))
        cmds[finding].callback()
        await pilot.pause()
        assert app.findings_list.highlighted is not None
        cmds["Go to file reduce_kernels.h"].callback()
        await pilot.pause()
        assert app.current.rel == "reduce_kernels.h"
        assert all(not c.help.startswith("review key") for c in cmds.values())


@sync
async def test_the_current_hunk_is_a_band_and_unchanged_lines_show_no_hunk(project_dir, with_findings):
    app = make_app(project_dir)
    async with app.run_test(size=SIZE) as pilot:
        fr = await open_file(app, pilot, "warp_utils.cuh")
        dv = app.diff
        h = fr.hunks[dv.current_hunk_at_cursor()]
        rows_in = [dv._row_index[r] for r in range(h.start, h.end) if r in dv._row_index]
        assert rows_in and all(dv._band(d) for d in rows_in)
        assert not any(dv._band(d) for d in range(len(dv.display_rows)) if d not in rows_in)
        # a finding on an unchanged line: the file info does not claim a hunk
        f = next(f for f in fr.findings if fr.row_hunk.get(fr.row_of_left_line(f.line)) is None)
        app.findings_list.highlighted = fr.findings.index(f)
        await pilot.pause()
        info = str(app.main.query_one("#file-info").render())
        assert "unchanged line" in info and "hunk 1:" not in info
        assert not any(dv._band(d) for d in range(len(dv.display_rows)))


@sync
async def test_the_whole_rows_of_the_current_hunk_are_a_band_not_only_their_gutters(project_dir):
    app = make_app(project_dir)
    async with app.run_test(size=SIZE) as pilot:
        fr = await open_file(app, pilot, "main.cu")
        dv = app.diff
        assert len(fr.hunks) >= 2
        h = fr.hunks[dv.current_hunk_at_cursor()]

        def backgrounds(d):
            return {seg.style.bgcolor for seg in dv._render_row(d, 120, dv._band(d)) if seg.style and seg.style.bgcolor}

        def shown(hunk):
            return [dv._row_index[r] for r in range(hunk.start, hunk.end) if r in dv._row_index]

        pal = app.palette
        assert all(pal.added_band.bgcolor in backgrounds(d) for d in shown(h))  # the HIP text of the hunk
        other = next(hk for hk in fr.hunks if hk.index != h.index and shown(hk))
        assert all(pal.added.bgcolor in backgrounds(d) and pal.added_band.bgcolor not in backgrounds(d)
                   for d in shown(other))
        await pilot.press("n")  # the band follows the cursor
        await pilot.pause()
        h2 = fr.hunks[dv.current_hunk_at_cursor()]
        assert h2.index != h.index and all(pal.added_band.bgcolor in backgrounds(d) for d in shown(h2))
        assert all(pal.added_band.bgcolor not in backgrounds(d) for d in shown(h))


@sync
async def test_the_hip_side_keeps_its_highlighting_after_an_edit(project_dir):
    app = make_app(project_dir)
    async with app.run_test(size=SIZE) as pilot:
        fr = await open_file(app, pilot, "reduce_kernels.h")
        await settle(app, pilot)
        assert app.diff.right_hl
        highlights_before = list(app.diff.right_hl)
        await pilot.press("e")
        await pilot.pause()
        await pilot.press(*"// x", "enter", "ctrl+s", "escape")
        await settle(app, pilot)
        assert fr.edited is not None
        at = fr.right.index("// x\n")
        assert app.diff.right_hl is not None and app.diff.right_hl[at] == [(0, 4, "comment")]
        assert app.diff.right_hl[at + 1] == highlights_before[at]  # the line after it: as before, one down
        dv = app.diff
        d = dv._row_index[fr.row_of_right_line(at + 1)]
        strip = list(dv._render_row(d, SIZE[0]))
        half = "".join(seg.text for seg in strip).index("// x", SIZE[0] // 3)  # the HIP side's copy
        pos, hip_style = 0, None
        for seg in strip:
            if pos <= half < pos + len(seg.text):
                hip_style = seg.style
            pos += len(seg.text)
        assert hip_style is not None and hip_style.color == app.palette.syntax_style("comment").color  # drawn highlighted
