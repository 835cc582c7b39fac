"""The colours of the diff, the file list and the syntax highlighting, taken from
the active Textual theme (its CSS variables: background, foreground, primary,
secondary, accent, error, success, warning), so that "Change theme" in the
palette recolours them too, and the theme kept in the session brings them back.

Backgrounds are the theme's colour blended into its background (a band, never a
glare); text colours are lifted towards the foreground until they stand out
from the background.  A theme whose colours are not plain RGB (the ansi-*
themes) gets the built-in palette.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rich.style import Style
from textual.color import Color, ColorParseError

from porter.tui import highlight


@dataclass(frozen=True)
class Palette:
    lno: Style = Style(color="#6c7680")
    sep: Style = Style(color="#4b5263")
    changed_sep: Style = Style(color="#d7af5f")
    deleted: Style = Style(bgcolor="#3f1d22")
    added: Style = Style(bgcolor="#1d3b26")
    deleted_band: Style = Style(bgcolor="#5c2731")  # the lines of the hunk at the cursor: a stronger band
    added_band: Style = Style(bgcolor="#285a37")
    deleted_token: Style = Style(bgcolor="#8a2f3c", bold=True)
    added_token: Style = Style(bgcolor="#2f7a45", bold=True)
    minus_sign: Style = Style(color="#ff8787", bold=True)
    plus_sign: Style = Style(color="#87d787", bold=True)
    fold: Style = Style(color="#8aa0b5", italic=True)
    cursor: Style = Style(bgcolor="#2c3e57")
    band: Style = Style(color="#e5c07b", bgcolor="#4a3f1f", bold=True)  # the gutters of the hunk at the cursor
    empty: Style = Style(bgcolor="#262626")
    error: Style = Style(color="#ff5f5f", bold=True)
    warning: Style = Style(color="#ffaf00")
    info: Style = Style(color="#5fafff")
    ok: Style = Style(color="#5fd75f", bold=True)
    muted: Style = Style(color="#8a8a8a")
    hunks: Style = Style(color="#d7af5f")
    folder: Style = Style(color="#8aa0b5", bold=True)
    syntax: dict[str, Style] = field(default_factory=lambda: dict(highlight.STYLES))

    def syntax_style(self, capture: str) -> Style | None:
        if capture in self.syntax:
            return self.syntax[capture]
        return self.syntax.get(capture.split(".")[0])


DEFAULT = Palette()


def _readable(c: Color, bg: Color, fg: Color) -> Color:
    """``c`` moved towards the foreground until it stands out from the background."""
    for _ in range(6):
        if abs(c.brightness - bg.brightness) >= 0.3:
            break
        c = c.blend(fg, 0.25)
    return c


def palette_for(variables: dict[str, str]) -> Palette:
    """The palette of a theme, from ``App.get_css_variables()``."""
    try:
        bg = Color.parse(variables["background"])
        fg = Color.parse(variables["foreground"])
        col = {k: Color.parse(variables[k]) for k in ("primary", "secondary", "accent", "error", "success", "warning")}
    except (KeyError, ColorParseError, ValueError):
        return DEFAULT
    if any(c.ansi is not None for c in (bg, fg, *col.values())):
        return DEFAULT

    def text(c: Color) -> str:
        return _readable(c, bg, fg).hex

    def band(c: Color, amount: float) -> str:
        return bg.blend(c, amount).hex

    warning, error, success = col["warning"], col["error"], col["success"]
    syntax = {
        "comment": Style(color=bg.blend(fg, 0.5).hex, italic=True),
        "keyword": Style(color=text(col["primary"]), bold=True),
        "string": Style(color=text(success)),
        "number": Style(color=text(warning)),
        "function": Style(color=text(col["secondary"])),
        "type": Style(color=text(col["accent"])),
        "operator": Style(color=bg.blend(fg, 0.8).hex),
        "constant.builtin": Style(color=text(warning), bold=True),
        "constant": Style(color=text(warning)),
        "variable.builtin": Style(color=text(error)),
        "punctuation.bracket": Style(color=bg.blend(fg, 0.75).hex),
    }
    for name in highlight.STYLES:  # a capture this table does not name: the foreground
        syntax.setdefault(name, Style(color=fg.hex))
    return Palette(
        lno=Style(color=bg.blend(fg, 0.45).hex),
        sep=Style(color=bg.blend(fg, 0.25).hex),
        changed_sep=Style(color=text(warning)),
        deleted=Style(bgcolor=band(error, 0.22)),
        added=Style(bgcolor=band(success, 0.22)),
        deleted_band=Style(bgcolor=band(error, 0.36)),
        added_band=Style(bgcolor=band(success, 0.36)),
        deleted_token=Style(bgcolor=band(error, 0.5), bold=True),
        added_token=Style(bgcolor=band(success, 0.5), bold=True),
        minus_sign=Style(color=text(error), bold=True),
        plus_sign=Style(color=text(success), bold=True),
        fold=Style(color=bg.blend(fg, 0.6).hex, italic=True),
        cursor=Style(bgcolor=band(col["primary"], 0.3)),
        band=Style(color=text(warning), bgcolor=band(warning, 0.25), bold=True),
        empty=Style(bgcolor=bg.blend(fg, 0.07).hex),
        error=Style(color=text(error), bold=True),
        warning=Style(color=text(warning)),
        info=Style(color=text(col["primary"])),
        ok=Style(color=text(success), bold=True),
        muted=Style(color=bg.blend(fg, 0.55).hex),
        hunks=Style(color=text(col["accent"])),
        folder=Style(color=text(col["secondary"]), bold=True),
        syntax=syntax,
    )
