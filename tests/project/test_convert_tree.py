"""`porter convert` on trees: layout kept, bad input reported per file, the source never touched."""

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from porter.project.convert import ConvertError, ConvertOptions, convert_tree

KERNEL = b"#include <cuda_runtime.h>\n__global__ void k(float* a) { a[threadIdx.x] = 0; }\nint main() { cudaFree(0); }\n"


def porter(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "porter", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, timeout=120)


def snapshot(root: Path) -> dict:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture
def project(tmp_path):
    src = tmp_path / "proj"
    (src / "src" / "deep").mkdir(parents=True)
    (src / "src" / "main.cu").write_bytes(KERNEL)
    (src / "src" / "deep" / "util.cuh").write_bytes(b"#pragma once\n__device__ inline int one() { return 1; }\n")
    (src / "README.txt").write_bytes(b"cudaMalloc stays in docs\n")
    (src / "host.cpp").write_bytes(b"#include <vector>\nint f() { return 0; }\n")
    return src


def test_tree_is_mirrored_and_source_untouched(project, tmp_path):
    before = snapshot(project)
    out = tmp_path / "out"
    report = convert_tree(project, out, ConvertOptions(findings=False))
    assert report.exit_code == 0
    assert snapshot(project) == before
    got = snapshot(out)
    assert set(got) == set(before) | {".porter/manifest.json"}
    assert b"hipFree(0)" in got["src/main.cu"] and b"<hip/hip_runtime.h>" in got["src/main.cu"]
    assert got["src/deep/util.cuh"].startswith(b"#pragma once\n#include <hip/hip_runtime.h>\n")
    assert got["README.txt"] == before["README.txt"] and got["host.cpp"] == before["host.cpp"]
    manifest = json.loads(got[".porter/manifest.json"])
    assert manifest["files"]["src/deep/util.cuh"]["inserted_lines"] == [[1, 1]]


def test_bad_inputs_get_one_line_each_and_the_run_goes_on(project, tmp_path):
    bad = project / "bad"
    bad.mkdir()
    (bad / "blob.cu").write_bytes(b"\x7fELF\x00\x00\x01binary")
    (bad / "latin1.cu").write_bytes(b"// r\xe9sum\xe9 du noyau\n__global__ void k() {}\nvoid f() { cudaFree(0); }\n")
    (bad / "open_comment.cu").write_bytes(b"void f() { cudaFree(0); }\n/* never closed cudaMalloc\n")
    (bad / "nested.cu").write_bytes(b"void f() {" + b"{" * 3000 + b"cudaFree(0);" + b"}" * 3000 + b"}\n")
    (bad / "loop").symlink_to(project, target_is_directory=True)
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(bad / "socket.cu"))
    os.mkfifo(bad / "pipe.cuh")  # nobody writes to it: reading it must not hang the run
    try:
        out = tmp_path / "out"
        before = snapshot(project)
        r = porter("convert", project, "-o", out, "--no-findings")
        assert r.returncode == 1
        errors = [line for line in r.stderr.splitlines() if line.startswith("porter: bad/")]
        assert any(e.startswith("porter: bad/blob.cu: binary file") for e in errors)
        assert any(e.startswith("porter: bad/socket.cu: cannot read") for e in errors)
        assert "porter: bad/pipe.cuh: cannot read: not a regular file" in errors
        assert len(errors) == 3, r.stderr
        assert "porter: warning: bad/loop: skipped: symbolic link to a folder that encloses it (a loop)" in r.stderr
        assert "Traceback" not in r.stderr
        assert snapshot(project) == before
        assert (out / "bad/latin1.cu").read_bytes() == (bad / "latin1.cu").read_bytes().replace(b"cudaFree", b"hipFree").replace(
            b"// r\xe9sum\xe9 du noyau\n", b"// r\xe9sum\xe9 du noyau\n#include <hip/hip_runtime.h>\n")
        assert b"hipFree(0)" in (out / "bad/open_comment.cu").read_bytes()
        assert b"never closed cudaMalloc" in (out / "bad/open_comment.cu").read_bytes()
        assert b"hipFree(0)" in (out / "bad/nested.cu").read_bytes()
        assert not (out / "bad/loop").exists()
        assert (out / "src/main.cu").exists()
    finally:
        sock.close()


def test_output_inside_input_is_refused(project):
    """An output inside the source would be written among (and over) the source files (issue 33 item 5;
    every spelling: tests/reliability/test_output_overlap.py)."""
    out = project / "hip"
    with pytest.raises(ConvertError, match="inside the source folder"):
        convert_tree(project, out, ConvertOptions(findings=False))
    assert not out.exists()


def test_large_generated_file(tmp_path):
    body = b"__global__ void k%d(float* a) { a[threadIdx.x] = %d; cudaFree(0); }\n"
    data = b"".join(body % (i, i) for i in range(150_000))  # ~10 MB
    src = tmp_path / "gen.cu"
    src.write_bytes(data)
    report = convert_tree(src, tmp_path / "gen.hip.cu", ConvertOptions(findings=False))
    assert report.exit_code == 0
    out = (tmp_path / "gen.hip.cu").read_bytes()
    assert out.count(b"hipFree(0)") == 150_000 and b"cudaFree" not in out


def test_inplace_keeps_backups_and_is_idempotent(project):
    main = project / "src" / "main.cu"
    convert_tree(project, None, ConvertOptions(inplace=True, findings=False))
    assert (project / "src" / "main.cu.prehip").read_bytes() == KERNEL
    assert b"hipFree" in main.read_bytes()
    assert not (project / "host.cpp.prehip").exists()  # unchanged files get no backup
    converted = main.read_bytes()
    convert_tree(project, None, ConvertOptions(inplace=True, findings=False))
    assert main.read_bytes() == converted
    assert (project / "src" / "main.cu.prehip").read_bytes() == KERNEL


def test_usage_errors_exit_2(project, tmp_path):
    r = porter("convert", tmp_path / "missing", "-o", tmp_path / "o")
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "no such file" in r.stderr
    r = porter("convert", project, "-o", project)
    assert r.returncode == 2 and "--inplace" in r.stderr
    with pytest.raises(ConvertError):
        convert_tree(project, project, ConvertOptions())


def test_single_file_to_stdout_and_to_file(tmp_path):
    f = tmp_path / "kernel.cu"
    f.write_bytes(KERNEL)
    r = porter("convert", f)
    assert r.returncode == 0 and "hipFree(0)" in r.stdout
    r = porter("convert", f, "-o", tmp_path / "kernel.hip.cu")
    assert r.returncode == 0 and b"hipFree(0)" in (tmp_path / "kernel.hip.cu").read_bytes()
    assert f.read_bytes() == KERNEL


def test_stats_json(project, tmp_path):
    r = porter("convert", project, "--examine", "--json", "--no-findings")
    assert r.returncode == 0
    doc = json.loads(r.stdout)
    assert doc["totals"]["by_name"]["cudaFree"] == 1
    assert doc["totals"]["lines_changed"] >= 2
    assert not (tmp_path / "proj-hip").exists()  # --examine writes nothing


def test_the_projects_own_cuda_looking_macros_are_not_leftovers(tmp_path):
    src = tmp_path / "p"
    src.mkdir()
    (src / "check.h").write_bytes(b"#define CUDA_CHECK(x) do { if ((x) != cudaSuccess) abort(); } while (0)\n")
    (src / "main.cu").write_bytes(b'#include "check.h"\nvoid f() { CUDA_CHECK(cudaFree(0)); cudaNotARealApi(); }\n')
    report = convert_tree(src, None, ConvertOptions(write=False, findings=False, jobs=1))
    names = {x["name"] for f in report.files for x in f.leftovers}
    assert names == {"cudaNotARealApi"}


# Run `porter convert` with a hook in every worker: its third output file is written out completely and
# then the worker stops where it would rename it into place (it says so in a marker file and waits).
# The test sends Ctrl-C only once both workers are stopped there, so the interrupt always lands in the
# middle of the run, with a temporary file of each worker on disk, whatever the speed of the machine.
_BLOCKING_CONVERT = """
import os, sys, time
marks = sys.argv[1]
real_replace = os.replace
renames = 0
def replace(src, dst, *a, **k):
    global renames
    if str(dst).endswith("k.cu"):
        renames += 1
        if renames == 3:
            mark = os.path.join(marks, str(os.getpid()))
            with open(mark + ".part", "w") as fh:  # whole or absent: the parent reads it at once
                fh.write(str(src))
            real_replace(mark + ".part", mark)
            while True:  # until the parent stops this worker
                time.sleep(0.05)
    return real_replace(src, dst, *a, **k)
os.replace = replace
from porter.cli.main import main
sys.exit(main(sys.argv[2:]))
"""


def _gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/status") as fh:
            return any(line.split()[1:2] == ["Z"] for line in fh if line.startswith("State:"))
    except FileNotFoundError:
        return True


def test_ctrl_c_stops_every_worker_and_leaves_only_complete_files(tmp_path):
    import signal
    import time

    from porter.project.convert import convert_bytes

    src = tmp_path / "big"
    n_files = 64
    for i in range(n_files):
        d = src / f"d{i:03d}"
        d.mkdir(parents=True)
        (d / "k.cu").write_bytes(KERNEL * 40)
    out, marks = tmp_path / "out", tmp_path / "marks"
    marks.mkdir()
    p = subprocess.Popen([sys.executable, "-c", _BLOCKING_CONVERT, str(marks), "convert", str(src), "-o", str(out),
                          "-q", "-j", "2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        deadline = time.monotonic() + 120
        while len(list(marks.glob("[0-9]*[0-9]"))) < 2:
            assert p.poll() is None, p.communicate()
            assert time.monotonic() < deadline, "the workers never reached their third file"
            time.sleep(0.02)
        done = sorted(marks.glob("[0-9]*[0-9]"))
        workers = [int(m.name) for m in done]
        pending = [Path(m.read_text()) for m in done]
        assert all(t.is_file() for t in pending)  # each worker holds a complete temporary, not yet renamed
        os.killpg(p.pid, signal.SIGINT)  # what a terminal's Ctrl-C does: the whole process group
        _, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
    assert p.returncode == 130 and err.decode().strip() == "porter: interrupted"
    deadline = time.monotonic() + 10
    while not all(_gone(w) for w in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert all(_gone(w) for w in workers), "a worker outlived the interrupt"
    assert not list(out.rglob("*.tmp")) and not any(t.exists() for t in pending)
    expected = convert_bytes(KERNEL * 40, "k.cu", ConvertOptions(findings=False))[0]
    written = list(out.rglob("k.cu"))
    assert len(written) == 4  # two complete files per worker; the queue was not finished
    assert all(f.read_bytes() == expected for f in written)
    assert not (out / ".porter" / "manifest.json").exists()


def test_converting_again_after_the_output_folder_was_deleted(project, tmp_path):
    """A second conversion in the same process (the review app writes again) after the
    user removed the output folder recreates it instead of failing on a stale folder cache."""
    import shutil

    out = tmp_path / "out"
    convert_tree(project, out, ConvertOptions(findings=False, jobs=1))
    shutil.rmtree(out)
    report = convert_tree(project, out, ConvertOptions(findings=False, jobs=1))
    assert not report.errors
    assert (out / "src" / "deep" / "util.cuh").read_bytes().startswith(b"#pragma once\n")
    assert (out / ".porter" / "manifest.json").is_file()


def test_a_makefile_naming_files_outside_the_folder_warns_where_the_port_cannot_find_them(tmp_path):
    """HeCBench's wordcount-cuda builds ``../wordcount-sycl/main.cpp``: beside the CUDA folder (the default
    output) the port finds it; written elsewhere (-o) it does not, and convert says so (a comment, a path
    inside the folder and one that exists nowhere are not named)."""
    src = tmp_path / "src"
    (src / "wordcount-sycl").mkdir(parents=True)
    (src / "wordcount-sycl" / "main.cpp").write_text("int count();\n")
    (src / "include").mkdir()
    project = src / "wordcount-cuda"
    (project / "sub").mkdir(parents=True)
    (project / "wc.cu").write_text("__global__ void k() {}\n")
    (project / "sub" / "x.h").write_text("#pragma once\n")
    (project / "Makefile").write_text(
        "# old: ../elsewhere/gone.cpp\nCC = nvcc\nsource = ../wordcount-sycl/main.cpp wc.cu\n"
        "CFLAGS = -I../include -I../nowhere -Isub/../sub\nmain: $(source)\n\t$(CC) $(CFLAGS) $^ -o $@\n")
    elsewhere = convert_tree(project, tmp_path / "out" / "wordcount-hip", ConvertOptions())
    (make,) = [r for r in elsewhere.files if r.rel == "Makefile"]
    assert len(make.warnings) == 1, make.warnings
    assert "../wordcount-sycl/main.cpp, ../include, outside the converted folder" in make.warnings[0]
    beside = convert_tree(project, src / "wordcount-cuda-hip", ConvertOptions())
    assert not [w for r in beside.files for w in r.warnings if "outside the converted folder" in w]
