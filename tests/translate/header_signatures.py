"""What the header snapshots say about CUDA's C++ template overloads that HIP lacks (shared by the tests
of the translator's argument wrapping: rules.toml's [[wrap_argument]] lists are derived facts)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from porter.mapping import load_database
from porter.mapping import truth as truth_mod
from porter.translate.engine import structure_rules

SNAPSHOTS = Path(truth_mod.__file__).with_name("sources") / "snapshots"


def template_parameters_hip_lacks(cuda_param: str, hip_template: str) -> dict[str, int]:
    """{CUDA function: 0-based parameter} for each CUDA runtime function porter renames whose overload's
    parameter matches ``cuda_param`` (a template parameter such as ``const T &symbol``) while no HIP 5.2
    overload of its HIP name has one matching ``hip_template`` at that position."""
    cuda = json.loads((SNAPSHOTS / "cuda_cudart.json").read_text(encoding="utf-8"))["signatures"]
    hip = json.loads((SNAPSHOTS / "hip_hip.json").read_text(encoding="utf-8"))["signatures"]
    db = load_database()
    found = {}
    for name, overloads in cuda.items():
        entry = db.identifiers.get(name)
        if entry is None or not entry.renames or entry.hip not in hip:
            continue
        for o in overloads:
            for i, p in enumerate(o["params"]):
                if re.match(cuda_param, p):
                    hip_params = [h["params"][i] for h in hip[entry.hip] if i < len(h["params"])]
                    if hip_params and not any(re.match(hip_template, h) for h in hip_params):
                        found[name] = i
    return found


def wrap_rule(kind: str) -> dict:
    """rules.toml's [[wrap_argument]] of this kind (there is exactly one)."""
    (rule,) = [w for w in structure_rules()["wrap_argument"] if w["kind"] == kind]
    return rule
