"""A converted Makefile project builds with make and hipcc, for the chosen GPU and no other.

The fixture (projects/make_app) is the common CUDA Makefile shape, written from nvcc's
rules: a host-only .cpp and a .cu with a kernel, both compiled by nvcc, the target in a
variable that only some lines use, the runtime linked from $(CUDA_PATH)/lib64.  When nvcc is
installed the original is built first, so the fixture is known to be a working CUDA project.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

import killable

from porter.project.convert import convert_tree

PROJECT = Path(__file__).parent / "projects" / "make_app"
ARCH = "gfx90a"  # what ROCm 5.2's hipcc builds; porter's default target, gfx942, needs LLVM 19


def _make(folder: Path, *args: str, env: dict | None = None) -> tuple[int, str]:
    return killable.run(["make", "-C", str(folder), *args], 300, env, f"make in {folder}")


def _offload_targets(binary: Path) -> set[str]:
    """The GPU targets whose code objects are bundled in ``binary`` (clang's bundle entry names)."""
    return set(re.findall(rb"hipv4-amdgcn-amd-amdhsa-[-\w]*?-(gfx\w+)", binary.read_bytes())) | \
        set(re.findall(rb"amdgcn-amd-amdhsa--(gfx\w+)", binary.read_bytes()))


def test_the_cuda_original_builds_with_nvcc(tmp_path):
    if not shutil.which("nvcc"):
        pytest.skip("nvcc not installed: the fixture is not built as CUDA here")
    src = tmp_path / "cuda"
    shutil.copytree(PROJECT, src)
    nvcc = shutil.which("nvcc")
    root = str(Path(nvcc).resolve().parents[1])
    code, out = _make(src, f"NVCC={nvcc}", f"CUDA_PATH={root}")
    assert code == 0, out
    assert (src / "app").is_file()


def test_the_converted_makefile_builds_for_the_chosen_gpu_only(tmp_path, amd_compilers):
    out_dir = tmp_path / "hip"
    convert_tree(PROJECT, out_dir)
    makefile = (out_dir / "Makefile").read_text()
    code = [ln for ln in makefile.splitlines() if not ln.startswith("#")]
    assert not any("nvcc" in ln or "cuda" in ln.lower() for ln in code) and "HIP_ARCH ?= gfx942" in code
    env = dict(os.environ, HIP_PLATFORM="amd")
    code, log = _make(out_dir, f"HIP_ARCH={ARCH}", env=env)
    assert code == 0, log
    app = out_dir / "app"
    assert app.is_file()
    # every hipcc line names the target: none falls back to the build machine's GPU (this machine
    # has none: ROCm 5.2's hipcc would print a traceback and build gfx803 code)
    compiles = [ln for ln in log.splitlines() if ln.startswith("hipcc ")]
    assert len(compiles) == 3, log
    assert all(f"--offload-arch={ARCH}" in ln for ln in compiles), log
    assert "Traceback" not in log and "gfx803" not in log
    assert _offload_targets(app) == {ARCH.encode()}
    assert _offload_targets(out_dir / "kernels.o") == {ARCH.encode()}
