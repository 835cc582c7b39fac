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


@pytest.fixture
def toolchain_for(request):
    """arch -> the toolchain these tests build it with: clang-19 for gfx942, Debian's hipcc 5.2 for gfx90a (the
    test is skipped where that one is not installed)."""
    return lambda arch: request.getfixturevalue("toolchain942" if arch == "gfx942" else "toolchain90a")


@pytest.fixture
def build_port(tmp_path, toolchain_for):
    """(CUDA project folder, arch, BuildOptions' other fields) -> (its port, converted to tmp_path/hip, and the
    port's build report for arch)."""
    from porter.build import BuildOptions, run_build
    from porter.project.convert import convert_tree

    def build(project, arch, **options):
        out = tmp_path / "hip"
        convert_tree(project, out)
        return out, run_build(out, BuildOptions(arch=arch, **options), toolchain=toolchain_for(arch))

    return build
