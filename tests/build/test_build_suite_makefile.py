"""A benchmark-suite-shaped Makefile project builds for the MI300X through its own migrated Makefile.

The fixture (projects/suite_app) is written from nvcc's rules in the shape most public benchmark
suites use: the compiler in `CC = nvcc`, the target in `ARCH = sm_60` used as `-arch=$(ARCH)`
inside CFLAGS, host flags through `-Xcompiler`, a `%.o: %.cu` pattern rule and a link of the
objects.  Converted, the Makefile names its compiler `$(HIPCC)` and its target `$(HIP_ARCH)`, so:

* `porter build OUT` builds it for gfx942, porter's default, through clang-19 on a machine whose
  hipcc (ROCm 5.2) does not know gfx942, and the program holds gfx942 code;
* `porter build OUT --arch gfx90a` builds it with hipcc;
* a user's plain `make HIP_ARCH=gfx90a`, with a real hipcc, builds it too, for that target only.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import killable

from porter.project.convert import convert_tree

PROJECT = Path(__file__).parent / "projects" / "suite_app"


def _porter(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "porter", *args], capture_output=True, text=True,
                          timeout=600, env=env)


def _targets(binary: Path) -> set[str]:
    data = binary.read_bytes()
    return {t.decode() for t in set(re.findall(rb"hipv4-amdgcn-amd-amdhsa-[-\w]*?-(gfx\w+)", data))
            | set(re.findall(rb"amdgcn-amd-amdhsa--(gfx\w+)", data))}


def test_the_cuda_original_builds_with_nvcc(tmp_path):
    if not shutil.which("nvcc"):
        pytest.skip("nvcc not installed: the fixture is not built as CUDA here")
    src = tmp_path / "cuda"
    shutil.copytree(PROJECT, src)
    # sm_60 left CUDA 13; the Makefile's own variable takes another
    code, out = killable.run(["make", "-C", str(src), "ARCH=sm_80"], 300, None, "make (nvcc)")
    assert code == 0, out
    assert (src / "main").is_file()


def test_the_migrated_makefile_names_the_compiler_and_target_through_variables(tmp_path):
    out = tmp_path / "hip"
    convert_tree(PROJECT, out)
    text = (out / "Makefile").read_text()
    lines = [ln for ln in text.splitlines() if not ln.lstrip().startswith("#")]
    assert "HIPCC ?= hipcc" in lines and "HIP_ARCH ?= gfx942" in lines and "export HIP_PLATFORM ?= amd" in lines
    assert any(re.fullmatch(r"CC\s*=\s*\$\(HIPCC\)", ln) for ln in lines)
    assert not any("nvcc" in ln or "sm_60" in ln or "-Xcompiler" in ln for ln in lines)
    assert any("--offload-arch=$(HIP_ARCH)" in ln for ln in lines)


def test_porter_build_of_the_converted_tree_targets_gfx942_by_default(tmp_path, amd_compilers):
    out = tmp_path / "hip"
    convert_tree(PROJECT, out)
    env = dict(os.environ, PORTER_CACHE_DIR=os.environ.get("PORTER_CACHE_DIR", str(tmp_path / "cache")))
    r = _porter("build", str(out), "--json", env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    report = json.loads(r.stdout.strip().splitlines()[-1])
    assert report["ok"] and report["arch"] == "gfx942" and report["system"] == "make"
    assert "main" in report["outputs"]
    assert _targets(out / "main") == {"gfx942"}
    assert not [d for d in report["diagnostics"] if d.get("severity") in ("error", "warning")], report["diagnostics"]


def test_porter_build_for_gfx90a_uses_hipcc(tmp_path, amd_compilers):
    out = tmp_path / "hip"
    convert_tree(PROJECT, out)
    r = _porter("build", str(out), "--arch", "gfx90a", "--json")
    assert r.returncode == 0, r.stdout + r.stderr
    report = json.loads(r.stdout.strip().splitlines()[-1])
    assert report["ok"] and report["arch"] == "gfx90a" and "hipcc" in report["toolchain"]
    assert _targets(out / "main") == {"gfx90a"}


def test_plain_make_with_a_real_hipcc_builds_the_chosen_target(tmp_path, amd_compilers):
    out = tmp_path / "hip"
    convert_tree(PROJECT, out)
    # no HIP_PLATFORM: hipcc would pick NVIDIA where it finds an nvcc; the Makefile says amd
    env = {k: v for k, v in os.environ.items() if k != "HIP_PLATFORM"}
    code, log = killable.run(["make", "-C", str(out), "HIP_ARCH=gfx90a"], 300, env, "make (hipcc)")
    assert code == 0, log
    compiles = [ln for ln in log.splitlines() if ln.startswith("hipcc ")]
    assert len(compiles) == 3 and all("--offload-arch=gfx90a" in ln for ln in compiles), log
    assert _targets(out / "main") == {"gfx90a"}
