"""The translator's structural rules (porter/translate/rules.toml) and the call-arity facts emit
names too: each is declared where porter can check it, like the database's names
(tests/mapping/test_mapping_truth.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from porter.mapping import load_call_arities, load_database
from porter.mapping import truth as truth_mod
from porter.translate.engine import _arity_renames, structure_rules

SNAPSHOTS = Path(truth_mod.__file__).with_name("sources") / "snapshots"


@pytest.fixture(scope="module")
def truth():
    return truth_mod.Truth()


def _floor_headers() -> set[str]:
    """Every header path of the HIP floor's snapshots (Debian's HIP 5.2 and its libraries)."""
    out = set()
    for name in truth_mod.FLOOR_SETS:
        path = SNAPSHOTS / f"{name}.json"
        if path.exists():
            out.update(json.loads(path.read_text(encoding="utf-8")).get("files", ()))
    return out


def test_every_identifier_the_structural_rules_emit_is_declared(truth):
    rules = structure_rules()
    emitted = set()
    for wrap in rules["wrap_argument"]:
        emitted.update(re.findall(r"[A-Za-z_]\w*", wrap["open"]))
    emitted -= {"reinterpret_cast", "const", "void"}  # C++ itself
    emitted.update(h for counts in _arity_renames(id(load_database())).values() for h in counts.values())
    emitted.update(rules["solver_enums"]["types"].values())  # named in PORT031's message, not emitted
    undeclared = sorted(n for n in emitted if truth.declared(n) is None)
    assert undeclared == []
    assert "HIP_SYMBOL" in emitted and "hipGraphInstantiateWithFlags" in emitted


def test_the_runtime_headers_the_rules_name_are_in_the_floor():
    device = structure_rules()["device_code"]
    floor = _floor_headers()
    named = [device["runtime_header"], *device["runtime_headers"], *device["needs_runtime_first"]]
    # hipCUB is not packaged by Debian 12: its hipcub.hpp is a file of Debian 13's libhipcub-dev
    missing = sorted(h for h in named if h not in floor and truth_mod.Truth().header(h) is None)
    assert missing == []


def test_every_call_arity_fact_names_a_declared_hip_function(truth):
    floor, facts = load_call_arities()
    assert floor == truth_mod.FLOOR
    assert {f.hip for f in facts.values() if truth.declared(f.hip) is None} == set()
    # the facts say what the generator found: a call with CUDA's default argument omitted
    assert facts["cudaStreamWaitEvent"].hip_accepts == {3}
    assert facts["cudaStreamWaitEvent"].cuda_defaults == ((2, ("0",)),)
