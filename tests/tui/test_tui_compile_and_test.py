"""T: one key for write, compile, the project's [test] command and the smoke
test, stopping at the first failure.  The compile and smoke commands are
stand-in scripts here (the real ones are tested in test_tui_arch.py); the test
command is the project's own, from porter.toml."""

from __future__ import annotations

import sys

from textual.widgets import RichLog

from tui_helpers import SIZE, make_app, notes, open_file, sync


def _log(app) -> str:
    return "\n".join(str(line.text) for line in app.main.query_one("#log", RichLog).lines)


def _py(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def _app_with(project_dir, build_code: str, smoke_code: str | None):
    app = make_app(project_dir)
    app.build_argv = lambda: _py(build_code)
    app.smoke_argv = lambda: _py(smoke_code) if smoke_code else None
    return app


@sync
async def test_T_writes_builds_tests_and_smokes_in_order(project_dir, tmp_path):
    marker = tmp_path / "tested"
    code = f"open({str(marker)!r}, 'w').write('ran'); print('3 tests passed')"
    (project_dir / "porter.toml").write_text(f"[test]\ncommand = '''{sys.executable} -c \"{code}\"'''\n")
    app = _app_with(project_dir, "import os; print('built', os.getcwd())", "print('smoke ok')")
    async with app.run_test(size=SIZE) as pilot:
        await open_file(app, pilot, "main.cu")
        await pilot.press("A", "T")
        await app._job_worker.wait()
        await pilot.pause()
        log = _log(app)
        assert (app.project.output / "main.cu").exists()  # written first
        assert marker.read_text() == "ran"  # the project's test command ran (in the output folder)
        order = [log.index(s) for s in ("write: wrote 1 file(s)", "built", "3 tests passed", "smoke ok",
                                        "compile and test passed: build, test, smoke test")]
        assert order == sorted(order)
        assert any("compile and test passed" in n for n in notes(app))


@sync
async def test_T_stops_at_a_failing_build_and_says_where(project_dir, tmp_path):
    marker = tmp_path / "tested"
    code = f"open({str(marker)!r}, 'w').write('ran')"
    (project_dir / "porter.toml").write_text(f"[test]\ncommand = '''{sys.executable} -c \"{code}\"'''\n")
    app = make_app(project_dir)
    out = app.project.output
    app.build_argv = lambda: _py(f"print({str(out / 'main.cu')!r} + ':20:5: error: no such thing'); raise SystemExit(1)")
    app.smoke_argv = lambda: _py("print('smoke ran')")
    async with app.run_test(size=SIZE) as pilot:
        await open_file(app, pilot, "main.cu")
        await pilot.press("A", "T")
        await app._job_worker.wait()
        await pilot.pause()
        log = _log(app)
        assert "compile and test stopped at the build: 1 error" in log
        assert not marker.exists() and "smoke ran" not in log  # nothing after the failure ran
        await pilot.press("right_curly_bracket")  # and the error is a key away
        await pilot.pause()
        assert app.current.rel == "main.cu" and app.current.rows[app.diff.current_row()].right == 19


@sync
async def test_T_without_a_test_command_says_so_and_a_failing_test_stops_it(project_dir):
    app = _app_with(project_dir, "print('built')", "print('smoke ran')")
    async with app.run_test(size=SIZE) as pilot:
        await open_file(app, pilot, "main.cu")
        await pilot.press("A", "T")
        await app._job_worker.wait()
        await pilot.pause()
        log = _log(app)
        assert "no test command" in log and "smoke ran" in log
        assert "compile and test passed: build, smoke test" in log
    (project_dir / "porter.toml").write_text(f"[test]\ncommand = '''{sys.executable} -c \"raise SystemExit(3)\"'''\n")
    app = _app_with(project_dir, "print('built')", "print('smoke ran')")
    async with app.run_test(size=SIZE) as pilot:
        await open_file(app, pilot, "main.cu")
        await pilot.press("T")
        await app._job_worker.wait()
        await pilot.pause()
        log = _log(app)
        assert "compile and test stopped at the test command" in log and "exited 3" in log
        assert "smoke ran" not in log


def test_the_test_command_setting_is_read_and_bad_values_are_one_line(tmp_path):
    import pytest

    from porter.project.settings import SettingsError, load_settings

    (tmp_path / "porter.toml").write_text('[port]\nroc = false\n[test]\ncommand = "make test ARGS=\'-j 2\'"\n')
    assert load_settings(tmp_path).test_argv() == ["make", "test", "ARGS=-j 2"]
    (tmp_path / "porter.toml").write_text("[port]\nroc = false\n")
    assert load_settings(tmp_path).test_argv() is None
    for body, words in (('[test]\ncmd = "make"\n', "unknown key 'cmd'"), ("[test]\ncommand = 3\n", "non-empty string"),
                        ('[test]\ncommand = "make \'test"\n', "cannot be split"), ('test = "make"\n', "must be a table")):
        (tmp_path / "porter.toml").write_text(body)
        with pytest.raises(SettingsError) as err:
            load_settings(tmp_path)
        assert words in str(err.value) and "\n" not in str(err.value)


@sync
async def test_t_runs_the_projects_declared_smoke_test_on_the_written_port(project_dir):
    # the project declares its own smoke test: t runs it on the port (the output folder), not the built-in one
    (project_dir / "porter.toml").write_text('[smoke]\nsetup = "setup.py"\n')
    app = make_app(project_dir)
    async with app.run_test(size=SIZE) as pilot:
        await open_file(app, pilot, "main.cu")
        await pilot.press("A", "w")
        await pilot.pause()
        argv = app.smoke_argv()
        assert argv[argv.index("--project") + 1] == str(app.project.output)
        assert (app.project.output / "porter.toml").exists()
        assert "project smoke test" in app.smoke_label
    import shutil

    (project_dir / "porter.toml").unlink()
    shutil.rmtree(app.project.output)
    app = make_app(project_dir)
    async with app.run_test(size=SIZE) as pilot:
        argv = app.smoke_argv()
        assert "--project" not in argv and "built-in smoke test" in app.smoke_label


@sync
async def test_T_stops_when_the_smoke_test_could_not_exercise_the_port(project_dir):
    # porter smoke --project exits 3 when none of the project's ops can run on this machine: never a pass
    app = _app_with(project_dir, "print('built')", "print('port not exercised'); raise SystemExit(3)")
    async with app.run_test(size=SIZE) as pilot:
        await open_file(app, pilot, "main.cu")
        await pilot.press("A", "T")
        await app._job_worker.wait()
        await pilot.pause()
        log = _log(app)
        assert "compile and test stopped at the smoke test: not exercised" in log
        assert "compile and test passed" not in log
