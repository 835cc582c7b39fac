import os

import pytest


@pytest.fixture(scope="session", autouse=True)
def _porter_cache(tmp_path_factory):
    """Generated device libraries go to a folder of this test session, not ~/.cache."""
    old = os.environ.get("PORTER_CACHE_DIR")
    os.environ["PORTER_CACHE_DIR"] = str(tmp_path_factory.mktemp("porter-cache"))
    yield
    if old is None:
        os.environ.pop("PORTER_CACHE_DIR", None)
    else:
        os.environ["PORTER_CACHE_DIR"] = old


