"""Regular expressions that find a name where no other identifier goes on: built so that the regex
engine can skip through the text to the name.

``(?<![\\w.])name\\s*=`` (or ``\\bname``) starts with a look-behind, and a pattern that starts with an
assertion has no literal prefix: the engine tries it at every character of the text, 10 to 50 times
slower over a function body than ``name(?<![\\w.]name)\\s*=``, which matches the same places (the
look-behind after the name sees the same character before it) and starts with the name's letters.
"""

from __future__ import annotations

import re

_WORD_START = re.compile(r"\w")


def name_at(names, before: str = r"[\w.]") -> str:
    """Regex text for one of ``names`` (escaped here; the longer first where one is a prefix of
    another, as the caller orders them) not preceded by a character of the class ``before``:
    ``(?<!before)(?:n1|n2)`` with the look-behind after each name."""
    parts = [re.escape(n) for n in names]
    alts = [f"{p}(?<!{before}{p})" for p in parts]
    return alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"


def word_at(names) -> str:
    """``\\b(?:n1|n2)``: where each name starts with a word character, ``\\b`` before it says no word
    character precedes it (``name_at(names, r"\\w")``); else the ``\\b`` form itself."""
    if all(n and _WORD_START.match(n) for n in names):
        return name_at(names, r"\w")
    parts = [re.escape(n) for n in names]
    return r"\b" + (parts[0] if len(parts) == 1 else "(?:" + "|".join(parts) + ")")
