"""Every rule's fixtures (tests/findings/fixtures/PORTnnn/): positive snippets report the
rule on exactly the lines marked ``expect: PORTnnn``; negative snippets (the same words in a
comment or a string, look-alikes that are fine) report nothing for it; ``fixed.*`` is what
the safe fixes make of ``positive.*``, scanning it does not offer the fix again, and the C++
ones compile with hipcc after porter's CUDA->HIP translation."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from fixture_expectations import expected_lines
from porter.findings import apply_fixes, catalogue, scan, scan_build_file
from porter.findings.build_modes import BUILD_FILES
from porter.translate import TranslateOptions, translate

FIXTURES = Path(__file__).with_name("fixtures")
SOURCE_SUFFIXES = {".cu", ".cuh", ".cpp", ".h", ".hip"}


def _scan(path: Path, data: bytes):
    if path.suffix in SOURCE_SUFFIXES:
        # a fixture may name the target ROCm it is scanned for: "porter-test: --target-rocm 5.2",
        # and the AMD libraries: "porter-test: --roc"
        m = re.search(rb"porter-test: --target-rocm (\S+)", data)
        roc = re.search(rb"porter-test:.*--roc\b", data) is not None
        options = TranslateOptions(**({"target_rocm": m.group(1).decode()} if m else {}), roc=roc) \
            if m or roc else None
        # a fixture folder with a build file (PORT195's CMakeLists.txt) is scanned as that project's files on
        # disk: the build file says how they are compiled
        on_disk = any((path.parent / name).is_file() for name in BUILD_FILES)
        return scan(data, path.name, options=options, file=path if on_disk else None)
    return scan_build_file(data.decode("utf-8"), path.name)


def _cases(prefix: str):
    for folder in sorted(FIXTURES.iterdir()):
        for f in sorted(folder.glob(f"{prefix}*")):
            yield pytest.param(folder.name, f, id=f"{folder.name}/{f.name}")


def test_every_rule_has_fixtures():
    missing = [r.id for r in catalogue().values() if r.scope != "engine"
               and not (list((FIXTURES / r.id).glob("positive*")) and list((FIXTURES / r.id).glob("negative*")))]
    assert not missing, f"rules without positive and negative fixtures: {missing}"


@pytest.mark.parametrize("rule, path", list(_cases("positive")))
def test_positive(rule, path):
    data = path.read_bytes()
    findings = _scan(path, data)
    got = {f.line for f in findings if f.rule == rule}
    expected = expected_lines(data, rule)
    assert expected, f"{path} marks no line with 'expect: {rule}'"
    assert got == expected, f"{rule} reported on lines {sorted(got)}, expected {sorted(expected)}"
    meta = catalogue()[rule]
    for f in findings:
        if f.rule == rule:
            assert f.category == meta.category and f.severity in ("error", "warning", "info")
            assert f.message and not re.search(r"\{[a-z_0-9]+\}", f.message), f.message
            assert (f.end_line, f.end_column) >= (f.line, f.column)
    assert not [f for f in findings if f.rule == "PORT900"], "a rule failed"


@pytest.mark.parametrize("rule, path", list(_cases("negative")))
def test_negative(rule, path):
    findings = [f for f in _scan(path, path.read_bytes()) if f.rule == rule or f.rule == "PORT900"]
    assert findings == [], [f"{f.line}:{f.column} {f.message}" for f in findings]


@pytest.mark.parametrize("rule, path", list(_cases("fixed")))
def test_fixed(rule, path):
    positive = next(path.parent.glob("positive" + path.suffix))
    findings = _scan(positive, positive.read_bytes())
    assert any(f.fix and f.fix.safe for f in findings if f.rule == rule), f"{rule} offers no safe fix"
    fixed = apply_fixes(positive.read_bytes(), [f for f in findings if f.rule == rule])
    assert fixed.decode() == path.read_text(encoding="utf-8")
    again = [f for f in _scan(path, fixed) if f.rule == rule and f.fix and f.fix.safe]
    assert again == [], f"the fix does not converge: {[f.message for f in again]}"


@pytest.mark.parametrize("rule, path", list(_cases("suggested")))
def test_suggested_fixes(rule, path):
    """``suggested.*``: what every fix (safe or not) makes of ``positive.*``; offered again never."""
    positive = next(path.parent.glob("positive" + path.suffix))
    findings = [f for f in _scan(positive, positive.read_bytes()) if f.rule == rule]
    assert any(f.fix and not f.fix.safe for f in findings), f"{rule} offers no fix that needs review"
    fixed = apply_fixes(positive.read_bytes(), findings, safe_only=False)
    assert fixed.decode() == path.read_text(encoding="utf-8")
    again = [f for f in _scan(path, fixed) if f.rule == rule and f.fix]
    assert again == [], f"the fix does not converge: {[f.message for f in again]}"


@pytest.mark.hipcc
@pytest.mark.parametrize("rule, path", [c for c in list(_cases("fixed")) + list(_cases("suggested"))
                                        if c.values[1].suffix in SOURCE_SUFFIXES])
def test_fixed_compiles_with_hipcc(rule, path, hipcc_compile):
    hip = translate(path.read_bytes(), str(path)).output
    rc, out = hipcc_compile(hip, rule)
    assert rc == 0, f"{rule}: fixed output does not compile with hipcc:\n{out[-3000:]}"
