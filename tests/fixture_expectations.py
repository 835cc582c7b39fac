"""The lines a rule's fixture says it flags: a comment `expect: PORTnnn` (several ids separated by
commas or spaces) on the line a finding must start on."""

from __future__ import annotations

import re


def expected_lines(data: bytes, rule: str) -> set[int]:
    return {i for i, line in enumerate(data.decode("utf-8").splitlines(), 1)
            if re.search(r"expect:[\w ,]*\b" + rule + r"\b", line)}
