"""The one rule for a test that needs a system tool or header: where it is missing the test skips with
the reason, and under PORTER_REQUIRE_HIPCC=1 (CI: .ci/run) it fails instead, so that no compile check
skips there unseen."""

from __future__ import annotations

import os

import pytest


def require(present: object, missing: str) -> None:
    """Skips (fails under PORTER_REQUIRE_HIPCC=1) with ``missing`` unless ``present`` holds."""
    __tracebackhide__ = True  # the report names the test's line, not this one
    if present:
        return
    if os.environ.get("PORTER_REQUIRE_HIPCC") == "1":
        pytest.fail(f"{missing} (required here: PORTER_REQUIRE_HIPCC=1)")
    pytest.skip(missing)
