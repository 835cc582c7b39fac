"""The wave-model evidence patterns (evidence.toml): what shows that code follows the hardware
wave (``native``) or takes 32 lanes as given (``logical32``)."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

from porter.mapping.cache import load_toml


@dataclass(frozen=True)
class Pattern:
    kind: str  # native | logical32
    what: str
    regex: re.Pattern


@functools.cache
def patterns() -> tuple[Pattern, ...]:
    data = load_toml(Path(__file__).with_name("evidence.toml"))
    out = []
    for kind in ("native", "logical32"):
        for entry in data.get(kind, ()):
            out.append(Pattern(kind, entry["what"], re.compile(entry["pattern"].encode())))
    return tuple(out)


@dataclass(frozen=True)
class Evidence:
    """One place that shows a function's wave: what it is and where."""

    kind: str
    what: str
    file: str  # as shown in findings
    line: int
    function: str

    def describe(self) -> str:
        return f"{self.what} at {self.file}:{self.line}, in `{self.function}`"
