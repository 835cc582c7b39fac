"""Rule predicates: the small checks a tree-sitter query cannot express.

``@node_check("PORTnnn")`` registers ``f(ctx, node, captures) -> Hit | [Hit] | None``
for the nodes a rule's ``@PORTnnn`` capture marks; ``@file_check("PORTnnn")``
registers ``f(ctx) -> [Hit]`` run once per file (macro bodies, database look-ups).
A rule without a predicate reports every captured node as is.
"""

from __future__ import annotations

REGISTRY: dict = {}
FILE_REGISTRY: dict = {}
# per file check that asks for syntax trees at places of a big file: ``f(ctx)`` -> None (it will ask for
# none in this file) or a test of a region's text that holds wherever it may ask (a superset), so that
# the scan keeps those regions' trees from its query pass instead of the check parsing them again
FILE_REGIONS: dict = {}
# file checks that read the tree one region at a time (``@file_check(..., per_region=True)``): ``f(ctx)`` returns
# None (nothing to do in this file) or (test, visit, finish): ``test(region text)`` says whether the check looks
# at a region (it must hold wherever it could find something), ``visit(root)`` is called with the root node of
# each such region in file order (of the whole tree when the file is parsed whole), and ``finish()`` returns
# what it found once every region has been visited.  The scan serves each region's tree to these checks while it
# holds it for its query pass, so that no region is parsed again for them.
REGION_CHECKS: set = set()


def node_check(rule_id: str):
    def register(fn):
        REGISTRY[rule_id] = fn
        return fn
    return register


def word_regions(words):
    """A FILE_REGIONS test: a region's text holds one of ``words`` (bytes) as a whole word; None when
    there is no word."""
    import re

    words = sorted(set(words), key=len, reverse=True)
    if not words:
        return None
    pattern = re.compile(rb"(?<!\w)(?:" + b"|".join(re.escape(w) for w in words) + rb")(?!\w)")
    return lambda text: pattern.search(text) is not None


def file_check(rule_id: str, regions=None, per_region: bool = False):
    """``regions``: see FILE_REGIONS (a hint: a region it leaves out is parsed again when asked for);
    ``per_region``: see REGION_CHECKS."""
    def register(fn):
        FILE_REGISTRY[rule_id] = fn
        if regions is not None:
            FILE_REGIONS[rule_id] = regions
        if per_region:
            REGION_CHECKS.add(rule_id)
        return fn
    return register


# (hipblas_types first: its PORT185 says more than api's PORT032 at the cublasDotEx calls of an older target, and
# PORT032 leaves a place a finding already covers)
from porter.findings.predicates import hipblas_types  # noqa: E402,F401,I001  (registration)
from porter.findings.predicates import api, arch_macros, cg_shuffles, cg_votes, arity, asm, clusters, cooperative_groups, copy_sources, curand_states, device_var_linkage, driver_pointers, features, hipdefs, hipheaders, host_half, host_math, int_results, lanes, lds, legacy_blas, libwarps, miopen, overloads, roc_blas, roc_sparse, solver, storage_class, warp, warpvalues  # noqa: E402,F401  (registration)
