"""c (and T) with reviewed work not written yet (issue 32 item 3): the output folder on disk is older than
the screen, so a build of it reports errors on lines already changed here.  c asks once: write first, or
compile what is on disk and say so; the answer is kept in the session (across restarts), and T follows it.  The build is a
stand-in script that reports what the output folder held when it ran (the real build is tested in
test_tui_arch.py)."""

from __future__ import annotations

import sys

from textual.widgets import RichLog

from porter.tui.screens.dialogs import ChoiceScreen, ConfirmScreen
from tui_helpers import SIZE, make_app, notes, open_file, settle, sync

LATER = "reduce_kernels.cu"  # accepted after the write, not written


def _log(app) -> str:
    return "\n".join(str(line.text) for line in app.main.query_one("#log", RichLog).lines)


def _with_fake_build(app) -> list:
    """The build job prints whether the output holds the reviewed text of LATER when it runs."""
    calls = []
    out = app.project.output / LATER

    def build_argv(project=None):
        calls.append(project)
        code = (f"import os; p = {str(out)!r}; "
                "print('build saw', open(p).read().count('hip') if os.path.exists(p) else 'no file')")
        return [sys.executable, "-c", code]

    app.build_argv = build_argv
    return calls


async def _written_then_accepted(app, pilot) -> str:
    """main.cu accepted and written, then LATER accepted and not written: its reviewed text."""
    await open_file(app, pilot, "main.cu")
    await pilot.press("A", "w")
    await settle(app, pilot)
    fr = await open_file(app, pilot, LATER)
    await pilot.press("A")
    await settle(app, pilot)
    assert not (app.project.output / LATER).exists()
    return fr.output_text()


async def _job_done(app, pilot) -> None:
    await app._job_worker.wait()
    await settle(app, pilot)


@sync
async def test_c_asks_and_write_first_builds_what_the_screen_shows_and_is_kept(project_dir):
    app = make_app(project_dir)
    calls = _with_fake_build(app)
    async with app.run_test(size=SIZE) as pilot:
        reviewed = await _written_then_accepted(app, pilot)
        await pilot.press("c")
        await pilot.pause()
        assert isinstance(app.screen, ChoiceScreen) and "not written" in str(app.screen.question)
        assert app._job_worker is None  # nothing built before the answer
        await pilot.press("w")
        await _job_done(app, pilot)
        assert (app.project.output / LATER).read_text() == reviewed  # written before the build ran
        assert f"build saw {reviewed.count('hip')}" in _log(app)
        assert calls[-1] == LATER  # c builds the open file's project
        # kept for the session: when the disk is behind again, c writes first without asking
        (app.project.output / LATER).write_text("older text\n")
        await pilot.press("c")
        await pilot.pause()
        assert not isinstance(app.screen, ChoiceScreen)
        await _job_done(app, pilot)
        assert (app.project.output / LATER).read_text() == reviewed


@sync
async def test_c_compiling_what_is_on_disk_says_so_every_time_and_T_follows_the_choice(project_dir):
    app = make_app(project_dir)
    _with_fake_build(app)
    app.smoke_argv = lambda: None
    async with app.run_test(size=SIZE) as pilot:
        await _written_then_accepted(app, pilot)
        await pilot.press("c")
        await pilot.pause()
        assert isinstance(app.screen, ChoiceScreen)
        await pilot.press("b")
        await _job_done(app, pilot)
        assert "build saw no file" in _log(app)  # the disk, as chosen
        said = [n for n in notes(app) if "compiling the output on disk" in n]
        assert len(said) == 1 and LATER in said[0] and "not written" in said[0]
        await pilot.press("c")  # not asked again, said again
        await pilot.pause()
        assert not isinstance(app.screen, ChoiceScreen)
        await _job_done(app, pilot)
        assert len([n for n in notes(app) if "compiling the output on disk" in n]) == 2
        await pilot.press("T")  # T writes first by default; after this choice it says it does not
        await _job_done(app, pilot)
        assert not (app.project.output / LATER).exists()
        log = _log(app)
        assert "write: skipped" in log and "build saw no file" in log
    again = make_app(project_dir)  # the choice is kept in the session: a restart does not ask again
    _with_fake_build(again)
    async with again.run_test(size=SIZE) as pilot:
        await settle(again, pilot)
        assert again.stale_build == "disk"
        await pilot.press("c")
        await pilot.pause()
        assert not isinstance(again.screen, ChoiceScreen)
        await _job_done(again, pilot)
        assert "build saw no file" in _log(again)


@sync
async def test_with_everything_written_c_builds_without_asking(project_dir):
    app = make_app(project_dir)
    _with_fake_build(app)
    async with app.run_test(size=SIZE) as pilot:
        await _written_then_accepted(app, pilot)
        await pilot.press("w")
        await settle(app, pilot)
        await pilot.press("c")
        await pilot.pause()
        assert not isinstance(app.screen, ChoiceScreen)
        await _job_done(app, pilot)
        assert "build saw" in _log(app) and "no file" not in _log(app)
        assert not any("compiling the output on disk" in n for n in notes(app))


@sync
async def test_T_with_no_choice_made_writes_first_without_asking_and_c_still_asks(project_dir):
    app = make_app(project_dir)
    _with_fake_build(app)
    app.smoke_argv = lambda: None
    async with app.run_test(size=SIZE) as pilot:
        reviewed = await _written_then_accepted(app, pilot)
        await pilot.press("T")
        await pilot.pause()
        assert not isinstance(app.screen, ChoiceScreen)
        await _job_done(app, pilot)
        assert (app.project.output / LATER).read_text() == reviewed
        assert f"build saw {reviewed.count('hip')}" in _log(app)
        # T's default is not a choice: c still asks
        (app.project.output / LATER).write_text("older text\n")
        await pilot.press("c")
        await pilot.pause()
        assert isinstance(app.screen, ChoiceScreen)


@sync
async def test_c_before_anything_is_written_says_what_to_do_and_builds_nothing(project_dir):
    """The app holds its output folder's lock (.porter/lock) from the start, so the folder exists before
    any file is written: c there built nothing and failed with "no translation units found"."""
    app = make_app(project_dir)
    _with_fake_build(app)
    (app.project.output / ".porter").mkdir(parents=True, exist_ok=True)  # as `porter PATH` leaves it
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("c")
        await pilot.pause()
        assert any("nothing written yet" in n for n in notes(app)), notes(app)
        await settle(app, pilot)
        assert "build saw" not in _log(app)  # no build ran


@sync
async def test_c_before_anything_is_written_does_not_ask_to_run_the_build_files_first(project_dir):
    """As in real use (the app asks before running a project's build files): with nothing to compile, c says
    so at once instead of asking to run the Makefile and then building nothing."""
    app = make_app(project_dir, ask_to_run=True)
    _with_fake_build(app)
    (app.project.output / ".porter").mkdir(parents=True, exist_ok=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("c")
        await pilot.pause()
        assert not isinstance(app.screen, ConfirmScreen)
        assert any("nothing written yet" in n for n in notes(app)), notes(app)
        assert not app.trusted  # nothing was allowed on the user's behalf
