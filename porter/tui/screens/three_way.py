"""The three-way view of an edited file whose CUDA changed after the edit: the CUDA
the edit was made against, the CUDA now, and the edit, side by side.  The lines
the CUDA change touched are marked in the first two columns; the lines of the
edit that re-converting would not give are marked in the third.  k keeps the
edit, r re-converts, m merges (the edit re-applied onto the new conversion,
conflicts marked; FileReview.merge_edit), escape goes back.  Presentation only: the texts come from
the FileReview (porter.project.file_review)."""

from __future__ import annotations

import difflib

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Static

from porter.project.file_review import FileReview
from porter.tui.widgets.text_pane import TextPane

NO_BASE = ("(not known: this edit comes from a session saved before porter kept the CUDA an edit was made "
           "against; the middle column is the CUDA now)")


def changed_lines(a: list[str], b: list[str]) -> tuple[set[int], set[int]]:
    """0-based lines of ``a`` and of ``b`` that are not common to both (a line diff)."""
    ca, cb = set(), set()
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag != "equal":
            ca.update(range(i1, i2))
            cb.update(range(j1, j2))
    return ca, cb


class Column(TextPane, can_focus=True):
    """One column: numbered lines, some marked; up/down/pgup/pgdn scroll it."""

    BINDINGS = [Binding("up", "scroll_up", show=False), Binding("down", "scroll_down", show=False),
                Binding("pageup", "page_up", show=False), Binding("pagedown", "page_down", show=False)]

    def show_lines(self, lines: list[str], marked: set[int], style: str, note: str = "") -> None:
        self.lines, self.marked = lines, marked
        width = len(str(max(1, len(lines))))
        text = Text(no_wrap=False)
        if note:
            text.append(note + "\n", style="italic")
        for i, line in enumerate(lines):
            body = line.rstrip("\r\n").expandtabs(4)
            text.append(f"{i + 1:>{width}} ", style="dim")
            text.append(body + "\n", style=style if i in marked else "")
        self.update(text)
        first = min(marked) if marked else 0
        self.call_after_refresh(self.scroll_to, 0, max(0, first - 3 + (1 if note else 0)), animate=False)


class ThreeWayScreen(Screen[str | None]):
    """Dismissed with "keep", "reconvert", "merge" or None (escape: decide later)."""

    BINDINGS = [Binding("k", "answer('keep')", "keep my edit"), Binding("r", "answer('reconvert')", "re-convert"),
                Binding("m", "answer('merge')", "merge both"),
                Binding("escape", "answer(None)", "back"), Binding("tab", "focus_next", "next column", show=False),
                Binding("shift+tab", "focus_previous", "previous column", show=False)]

    def __init__(self, fr: FileReview) -> None:
        super().__init__()
        self.fr = fr

    def compose(self) -> ComposeResult:
        yield Static(Text(f"{self.fr.rel}: the CUDA changed after your edit", style="bold"), id="three-title")
        with Horizontal(id="three-columns"):
            for cid, title in (("base", "CUDA at your edit"), ("new", "CUDA now"),
                               ("mine", "your edit (HIP)")):
                with Vertical(classes="three-column"):
                    yield Static(Text(title, style="bold"), classes="three-head")
                    yield Column(id=f"three-{cid}")
        yield Static(Text("k: keep my edit    r: re-convert from the CUDA now    m: merge (your edit on the new "
                          "conversion)    tab: next column    escape: back", style="dim"), id="three-hint")

    def on_mount(self) -> None:
        fr = self.fr
        base = fr.edit_base_cuda.splitlines(keepends=True)
        new = fr.effective_cuda().splitlines(keepends=True)
        mine = (fr.edited or "").splitlines(keepends=True)
        old_changed, new_changed = changed_lines(base, new) if base else (set(), set())
        _, mine_changed = changed_lines(fr.hip.splitlines(keepends=True), mine)
        css = self.app.get_css_variables()
        base_col, new_col, mine_col = (self.query_one(f"#three-{c}", Column) for c in ("base", "new", "mine"))
        base_col.show_lines(base, old_changed, _style(css, "error"), "" if base else NO_BASE)
        new_col.show_lines(new, new_changed, _style(css, "success"))
        mine_col.show_lines(mine, mine_changed, _style(css, "accent"),
                            "marked: your lines that re-converting would not give")
        n = len(new_changed | old_changed)
        what = f"{n} CUDA line{'s' if n != 1 else ''} changed" if base else "the CUDA the edit was made against is not known"
        self.query_one("#three-title", Static).update(
            Text.assemble((f"{fr.rel}: the CUDA changed after your edit", "bold"), (f"  ({what})", "")))
        new_col.focus()

    def action_answer(self, choice: str | None) -> None:
        self.dismiss(choice)


def _style(css: dict[str, str], name: str) -> str:
    """A background band in the theme's colour ``name`` (error, success, accent), dimmed."""
    from textual.color import Color

    colour = css.get(name)
    if not colour:
        return "reverse"
    try:
        c = Color.parse(colour)
        bg = Color.parse(css.get("background", "#000000"))
    except Exception:
        return "reverse"
    return f"on {bg.blend(c, 0.35).hex}"
