"""c, T and t run the project's own code (its Makefile and CMakeLists.txt, porter.toml's [test]
command, the Python module of its [smoke] table): the app shows what would run and asks once per
project; the answer is kept in the session, and asked again when that code changes (issue 33
item 3).  The build and smoke commands are stand-in scripts here; the test command is the
project's own."""

from __future__ import annotations

import sys

from tui_helpers import SIZE, make_app, notes, open_file, sync


def _py(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def _app(project_dir, built):
    app = make_app(project_dir, ask_to_run=True)
    app.build_argv = lambda project=None: _py(f"open({str(built)!r}, 'a').write('built ')")
    app.smoke_argv = lambda: None
    return app


def _question(app) -> str:
    return str(app.screen.query_one("#question").render())


async def _finish(app, pilot) -> None:
    if app._job_worker is not None:
        await app._job_worker.wait()
    await pilot.pause()


@sync
async def test_T_shows_the_project_code_and_runs_nothing_until_allowed_once(project_dir, tmp_path):
    built, tested = tmp_path / "built", tmp_path / "tested"
    code = f"open({str(tested)!r}, 'a').write('ran ')"
    (project_dir / "porter.toml").write_text(f"[test]\ncommand = '''{sys.executable} -c \"{code}\"'''\n")
    app = _app(project_dir, built)
    async with app.run_test(size=SIZE) as pilot:
        await open_file(app, pilot, "main.cu")
        await pilot.press("A", "T")
        await pilot.pause()
        assert type(app.screen).__name__ == "ConfirmScreen"
        q = _question(app)
        # what would run: the build files (a Makefile runs anything) and the test command, word for word
        assert "CMakeLists.txt" in q and "Makefile" in q and "$(shell" in q
        assert f"porter.toml [test] command: {sys.executable} -c" in q and str(tested) in q
        await pilot.press("n")
        await pilot.pause()
        assert app._job_worker is None and not built.exists() and not tested.exists()
        assert not (app.project.output / "main.cu").exists()  # not even written: T did not start
        assert any("not run" in n for n in notes(app))
        await pilot.press("T")  # no is not remembered: asked again
        await pilot.pause()
        assert type(app.screen).__name__ == "ConfirmScreen"
        await pilot.press("y")
        await _finish(app, pilot)
        assert built.read_text() == "built " and tested.read_text() == "ran "
        await pilot.press("c")  # the build files are allowed now: c builds at once
        await pilot.pause()
        assert type(app.screen).__name__ == "MainScreen"
        await _finish(app, pilot)
        assert built.read_text() == "built built "
        await pilot.press("q")
        await pilot.pause()
    # the next start remembers it (the session) ...
    app = _app(project_dir, built)
    async with app.run_test(size=SIZE) as pilot:
        await open_file(app, pilot, "main.cu")
        await pilot.press("T")
        await pilot.pause()
        assert type(app.screen).__name__ == "MainScreen"
        await _finish(app, pilot)
        assert tested.read_text() == "ran ran "
        # ... until the test command changes: then only the changed piece is shown and asked about
        code2 = f"open({str(tested)!r}, 'a').write('changed ')"
        (project_dir / "porter.toml").write_text(f"[test]\ncommand = '''{sys.executable} -c \"{code2}\"'''\n")
        await pilot.press("T")
        await pilot.pause()
        assert type(app.screen).__name__ == "ConfirmScreen"
        q = _question(app)
        assert "changed" in q and "Makefile" not in q
        await pilot.press("n")
        await pilot.pause()
    assert tested.read_text() == "ran ran "


@sync
async def test_c_asks_again_when_a_build_file_changes_and_t_asks_for_the_projects_smoke_module(project_dir,
                                                                                            tmp_path):
    built = tmp_path / "built"
    app = _app(project_dir, built)
    async with app.run_test(size=SIZE) as pilot:
        await open_file(app, pilot, "main.cu")
        await pilot.press("A", "w")
        await pilot.pause()
        await pilot.press("c", "y")
        await _finish(app, pilot)
        assert built.read_text() == "built "
        # the project's Makefile changes (a new $(shell ...) line): read again, then asked again
        mk = project_dir / "Makefile"
        mk.write_text("NOW := $(shell date)\n" + mk.read_text())
        app.read_again([app.project.by_rel["Makefile"]])
        await pilot.pause()
        await pilot.press("c")
        await pilot.pause()
        assert type(app.screen).__name__ == "ConfirmScreen" and "Makefile" in _question(app)
        await pilot.press("n")
        await pilot.pause()
        assert built.read_text() == "built "
        # t: porter's own smoke test runs no project code; a [smoke] table imports the project's module
        ran = tmp_path / "smoked"
        app.smoke_argv = lambda: _py(f"open({str(ran)!r}, 'w').write('smoke')")
        await pilot.press("t")
        await pilot.pause()
        assert type(app.screen).__name__ == "MainScreen"
        await _finish(app, pilot)
        assert ran.read_text() == "smoke"
        ran.unlink()
        (project_dir / "porter.toml").write_text('[smoke]\nmodule = "my_ops"\n')
        await pilot.press("t")
        await pilot.pause()
        assert type(app.screen).__name__ == "ConfirmScreen"
        assert "[smoke]" in _question(app) and "my_ops" in _question(app)
        await pilot.press("n")
        await pilot.pause()
        assert not ran.exists()
