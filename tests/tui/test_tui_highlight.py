"""The syntax highlighting of the review app's panes (porter.tui.highlight)."""

from __future__ import annotations


def test_the_composed_highlight_query_is_up_to_date_and_compiles():
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    r = subprocess.run([sys.executable, str(root / "scripts" / "compose_highlights.py"), "--check"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    from porter.tui.highlight import highlight_lines

    spans = highlight_lines("__global__ void k(int *p) { // note\n  p[0] = 42;\n}\n")
    names = {name for line in spans for _, _, name in line}
    assert {"keyword", "comment", "number", "function"} <= names
