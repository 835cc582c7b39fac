import os
import shutil

import pytest

from porter_cache_fixture import porter_cache_dir  # noqa: F401  (the session's own PORTER_CACHE_DIR, autouse)
from required_tools import require


def _need_hipcc():
    require(shutil.which("hipcc") or os.path.isfile("/opt/rocm/bin/hipcc"),
            "hipcc not installed (apt-get install hipcc libamdhip64-dev rocm-device-libs)")


@pytest.fixture
def need_hipcc():
    _need_hipcc()


@pytest.fixture(scope="session")
def toolchain90a():
    _need_hipcc()
    from porter.build.toolchain import detect_toolchain

    return detect_toolchain("gfx90a")


def _need_clang19():
    """Debian 12's clang-19 (with lld-19 and llvm-19): porter's gfx942 toolchain."""
    missing = [t for t in ("clang++-19", "ld.lld-19", "llvm-dis-19") if not shutil.which(t)]
    require(not missing, f"{', '.join(missing)} not installed (apt-get install clang-19 lld-19 llvm-19)")


@pytest.fixture
def need_clang19():
    _need_clang19()


@pytest.fixture(scope="session")
def toolchain942(porter_cache_dir):
    _need_hipcc()  # the HIP headers and libamdhip64 come with Debian's hipcc packages
    _need_clang19()
    from porter.build.toolchain import detect_toolchain

    return detect_toolchain("gfx942", kind="clang")
