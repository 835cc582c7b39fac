"""What a command loads (issue 34: a 1-line convert in <= 0.1 s): only the module of the command asked
for, the findings engine only when the findings are used, never the review app's Textual; and the
command line is the same as with every command loaded."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# a kernel (the HIP runtime include is added) and a runtime call (renamed)
ONE_LINE = b"__global__ void zero(float *a) { a[threadIdx.x] = 0.0f; } void sync() { cudaDeviceSynchronize(); }\n"


def _porter(*args: str, importtime: bool = False) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    flags = ["-X", "importtime"] if importtime else []
    return subprocess.run([sys.executable, *flags, "-m", "porter", *args], capture_output=True, env=env,
                          timeout=120, cwd=ROOT)


def _imported(stderr: bytes) -> set[str]:
    """The modules `python -X importtime` says were imported."""
    names = set()
    for line in stderr.decode().splitlines():
        if line.startswith("import time:") and "|" in line:
            names.add(line.rsplit("|", 1)[1].strip())
    return names


def test_a_file_converted_to_stdout_loads_no_findings_no_other_command_and_no_textual(tmp_path):
    src = tmp_path / "one_line.cu"
    src.write_bytes(ONE_LINE)
    done = _porter("convert", str(src), importtime=True)
    assert done.returncode == 0, done.stderr[-2000:]
    assert b"hipDeviceSynchronize();" in done.stdout and b"#include <hip/hip_runtime.h>" in done.stdout
    loaded = _imported(done.stderr)
    assert "porter.translate.engine" in loaded  # (the parse of -X importtime's lines works)
    assert not {m for m in loaded if m == "textual" or m.startswith(("textual.", "porter.tui"))}
    assert not {m for m in loaded if m.startswith("porter.findings")}  # nothing uses findings here
    assert {m for m in loaded if m.startswith("porter.cli.")} <= {"porter.cli.main", "porter.cli.convert",
                                                                   "porter.cli.target"}


def test_a_file_converted_to_a_file_runs_the_findings_without_textual(tmp_path):
    src = tmp_path / "one_line.cu"
    src.write_bytes(ONE_LINE)
    out = tmp_path / "one_line.hip"
    done = _porter("convert", str(src), "-o", str(out), importtime=True)
    assert done.returncode == 0, done.stderr[-2000:]
    assert b"hipDeviceSynchronize();" in out.read_bytes()
    loaded = _imported(done.stderr)
    assert "porter.findings.engine" in loaded  # the summary says whether the port has findings
    assert b"finding" in done.stdout
    assert not {m for m in loaded if m == "textual" or m.startswith(("textual.", "porter.tui"))}


def test_the_command_line_is_the_same_with_one_command_loaded():
    """`porter --help` lists every command; a command's own help, usage errors and exit codes do not
    depend on the other commands being loaded."""
    top = _porter("--help")
    assert top.returncode == 0
    for name in ("convert", "scan", "explain", "query", "smoke", "doctor", "review"):
        assert name in top.stdout.decode()
    assert "exit codes:" in top.stdout.decode()
    sub = _porter("convert", "--help")
    assert sub.returncode == 0 and sub.stdout.startswith(b"usage: porter convert ")
    bad = _porter("convert", "--no-such-option", "x.cu")
    assert bad.returncode == 2
    assert bad.stderr.decode().splitlines() == ["porter: error: unrecognized arguments: --no-such-option"]
    wrong = _porter("scan", "--format", "xml", "x.cu")
    assert wrong.returncode == 2
    assert wrong.stderr.decode().splitlines() == [
        "porter: error: argument --format: invalid choice: 'xml' (choose from 'text', 'json', 'sarif')"]


def test_version_loads_no_command_and_still_wins_over_what_follows():
    """`porter --version` answers before any command's module (and the mapping data behind convert) loads;
    what follows it on the line changes nothing, as with every command loaded."""
    from porter import __version__

    for extra in ((), ("convert",), ("--no-such-option",)):
        done = _porter("--version", *extra, importtime=True)
        assert done.returncode == 0, done.stderr[-2000:]
        assert done.stdout.decode() == f"porter {__version__}\n"
        loaded = _imported(done.stderr)
        assert "porter.cli.main" in loaded
        assert not {m for m in loaded if m.startswith(("porter.cli.", "porter.mapping", "porter.translate"))
                    and m not in ("porter.cli.main",)}, extra


def test_a_one_line_convert_into_a_file_loads_nothing_its_work_does_not_use(tmp_path):
    """-q into a file (no findings): no "did you mean" matcher (the mapping data's, for bad names) and no
    help-text wrapping (for `porter --help`); what the convert uses is loaded."""
    src = tmp_path / "one_line.cu"
    src.write_bytes(ONE_LINE)
    out = tmp_path / "one_line.hip"
    _porter("convert", str(src), "-o", str(out), "-q")  # a first run may build the mapping cache
    done = _porter("convert", str(src), "-o", str(out), "-q", importtime=True)
    assert done.returncode == 0 and done.stdout == b"" and done.stderr.decode().startswith("import time:")
    assert b"hipDeviceSynchronize();" in out.read_bytes()
    loaded = _imported(done.stderr)
    assert "porter.project.settings" in loaded and "porter.mapping" in loaded
    assert not {"difflib", "textwrap"} & loaded
    assert not {m for m in loaded if m.startswith("porter.findings")}
