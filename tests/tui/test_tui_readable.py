"""What the review app says can be read, and says the truth (issue 32): a finding's whole message
and its fix as whole lines, full width and in the zoomed diff; the help's columns; one word for a
file's state in the list and in its header line; the palette's help text; `tab` on the last
pending file; the quit question's "write and quit"; the message history."""

from __future__ import annotations

from rich.console import Console

from porter.tui.keymap import KEYS
from porter.tui.screens.dialogs import TextScreen
from tui_helpers import SIZE, make_app, notes, open_file, settle, started, sync


async def _wait(pilot, pred, what: str, tries: int = 200):
    for _ in range(tries):
        if pred():
            return
        await pilot.pause(0.02)
    raise AssertionError(f"never: {what}")


def _fixed_line(fr, finding) -> tuple[str, str]:
    """The whole CUDA line of ``finding`` and the same line with its fix applied."""
    line = fr.cuda.splitlines()[finding.line - 1]
    e = finding.fix.edits[0]
    src = fr.cuda.encode()
    start = src.rfind(b"\n", 0, e.start_byte) + 1
    after = (src[start:e.start_byte] + e.replacement.encode() + src[e.end_byte:]).decode().split("\n", 1)[0]
    return line, after


@sync
async def test_i_shows_the_whole_message_and_the_fix_as_whole_lines_before_and_after(project_dir, with_findings):
    app = make_app(project_dir)
    async with app.run_test(size=SIZE) as pilot:
        fr = await open_file(app, pilot, "warp_utils.cuh")
        await pilot.press("right_square_bracket")
        f = fr.findings[app.findings_list.highlighted]
        assert f.fix is not None
        before, after = _fixed_line(fr, f)
        assert before != after and len(before) > len(f.message.split()[0])
        # the fix preview: the line as it is and as the fix makes it, not the changed token alone
        preview = app.main.query_one("#fix-preview").text.plain.splitlines()
        assert "- " + before.expandtabs(4) in preview and "+ " + after.expandtabs(4) in preview
        await pilot.press("i")
        await pilot.pause()
        assert isinstance(app.screen, TextScreen)
        page = app.screen.query_one("#page-text").render()
        text = page.plain if hasattr(page, "plain") else str(page)
        assert f.message in text  # whole, at the page's width
        assert "- " + before.expandtabs(4) in text and "+ " + after.expandtabs(4) in text
        assert app.screen.query_one("#page").size.width > 100  # full width, not the side pane
        await pilot.press("escape")
        await pilot.press("3", "enter")  # enter on a finding in the list opens the same page
        await pilot.pause()
        assert isinstance(app.screen, TextScreen) and "the finding in full" in app.screen.title_text


@sync
async def test_the_zoomed_diff_keeps_the_chosen_finding_readable_at_80x24(project_dir, with_findings):
    """At 80x24 the findings pane is 13 columns; zoomed, it is gone.  The bar under the diff holds
    the chosen finding's whole message, across the diff's width."""
    from textual.widgets import Static

    app = make_app(project_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        fr = await open_file(app, pilot, "warp_utils.cuh")
        bar = app.main.query_one("#finding-bar", Static)
        await pilot.press("z")
        await _wait(pilot, lambda: bar.display and bar.region.height > 0, "the bar shows while zoomed")
        assert "] shows the next one" in str(bar.render())
        await pilot.press("right_square_bracket")
        await pilot.pause()
        f = fr.findings[app.findings_list.highlighted]
        shown = str(bar.render())
        assert f.rule in shown and f.message in shown
        assert bar.region.width >= 78 and bar.region.height >= 2
        await pilot.press("right_square_bracket")
        await pilot.pause()
        g = fr.findings[app.findings_list.highlighted]
        assert f"line {g.line}" in str(bar.render())  # follows ]
        await pilot.press("z")  # back to the panes: at 80 columns the findings pane is still too narrow
        await pilot.pause()
        assert bar.display and g.message in str(bar.render())
    wide = make_app(project_dir)
    async with wide.run_test(size=(200, 50)) as pilot:
        await open_file(wide, pilot, "warp_utils.cuh")
        await pilot.press("right_square_bracket")
        await pilot.pause()
        assert not wide.main.query_one("#finding-bar").display  # the findings pane shows it: no bar


@sync
async def test_help_lists_every_key_with_its_keymap_id_in_columns_that_hold_at_80x24(project_dir):
    app = make_app(project_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, TextScreen)
        width = app.screen.query_one("#page-text").content_region.width
        assert width < 80
        console = Console(width=width, color_system=None, record=True, legacy_windows=False)
        console.print(app.help_table())
        lines = console.export_text().splitlines()
        assert all(len(line) <= width for line in lines)
        rows = {}
        for k in KEYS:
            label = app.key_label(k)
            row = next((i for i, line in enumerate(lines) if line.split(" ", 1)[0] == label.split(" ")[0]
                        and line.rstrip().endswith(k.id)), None)
            assert row is not None, (k.id, lines)  # the key, its id at the end of its row
            rows[k.id] = row
        key_col = len(lines[rows["quit"]]) - len(lines[rows["quit"]].lstrip()) + 10
        for i, line in enumerate(lines[1:], 1):
            if i not in rows.values():  # a wrapped description: under its column, the key column blank
                assert line[:key_col].strip() == "", line


@sync
async def test_a_file_with_a_rejected_hunk_reads_reviewed_in_the_list_and_in_its_header(project_dir):
    app = make_app(project_dir)
    async with app.run_test(size=SIZE) as pilot:
        fr = await open_file(app, pilot, "main.cu")
        await pilot.press("x", "A")
        await pilot.pause()
        header = str(app.main.query_one("#file-info").render())
        label = str(app.file_tree.label_of("main.cu"))
        assert "reviewed" in label and "accepted" not in label
        assert header.split()[1] == "reviewed" and "(1 rejected)" in header, header
        assert f"{len(fr.hunks)}/{len(fr.hunks)} hunks decided" in header


@sync
async def test_the_palette_shows_the_test_commands_help_with_its_brackets(project_dir):
    from textual.command import CommandPalette
    from textual.content import Content

    app = make_app(project_dir)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await pilot.press("ctrl+p")
        await _wait(pilot, lambda: isinstance(app.screen, CommandPalette), "the palette opens")
        await pilot.press(*"Compile and test")
        from textual.command import CommandList

        found = app.screen.query_one(CommandList)
        await _wait(pilot, lambda: found.option_count > 0, "the palette finds the command")
        texts = []
        for i in range(found.option_count):
            prompt = found.get_option_at_index(i).prompt
            texts.append(prompt.plain if isinstance(prompt, Content) else str(prompt))
        assert any("porter.toml's [test] command" in t for t in texts), texts


@sync
async def test_tab_on_the_last_pending_file_says_so_instead_of_every_file_reviewed(project_dir):
    app = make_app(project_dir)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        last = app.project.files[-1]
        for fr in app.project.files[:-1]:
            fr.accept_all()
            app.changed(fr)
        await open_file(app, pilot, last.rel)
        assert last.needs_review and "5/6 files reviewed" in str(app.main.query_one("#summary").render())
        await pilot.press("tab")
        await pilot.pause()
        said = notes(app)[-1]
        assert "every file is reviewed" not in said
        assert f"this one, {last.rel}, is still pending" in said and "to decide" in said
        await pilot.press("A", "tab")
        await pilot.pause()
        assert "every file is reviewed" in notes(app)[-1]  # now true


@sync
async def test_the_quit_question_offers_write_and_quit(project_dir):
    app = make_app(project_dir)
    out = app.project.output
    async with app.run_test(size=SIZE) as pilot:
        await open_file(app, pilot, "main.cu")
        await pilot.press("A", "q")
        await pilot.pause()
        question = app.screen
        assert type(question).__name__ == "ChoiceScreen"
        assert "w: write and quit" in str(question.query_one("#answers").render())
        await pilot.press("w")
        await _wait(pilot, lambda: not app.is_running, "the app quits once written")
    assert app.return_code == 0
    assert "hipMalloc" in (out / "main.cu").read_text()


@sync
async def test_m_shows_every_message_since_the_start_after_the_toasts_are_gone(project_dir):
    app = make_app(project_dir)
    async with app.run_test(size=SIZE) as pilot:
        await open_file(app, pilot, "CMakeLists.txt")
        await pilot.press("right_square_bracket", "u")  # two toasts: no findings, nothing to undo
        await pilot.pause()
        app.clear_notifications()  # as after their 1.5 s
        await pilot.press("m")
        await pilot.pause()
        assert isinstance(app.screen, TextScreen)
        text = str(app.screen.query_one("#page-text").render())
        assert "no findings in this file" in text and "nothing to undo" in text
        assert text.index("no findings in this file") < text.index("nothing to undo")  # newest last
        await settle(app, pilot)
