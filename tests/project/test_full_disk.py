"""A full disk: every write is checked, the run ends with one line per problem and exit 1, and no
half-written file (output, manifest, backup) is left behind."""

import errno
import os
import subprocess
import sys
from pathlib import Path

import pytest

from porter.cli.main import main

KERNEL = b"#include <cuda_runtime.h>\n__global__ void k(float* a) { a[threadIdx.x] = 0; }\nint main() { cudaFree(0); }\n"


@pytest.fixture
def project(tmp_path):
    src = tmp_path / "proj"
    (src / "src").mkdir(parents=True)
    (src / "src" / "main.cu").write_bytes(KERNEL)
    (src / "notes.txt").write_bytes(b"copied as is\n")
    return src


def _disk_full_after(monkeypatch, allowed: int):
    """os.write to any file but stdin/stdout/stderr writes ``allowed`` bytes in all, then fails with ENOSPC."""
    real = os.write
    left = [allowed]

    def write(fd, data):
        if fd <= 2:
            return real(fd, data)
        if left[0] <= 0:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        n = real(fd, bytes(data[:left[0]]))
        left[0] -= n
        return n

    monkeypatch.setattr(os, "write", write)


def _porter(*args, stdout=subprocess.PIPE):
    return subprocess.run([sys.executable, "-m", "porter", *map(str, args)], stdout=stdout, stderr=subprocess.PIPE,
                          text=True, timeout=120)


def test_tree_on_a_full_disk_reports_every_file_and_the_manifest_in_one_line_each(project, tmp_path, monkeypatch, capsys):
    out = tmp_path / "out"
    _disk_full_after(monkeypatch, 0)
    code = main(["convert", str(project), "-o", str(out), "-j", "1", "-q"])
    err = capsys.readouterr().err.splitlines()
    assert code == 1
    assert "porter: src/main.cu: cannot write: No space left on device" in err
    assert "porter: notes.txt: cannot write: No space left on device" in err
    assert f"porter: {out.resolve()}/.porter/manifest.json: cannot write: No space left on device" in err
    assert len(err) == 3 and not any("Traceback" in line for line in err)
    assert [p for p in out.rglob("*") if p.is_file()] == []  # nothing half-written, no temporary file


def test_manifest_alone_failing_still_fails_the_run(project, tmp_path, monkeypatch, capsys):
    import porter.project.convert as convert

    def full(path, text, *a, **k):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(convert, "atomic_write_text", full)
    code = main(["convert", str(project), "-o", str(tmp_path / "out"), "-j", "1"])
    err = capsys.readouterr().err.splitlines()
    assert code == 1 and len(err) == 1 and "manifest.json: cannot write: No space left on device" in err[0]
    assert b"hipFree(0)" in (tmp_path / "out" / "src" / "main.cu").read_bytes()


def test_inplace_backup_is_whole_or_absent(project, monkeypatch, capsys):
    main_cu = project / "src" / "main.cu"
    _disk_full_after(monkeypatch, 10)  # the backup gets 10 bytes, then the disk is full
    code = main(["convert", str(project), "--inplace", "-j", "1", "-q"])
    err = capsys.readouterr().err.splitlines()
    assert code == 1 and err == ["porter: src/main.cu: cannot write: No space left on device"]
    assert main_cu.read_bytes() == KERNEL
    assert not (project / "src" / "main.cu.prehip").exists()  # a 10-byte backup would be kept by every later run
    assert sorted(p.name for p in (project / "src").iterdir()) == ["main.cu"]


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize("command", [["convert", "{f}"], ["scan", "{f}"], ["scan", "{f}", "--format", "json"],
                                     ["convert", "{d}", "--examine", "--json", "--no-findings"]])
def test_stdout_on_a_full_disk_is_an_error_not_a_truncated_success(project, command):
    args = [a.format(f=project / "src" / "main.cu", d=project) for a in command]
    with open("/dev/full", "wb") as full:
        r = _porter(*args, stdout=full)
    assert r.returncode == 1
    assert r.stderr == "porter: cannot write the output: No space left on device\n"


def test_scan_report_file_that_cannot_be_written_is_exit_1(project, tmp_path, monkeypatch, capsys):
    _disk_full_after(monkeypatch, 0)
    code = main(["scan", str(project / "src" / "main.cu"), "-o", str(tmp_path / "report.txt")])
    err = capsys.readouterr().err.splitlines()
    assert code == 1 and err == [f"porter: cannot write {tmp_path / 'report.txt'}: No space left on device"]
    assert not list(tmp_path.glob("*report*"))
