"""Themes colour the diff, the file list and the syntax highlighting (from the
theme's own colours), and the theme is kept across a restart."""

from __future__ import annotations

import json

from textual.color import Color

from tui_helpers import SIZE, make_app, open_file, sync


def _added_background(app) -> Color:
    """The background of a HIP-side changed line as the diff draws it."""
    dv = app.diff
    fr = dv.file
    h = fr.hunks[0]
    row = next(r for r in range(h.start, h.end) if fr.rows[r].right is not None)
    strip = list(dv._render_row(dv._row_index[row], SIZE[0]))
    hip = next(s for s in reversed(strip) if s.text.strip() and s.style is not None and s.style.bgcolor is not None)
    return Color.from_rich_color(hip.style.bgcolor)


def _keyword_colour(app):
    return app.palette.syntax_style("keyword").color


@sync
async def test_a_theme_recolours_the_diff_the_file_list_and_the_syntax_and_is_kept(project_dir):
    app = make_app(project_dir)
    async with app.run_test(size=SIZE) as pilot:
        await open_file(app, pilot, "main.cu")
        dark_bg = _added_background(app)
        dark_keyword = _keyword_colour(app)
        dark_label = app.file_tree.label_of("main.cu")
        assert dark_bg.brightness < 0.35  # a dark band on the dark default theme
        app.theme = "solarized-light"
        await pilot.pause()
        await pilot.pause()
        light_bg = _added_background(app)
        assert light_bg.brightness > 0.6  # a light band: the diff follows the theme
        css = app.get_css_variables()
        success, bg = Color.parse(css["success"]), Color.parse(css["background"])

        def dist(a, b):
            return sum((x - y) ** 2 for x, y in zip(a.rgb, b.rgb))

        assert dist(light_bg, success) < dist(bg, success)  # still reads as "added": towards the theme's success
        assert _keyword_colour(app) != dark_keyword  # syntax colours from the theme too
        light_label = app.file_tree.label_of("main.cu")
        assert [s.style for s in light_label.spans] != [s.style for s in dark_label.spans]  # the file list too
        await pilot.pause(0.4)  # saved 0.2 s after the change
    saved = json.loads((app.project.output / ".porter" / "session.json").read_text())
    assert saved["theme"] == "solarized-light"

    app2 = make_app(project_dir)
    async with app2.run_test(size=SIZE) as pilot:
        await open_file(app2, pilot, "main.cu")
        assert app2.theme == "solarized-light"
        assert _added_background(app2) == light_bg  # the diff comes back in the kept theme's colours


@sync
async def test_an_ansi_theme_keeps_the_built_in_colours(project_dir):
    from porter.tui.colours import DEFAULT

    app = make_app(project_dir)
    async with app.run_test(size=SIZE) as pilot:
        await open_file(app, pilot, "main.cu")
        app.theme = "ansi-dark"
        await pilot.pause()
        await pilot.pause()
        assert app.palette is DEFAULT and app.diff.palette is DEFAULT
