import os
import shutil

import pytest


def _need_hipcc():
    if shutil.which("hipcc") or os.path.isfile("/opt/rocm/bin/hipcc"):
        return
    if os.environ.get("PORTER_REQUIRE_HIPCC") == "1":
        pytest.fail("hipcc is required (PORTER_REQUIRE_HIPCC=1) but not installed")
    pytest.skip("hipcc not installed (apt-get install hipcc libamdhip64-dev rocm-device-libs)")


@pytest.fixture
def need_hipcc():
    _need_hipcc()


@pytest.fixture(scope="session")
def toolchain90a():
    _need_hipcc()
    from porter.build.toolchain import detect_toolchain

    return detect_toolchain("gfx90a")
