"""The CUDA | HIP diff drawn with the Line API: side by side, or unified (one
column: a hunk's CUDA lines as ``-``, then its HIP lines as ``+``; for narrow
terminals).

One widget draws both columns, so they scroll together by construction; only
the visible lines are rendered, each cached as a Strip (LRU).  Unchanged
stretches fold to one line (enter on it unfolds).  Syntax highlighting spans
arrive later from a worker (``set_highlights``) and only invalidate the cache.
"""

from __future__ import annotations

import difflib
import re

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.binding import Binding
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from porter.project.file_review import ACCEPTED, REJECTED, FileReview
from porter.tui.colours import DEFAULT, Palette
from porter.tui.highlight import Spans
from porter.tui.shown_text import shown

CONTEXT = 3  # unchanged lines kept around a change when folding
TAB = 4
_TOKEN = re.compile(r"\w+|\s+|[^\w\s]")

ST_REJECTED = Style(dim=True, strike=True)
# the colours come from the active theme (porter.tui.colours.Palette, set by the app)


def changed_spans(a: str, b: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """Character spans that differ between two lines, compared token by token."""
    ta, tb = _TOKEN.findall(a), _TOKEN.findall(b)
    pa = [0]
    for t in ta:
        pa.append(pa[-1] + len(t))
    pb = [0]
    for t in tb:
        pb.append(pb[-1] + len(t))
    sa, sb = [], []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, ta, tb, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        if i2 > i1:
            sa.append((pa[i1], pa[i2]))
        if j2 > j1:
            sb.append((pb[j1], pb[j2]))
    return sa, sb


class DiffView(ScrollView, can_focus=True):
    """The diff of one FileReview."""

    BINDINGS = [
        Binding("up", "cursor(-1)", "Up", show=False),
        Binding("down", "cursor(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home", "edge(0)", "Top", show=False),
        Binding("end", "edge(1)", "Bottom", show=False),
        Binding("enter", "unfold", "Unfold", show=False),
    ]

    class CursorMoved(Message):
        def __init__(self, row: int | None) -> None:
            super().__init__()
            self.row = row

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.file: FileReview | None = None
        self.display_rows: list[tuple] = []  # ("row", i) or ("fold", start, end)
        self.cursor = 0
        self.unfolded: set[int] = set()
        self.left_hl: list[Spans] | None = None
        self.right_hl: list[Spans] | None = None
        self.finding_lines: dict[int, str] = {}  # 0-based CUDA line -> worst severity
        self.preview: tuple[int, list[str]] | None = None  # (row, fix preview lines)
        self._cache: LRUCache = LRUCache(1024)
        self._version = 0
        self.message = "no file selected"
        self.unified = False  # one column (- CUDA / + HIP) instead of two
        self.palette: Palette = DEFAULT

    def set_palette(self, palette: Palette) -> None:
        """The theme changed: draw in its colours."""
        self.palette = palette
        self._changed()

    def _severity_mark(self, left: int | None) -> tuple[str, Style]:
        sev = self.finding_lines.get(left, "") if left is not None else ""
        st = {"error": self.palette.error, "warning": self.palette.warning, "info": self.palette.info}.get(sev)
        return ("●", st) if st is not None else (" ", Style())

    def _decision_mark(self, decision: str | None) -> tuple[str, Style] | None:
        if decision == ACCEPTED:
            return "✓", self.palette.ok
        if decision == REJECTED:
            return "✗", self.palette.error
        return None

    def set_unified(self, unified: bool) -> None:
        """Side by side or unified; the cursor stays on its row."""
        if unified == self.unified:
            return
        self.unified = unified
        if self.file is None:
            return
        row = self.current_row()
        self._build_rows()
        self._changed(size=True)
        if row is not None:
            self.move_to_row(row)

    # ---- content -----------------------------------------------------------------
    def show_message(self, text: str) -> None:
        self.file = None
        self.display_rows = []
        self.message = text
        self._changed(size=True)

    def set_file(self, fr: FileReview, keep_cursor: bool = False) -> None:
        same = self.file is fr
        old_row = self.current_row() if (same and keep_cursor) else None
        if not same:
            self.unfolded = set()
            self.left_hl = self.right_hl = None
            self.preview = None
        self.file = fr
        self.finding_lines = {}
        rank = {"error": 0, "warning": 1, "info": 2}
        for f in fr.findings:
            cur = self.finding_lines.get(f.line - 1)
            if cur is None or rank.get(f.severity, 3) < rank.get(cur, 3):
                self.finding_lines[f.line - 1] = f.severity
        self._build_rows()
        if old_row is not None:
            self.move_to_row(old_row, scroll=False)
        elif not same:
            self.cursor = 0
            self.scroll_to(0, 0, animate=False)
            if fr.hunks:
                self.move_to_row(fr.hunks[0].start)
        self._changed(size=True)

    def set_highlights(self, fr: FileReview, left: list[Spans], right: list[Spans]) -> None:
        if fr is self.file:
            self.left_hl, self.right_hl = left, right
            self._changed()

    def _build_rows(self) -> None:
        fr = self.file
        n = len(fr.rows)
        changed = [False] * n
        for h in fr.hunks:
            for k in range(h.start, h.end):
                changed[k] = True
        keep = [False] * n
        for h in fr.hunks:
            for k in range(max(0, h.start - CONTEXT), min(n, h.end + CONTEXT)):
                keep[k] = True
        for f in fr.findings:  # keep finding lines visible too
            r = fr.row_of_left_line(f.line) if fr.rows else 0
            for k in range(max(0, r - 1), min(n, r + 2)):
                keep[k] = True
        rows: list[tuple] = []
        i = 0
        while i < n:
            if keep[i]:
                rows.append(("row", i))
                i += 1
                continue
            j = i
            while j < n and not keep[j]:
                j += 1
            if j - i <= 2 or i in self.unfolded:
                rows.extend(("row", k) for k in range(i, j))
            else:
                rows.append(("fold", i, j))
            i = j
        if self.unified:
            rows = self._unify(rows)
        self.display_rows = rows
        self._row_index = {}
        for d, r in enumerate(rows):
            if r[0] == "row":
                self._row_index.setdefault(r[1], d)  # a changed row's first line (its - line)

    def _unify(self, rows: list[tuple]) -> list[tuple]:
        """Display rows of the unified view: ("row", i, sign); each run of hunk rows
        becomes its CUDA lines ("-"), then its HIP lines ("+")."""
        fr = self.file
        out: list[tuple] = []
        k = 0
        while k < len(rows):
            entry = rows[k]
            h = fr.row_hunk.get(entry[1]) if entry[0] == "row" else None
            if h is None:
                out.append(entry if entry[0] == "fold" else ("row", entry[1], " "))
                k += 1
                continue
            j = k
            while j < len(rows) and rows[j][0] == "row" and fr.row_hunk.get(rows[j][1]) == h:
                j += 1
            block = [rows[m][1] for m in range(k, j)]
            out += [("row", r, "-") for r in block if fr.rows[r].left is not None]
            out += [("row", r, "+") for r in block if fr.rows[r].right is not None]
            k = j
        return out

    def _changed(self, size: bool = False) -> None:
        self._version += 1
        self._cache.clear()
        if size:
            self.virtual_size = Size(self.size.width, max(1, len(self.display_rows)))
        self.refresh()

    def redraw(self) -> None:
        """Decisions changed, rows did not: draw again."""
        self._changed()

    def refresh_file(self) -> None:
        """Decisions changed: redraw (rows and hunks may have changed too; the
        highlights are dropped until the app sends the new ones)."""
        if self.file is not None:
            self.left_hl = self.right_hl = None
            self.set_file(self.file, keep_cursor=True)

    # ---- cursor ------------------------------------------------------------------
    def current_row(self) -> int | None:
        if not self.display_rows:
            return None
        d = self.display_rows[min(self.cursor, len(self.display_rows) - 1)]
        return d[1]

    def current_hunk(self) -> int | None:
        """The hunk under the cursor, else the next one after it."""
        fr = self.file
        row = self.current_row()
        if fr is None or row is None or not fr.hunks:
            return None
        h = fr.row_hunk.get(row)
        if h is not None:
            return h
        for hk in fr.hunks:
            if hk.start >= row:
                return hk.index
        return None

    def move_to_row(self, row: int, scroll: bool = True) -> None:
        d = self._row_index.get(row)
        if d is None:  # folded: unfold it
            for k, dr in enumerate(self.display_rows):
                if dr[0] == "fold" and dr[1] <= row < dr[2]:
                    self.unfolded.add(dr[1])
                    self._build_rows()
                    self._changed(size=True)
                    d = self._row_index.get(row, k)
                    break
            else:
                d = 0
        self._set_cursor(d, scroll)

    def _set_cursor(self, d: int, scroll: bool = True) -> None:
        d = max(0, min(d, len(self.display_rows) - 1))
        self.cursor = d  # strips are cached per cursor flag: only two lines re-render
        if scroll:
            h = max(1, self.scrollable_content_region.height)
            top = self.scroll_offset.y
            if d < top or d >= top + h:
                self.scroll_to(y=max(0, d - h // 3), animate=False)
        self.refresh()
        self.post_message(self.CursorMoved(self.current_row()))

    def action_cursor(self, delta: int) -> None:
        self._set_cursor(self.cursor + delta)

    def action_page(self, delta: int) -> None:
        self._set_cursor(self.cursor + delta * max(1, self.scrollable_content_region.height - 1))

    def action_edge(self, end: int) -> None:
        self._set_cursor(len(self.display_rows) - 1 if end else 0)

    def action_unfold(self) -> None:
        if self.display_rows and self.display_rows[self.cursor][0] == "fold":
            self.unfolded.add(self.display_rows[self.cursor][1])
            row = self.display_rows[self.cursor][1]
            self._build_rows()
            self._changed(size=True)
            self.move_to_row(row)

    def on_click(self, event) -> None:
        self._set_cursor(self.scroll_offset.y + event.y, scroll=False)

    # ---- drawing -----------------------------------------------------------------
    def render_line(self, y: int) -> Strip:
        d = self.scroll_offset.y + y
        width = self.scrollable_content_region.width or self.size.width
        band = self._band(d)
        key = (d, width, self.scroll_offset.x, d == self.cursor, band)
        strip = self._cache.get(key)
        if strip is None:
            strip = self._render_row(d, width, band)
            self._cache[key] = strip
        return strip

    def current_hunk_at_cursor(self) -> int | None:
        """The hunk the cursor is in (None between hunks)."""
        row = self.current_row()
        return None if self.file is None or row is None else self.file.row_hunk.get(row)

    def _band(self, d: int) -> bool:
        """Whether display row ``d`` belongs to the hunk the cursor is in."""
        if self.file is None or d >= len(self.display_rows) or self.display_rows[d][0] != "row":
            return False
        cur = self.current_hunk_at_cursor()
        return cur is not None and self.file.row_hunk.get(self.display_rows[d][1]) == cur

    def _render_row(self, d: int, width: int, band: bool = False) -> Strip:
        if self.file is None or not self.display_rows:
            if d == 0:
                return Strip([Segment(self.message[:width].ljust(width), self.palette.fold)], width)
            return Strip.blank(width)
        if d >= len(self.display_rows):
            return Strip.blank(width)
        fr = self.file
        entry = self.display_rows[d]
        cursor = d == self.cursor and self.has_focus_within_screen()
        if entry[0] == "fold":
            n = entry[2] - entry[1]
            text = f"  ⋯ {n} unchanged lines (enter unfolds) ⋯"
            return Strip([Segment(text[:width].ljust(width), self.palette.fold + (self.palette.cursor if cursor else Style()))], width)
        if len(entry) == 3:
            return self._render_unified(entry[1], entry[2], width, band, cursor)
        row = entry[1]
        r = fr.rows[row]
        lno_w = max(4, len(str(max(len(fr.left), len(fr.right)))))
        side = max(1, (width - 2 * (lno_w + 1) - 3) // 2)
        right_side = max(1, width - 2 * (lno_w + 1) - 2 - side)  # the HIP column takes the odd cell
        hunk = fr.row_hunk.get(row)
        decision = fr.decisions.get(fr.hunks[hunk].key) if hunk is not None else None
        stale = hunk is not None and fr.hunks[hunk].stale
        changed = hunk is not None
        lt, rt = fr.left_text(row), fr.right_text(row)
        ls, rs = ([], []) if not (changed and lt is not None and rt is not None) else changed_spans(lt, rt)

        segs: list[Segment] = []
        pal = self.palette
        mark = self._severity_mark(r.left)
        segs.append(Segment(mark[0], mark[1]))
        lno = pal.band if band else pal.lno
        segs.append(Segment((str(r.left + 1) if r.left is not None else "").rjust(lno_w) + " ", lno))
        deleted, added = (pal.deleted_band, pal.added_band) if band else (pal.deleted, pal.added)
        segs.extend(self._side(lt, side, deleted if changed else None, ls, pal.deleted_token,
                               self.left_hl[r.left] if (self.left_hl and r.left is not None and r.left < len(self.left_hl)) else None))
        if self._decision_mark(decision):
            ch, st = self._decision_mark(decision)
        elif stale:
            ch, st = "!", pal.warning + Style(bold=True)
        elif changed:
            ch, st = "│", pal.changed_sep
        else:
            ch, st = "│", pal.sep
        segs.append(Segment(ch, st))
        segs.append(Segment((str(r.right + 1) if r.right is not None else "").rjust(lno_w) + " ", lno))
        rhl = None
        if self.right_hl and r.right is not None and r.right < len(self.right_hl):
            rhl = self.right_hl[r.right]
        segs.extend(self._side(rt, right_side, added if changed else None, rs, pal.added_token, rhl,
                               extra=ST_REJECTED if decision == REJECTED else None))
        strip = Strip(segs).adjust_cell_length(width)
        if cursor:
            strip = strip.apply_style(pal.cursor) if not changed else strip.apply_style(Style(underline=True))
        return strip

    def _render_unified(self, row: int, sign: str, width: int, band: bool, cursor: bool) -> Strip:
        """One line of the unified view: finding mark, CUDA and HIP line numbers, the
        decision, the sign (- CUDA, + HIP, space unchanged), the text."""
        fr = self.file
        r = fr.rows[row]
        lno_w = max(4, len(str(max(len(fr.left), len(fr.right)))))
        text_w = max(1, width - 1 - 2 * (lno_w + 1) - 3)
        hunk = fr.row_hunk.get(row)
        decision = fr.decisions.get(fr.hunks[hunk].key) if hunk is not None else None
        lt, rt = fr.left_text(row), fr.right_text(row)
        pal = self.palette
        segs: list[Segment] = []
        mark = self._severity_mark(r.left) if sign != "+" else (" ", Style())
        segs.append(Segment(mark[0], mark[1]))
        lno = pal.band if band else pal.lno
        segs.append(Segment((str(r.left + 1) if r.left is not None and sign != "+" else "").rjust(lno_w) + " ", lno))
        segs.append(Segment((str(r.right + 1) if r.right is not None and sign != "-" else "").rjust(lno_w) + " ", lno))
        if self._decision_mark(decision):
            ch, st = self._decision_mark(decision)
        elif hunk is not None and fr.hunks[hunk].stale:
            ch, st = "!", pal.warning + Style(bold=True)
        else:
            ch, st = " ", Style()
        segs.append(Segment(ch, st))
        if sign == " ":
            segs.append(Segment("  ", pal.sep))
            hl = self.right_hl[r.right] if (self.right_hl and r.right is not None and r.right < len(self.right_hl)) else None
            segs.extend(self._side(rt if rt is not None else lt, text_w, None, [], pal.added_token, hl))
        else:
            ls, rs = ([], []) if lt is None or rt is None else changed_spans(lt, rt)
            if sign == "-":
                deleted = pal.deleted_band if band else pal.deleted
                segs.append(Segment("- ", deleted + pal.minus_sign))
                hl = self.left_hl[r.left] if (self.left_hl and r.left < len(self.left_hl)) else None
                segs.extend(self._side(lt, text_w, deleted, ls, pal.deleted_token, hl))
            else:
                added = pal.added_band if band else pal.added
                segs.append(Segment("+ ", added + pal.plus_sign))
                hl = self.right_hl[r.right] if (self.right_hl and r.right < len(self.right_hl)) else None
                segs.extend(self._side(rt, text_w, added, rs, pal.added_token, hl,
                                       extra=ST_REJECTED if decision == REJECTED else None))
        strip = Strip(segs).adjust_cell_length(width)
        if cursor:
            strip = strip.apply_style(pal.cursor) if hunk is None else strip.apply_style(Style(underline=True))
        return strip

    def _side(self, line: str | None, width: int, base: Style | None, spans, tok_style: Style,
              hl: Spans | None, extra: Style | None = None) -> list[Segment]:
        if line is None:
            return [Segment(" " * width, self.palette.empty)]
        text = Text(shown(line), style=base or "", no_wrap=True, end="")
        if hl:
            for s, e, name in hl:
                st = self.palette.syntax_style(name)
                if st is not None:
                    text.stylize(st, s, e)
        for s, e in spans:
            text.stylize(tok_style, s, e)
        if extra is not None:
            text.stylize(extra)
        if "\t" in line:
            text.expand_tabs(TAB)
        x = self.scroll_offset.x
        if x:
            text = text[x:]
        text.truncate(width, overflow="crop", pad=True)
        if base is not None:
            text.stylize_before(base)
        return list(text.render(self.app.console))

    def has_focus_within_screen(self) -> bool:
        return True

    def on_resize(self) -> None:
        self._changed(size=True)
