"""Every review key, driven through Textual's Pilot on a copy of a sample project."""

from __future__ import annotations

import re
import sys

from rich.console import Console
from textual.widgets import OptionList, RichLog, TextArea

from porter.project.file_review import ACCEPTED, REJECTED, S_ACCEPTED, S_EDITED
from tui_helpers import SIZE, make_app, notes, open_file, settle, started, sync, tree_bytes

@sync
async def test_hunk_keys_n_p_a_x_and_A(project_dir):
    app = make_app(project_dir)
    async with app.run_test(size=SIZE) as pilot:
        fr = await open_file(app, pilot, "main.cu")
        assert len(fr.hunks) >= 3
        assert app.diff.current_hunk() == 0
        await pilot.press("n")
        assert app.diff.current_hunk() == 1
        await pilot.press("p")
        assert app.diff.current_hunk() == 0
        await pilot.press("a")
        assert fr.decision(0) == ACCEPTED
        assert app.diff.current_hunk() == 1  # moved on to the next pending hunk
        await pilot.press("x")
        assert fr.decision(1) == REJECTED
        await pilot.press("A")
        assert fr.state == S_ACCEPTED and fr.decision(1) == REJECTED  # A keeps earlier decisions
        assert "1/" in str(app.main.query_one("#summary").render())
        assert app.unwritten
        # the rejected hunk keeps the CUDA line when written
        assert fr.hunks[1].old[0] in fr.output_text()


@sync
async def test_tab_shift_tab_w_and_q_write_accepted_files(project_dir):
    before = tree_bytes(project_dir)
    app = make_app(project_dir)
    out = app.project.output
    async with app.run_test(size=SIZE) as pilot:
        start = (await open_file(app, pilot, "main.cu")).rel
        await pilot.press("tab")
        assert app.current.rel != start
        await pilot.press("shift+tab")
        assert app.current.rel == start
        for _ in range(len(app.project.files)):
            await pilot.press("A", "tab")
        assert all(not f.needs_review for f in app.project.files)
        assert any("every file is reviewed" in n for n in notes(app))
        await pilot.press("w")
        await settle(app, pilot)
        ok = sum(1 for f in app.project.files if f.status == "ready")
        assert any(f"wrote {ok} file(s)" in n for n in notes(app))
        assert not app.unwritten
        await pilot.press("q")
        await pilot.pause()
    assert app.return_code == 0
    assert "hipMalloc" in (out / "main.cu").read_text()
    assert (out / "README.md").read_bytes() == (project_dir / "README.md").read_bytes()
    assert tree_bytes(project_dir) == before


@sync
async def test_write_skips_pending_files_and_says_how_many(project_dir):
    app = make_app(project_dir)
    async with app.run_test(size=SIZE) as pilot:
        await open_file(app, pilot, "main.cu")
        await pilot.press("A", "w")
        await settle(app, pilot)
        pending = sum(1 for f in app.project.files if f.status == "ready" and f.rel != "main.cu")
        assert any("wrote 1 file(s)" in n and f"skipped {pending} pending" in n for n in notes(app))
    assert (app.project.output / "main.cu").exists()
    assert not (app.project.output / "reduce_kernels.cu").exists()


@sync
async def test_quit_asks_only_with_unwritten_work(project_dir):
    app = make_app(project_dir)
    async with app.run_test(size=SIZE) as pilot:
        await open_file(app, pilot, "main.cu")
        await pilot.press("A", "q")
        await pilot.pause()
        assert type(app.screen).__name__ == "ChoiceScreen"
        await pilot.press("n")
        await pilot.pause()
        assert app.is_running and type(app.screen).__name__ == "MainScreen"
        await pilot.press("q", "y")
        await pilot.pause()
    assert app.return_code == 0
    # after a restart the session still holds the accepted file, and the output does not: q still asks
    app2 = make_app(project_dir)
    async with app2.run_test(size=SIZE) as pilot:
        await started(pilot)
        await pilot.press("q")
        await pilot.pause()
        assert type(app2.screen).__name__ == "ChoiceScreen"
        assert "main.cu" in str(app2.screen.query_one("#question").render())
        await pilot.press("n", "w")
        await settle(app2, pilot)
        await pilot.pause()
        await pilot.press("q")  # written: no question
        await pilot.pause()
        assert not app2.is_running
    # the written file changed on disk (or was deleted): the review is not what the output holds
    (app.project.output / "main.cu").unlink()
    app3 = make_app(project_dir)
    async with app3.run_test(size=SIZE) as pilot:
        await started(pilot)
        await pilot.press("q")
        await pilot.pause()
        assert type(app3.screen).__name__ == "ChoiceScreen"


@sync
async def test_findings_keys_move_preview_fix_and_explain(project_dir, with_findings):
    app = make_app(project_dir)
    async with app.run_test(size=SIZE) as pilot:
        fr = await open_file(app, pilot, "warp_utils.cuh")
        assert [f.rule for f in fr.findings].count("PORT900") >= 2
        ol = app.findings_list
        assert ol.option_count == len(fr.findings)
        await pilot.press("right_square_bracket")
        assert ol.highlighted == 0
        first = fr.findings[0]
        row = app.diff.current_row()
        assert fr.rows[row].left == first.line - 1  # the diff scrolled to the finding
        preview = str(app.main.query_one("#fix-preview").text)
        assert "0xffffffffffffffffull" in preview and "f applies it" in preview
        await pilot.press("right_square_bracket")
        assert ol.highlighted == 1
        await pilot.press("left_square_bracket")
        assert ol.highlighted == 0
        await pilot.press("f")
        await pilot.pause()
        assert fr.applied_fixes
        assert "0xffffffffffffffffull" in fr.hip
        await pilot.press("i")
        await pilot.pause()
        assert type(app.screen).__name__ == "TextScreen"
        await pilot.press("escape")
        await pilot.pause()
        assert type(app.screen).__name__ == "MainScreen"


@sync
async def test_e_edits_the_hip_side_ctrl_s_saves_escape_leaves(project_dir):
    app = make_app(project_dir)
    async with app.run_test(size=SIZE) as pilot:
        fr = await open_file(app, pilot, "reduce_kernels.h")
        n_hunks = len(fr.hunks)
        assert n_hunks >= 2
        await pilot.press("e")
        await pilot.pause()
        area = app.screen.query_one(TextArea)
        assert area.text == fr.output_text()
        area.move_cursor((0, 0))
        await pilot.press(*"// ported", "enter")
        await pilot.press("ctrl+s", "escape")
        await settle(app, pilot)
        assert type(app.screen).__name__ == "MainScreen"
        assert fr.output_text().startswith("// ported\n")
        # the edit decided the hunk it touched, not the whole file
        edited = [h for h in fr.hunks if h.edited]
        assert len(edited) == 1 and edited[0].start == 0
        assert fr.state == "pending" and fr.pending_hunks == len(fr.hunks) - 1
        assert "reviewed" in app.project.header() and app.project.counts()["reviewed"] == 0
        await pilot.press("A")
        assert fr.state == S_EDITED
        # escape without saving changes nothing
        await pilot.press("e")
        await pilot.pause()
        await pilot.press(*"zzz", "escape")
        await pilot.pause()
        assert type(app.screen).__name__ == "ChoiceScreen"  # save / discard / cancel
        await pilot.press("escape")  # cancel: back in the editor, the text still there
        await pilot.pause()
        assert type(app.screen).__name__ == "EditorScreen" and "zzz" in app.screen.query_one(TextArea).text
        await pilot.press("escape", "d")  # discard
        await pilot.pause()
        assert type(app.screen).__name__ == "MainScreen" and "zzz" not in fr.output_text()
        # text typed after a ctrl+s is not lost either: escape asks, s saves it
        await pilot.press("e")
        await pilot.pause()
        await pilot.press(*"yy", "ctrl+s", *"qq", "escape")
        await pilot.pause()
        assert type(app.screen).__name__ == "ChoiceScreen"
        await pilot.press("s")
        await settle(app, pilot)
        assert type(app.screen).__name__ == "MainScreen"
        assert "yyqq" in fr.output_text()


@sync
async def test_the_editor_opens_at_the_current_hunk_and_quitting_asks_about_unsaved_text(project_dir):
    app = make_app(project_dir)
    async with app.run_test(size=SIZE) as pilot:
        fr = await open_file(app, pilot, "main.cu")
        await pilot.press("A", "n", "n")
        h = fr.hunks[app.diff.current_hunk()]
        await pilot.press("e")
        await pilot.pause()
        area = app.screen.query_one(TextArea)
        line = area.cursor_location[0]
        assert area.text.splitlines()[line] == fr.right_text(h.start)
        await pilot.press(*"// mine", "ctrl+q")
        await pilot.pause()
        assert type(app.screen).__name__ == "ChoiceScreen"
        await pilot.press("s")  # save, then the unwritten-work question
        await pilot.pause()
        assert type(app.screen).__name__ == "ChoiceScreen"
        await pilot.press("y")
        await pilot.pause()
    assert app.return_code == 0
    again = make_app(project_dir)
    assert "// mine" in again.project.by_rel["main.cu"].output_text()


@sync
async def test_l_toggles_log_and_help_opens(project_dir):
    app = make_app(project_dir)
    async with app.run_test(size=SIZE) as pilot:
        panel = app.main.query_one("#log-panel")
        assert not panel.display
        await pilot.press("l")
        assert panel.display
        await pilot.press("l")
        assert not panel.display
        await pilot.press("question_mark")
        await pilot.pause()
        assert type(app.screen).__name__ == "TextScreen"
        console = Console(width=200, color_system=None, record=True, legacy_windows=False)
        console.print(app.screen.body)
        body = " ".join(console.export_text().split())  # what the help shows, as text
        assert "Accept hunk" in body and "Smoke test" in body
        # every kind of badge the file list can show is explained (issue 14: "Help explains the file badges")
        for legend in ("5h = 5 hunks", "4E 8W 1I = findings by severity", "1✗ = rejected hunks",
                       "✖3 = 3 errors of the last compile", "stale = the CUDA source changed"):
            assert legend in body, legend
        shown = " ".join(str(app.file_tree.label_of(f.rel)) for f in app.project.files)
        kinds = {("h" if t.endswith("h") else "E/W/I") for t in re.findall(r"\b\d+[hEWI]\b", shown)}
        assert kinds == {"h", "E/W/I"}  # the sample shows both kinds, and the legend covers them


@sync
async def test_c_and_t_run_their_jobs_or_say_not_available(project_dir, monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name in ("porter.cli.build", "porter.cli.smoke") else real(name, *a))
    app = make_app(project_dir)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("c", "t")
        await pilot.pause()
        msgs = notes(app)
        assert any("compile: not available yet" in n for n in msgs)
        assert any("smoke test: not available yet" in n for n in msgs)


@sync
async def test_job_output_streams_to_the_log_and_a_diagnostic_jumps(project_dir):
    app = make_app(project_dir)
    out = app.project.output
    script = ("import sys\n"
              "for i in range(3000): print('line', i)\n"
              f"print({str(out / 'main.cu')!r} + ':20:5: error: no such thing')\n")
    async with app.run_test(size=SIZE) as pilot:
        await open_file(app, pilot, "CMakeLists.txt")
        app.start_job("build", [sys.executable, "-c", script], 30)
        await settle(app, pilot)
        log = app.main.query_one("#log", RichLog)
        assert app.main.query_one("#log-panel").display
        assert len(log.lines) >= 3000
        diags = app.main.query_one("#diagnostics", OptionList)
        assert diags.option_count == 1
        diags.focus()
        diags.highlighted = 0
        await pilot.press("enter")
        await pilot.pause()
        fr = app.current
        assert fr.rel == "main.cu"
        assert fr.rows[app.diff.current_row()].right == 19


@sync
async def test_a_new_job_stops_the_running_one_first(project_dir):
    app = make_app(project_dir)
    async with app.run_test(size=SIZE) as pilot:
        app.start_job("smoke", [sys.executable, "-c", "import time; print('slow', flush=True); time.sleep(60)"], 90)
        await pilot.pause(0.5)
        first = app._job_worker
        app.start_job("build", [sys.executable, "-c", "print('second')"], 30)
        await app._job_worker.wait()
        await pilot.pause()
        assert first.is_cancelled
        text = "\n".join(str(s.text) for s in app.main.query_one("#log", RichLog).lines)
        assert "stopping the previous job" in text and "second" in text


@sync
async def test_command_palette_lists_the_review_keys(project_dir):
    app = make_app(project_dir)
    async with app.run_test(size=SIZE) as pilot:
        titles = [c.title for c in app.get_system_commands(app.screen)]
        for want in ("Accept hunk (a)", "Write (w)", "Next finding (])", "Smoke test (t)"):
            assert want in titles
        await pilot.press("ctrl+p")
        await pilot.pause()
        assert "CommandPalette" in type(app.screen).__name__


@sync
async def test_the_file_tree_opens_a_file_with_enter(project_dir):
    app = make_app(project_dir)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        tree = app.file_tree
        tree.focus()
        tree.select_file("main.cu")
        await pilot.press("down", "enter")
        await pilot.pause()
        assert app.current.rel == "reduce_kernels.cu"
        assert app.focused is app.diff
        assert "pending" in str(tree.label_of("reduce_kernels.cu"))


@sync
async def test_every_key_has_a_binding_id_and_can_be_remapped(project_dir):
    from porter.tui.keymap import KEYS

    app = make_app(project_dir)
    async with app.run_test(size=SIZE) as pilot:
        fr = await open_file(app, pilot, "main.cu")
        ids = {b.id for b in app.main.BINDINGS}
        assert ids == {k.id for k in KEYS} and len(ids) == len(KEYS)
        for k in KEYS:
            name = k.action.split("(")[0]
            assert callable(getattr(app, f"action_{name}", None)), k.id
        app.set_keymap({"accept_hunk": "y"})  # as a user config would (Posting's keymap)
        await pilot.pause()
        await pilot.press("y")
        assert fr.decision(0) == ACCEPTED
