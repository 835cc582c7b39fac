"""What a tree convert/scan reads: one rule for symbolic links (followed inside the tree, reported
when they leave it), every path left out said on stderr, unreadable folders an error; one run at a
time per output folder; --inplace runs do not take their own backups for sources."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from porter.cli.main import main
from porter.project.convert import ConvertOptions, convert_tree
from porter.project.files import walk
from porter.project.lock import folder_lock
from porter.project.scan import scan_path

KERNEL = b"#include <cuda_runtime.h>\n__global__ void k(float* a) { a[threadIdx.x] = 0; }\nint main() { cudaFree(0); }\n"
PORTED = KERNEL.replace(b"cuda_runtime.h", b"hip/hip_runtime.h").replace(b"cudaFree", b"hipFree")


def porter(*args):
    return subprocess.run([sys.executable, "-m", "porter", *map(str, args)], capture_output=True, text=True, timeout=120)


@pytest.fixture
def linked(tmp_path):
    """A project with every kind of link, and a folder outside it with CUDA code of its own."""
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "secret.cu").write_bytes(b"void s() { cudaMalloc(0, 0); }\n")
    src = tmp_path / "proj"
    (src / "lib" / "inner").mkdir(parents=True)
    (src / "main.cu").write_bytes(KERNEL)
    (src / "lib" / "inner" / "k.cu").write_bytes(KERNEL)
    (src / "same.cu").symlink_to("main.cu")  # a file link inside the tree
    (src / "alias").symlink_to("lib/inner", target_is_directory=True)  # a folder link inside the tree
    (src / "lib" / "up").symlink_to("..", target_is_directory=True)  # a loop
    (src / "leak.cu").symlink_to(outside / "secret.cu")  # leaves the tree
    (src / "ext").symlink_to(outside, target_is_directory=True)  # leaves the tree
    (src / "gone.cu").symlink_to(src / "nothing.cu")  # leads nowhere
    return src


def test_links_inside_are_followed_links_that_leave_are_reported(linked, tmp_path):
    out = tmp_path / "out"
    r = porter("convert", linked, "-o", out)
    assert r.returncode == 0, r.stderr
    assert (out / "main.cu").read_bytes() == PORTED
    assert (out / "same.cu").read_bytes() == PORTED and not (out / "same.cu").is_symlink()
    assert (out / "alias" / "k.cu").read_bytes() == PORTED and (out / "lib" / "inner" / "k.cu").read_bytes() == PORTED
    for left_out in ("leak.cu", "ext", "gone.cu", "lib/up"):
        assert not (out / left_out).exists()
    assert not list(out.rglob("secret.cu"))  # nothing from outside the tree is copied into the output
    warnings = sorted(line for line in r.stderr.splitlines() if line.startswith("porter: warning:"))
    outside = (tmp_path / "elsewhere").resolve()
    assert warnings == [
        f"porter: warning: ext: skipped: symbolic link to {outside}, outside the tree: not followed",
        "porter: warning: gone.cu: skipped: symbolic link that leads nowhere",
        f"porter: warning: leak.cu: skipped: symbolic link to {outside / 'secret.cu'}, outside the tree: not followed",
        "porter: warning: lib/up: skipped: symbolic link to a folder that encloses it (a loop)",
    ]
    assert "converted 4 files" in r.stdout  # main.cu, same.cu, alias/k.cu, lib/inner/k.cu


def test_scan_follows_the_same_rule_and_notes_what_it_left_out(linked):
    result = scan_path(linked, jobs=1)
    assert result.files == 4 and not result.errors
    assert sorted(rel for rel, _ in result.notes) == ["ext", "gone.cu", "leak.cu", "lib/up"]
    assert all(note.startswith("skipped: symbolic link") for _, note in result.notes)


def test_inplace_converts_each_target_once_and_keeps_the_links(linked):
    report = convert_tree(linked, None, ConvertOptions(inplace=True, findings=False, jobs=1))
    assert report.exit_code == 0
    assert (linked / "main.cu").read_bytes() == PORTED and (linked / "same.cu").is_symlink()
    assert (linked / "alias").is_symlink() and (linked / "lib" / "inner" / "k.cu").read_bytes() == PORTED
    assert (tmp := linked.parent / "elsewhere" / "secret.cu").read_bytes() == b"void s() { cudaMalloc(0, 0); }\n", tmp
    skipped = {f.rel for f in report.files if f.status == "skipped"}
    assert skipped == {"same.cu", "alias", "leak.cu", "ext", "gone.cu", "lib/up"}
    assert not (linked / ".porter").exists()  # the lock leaves nothing in the source


def test_an_unreadable_folder_is_an_error_in_convert_and_scan(tmp_path, monkeypatch, capsys):
    src = tmp_path / "proj"
    (src / "locked").mkdir(parents=True)
    (src / "locked" / "k.cu").write_bytes(KERNEL)
    (src / "main.cu").write_bytes(KERNEL)
    real = os.scandir

    def scandir(path="."):
        if Path(path).name == "locked":  # what chmod 000 does for a user other than root
            raise PermissionError(13, "Permission denied", str(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)
    code = main(["convert", str(src), "-o", str(tmp_path / "out"), "-j", "1", "-q"])
    assert code == 1
    assert capsys.readouterr().err.splitlines() == ["porter: locked: cannot read folder: Permission denied"]
    assert (tmp_path / "out" / "main.cu").read_bytes() == PORTED
    result = scan_path(src, jobs=1)
    assert result.errors == [("locked", "cannot read folder: Permission denied")] and result.files == 1
    code = main(["scan", str(src), "-j", "1"])
    assert code == 1 and "porter: locked: cannot read folder: Permission denied" in capsys.readouterr().err


def test_walk_order_is_files_then_sorted_subfolders(tmp_path):
    for rel in ("b/z.cu", "b/a.cu", "a/deep/x.h", "top.cu", "a/y.cu"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_bytes(b"int x;\n")
    assert [f.rel for f in walk(tmp_path).files] == ["top.cu", "a/y.cu", "a/deep/x.h", "b/a.cu", "b/z.cu"]


def test_a_second_convert_into_a_locked_output_folder_is_refused(tmp_path):
    src = tmp_path / "proj"
    src.mkdir()
    (src / "main.cu").write_bytes(KERNEL)
    out = tmp_path / "out"
    with folder_lock(out, "output folder"):  # the lock a running `porter convert` holds
        r = porter("convert", src, "-o", out)
        assert r.returncode == 2
        assert r.stderr == (f"porter: error: output folder {out} is being written by another porter convert "
                            f"(pid {os.getpid()}); wait for it to finish or choose another folder\n")
        assert not (out / "main.cu").exists()
    r = porter("convert", src, "-o", out)
    assert r.returncode == 0 and (out / "main.cu").read_bytes() == PORTED
    assert sorted(p.name for p in (out / ".porter").iterdir()) == ["manifest.json"]  # no lock file left


def test_a_killed_holder_does_not_leave_the_folder_locked(tmp_path):
    src = tmp_path / "proj"
    src.mkdir()
    (src / "main.cu").write_bytes(KERNEL)
    out = tmp_path / "out"
    holder = subprocess.Popen([sys.executable, "-c", "import sys, time\nfrom porter.project.lock import folder_lock\n"
                               f"with folder_lock({str(out)!r}):\n    print('held', flush=True)\n    time.sleep(60)\n"],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        assert porter("convert", src, "-o", out).returncode == 2
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait(timeout=10)
    assert porter("convert", src, "-o", out).returncode == 0


def test_inplace_twice_does_not_count_the_backups(tmp_path):
    src = tmp_path / "proj"
    src.mkdir()
    (src / "main.cu").write_bytes(KERNEL)
    (src / "host.cpp").write_bytes(b"int f() { return 0; }\n")
    first = porter("convert", src, "--inplace")
    second = porter("convert", src, "--inplace")
    assert first.returncode == second.returncode == 0
    assert "converted 2 files in place" in first.stdout and "converted 2 files in place" in second.stdout
    report = convert_tree(src, None, ConvertOptions(inplace=True, findings=False, jobs=1))
    assert sorted(f.rel for f in report.files) == ["host.cpp", "main.cu"]
    assert (src / "main.cu.prehip").read_bytes() == KERNEL and not (src / "main.cu.prehip.prehip").exists()
    # converting the tree elsewhere does not copy the backups either
    convert_tree(src, tmp_path / "out", ConvertOptions(findings=False, jobs=1))
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [".porter", "host.cpp", "main.cu"]
