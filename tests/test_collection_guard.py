"""The guard in tests/conftest.py: a run over a folder fails when a sub-folder that holds test files
collects nothing (pytest's default norecursedirs hid tests/build, every hipcc test, from CI).

Each case runs pytest on a small tree that uses this repository's conftest.py and guard."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
DEFAULT_NORECURSE = '["*.egg", ".*", "_darcs", "build", "CVS", "dist", "node_modules", "venv", "{arch}"]'  # pytest's


def tree(tmp_path: Path, norecurse: str = DEFAULT_NORECURSE, files: dict | None = None) -> Path:
    (tmp_path / "tests").mkdir()
    for name in ("conftest.py", "collection_guard.py", "killable.py", "required_tools.py"):  # conftest.py and what it imports
        shutil.copy(HERE / name, tmp_path / "tests" / name)
    (tmp_path / "pytest.ini").write_text(f"[pytest]\ntestpaths = tests\nnorecursedirs = {norecurse[1:-1].replace(',', '')}\n")
    for rel, text in (files or {}).items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    return tmp_path


def run(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args], cwd=root,
                          capture_output=True, text=True, timeout=120)


FILES = {"tests/build/test_compile.py": "def test_compiles():\n    pass\n",
         "tests/translate/test_names.py": "def test_renames():\n    pass\n",
         "tests/golden/case/input.cu": "__global__ void k() {}\n"}  # no test file: not a test folder


def test_a_folder_hidden_by_norecursedirs_fails_the_run(tmp_path):
    r = run(tree(tmp_path, files=FILES))
    assert r.returncode == 1, r.stdout
    assert "1 passed" in r.stdout  # tests/translate ran: the failure is the guard's
    assert "these folders hold test files but collected no test: tests/build " in r.stdout
    assert "tests/golden" not in r.stdout and "tests/translate" not in r.stdout.split("collected no test:")[1]
    # the same with --collect-only: CI can run the check alone
    assert run(tmp_path, "--collect-only").returncode == 1


def test_every_folder_collecting_passes_and_deselection_does_not_count(tmp_path):
    root = tree(tmp_path, norecurse='[".*", "__pycache__"]', files=FILES)
    r = run(root)
    assert r.returncode == 0 and "2 passed" in r.stdout, r.stdout
    # -k deselecting a folder's tests is a choice on the command line, not a folder that collects nothing
    r = run(root, "-k", "renames")
    assert r.returncode == 0 and "1 passed, 1 deselected" in r.stdout, r.stdout


def test_a_module_skipped_whole_is_reported_not_an_empty_folder(tmp_path):
    files = dict(FILES, **{"tests/smoke/test_gpu.py": "import pytest\npytest.skip('no GPU', allow_module_level=True)\n"})
    r = run(tree(tmp_path, norecurse='[".*"]', files=files))
    assert r.returncode == 0 and "2 passed, 1 skipped" in r.stdout, r.stdout


def test_a_file_pattern_that_matches_nothing_is_caught(tmp_path):
    files = {"tests/doctor/check_report.py": "def test_report():\n    pass\n", **FILES}
    root = tree(tmp_path, norecurse='[".*"]', files=files)
    (root / "pytest.ini").write_text((root / "pytest.ini").read_text() + "python_files = test_*.py check_*.py\n")
    assert run(root).returncode == 0
    # the same tree where the folder's files are excluded by collect_ignore in a conftest
    (root / "tests" / "doctor" / "conftest.py").write_text("collect_ignore = ['check_report.py']\n")
    r = run(root)
    assert r.returncode == 1 and "collected no test: tests/doctor " in r.stdout, r.stdout


@pytest.mark.parametrize("arg", ["tests/translate", "tests/translate/test_names.py::test_renames"])
def test_a_run_of_one_folder_or_test_checks_only_what_it_names(tmp_path, arg):
    r = run(tree(tmp_path, files=FILES), arg)
    assert r.returncode == 0 and "1 passed" in r.stdout, r.stdout
