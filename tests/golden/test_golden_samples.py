"""Golden tests: every sample project converts to exactly the reviewed HIP in
tests/golden/<project>/ (plain translation, no fixes).

Regenerate after an intended change with
    PORTER_UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/golden
then read the diff (`git diff tests/golden`) before committing: golden files
are reviewed by reading them.
"""

import os
from pathlib import Path

import pytest

from porter.project.convert import ConvertOptions, convert_tree

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_projects"
GOLDEN = Path(__file__).parent
PROJECTS = sorted(p.name for p in SAMPLES.iterdir() if p.is_dir())
UPDATE = os.environ.get("PORTER_UPDATE_GOLDEN") == "1"


@pytest.mark.parametrize("name", PROJECTS)
def test_sample_project_matches_golden(name, tmp_path):
    out = tmp_path / name
    report = convert_tree(SAMPLES / name, out, ConvertOptions(findings=False, jobs=1))
    assert report.exit_code == 0, [f.message for f in report.errors]
    produced = {f.rel: (out / f.rel).read_bytes() for f in report.files if f.kind == "source"}
    golden_dir = GOLDEN / name
    if UPDATE:
        for rel, data in produced.items():
            target = golden_dir / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        for stale in golden_dir.rglob("*"):
            if stale.is_file() and stale.relative_to(golden_dir).as_posix() not in produced:
                stale.unlink()
    if not golden_dir.is_dir():
        pytest.fail(f"no golden files for {name}: run with PORTER_UPDATE_GOLDEN=1 and review them")
    expected = {p.relative_to(golden_dir).as_posix(): p.read_bytes() for p in golden_dir.rglob("*") if p.is_file()}
    assert sorted(produced) == sorted(expected)
    for rel in produced:
        assert produced[rel] == expected[rel], f"{name}/{rel} differs from its golden file"
