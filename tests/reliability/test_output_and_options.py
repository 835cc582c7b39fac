"""Issue 33 items 5 and 7, issue 32 items 9 and 12: the port is never written over its source, a full
stdout is an error, an unknown --arch is one line (exit 2), convert's summary says the port has findings."""

import os

import pytest

from reliability_helpers import porter
from porter.project.output_path import overlap_problem

KERNEL = "__global__ void k(int* a) { a[threadIdx.x] = 1; }\nint main() { cudaFree(0); return 0; }\n"


@pytest.fixture
def nested(tmp_path):
    """P/src/x.cu, and P/src/src/x.cu: converting P/src into P would write P/src/x.cu from the inner one."""
    src = tmp_path / "P" / "src"
    (src / "src").mkdir(parents=True)
    (src / "sub").mkdir()
    (src / "x.cu").write_text(KERNEL)
    (src / "src" / "x.cu").write_text("int inner;\n")
    (src / "sub" / "y.cu").write_text(KERNEL)
    os.symlink(src, tmp_path / "link")
    return tmp_path, src


@pytest.mark.parametrize("out", ["P", "P/src/..", "link/..", ".", "P/src/sub", "P/src/new", "link/sub", "link",
                                 "P/src/../src"])
def test_an_output_over_the_source_is_refused_and_nothing_is_written(nested, out):
    tmp, src = nested
    before = {p: p.read_bytes() for p in src.rglob("*.cu")}
    r = porter("convert", "P/src", "-o", out, cwd=tmp)
    assert r.returncode == 2, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and ("source" in r.stderr or "is the input" in r.stderr)
    assert {p: p.read_bytes() for p in src.rglob("*.cu")} == before
    assert not (src / "new").exists()


def test_an_output_beside_the_source_is_fine(nested):
    tmp, src = nested
    assert overlap_problem(src, tmp / "P" / "out") is None
    assert overlap_problem(src, tmp / "P" / "src-hip") is None
    assert "inside" in overlap_problem(src, tmp / "link" / "deeper" / "still")


def test_a_full_stdout_is_one_line_and_exit_1(tmp_path):
    src = tmp_path / "big.cu"
    src.write_text(KERNEL * 20000)
    with open("/dev/full", "w") as full:
        r = porter("convert", str(src), stdout=full)
    assert r.returncode == 1
    assert len(r.stderr.strip().splitlines()) == 1 and "No space left" in r.stderr


@pytest.mark.parametrize("command", [["convert", "{src}", "-o", "{out}"], ["build", "{src}"]])
def test_an_unknown_arch_is_one_line_and_exit_2(tmp_path, command):
    src = tmp_path / "p"
    src.mkdir()
    (src / "x.cu").write_text(KERNEL)
    argv = [a.format(src=src, out=tmp_path / "o") for a in command]
    r = porter(*argv, "--arch", "gfx9999", cwd=tmp_path)
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == [r.stderr.strip()] and "gfx9999" in r.stderr
    assert "not an AMD GPU target" in r.stderr
    assert not (tmp_path / "o").exists()


def test_a_known_arch_with_features_is_accepted(tmp_path):
    src = tmp_path / "p"
    src.mkdir()
    (src / "x.cu").write_text(KERNEL)
    r = porter("convert", str(src), "-o", str(tmp_path / "o"), "--arch", "gfx90a:xnack+", cwd=tmp_path)
    assert r.returncode == 0, r.stderr


def test_a_target_rocm_newer_than_the_data_gets_a_note(tmp_path):
    src = tmp_path / "x.cu"
    src.write_text(KERNEL)
    r = porter("convert", str(src), "--target-rocm", "9.9")
    assert r.returncode == 0
    assert "9.9 is newer than porter's data" in r.stderr and "assumes" in r.stderr


def test_the_convert_summary_says_the_port_has_findings(tmp_path):
    src = tmp_path / "p"
    src.mkdir()
    # a 32-lane warp mask on MI300X's 64-lane wave: a finding of severity error or warning
    (src / "w.cu").write_text("__global__ void k(int* a) {\n  unsigned m = __ballot_sync(0xffffffff, a[threadIdx.x]);\n"
                              "  a[threadIdx.x] = __popc(m);\n}\n")
    out = tmp_path / "o"
    r = porter("convert", str(src), "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert "finding" in r.stdout and f"porter scan {out}" in r.stdout, r.stdout
