"""Fixtures shared by every test folder: the hipcc compile helper; the guard that every test folder collects."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

import killable
from collection_guard import empty_folders, folders_with_test_files, message
from required_tools import require


def _hipcc() -> str | None:
    return shutil.which("hipcc")


@pytest.fixture
def amd_compilers() -> None:
    """Skips the test unless hipcc (gfx90a) and clang++-19 with ld.lld-19 (gfx942) are installed;
    fails instead under PORTER_REQUIRE_HIPCC=1 (CI), so that no compile check skips there."""
    missing = [t for t in ("hipcc", "clang++-19", "ld.lld-19") if not shutil.which(t)]
    require(not missing, f"{', '.join(missing)} not installed (apt-get install hipcc clang-19 lld-19 llvm-19)")


@pytest.fixture
def gfx942_device_libs(tmp_path, amd_compilers) -> str:
    """porter's gfx942 device-library folder for clang++-19 (made under this test's own PORTER_CACHE_DIR)."""
    from porter.build.devicelibs import find_bitcode_dir, prepare

    old = os.environ.get("PORTER_CACHE_DIR")
    os.environ["PORTER_CACHE_DIR"] = str(tmp_path / "cache")
    try:
        libs = prepare(find_bitcode_dir(), shutil.which("clang++-19"), ("gfx942",)).folder
    finally:
        if old is None:
            os.environ.pop("PORTER_CACHE_DIR", None)
        else:
            os.environ["PORTER_CACHE_DIR"] = old
    assert libs, "no gfx942 device-library folder"
    return libs


# ---------------------------------------------------------------- AMD library headers Debian 12 lacks

# where scripts/fetch_library_headers.py (run by `scripts/setup.sh --test`) extracts Debian 13's -dev packages
_ROOT = Path(__file__).resolve().parents[1]
FETCHED_INCLUDE = _ROOT / ".test-headers" / "usr" / "include"


def library_include(markers: tuple[str, ...], env: str, package: str | None) -> Path:
    """The include folder holding every one of ``markers``: ``$env`` where it is set, else the headers
    scripts/fetch_library_headers.py extracted (.test-headers/usr/include), else /usr/include (a Debian 13 with
    the packages).  Skips when none holds them; fails instead under PORTER_REQUIRE_LIBRARY_HEADERS=1 (CI) for a
    library whose ``package`` the fetch script's list names, so that no such compile check skips there."""
    folders = [Path(os.environ[env])] if os.environ.get(env) else [FETCHED_INCLUDE, Path("/usr/include")]
    for folder in folders:
        if all((folder / m).is_file() for m in markers):
            return folder
    why = f"{' and '.join(markers)} not in {' or '.join(map(str, folders))}"
    pinned = (_ROOT / "scripts" / "fetch_library_headers.tsv").read_text(encoding="utf-8").splitlines()
    fetched = package is not None and all(any(row.startswith(p + "\t") for row in pinned) for p in package.split())
    if fetched and os.environ.get("PORTER_REQUIRE_LIBRARY_HEADERS") == "1":
        pytest.fail(f"{why}: required (PORTER_REQUIRE_LIBRARY_HEADERS=1); `python3 scripts/fetch_library_headers.py` "
                    f"extracts {package}")
    how = f"`python3 scripts/fetch_library_headers.py` extracts {package}" if fetched else "not packaged by Debian"
    pytest.skip(f"{why} ({how}); or set {env} to their include folder")


@pytest.fixture
def hipblas_include() -> Path:
    """The include folder holding hipblas/hipblas.h (hipBLAS 5.5.1: Debian 13's libhipblas-dev)."""
    return library_include(("hipblas/hipblas.h",), "PORTER_HIPBLAS_INCLUDE", "libhipblas-dev")


@pytest.fixture
def hipsolver_include() -> Path:
    """The include folder holding hipsolver/hipsolver.h (hipSOLVER 5.5.1: Debian 13's libhipsolver-dev)."""
    return library_include(("hipsolver/hipsolver.h",), "PORTER_HIPSOLVER_INCLUDE", "libhipsolver-dev")


@pytest.fixture
def hipfft_include() -> Path:
    """The include folder holding hipfft/hipfft.h (hipFFT 6.1.2: Debian 13's libhipfft-dev)."""
    return library_include(("hipfft/hipfft.h",), "PORTER_HIPFFT_INCLUDE", "libhipfft-dev")


@pytest.fixture
def rocblas_include() -> Path:
    """The include folder holding rocblas/rocblas.h and rocsolver/rocsolver.h (5.5.1: Debian 13's
    librocblas-dev and librocsolver-dev)."""
    return library_include(("rocblas/rocblas.h", "rocsolver/rocsolver.h"), "PORTER_ROCBLAS_INCLUDE",
                           "librocblas-dev librocsolver-dev")


@pytest.fixture
def hipcub_include() -> Path:
    """The include folder holding hipCUB, rocPRIM and rocThrust (5.7.1: Debian 13's libhipcub-dev,
    librocprim-dev and librocthrust-dev; Debian 12's own rocPRIM 5.2 is older than the hipCUB beside it)."""
    return library_include(("hipcub/hipcub.hpp", "rocprim/rocprim.hpp", "thrust/device_vector.h"),
                           "PORTER_HIPCUB_INCLUDE", "libhipcub-dev librocprim-dev librocthrust-dev")


@pytest.fixture
def miopen_include() -> Path:
    """The include folder holding miopen/miopen.h (with its generated config.h and export.h): packaged by no
    Debian release, so it skips (also in CI) unless PORTER_MIOPEN_INCLUDE names one."""
    return library_include(("miopen/miopen.h",), "PORTER_MIOPEN_INCLUDE", None)


@pytest.fixture
def hipcc_compile(tmp_path):
    """compile(hip_source_bytes, name) -> (returncode, output); skips (or fails under
    PORTER_REQUIRE_HIPCC=1) when hipcc is missing."""
    exe = _hipcc()
    require(exe is not None, "hipcc not found: the fixed output is not compile-checked")

    def compile(source: bytes, name: str = "snippet", flags=(), syntax_only: bool = False) -> tuple[int, str]:
        """``flags``: more options (an include folder); ``syntax_only``: check the source without making an
        object (-fsyntax-only)."""
        src = tmp_path / f"{name}.hip"
        src.write_bytes(source)
        out = ["-fsyntax-only"] if syntax_only else ["-c"]
        cmd = [exe, "--offload-arch=gfx90a", *flags, *out, "-x", "hip", str(src)]
        if not syntax_only:
            cmd += ["-o", str(tmp_path / f"{name}.o")]
        return killable.run(cmd, 180, dict(os.environ, HIP_PLATFORM="amd"), f"hipcc on {name}")

    return compile


# ---------------------------------------------------------------- every test folder collects (collection_guard)

_collected_dirs: set = set()
_empty: list = []


def pytest_collectreport(report):
    if report.skipped and report.nodeid.endswith(".py"):  # a module skipped whole: visible, with its reason
        _collected_dirs.add(Path(report.fspath).resolve().parent)


@pytest.hookimpl(tryfirst=True)  # before -k / -m deselect anything
def pytest_collection_modifyitems(session, config, items):
    base = Path(config.invocation_params.dir)
    roots = [p for p in ((base / a.split("::")[0]).resolve() for a in config.args) if p.is_dir()]
    folders = set().union(*(folders_with_test_files(r, config.getini("python_files")) for r in roots))
    _collected_dirs.update(Path(item.path).resolve().parent for item in items)
    _empty[:] = empty_folders(folders, _collected_dirs)


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if _empty:
        terminalreporter.write_line("ERROR: " + message(_empty, Path(config.rootpath)), red=True, bold=True)


def pytest_sessionfinish(session, exitstatus):
    if _empty and exitstatus == 0:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
