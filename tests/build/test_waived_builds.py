"""A make that compiles nothing is not a build.

NVIDIA's samples waive themselves in their Makefiles: when a dependency is not found (``libcuda.so`` for
the driver-API samples), every recipe becomes ``@echo "[@]" ...`` and make exits 0 having written nothing.
porter build used to report such a sample "ok" (8 of NVIDIA's 93 samples, counted among the ones built).
Here the same Makefile shape, written from make's semantics: waived, the build fails and says what make
printed; with the dependency there, it builds a program for the arch."""

from __future__ import annotations

from pathlib import Path

import pytest

from porter.build import BuildOptions, run_build

MAKEFILE = """HIPCC ?= hipcc
HIP_ARCH ?= gfx942
export HIP_PLATFORM ?= amd
DRIVER_LIB ?= $(shell find -L {search} -maxdepth 1 -name libcuda.so 2> /dev/null)
ifeq ("$(DRIVER_LIB)","")
  $(info >>> WARNING - libcuda.so not found, CUDA Driver is not installed.  Please re-install the driver. <<<)
  SAMPLE_ENABLED := 0
endif
ifeq ($(SAMPLE_ENABLED),0)
EXEC ?= @echo "[@]"
endif

all: build
build: app

app: main.o
\t$(EXEC) $(HIPCC) --offload-arch=$(HIP_ARCH) main.o -o app

main.o: main.cu
\t$(EXEC) $(HIPCC) --offload-arch=$(HIP_ARCH) -c main.cu -o main.o
"""
MAIN = """#include <hip/hip_runtime.h>
__global__ void k(int* x) { x[0] = 1; }
int main() { return 0; }
"""


def _project(root: Path, search: Path) -> Path:
    root.mkdir(parents=True)
    (root / "Makefile").write_text(MAKEFILE.format(search=search))
    (root / "main.cu").write_text(MAIN)
    return root


@pytest.mark.hipcc
def test_a_waived_sample_is_not_reported_built(tmp_path, toolchain90a):
    root = _project(tmp_path / "p", tmp_path / "no-such-folder")
    report = run_build(root, BuildOptions(arch="gfx90a", jobs=2), toolchain=toolchain90a)
    assert report.system == "make"
    assert not report.ok and not report.outputs
    (error,) = [d.message for d in report.diagnostics if d.severity == "error"]
    assert "compiled nothing" in error and "libcuda.so not found" in error, error
    assert not (root / "app").exists()


@pytest.mark.hipcc
def test_the_same_makefile_with_its_dependency_found_builds(tmp_path, toolchain90a):
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "libcuda.so").write_bytes(b"")  # only looked for by name
    root = _project(tmp_path / "p", lib)
    report = run_build(root, BuildOptions(arch="gfx90a", jobs=2), toolchain=toolchain90a)
    assert report.ok, [d.one_line() for d in report.diagnostics]
    assert report.code_objects["app"] == ["amdgcn-amd-amdhsa--gfx90a"]
    again = run_build(root, BuildOptions(arch="gfx90a", jobs=2), toolchain=toolchain90a)
    assert again.ok  # up to date: nothing written, the program is there
