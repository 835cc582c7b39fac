"""Findings: the rule catalogue of constructs that need a human, with suggested fixes."""
