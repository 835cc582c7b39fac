"""Findings: the rule catalogue of constructs that need a human, with suggested fixes.

    >>> from porter.findings import scan
    >>> [f.rule for f in scan(b'__device__ int l() { int x; asm("mov.u32 %0, %%laneid;" : "=r"(x)); return x; }')]
    ['PORT001']

Public API: ``scan``, ``scan_build_file``, ``catalogue``, ``apply_fixes``, ``prepare`` and
``porter.findings.report`` (``to_json``, ``to_sarif``, ``to_text``).
"""

from porter.findings.catalogue import Rule, catalogue
from porter.findings.engine import prepare, scan
from porter.findings.fixes import apply_fixes, apply_fixes_spans
from porter.findings.model import CATEGORIES, SEVERITIES, Finding, Fix, FixEdit

__all__ = ["CATEGORIES", "SEVERITIES", "Finding", "Fix", "FixEdit", "Rule", "apply_fixes", "apply_fixes_spans", "catalogue", "prepare", "scan",
           "scan_build_file"]


def scan_build_file(text: str, path: str = "<build>") -> list:
    from porter.findings.build import scan_build_file as _scan

    return _scan(text, path)
