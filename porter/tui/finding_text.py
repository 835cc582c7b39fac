"""A finding in words for the review app: its fix as the lines before and after it (not a
token diff), the page that `i` opens, and the one-paragraph form of the finding bar.
Presentation only: the findings and their fixes come from porter.findings."""

from __future__ import annotations

from rich.text import Text

from porter.project.file_conversion import source_bytes, source_text
from porter.tui.shown_text import shown

BEFORE, AFTER = "#ff8787", "#87d787"


def fix_blocks(source: str, edits) -> list[tuple[int, list[str], list[str]]]:
    """The whole lines a fix changes, each run of them once: (its first line, 1-based; the lines
    as they are; the same lines with the fix applied).  Edits on the same or adjacent lines are
    one run."""
    src = source_bytes(source)
    runs: list[list] = []  # [line start, line end (at its newline), [(start, end, replacement)]]
    for e in sorted(edits, key=lambda e: (e.start_byte, e.end_byte)):
        s, t = e.start_byte, e.end_byte
        ls = src.rfind(b"\n", 0, s) + 1
        le = src.find(b"\n", max(s, t - 1))
        le = len(src) if le < 0 else le
        if t > le:  # the edit takes the newline too: show the line after it
            le = src.find(b"\n", t)
            le = len(src) if le < 0 else le
        if runs and ls <= runs[-1][1] + 1:
            runs[-1][1] = max(runs[-1][1], le)
            runs[-1][2].append((s, t, e.replacement))
        else:
            runs.append([ls, le, [(s, t, e.replacement)]])
    out = []
    for ls, le, parts in runs:
        before = src[ls:le]
        after, at = b"", ls
        for s, t, rep in parts:
            if s < at:  # overlapping edits: the first one wins
                continue
            after += src[at:s] + source_bytes(rep)
            at = t
        after += src[at:le] if at <= le else b""
        out.append((src.count(b"\n", 0, ls) + 1, shown(source_text(before)).split("\n"),
                    shown(source_text(after)).split("\n")))
    return out


def fix_lines(source: str, fix, limit: int = 6) -> Text:
    """The fix as before / after lines: ``line 12`` then ``- `` lines and ``+ `` lines."""
    t = Text()
    blocks = fix_blocks(source, fix.edits)
    for line, before, after in blocks[:limit]:
        t.append(f"line {line}:\n", style="dim")
        for x in before:
            t.append("- " + x.expandtabs(4) + "\n", style=BEFORE)
        for x in after:
            t.append("+ " + x.expandtabs(4) + "\n", style=AFTER)
    if len(blocks) > limit:
        t.append(f"… and {len(blocks) - limit} more places\n", style="dim")
    return t


def finding_page(fr, f, severity: str, rule_page: str | None) -> Text:
    """What `i` opens: the finding's whole message, its fix before and after, then the rule's page."""
    t = Text()
    was = f" (was {f.severity})" if severity != f.severity else ""
    t.append(f"{f.rule} {severity}{was}: {fr.rel} line {f.line}\n\n", style="bold")
    t.append(f.message + "\n")
    fix = getattr(f, "fix", None)
    if fix is not None and fix.edits:
        t.append(f"\nfix ({'safe' if fix.safe else 'review it'}): {fix.description}\n", style="italic")
        t.append_text(fix_lines(fr.cuda, fix, limit=50))
    elif fix is None:
        t.append("\nno automatic fix\n", style="dim")
    if rule_page:
        t.append("\n" + "─" * 8 + f" porter explain {f.rule} " + "─" * 8 + "\n\n", style="dim")
        t.append(rule_page)
    return t
