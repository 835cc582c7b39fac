"""Quitting: keys read together with `q`, and what the quit question promises (issues 32 and 33)."""

from __future__ import annotations

from textual import events

from tui_helpers import SIZE, make_app, open_file, sync


@sync
async def test_a_key_read_with_q_opens_nothing_on_the_way_out(project_dir, monkeypatch):
    # issue 32 defect 10: `tmux send-keys q e` hands the app both keys in one read; `e` then built
    # the editor on the app `q` was ending, which tore it down half-built (NoMatches: TextArea)
    from porter.tui.screens.editor import EditorScreen

    built = []
    compose = EditorScreen.compose
    monkeypatch.setattr(EditorScreen, "compose", lambda self: (built.append(self.rel), compose(self))[1])
    app = make_app(project_dir)
    async with app.run_test(size=SIZE) as pilot:
        await open_file(app, pilot, "main.cu")  # nothing decided: q quits without asking
        app.post_message(events.Key("q", "q"))  # both queued before either is handled, as one read
        app.post_message(events.Key("e", "e"))
        while app.is_running:
            await pilot.pause()
    assert app.return_code == 0
    assert built == []  # no editor was built on the way out


@sync
async def test_the_quit_question_does_not_promise_a_session_that_could_not_be_saved(project_dir, tmp_path):
    # issue 33 item 6: after "session not saved" (here the output folder cannot be created: a file is
    # in the way, as a read-only or full disk would refuse it) the question said the work "is kept in
    # the session either way"; quitting then lost it
    blocker = tmp_path / "blocker"
    blocker.write_text("not a folder")
    app = make_app(project_dir, out=blocker / "out")
    async with app.run_test(size=SIZE) as pilot:
        await open_file(app, pilot, "main.cu")
        await pilot.press("A", "q")
        await pilot.pause()
        assert type(app.screen).__name__ == "ChoiceScreen"
        question = str(app.screen.query_one("#question").render())
        assert "kept in the session" not in question
        assert "could not be saved" in question and "quitting loses it" in question
        assert not (blocker / "out").exists()
    # with a session that saves, the question keeps its promise
    app = make_app(project_dir)
    async with app.run_test(size=SIZE) as pilot:
        await open_file(app, pilot, "main.cu")
        await pilot.press("A", "q")
        await pilot.pause()
        assert "it is kept in the session either way" in str(app.screen.query_one("#question").render())
    assert (app.project.output / ".porter" / "session.json").exists()
