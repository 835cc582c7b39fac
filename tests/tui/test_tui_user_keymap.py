"""Keys remapped from a user config (issue 14: bindings have ids "so keys can be remapped from
a user config", as Posting does): ``[keys]`` of ~/.config/porter/keymap.toml, or the file
$PORTER_KEYMAP names."""

from __future__ import annotations

from rich.console import Console

from tui_helpers import SIZE, make_app, notes, open_file, sync

from porter.tui.keymap import read_user_keymap


def _write(tmp_path, text):
    path = tmp_path / "keymap.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_keymap_file_remaps_known_ids_and_says_what_it_left_out(tmp_path):
    path = _write(tmp_path, '[keys]\naccept_hunk = "y"\nno_such_key = "k"\nreject_hunk = ""\n'
                            'undo = "a"\nnext_finding = "j, ]"\n')
    keys, problems = read_user_keymap(path)
    # y is free; "a" is free once accept_hunk moved away; "]" is next_finding's own default
    assert keys == {"accept_hunk": "y", "undo": "a", "next_finding": "j,]"}
    assert len(problems) == 2
    assert any("no key has the id 'no_such_key'" in p for p in problems)
    assert any("reject_hunk = '' is not a key name" in p for p in problems)


def test_a_key_another_binding_keeps_is_refused():
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "k.toml"
        path.write_text('[keys]\nundo = "?"\n', encoding="utf-8")  # help keeps ? (question_mark)
        keys, problems = read_user_keymap(path)
    assert keys == {} and problems and "already the key of help" in problems[0]


def test_a_broken_file_changes_no_key(tmp_path):
    keys, problems = read_user_keymap(_write(tmp_path, "[keys\naccept_hunk = 'y'\n"))
    assert keys == {} and len(problems) == 1 and "the default keys stay" in problems[0]
    assert read_user_keymap(tmp_path / "absent.toml") == ({}, [])


@sync
async def test_the_app_uses_the_remapped_key_and_shows_it_in_help_and_the_palette(project_dir, tmp_path, monkeypatch):
    monkeypatch.setenv("PORTER_KEYMAP", str(_write(tmp_path, '[keys]\naccept_hunk = "y"\nnot_a_key = "k"\n')))
    app = make_app(project_dir)
    async with app.run_test(size=SIZE) as pilot:
        fr = await open_file(app, pilot, "main.cu")
        assert any("no key has the id 'not_a_key'" in n for n in notes(app))
        h = app.diff.current_hunk()
        await pilot.press("a")  # no longer bound
        await pilot.pause()
        assert fr.decision(h) == "pending"
        await pilot.press("y")
        await pilot.pause()
        assert fr.decision(h) == "accepted"
        titles = [c.title for c in app.get_system_commands(app.main)]
        assert "Accept hunk (y)" in titles
        await pilot.press("question_mark")
        await pilot.pause()
        console = Console(width=160, color_system=None, record=True, legacy_windows=False)
        console.print(app.screen.body)  # what the help shows (a table of the keys, then notes), as text
        rows = [line.split() for line in console.export_text().splitlines()]
        # the row of accept_hunk: the key pressed now, what it does, its id; `a` is no longer its key
        row = next(r for r in rows if r and r[-1] == "accept_hunk")
        assert row[:3] == ["y", "Accept", "hunk:"]
