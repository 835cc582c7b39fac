"""porter build on small hand-written HIP trees: real hipcc compiles (gfx90a)."""

import json
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from porter.build import BuildOptions, run_build
from porter.build.diagnostics import map_line

ARCH = "gfx90a"
HEADER = "#pragma once\ninline __device__ float twice(float x) { return 2.0f * x; }\n"
KERNELS = ('#include <hip/hip_runtime.h>\n#include "util.h"\n'
           "__global__ void scale(float* x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x;"
           " if (i < n) x[i] = twice(x[i]); }\n"
           "void launch(float* x, int n) { scale<<<(n + 63) / 64, 64>>>(x, n); }\n")
MAIN = ('#include <hip/hip_runtime.h>\n#include <cstdio>\nvoid launch(float*, int);\n'
        "int main() { float* d = nullptr; if (hipMalloc(&d, 256) != hipSuccess) { std::puts(\"no gpu\"); return 0; }\n"
        "  launch(d, 64); hipFree(d); return 0; }\n")


def _tree(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "util.h").write_text(HEADER)
    (root / "kernels.cu").write_text(KERNELS)
    (root / "main.cu").write_text(MAIN)
    return root


@pytest.fixture(scope="session")
def built(tmp_path_factory, toolchain90a):
    """One real per-file build and a no-op rebuild, shared by the tests below."""
    root = _tree(tmp_path_factory.mktemp("proj") / "app")
    lines = []
    first = run_build(root, BuildOptions(arch=ARCH), on_line=lines.append, toolchain=toolchain90a)
    t0 = time.monotonic()
    second = run_build(root, BuildOptions(arch=ARCH))
    return root, first, second, time.monotonic() - t0, lines


def test_per_file_build_compiles_links_and_writes_compile_commands(built):
    root, first, _, _, lines = built
    assert first.ok, [d.one_line() for d in first.diagnostics]
    assert first.system == "per-file" and first.arch == ARCH
    status = {u.file: u.status for u in first.units}
    assert status == {"kernels.cu": "compiled", "main.cu": "compiled", "app": "linked"}
    assert all(u.time_s and u.time_s > 0 for u in first.units)
    assert (root / first.outputs[0]).is_file() and os.access(root / first.outputs[0], os.X_OK)
    cc = json.loads((root / "compile_commands.json").read_text())
    assert {c["file"] for c in cc} == {"kernels.cu", "main.cu"}
    assert all(f"--offload-arch={ARCH}" in c["arguments"] for c in cc)
    assert "[compile] kernels.cu" in lines
    d = first.as_dict()
    assert d["ok"] is True and d["arch"] == ARCH and d["compiler"].endswith(("hipcc", "amdclang++"))
    assert {"status", "time_s", "file"} <= set(d["units"][0])


def test_noop_rebuild_recompiles_nothing(built):
    _, _, second, seconds, _ = built
    assert second.ok
    assert {u.status for u in second.units} == {"cached"}
    assert seconds < 5  # the benchmark measures it properly; this only catches a recompile


def test_changed_header_recompiles_only_its_includer(built, toolchain90a):
    root, *_ = built
    (root / "util.h").write_text(HEADER.replace("2.0f", "3.0f"))
    try:
        r = run_build(root, BuildOptions(arch=ARCH, link=False), toolchain=toolchain90a)
        status = {u.file: u.status for u in r.units}
        assert status == {"kernels.cu": "compiled", "main.cu": "cached"}
        # same content again (new mtime): nothing to do
        (root / "util.h").write_text(HEADER.replace("2.0f", "3.0f"))
        r = run_build(root, BuildOptions(arch=ARCH, link=False), toolchain=toolchain90a)
        assert {u.status for u in r.units} == {"cached"}
    finally:
        (root / "util.h").write_text(HEADER)


def test_broken_file_reports_the_line_and_maps_it_to_the_source(tmp_path, toolchain90a):
    root = tmp_path / "broken"
    root.mkdir()
    # line 1 is an include porter "inserted" after source line 0; the error is on output line 4
    (root / "bad.cu").write_text("#include <hip/hip_runtime.h>\n\n__global__ void k(float* x) {\n"
                                 "  x[0] = undeclared_thing;\n}\n")
    (root / ".porter").mkdir()
    (root / ".porter" / "manifest.json").write_text(json.dumps({
        "source_root": "/src", "files": {"bad.cu": {"source": "/src/bad.cu", "inserted_lines": [[0, 1]]}}}))
    r = run_build(root, BuildOptions(arch=ARCH), toolchain=toolchain90a)
    assert not r.ok
    assert [u.status for u in r.units] == ["failed"]
    errs = [d for d in r.diagnostics if d.severity == "error"]
    assert len(errs) == 1  # host + device passes report it once
    e = errs[0]
    assert (e.file, e.line, e.column) == ("bad.cu", 4, 10)
    assert "undeclared_thing" in e.message
    assert (e.source_file, e.source_line) == ("/src/bad.cu", 3)
    assert r.as_dict()["diagnostics"][0]["source_line"] == 3


def test_known_porting_error_points_to_its_rule(tmp_path, toolchain90a):
    root = tmp_path / "shfl"
    root.mkdir()
    (root / "w.cu").write_text("#include <hip/hip_runtime.h>\n__global__ void k(int* x) {\n"
                               "  x[0] = __shfl_down_sync(0xffffffff, x[0], 1);\n}\n")
    r = run_build(root, BuildOptions(arch=ARCH), toolchain=toolchain90a)
    (e,) = [d for d in r.diagnostics if d.severity == "error"]
    assert e.line == 3
    from porter.findings import catalogue

    if "__shfl_down_sync" in e.message:  # this HIP lacks *_sync (ROCm < 6.2)
        assert e.rule == "PORT020" and e.rule in catalogue()
    assert e.hint


def test_missing_library_is_a_named_diagnostic(tmp_path, toolchain90a):
    if toolchain90a.libraries.get("hipblas"):
        pytest.skip("hipBLAS is installed here")
    root = tmp_path / "blas"
    root.mkdir()
    (root / "b.cpp").write_text("#include <hipblas/hipblas.h>\nint f() { return 0; }\n")
    r = run_build(root, BuildOptions(arch=ARCH), toolchain=toolchain90a)
    (e,) = r.errors
    assert e.library == "hipBLAS" and e.message.startswith("missing library hipBLAS")
    assert "hipblas-dev" in e.hint and e.line == 1


def test_make_build_of_a_migrated_makefile(tmp_path, toolchain90a):
    from porter.buildfiles import migrate

    root = _tree(tmp_path / "mk")
    cuda_make = ("NVCC ?= nvcc\nFLAGS := -O2 -std=c++17 -arch=sm_80 -Xcompiler -Wall\n"
                 "app: main.o kernels.o\n\t$(NVCC) -arch=sm_80 -o $@ $^ -lcudart\n"
                 "%.o: %.cu util.h\n\t$(NVCC) $(FLAGS) -c $< -o $@\n")
    (root / "Makefile").write_text(migrate("Makefile", cuda_make, arch="gfx942").output)
    r = run_build(root, BuildOptions(arch=ARCH), toolchain=toolchain90a)
    assert r.ok, [d.one_line() for d in r.diagnostics]
    assert r.system == "make"
    assert {u.file: u.status for u in r.units if u.kind == "compile"} == {"main.cu": "compiled", "kernels.cu": "compiled"}
    assert (root / "app").is_file()
    cc = json.loads((root / "compile_commands.json").read_text())
    assert any(f"--offload-arch={ARCH}" in c["arguments"] for c in cc)  # HIP_ARCH=gfx90a reached make
    again = run_build(root, BuildOptions(arch=ARCH), toolchain=toolchain90a)
    assert again.ok and {u.status for u in again.units if u.kind == "compile"} == {"up-to-date"}


def test_a_makefile_naming_a_file_outside_the_port_says_so(tmp_path, toolchain90a):
    """HeCBench's wordcount-cuda builds ``../wordcount-sycl/main.cpp``: converted with -o elsewhere, its port's
    make stops at "No rule to make target" with no word of why; the report says where the file was looked for."""
    root = _tree(tmp_path / "out" / "wordcount-hip")
    (root / "Makefile").write_text("HIPCC ?= hipcc\nHIP_ARCH ?= gfx942\nmain: ../wordcount-sycl/main.cpp main.cu\n"
                                   "\t$(HIPCC) --offload-arch=$(HIP_ARCH) -o $@ $^\n")
    r = run_build(root, BuildOptions(arch=ARCH), toolchain=toolchain90a)
    assert not r.ok and r.system == "make"
    (e,) = [d for d in r.errors if "No rule to make target" in d.message]
    assert "outside the converted folder" in e.hint and "default output" in e.hint


def test_a_pattern_rule_lacking_a_prerequisite_is_named(tmp_path, toolchain90a):
    """HeCBench's permute-cuda lists ``../qkv-cuda/common.h`` (a sibling project's header) as a prerequisite of
    its one pattern rule: make then says only "No rule to make target 'main.o'".  The report names the rule, its
    line and the file that is not there, and where a ../ path is the cause, what to do about it."""
    root = _tree(tmp_path / "out" / "permute-hip")
    (root / "Makefile").write_text("HIPCC ?= hipcc\nHIP_ARCH ?= gfx942\nDEPS = util.h ../qkv-hip/common.h\n"
                                   "main: main.o kernels.o\n\t$(HIPCC) --offload-arch=$(HIP_ARCH) -o $@ $^\n"
                                   "\n%.o: %.cu $(DEPS) Makefile\n\t$(HIPCC) --offload-arch=$(HIP_ARCH) -c $< -o $@\n")
    r = run_build(root, BuildOptions(arch=ARCH), toolchain=toolchain90a)
    assert not r.ok and r.system == "make"
    (e,) = [d for d in r.errors if "No rule to make target" in d.message]
    assert re.search(r"Makefile:7 `%\.o: %\.cu \$\(DEPS\) Makefile` makes (main\.o, kernels\.o|kernels\.o, main\.o) only", e.hint)
    assert "../qkv-hip/common.h is not there" in e.hint and "util.h" not in e.hint
    assert "outside the converted folder" in e.hint
    # the file there: it builds
    (tmp_path / "out" / "qkv-hip").mkdir()
    (tmp_path / "out" / "qkv-hip" / "common.h").write_text("#pragma once\n")
    assert run_build(root, BuildOptions(arch=ARCH), toolchain=toolchain90a).ok


def test_a_source_the_makefile_names_and_the_tree_lacks_is_the_reason_given(tmp_path, toolchain90a):
    """make -k compiles what it can and echoes those commands; when a source the Makefile lists is missing
    (a partial copy of a project), the reason is make's "No rule to make target 'extra.cu'", not the last
    command line it echoed (HeCBench's fluidSim, fetched without kernels.cu, said "hipcc ... -c main.cu")."""
    root = _tree(tmp_path / "partial")
    (root / "Makefile").write_text("HIPCC ?= hipcc\nobj = main.o kernels.o extra.o\n"
                                   "main: $(obj)\n\t$(HIPCC) --offload-arch=gfx90a -o $@ $(obj)\n"
                                   "main.o: main.cu util.h\n\t$(HIPCC) --offload-arch=gfx90a -c main.cu -o $@\n"
                                   "kernels.o: kernels.cu util.h\n\t$(HIPCC) --offload-arch=gfx90a -c kernels.cu -o $@\n"
                                   "extra.o: extra.cu\n\t$(HIPCC) --offload-arch=gfx90a -c extra.cu -o $@\n")
    r = run_build(root, BuildOptions(arch=ARCH), toolchain=toolchain90a)
    assert not r.ok and r.system == "make"
    (e,) = r.errors
    assert "No rule to make target 'extra.cu', needed by 'extra.o'" in e.message and "-c main.cu" not in e.message


def test_make_build_says_when_compile_commands_cannot_be_written(tmp_path, toolchain90a):
    """A folder where compile_commands.json would go does not fail the build, and the report says why the
    editors' file is missing (it was silent on the Make path)."""
    from porter.buildfiles import migrate

    root = _tree(tmp_path / "mk")
    cuda_make = ("NVCC ?= nvcc\napp: main.o kernels.o\n\t$(NVCC) -arch=sm_80 -o $@ $^\n"
                 "%.o: %.cu util.h\n\t$(NVCC) -arch=sm_80 -c $< -o $@\n")
    (root / "Makefile").write_text(migrate("Makefile", cuda_make, arch="gfx942").output)
    (root / "compile_commands.json").mkdir()
    r = run_build(root, BuildOptions(arch=ARCH), toolchain=toolchain90a)
    assert r.ok, [d.one_line() for d in r.diagnostics]
    assert r.compile_commands is None
    assert any(m.startswith("cannot write compile_commands.json") for m in r.messages), r.messages


def test_timeout_stops_a_hung_compile(tmp_path, toolchain90a):
    root = tmp_path / "slow"
    root.mkdir()
    (root / "k.cu").write_text(KERNELS.replace('#include "util.h"\n', "inline __device__ float twice(float x) "
                                                                     "{ return x; }\n"))
    t0 = time.monotonic()
    r = run_build(root, BuildOptions(arch=ARCH, timeout=0.5), toolchain=toolchain90a)
    assert time.monotonic() - t0 < 15
    assert [u.status for u in r.units] == ["timeout"]
    assert any("timed out" in d.message for d in r.errors)


def _hipcc_children(marker: str) -> list[str]:
    """Command lines of running compiler processes (hipcc, clang, ld) that mention ``marker``."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                argv = fh.read().decode(errors="replace").split("\0")
        except OSError:
            continue
        line = " ".join(argv)
        if "python" in os.path.basename(argv[0]):
            continue
        if marker in line and any(t in line for t in ("hipcc", "clang", "ld")):
            found.append(line)
    return found


def test_cancel_stops_every_compiler(tmp_path, toolchain90a):
    root = tmp_path / "cancelme"
    root.mkdir()
    for i in range(3):
        (root / f"k{i}.cu").write_text(KERNELS.replace('#include "util.h"\n', "inline __device__ float twice(float x)"
                                                                             " { return x; }\n"))
    cancel = threading.Event()
    started = threading.Event()
    result = {}

    def on_line(line):
        if line.startswith("[compile]"):
            started.set()

    t = threading.Thread(target=lambda: result.setdefault(
        "r", run_build(root, BuildOptions(arch=ARCH, jobs=2), on_line=on_line, cancel=cancel, toolchain=toolchain90a)))
    t.start()
    assert started.wait(30)
    # the "[compile]" line comes as a compiler is started: wait until the process table shows one (a loaded
    # machine may take a while to spawn it; a build that finished first would leave nothing to cancel)
    assert _eventually(lambda: _hipcc_children(str(root)) or not t.is_alive()) and t.is_alive(), \
        "no compiler was running"
    cancel.set()
    t.join(30)
    assert not t.is_alive()
    r = result["r"]
    assert r.cancelled and not r.ok and r.exit_code == 130
    assert "cancelled" in {u.status for u in r.units}
    assert _eventually(lambda: _hipcc_children(str(root)) == [], 10), _hipcc_children(str(root))


def _eventually(check, within: float = 30.0) -> bool:
    """Polls ``check`` until it holds or ``within`` seconds have passed (waits for a state, not a time)."""
    deadline = time.monotonic() + within
    while True:
        if check():
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)


def test_cli_json_and_missing_compiler(tmp_path, built):
    root, *_ = built
    env = dict(os.environ)
    p = subprocess.run([sys.executable, "-m", "porter", "build", str(root), "--arch", ARCH, "--json"],
                       capture_output=True, text=True, timeout=120, env=env)
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    assert d["ok"] is True and d["arch"] == ARCH and d["duration_s"] >= 0
    env["PATH"] = str(tmp_path)
    env["ROCM_PATH"] = str(tmp_path / "none")
    p = subprocess.run([sys.executable, "-m", "porter", "build", str(root)], capture_output=True, text=True,
                       timeout=120, env=env)
    assert p.returncode == 1
    assert p.stderr.count("\n") == 1 and "no HIP compiler" in p.stderr and "Traceback" not in p.stderr


def test_unknown_arch_stops_with_one_line(built):
    root, *_ = built
    p = subprocess.run([sys.executable, "-m", "porter", "build", str(root), "--arch", "gfx9999"],
                       capture_output=True, text=True, timeout=120)
    # a usage error (issue 32 item 9): exit 2, as for every other bad option
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "gfx9999" in p.stderr and "--arch" in p.stderr


def test_map_line():
    ins = [[0, 1], [10, 2]]
    assert map_line(1, ins) == 1  # the inserted line itself
    assert map_line(2, ins) == 1
    assert map_line(11, ins) == 10
    assert map_line(12, ins) == 10 and map_line(13, ins) == 10  # two inserted after line 10
    assert map_line(14, ins) == 11
    assert map_line(5, []) == 5
    # a build file's migration: 6 lines added after line 6 (CC = nvcc became the toolchain block), the
    # source's line 8 (ARCH = sm_60) dropped: output line 13 is source line 7, 14 is 9
    drop = [[6, 6], [7, -1]]
    assert [map_line(n, drop) for n in (6, 7, 12, 13, 14, 20)] == [6, 6, 6, 7, 9, 15]


def test_a_migrated_makefiles_lines_map_back_to_the_cuda_makefile():
    """What porter build needs to put an error at the CUDA Makefile's line: every line the migration kept maps
    back to the line it was, across the block it adds for CC and the ARCH line it drops (HeCBench's shape)."""
    from porter.buildfiles import migrate

    cuda = ("#===\n# Variables\n#===\n\nprogram = main\nCC = nvcc\nOPTIMIZE = yes\nARCH = sm_60\nLAUNCHER =\n\n"
            "CFLAGS := -std=c++14 -Xcompiler -Wall -arch=$(ARCH)\n\n$(program): main.o\n\t$(CC) main.o -o $@\n\n"
            "main.o: main.cu\n\t$(CC) $(CFLAGS) -c $< -o $@ -fatbin\n")
    m = migrate("Makefile", cuda)
    lines = m.output.splitlines()
    table = m.inserted_lines(cuda)
    assert any(count < 0 for _after, count in table) and any(count > 1 for _after, count in table)
    for text in ("OPTIMIZE = yes", "LAUNCHER =", "main.o: main.cu", "$(program): main.o"):
        assert map_line(lines.index(text) + 1, table) == cuda.splitlines().index(text) + 1, text
    out = next(i for i, ln in enumerate(lines, 1) if "-fatbin" in ln)
    assert map_line(out, table) == next(i for i, ln in enumerate(cuda.splitlines(), 1) if "-fatbin" in ln)


def test_known_error_table_names_real_catalogue_rules():
    from porter.build.diagnostics import known_problems
    from porter.findings import catalogue

    problems, libs = known_problems()
    ids = {p.rule for p in problems if p.rule}
    assert ids and ids <= set(catalogue())
    assert {lib.library for lib in libs} >= {"hipBLAS", "hipFFT", "hipSOLVER", "hipCUB", "rocThrust"}


import signal  # noqa: E402


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_cli_signal_stops_porter_and_its_compilers(tmp_path, sig, toolchain90a):
    root = tmp_path / f"sig{int(sig)}"
    root.mkdir()
    for i in range(2):
        (root / f"k{i}.cu").write_text(KERNELS.replace('#include "util.h"\n', "inline __device__ float twice(float x)"
                                                                             " { return x; }\n"))
    p = subprocess.Popen([sys.executable, "-m", "porter", "build", str(root), "--arch", ARCH, "-v"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not _hipcc_children(str(root)):
            time.sleep(0.1)
        assert _hipcc_children(str(root)), "no compiler started"
        time.sleep(0.3)
        p.send_signal(sig)
        out, err = p.communicate(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 130, err
    assert "interrupted" in err and "Traceback" not in err
    time.sleep(0.5)
    assert _hipcc_children(str(root)) == []


def test_unmigrated_build_files_are_not_used(tmp_path):
    from porter.build.runner import choose_system
    from porter.build.toolchain import Toolchain

    tc = Toolchain(compiler="/usr/bin/hipcc", make="/usr/bin/make", cmake="/usr/bin/cmake")
    (tmp_path / "Makefile").write_text("# built with nvcc once\nall:\n\tnvcc -c a.cu\n")
    (tmp_path / "CMakeLists.txt").write_text("project(x LANGUAGES CXX CUDA)\n")
    notes = []
    assert choose_system(tmp_path, BuildOptions(), tc, notes) == "per-file"
    assert any("nvcc" in n for n in notes) and any("CUDA" in n for n in notes)
    (tmp_path / "Makefile").write_text("# was nvcc\nall:\n\thipcc -c a.cu\n")
    assert choose_system(tmp_path, BuildOptions(), tc) == "make"
    assert choose_system(tmp_path, BuildOptions(per_file=True), tc) == "per-file"


def test_cmake_project_builds_or_falls_back_per_file_with_a_note(tmp_path, toolchain90a):
    import shutil

    from porter.buildfiles import migrate

    if not shutil.which("cmake"):
        pytest.skip("cmake not installed")
    root = _tree(tmp_path / "cm")
    cuda = ("cmake_minimum_required(VERSION 3.18)\nproject(app LANGUAGES CXX CUDA)\n"
            "set(CMAKE_CUDA_ARCHITECTURES 80)\nfind_package(CUDAToolkit REQUIRED)\n"
            "add_executable(app main.cu kernels.cu)\ntarget_link_libraries(app PRIVATE CUDA::cudart)\n")
    (root / "CMakeLists.txt").write_text(migrate("CMakeLists.txt", cuda).output)
    r = run_build(root, BuildOptions(arch=ARCH), toolchain=toolchain90a)
    assert r.ok, [d.one_line() for d in r.diagnostics] + r.messages
    if r.system == "per-file":  # e.g. Debian's ROCm 5.2 layout, which CMake's HIP language rejects
        from porter.build.runner import hip_language_problem

        known = hip_language_problem(root, toolchain90a.rocm_path)
        if known:  # said before configuring, in one line, and the fallback says what it uses
            assert known in r.messages and "\n" not in known and "hip-lang" in known
            assert any(m.startswith("building per file instead") for m in r.messages)
        else:
            assert any(m.startswith("CMake configure failed") for m in r.messages)
        again = run_build(root, BuildOptions(arch=ARCH), toolchain=toolchain90a)
        assert again.ok and (known in again.messages if known else any("failed before" in m for m in again.messages))
        assert {u.status for u in again.units} == {"cached"}
    else:
        assert r.system == "cmake"
