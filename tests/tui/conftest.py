"""Fixtures of the review-app tests (helpers live in tui_helpers.py)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tui_helpers import SAMPLE, fake_scan


@pytest.fixture
def project_dir(tmp_path) -> Path:
    dst = tmp_path / "warp_reduce"
    shutil.copytree(SAMPLE, dst)
    return dst


@pytest.fixture
def with_findings(monkeypatch):
    import porter.findings

    monkeypatch.setattr(porter.findings, "scan", fake_scan, raising=False)
    return fake_scan
