"""`porter PATH ...` before the app opens (issue 32): an output that cannot be a folder is refused
in one line, exit 2, and `porter --help` shows the review app's options and every exit code."""

from __future__ import annotations

import os

import pytest

import porter.tui.app
from porter.cli.main import main


@pytest.fixture
def no_app(monkeypatch):
    """The app must not open: a test that reaches it fails instead of waiting on a terminal."""

    def run(self, *args, **kwargs):
        raise AssertionError("the review app opened")

    monkeypatch.setattr(porter.tui.app.PorterApp, "run", run)


@pytest.mark.parametrize("under", ["", "sub"])
def test_an_output_that_is_a_file_is_refused_in_one_line_before_the_app_opens(project_dir, tmp_path, capsys, no_app,
                                                                               under):
    """`porter PATH -o EXISTING_FILE` opened the app, kept no session, failed at `w` and quit without
    asking: the work was lost.  Also a path under a file (no folder can be made there)."""
    afile = tmp_path / "notes.txt"
    afile.write_text("mine\n")
    out = afile / under if under else afile
    assert main([str(project_dir), "-o", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(afile) in err[0] and "is a file" in err[0], err
    assert afile.read_text() == "mine\n"


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes anywhere")
def test_an_output_folder_that_cannot_be_written_is_refused(project_dir, tmp_path, capsys, no_app):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        assert main([str(project_dir), "-o", str(locked / "out")]) == 2
        assert "cannot be written" in capsys.readouterr().err
    finally:
        locked.chmod(0o700)


def test_porter_help_shows_the_review_options_and_the_exit_codes(capsys):
    with pytest.raises(SystemExit) as done:
        main(["--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    review = out[out.index("the review app"):]
    for option in ("--output", "--arch", "--target-rocm", "PATH"):
        assert option in review, option
    codes = out[out.index("exit codes:"):]
    for code, what in (("0", "success"), ("1", "failed"), ("2", "bad usage"), ("3", "smoke --project"),
                       ("130", "interrupted")):
        assert any(line.split()[:1] == [code] and what in line for line in codes.splitlines()), (code, codes)


@pytest.mark.parametrize("inside", ["hip", "../"])
def test_an_output_inside_the_source_or_holding_it_is_refused(project_dir, capsys, no_app, inside):
    """`w` would write the port over the CUDA files (issue 33 item 5): refused before the app opens,
    nothing written; the source's own folder above it too."""
    before = sorted(p.name for p in project_dir.rglob("*"))
    out = project_dir / inside if inside != "../" else project_dir.parent
    assert main([str(project_dir), "-o", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--output" in err[0], err
    assert sorted(p.name for p in project_dir.rglob("*")) == before


def test_an_unknown_arch_is_refused_before_the_app_opens(project_dir, capsys, no_app):
    assert main([str(project_dir), "--arch", "gfx9999"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "'gfx9999' is not an AMD GPU target" in err[0], err
