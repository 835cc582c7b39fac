"""An nvcc Makefile that compiles host OpenMP with ``-Xcompiler -fopenmp`` and links ``-lgomp`` (NVIDIA's
cudaOpenMP sample).  Under nvcc, g++ compiles the OpenMP code into calls of libgomp; hipcc and clang compile it
into calls of LLVM's runtime (``__kmpc_fork_call``), which libgomp does not define, so the port linked with
``-lgomp`` fails.  The migration links with ``-fopenmp`` instead (clang's own runtime, libomp).

The fixture (projects/openmp_make) is written from nvcc's and OpenMP's semantics: a parallel reduction of
1..100 on the host (5050) beside a kernel; the program's exit status says whether the sum was right.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from porter.buildfiles import migrate

PROJECT = Path(__file__).parent / "projects" / "openmp_make"


def test_lgomp_becomes_fopenmp_with_its_reason():
    m = migrate("Makefile", "LIBRARIES := -lm -lgomp\nX := -lgompx libgomp.a\n")
    assert m.output.splitlines()[0] == "LIBRARIES := -lm -fopenmp"
    assert "-lgompx libgomp.a" in m.output  # another library's name is not this flag
    (change,) = [c for c in m.changes if "flag.gomp" in c.rules]
    assert change.line == 1 and "libomp" in change.why


def test_the_openmp_sample_shape_links_and_runs_its_host_part(build_port):
    out, report = build_port(PROJECT, "gfx942")
    assert report.ok, [d.one_line() for d in report.diagnostics]
    program = out / "ompsum"
    needed = subprocess.run(["readelf", "-d", str(program)], capture_output=True, text=True, timeout=60).stdout
    assert "libomp" in needed and "libgomp" not in needed
    # the host part needs no GPU: OpenMP's reduction, checked by the exit status
    r = subprocess.run([str(program)], capture_output=True, text=True, timeout=120, cwd=out)
    assert (r.returncode, r.stdout.strip()) == (0, "sum 5050"), r.stderr
