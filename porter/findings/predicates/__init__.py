"""Rule predicates: the small checks a tree-sitter query cannot express.

``@node_check("PORTnnn")`` registers ``f(ctx, node, captures) -> Hit | [Hit] | None``
for the nodes a rule's ``@PORTnnn`` capture marks; ``@file_check("PORTnnn")``
registers ``f(ctx) -> [Hit]`` run once per file (macro bodies, database look-ups).
A rule without a predicate reports every captured node as is.
"""

from __future__ import annotations

REGISTRY: dict = {}
FILE_REGISTRY: dict = {}


def node_check(rule_id: str):
    def register(fn):
        REGISTRY[rule_id] = fn
        return fn
    return register


def file_check(rule_id: str):
    def register(fn):
        FILE_REGISTRY[rule_id] = fn
        return fn
    return register


from porter.findings.predicates import api, arity, asm, features, hipdefs, hipheaders, lanes, lds, libwarps, overloads, solver, warp, warpvalues  # noqa: E402,F401  (registration)
