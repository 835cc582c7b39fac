"""One fixture for the test folders that run porter's compilers (tests/build, tests/reliability): what porter
caches (the generated gfx942 device libraries above all) goes to a folder of this test session, not ~/.cache.
A conftest.py uses it by importing it: ``from porter_cache_fixture import porter_cache_dir  # noqa: F401``."""

import os

import pytest


@pytest.fixture(scope="session", autouse=True)
def porter_cache_dir(tmp_path_factory):
    """PORTER_CACHE_DIR: a folder of this test session for the session's length (the old value restored)."""
    folder = tmp_path_factory.mktemp("porter-cache")
    old = os.environ.get("PORTER_CACHE_DIR")
    os.environ["PORTER_CACHE_DIR"] = str(folder)
    yield folder
    if old is None:
        os.environ.pop("PORTER_CACHE_DIR", None)
    else:
        os.environ["PORTER_CACHE_DIR"] = old
