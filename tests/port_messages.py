"""A CUDA snippet's port and the findings' messages on it, by rule: what the mapping tests read."""

from __future__ import annotations

from porter.findings import scan
from porter.translate import TranslateOptions, translate


def port_with_messages(src: str, **options) -> tuple[str, dict[str, list[str]]]:
    """(the port, messages by rule) of ``src``, converted and scanned with the same ``options``."""
    opts = TranslateOptions(**options)
    out = translate(src.encode(), "t.cu", opts).output.decode()
    found: dict[str, list[str]] = {}
    for f in scan(src.encode(), "t.cu", options=opts):
        found.setdefault(f.rule, []).append(f.message)
    return out, found
