"""View settings a user picks: v toggles the diff between side by side and unified
(one column: a hunk's CUDA lines as -, then its HIP lines as +), kept in the
session; z hides the side panes.  Asserted on the lines the diff draws."""

from __future__ import annotations

import json
import re

from tui_helpers import make_app, open_file, sync


def screen_lines(dv) -> list[str]:
    """The text of the diff's lines as they are on the screen."""
    return ["".join(seg.text for seg in dv.render_line(y)) for y in range(dv.size.height)]


SIGN = 12  # the sign column of the unified view: finding mark, two 4-digit line numbers, the decision


def _row_lines(dv, row: int) -> list[str]:
    """Every drawn line of ``row`` (side by side: one; unified: its - and + lines)."""
    return ["".join(seg.text for seg in dv._render_row(d, dv.size.width))
            for d, e in enumerate(dv.display_rows) if e[0] == "row" and e[1] == row]


@sync
async def test_v_shows_the_diff_unified_with_minus_and_plus_lines_in_one_column(project_dir):
    app = make_app(project_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        fr = await open_file(app, pilot, "main.cu")
        dv = app.diff
        await pilot.press("z")  # 80x24: the diff alone
        await pilot.pause()
        h = fr.hunks[dv.current_hunk()]
        row = next(r for r in range(h.start, h.end) if "cuda" in (fr.left_text(r) or "")
                   and "hip" in (fr.right_text(r) or ""))
        cuda = next(w for w in re.findall(r"\w+", fr.left_text(row)) if "cuda" in w)  # cudaError_t
        hip = next(w for w in re.findall(r"\w+", fr.right_text(row)) if "hip" in w)  # hipError_t
        side = _row_lines(dv, row)
        assert len(side) == 1 and cuda in side[0] and hip in side[0]  # side by side: both on one line

        await pilot.press("v")
        await pilot.pause()
        lines = screen_lines(dv)
        minus = [ln for ln in lines if ln[SIGN] == "-" and cuda in ln]
        plus = [ln for ln in lines if ln[SIGN] == "+" and hip in ln]
        assert minus and plus, lines
        assert lines.index(minus[0]) < lines.index(plus[0])  # the CUDA lines first, then the HIP lines
        assert not any(cuda in ln and hip in ln for ln in lines)  # one column: never both on a line
        assert max(len(ln.rstrip()) for ln in lines) > 50  # a line takes the width, not half of it
        # the whole hunk's - lines come before its + lines
        signs = [e[2] for e in dv.display_rows if len(e) == 3 and h.start <= e[1] < h.end]
        assert signs == sorted(signs, key=lambda s: s != "-") and "-" in signs and "+" in signs
        # unchanged lines are drawn once, with no sign
        same = next(r for r in range(len(fr.rows)) if fr.row_hunk.get(r) is None and r in dv._row_index
                    and (fr.right_text(r) or "").strip())
        drawn = _row_lines(dv, same)
        assert len(drawn) == 1 and drawn[0][SIGN] == " "

        # the keys still work on it: accept marks the hunk, the cursor stays in the file
        await pilot.press("a")
        await pilot.pause()
        assert fr.decision(h.index) == "accepted"
        assert any("✓" in ln for ln in _row_lines(dv, row))

        await pilot.press("v")  # back to side by side
        await pilot.pause()
        assert len(_row_lines(dv, row)) == 1


@sync
async def test_the_diff_layout_is_kept_across_a_restart_and_old_sessions_open_side_by_side(project_dir):
    app = make_app(project_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_file(app, pilot, "main.cu")
        await pilot.press("v")
        await pilot.pause(0.4)  # the session is saved 0.2 s after a change
    session = app.project.output / ".porter" / "session.json"
    saved = json.loads(session.read_text())
    assert saved["diff_layout"] == "unified"

    app2 = make_app(project_dir)
    async with app2.run_test(size=(80, 24)) as pilot:
        fr = await open_file(app2, pilot, "main.cu")
        h = fr.hunks[0]
        lines = screen_lines(app2.diff)
        assert any(ln[SIGN] == "-" for ln in lines) and any(ln[SIGN] == "+" for ln in lines)
        assert [e[2] for e in app2.diff.display_rows if len(e) == 3 and h.start <= e[1] < h.end][0] == "-"
        await pilot.press("v")
        await pilot.pause(0.4)
    assert "diff_layout" not in json.loads(session.read_text())  # side by side: the default, nothing kept

    # a session saved before the setting existed: opens side by side, decisions restored
    saved = json.loads(session.read_text())
    saved.pop("diff_layout", None)
    saved["files"] = {"main.cu": {"source_hash": fr.source_hash, "decisions": {fr.hunks[0].key: "accepted"}}}
    session.write_text(json.dumps(saved))
    app3 = make_app(project_dir)
    async with app3.run_test(size=(80, 24)) as pilot:
        fr = await open_file(app3, pilot, "main.cu")
        assert fr.decision(0) == "accepted"
        assert not app3.diff.unified and all(len(e) == 2 or e[0] == "fold" for e in app3.diff.display_rows)
