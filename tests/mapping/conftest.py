import importlib.util
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def gen():
    """scripts/gen_mappings.py as a module."""
    path = REPO / "scripts" / "gen_mappings.py"
    spec = importlib.util.spec_from_file_location("porter_gen_mappings", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="session")
def db():
    from porter.mapping import load_database

    return load_database()
