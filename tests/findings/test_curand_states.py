"""PORT184: cuRAND states made where hipRAND's constructor cannot run.  The fixtures are written from
cuRAND's device API (its states are plain structs in CUDA); the ports are compiled with hipcc 5.2 against
hipRAND's headers, and the errors must be exactly on the lines the rule flags."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from fixture_expectations import expected_lines
from porter.findings import scan
from porter.translate import translate

FIXTURES = Path(__file__).parent / "fixtures" / "PORT184"


def test_the_rule_flags_the_expected_lines_only():
    pos = (FIXTURES / "positive.cu").read_bytes()
    assert sorted(f.line for f in scan(pos, "p.cu") if f.rule == "PORT184") == sorted(expected_lines(pos, "PORT184"))
    neg = (FIXTURES / "negative.cu").read_bytes()
    assert [f for f in scan(neg, "n.cu") if f.rule == "PORT184"] == []


@pytest.mark.hipcc
def test_the_ports_fail_exactly_where_the_rule_says(hipcc_compile):
    if not Path("/usr/include/hiprand/hiprand_kernel.h").exists():
        pytest.skip("hipRAND's headers are not installed (Debian: libhiprand-dev)")
    pos = (FIXTURES / "positive.cu").read_bytes()
    port = translate(pos, "p.cu")
    rc, out = hipcc_compile(port.output, "positive", syntax_only=True)
    assert rc != 0
    lines = sorted({port.output_line_to_source(int(m.group(1)))
                    for m in re.finditer(r"positive\.hip:(\d+):\d+: error:", out)})
    assert lines == sorted(expected_lines(pos, "PORT184")), out[-3000:]
    rc, out = hipcc_compile(translate((FIXTURES / "negative.cu").read_bytes(), "n.cu").output, "negative",
                            syntax_only=True)
    assert rc == 0, out[-3000:]
