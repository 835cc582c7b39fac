"""PORT175's table (porter/findings/atomic_builtins.toml) and the query that finds its calls name the same
functions: a call the query matches but the table lacks would have no fix to offer, a table row the query
never matches would never be reported."""

import re
from pathlib import Path

from porter.findings.predicates.hipheaders import atomic_builtins

QUERY = Path(__file__).resolve().parents[2] / "grammars" / "rules" / "hip_headers.scm"


def _port175_names() -> set[str]:
    text = QUERY.read_text(encoding="utf-8")
    block = text[text.index("PORT175"):]
    alternation = re.search(r'#match\? @fn "\^\(([^)]*)\)\$"', block)
    assert alternation, "PORT175's query no longer lists its functions as one alternation"
    return set(alternation.group(1).split("|"))


def test_the_query_and_the_table_name_the_same_functions():
    assert _port175_names() == set(atomic_builtins())

