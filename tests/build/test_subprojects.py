"""A folder of several projects (issue 30 defect 3): NVIDIA's samples shape, each sample with its own
Makefile or CMakeLists.txt reaching the shared Common/ headers with -I../../../Common, and a top-level
Makefile that only recurses (or none).  Each project is built on its own with its own migrated build
file and flags, reported on its own; the build fails when one fails, and --project builds one.

The fixture (projects/samples_tree) is written from CUDA's semantics: vectorAdd and matrixScale (two
units and a local header) with Makefiles, histogramCMake with a CMakeLists.txt, and laneIdPtx, which
reads %laneid with inline PTX: AMD GPUs have no PTX, so its port cannot compile (PORT001 says so).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from porter.build import BuildOptions, run_build
from porter.build.subprojects import find_subprojects
from porter.project.convert import convert_tree

ROOT = Path(__file__).resolve().parents[2]
TREE = Path(__file__).parent / "projects" / "samples_tree"
INTRO = "Samples/0_Introduction"
GOOD = {f"{INTRO}/vectorAdd": "vectorAdd", f"{INTRO}/matrixScale": "matrixScale",
        "Samples/5_Domain/histogramCMake": "histogramCMake"}
BAD = "Samples/2_Concepts/laneIdPtx"


# ---------------------------------------------------------------- discovery (no compiler)

def test_the_samples_tree_is_four_projects_and_the_recursing_makefile_none_of_them():
    subs = find_subprojects(TREE)
    assert [(s.rel, s.build_file) for s in subs] == [
        (f"{INTRO}/matrixScale", "Makefile"), (f"{INTRO}/vectorAdd", "Makefile"), (f"{BAD}", "Makefile"),
        ("Samples/5_Domain/histogramCMake", "CMakeLists.txt")]


def test_one_project_with_its_own_build_files_below_is_still_one(tmp_path):
    # a root Makefile that compiles: the tree is that project (a vendored library's Makefile below is its own)
    (tmp_path / "lib").mkdir()
    (tmp_path / "Makefile").write_text("app: main.o\n\thipcc -o app main.o\nmain.o: main.cpp\n\thipcc -c main.cpp\n")
    (tmp_path / "main.cpp").write_text("int main() { return 0; }\n")
    (tmp_path / "lib" / "Makefile").write_text("lib.o: lib.cpp\n\thipcc -c lib.cpp\n")
    (tmp_path / "lib" / "lib.cpp").write_text("int f() { return 1; }\n")
    assert find_subprojects(tmp_path) == []
    # a CMake project whose src/ has no project() of its own is one CMake project, built from the root
    cm = tmp_path / "cm"
    (cm / "src").mkdir(parents=True)
    (cm / "CMakeLists.txt").write_text("project(p LANGUAGES CXX HIP)\nadd_subdirectory(src)\n")
    (cm / "src" / "CMakeLists.txt").write_text("add_executable(app main.cpp)\n")
    (cm / "src" / "main.cpp").write_text("int main() { return 0; }\n")
    assert find_subprojects(cm) == []


# ---------------------------------------------------------------- builds (hipcc 5.2 / clang-19)

def _convert(tmp_path: Path, top_makefile: bool) -> Path:
    src = tmp_path / "cuda"
    shutil.copytree(TREE, src)
    if not top_makefile:
        (src / "Makefile").unlink()
    out = tmp_path / "hip"
    convert_tree(src, out)
    return out


def _check_per_project(report, out: Path, arch: str) -> None:
    by_path = {p.path: p for p in report.projects}
    assert sorted(by_path) == sorted([*GOOD, BAD])
    assert report.system == "projects" and not report.ok and report.exit_code == 1
    for rel, program in GOOD.items():
        proj = by_path[rel]
        assert proj.ok and proj.errors == 0, (rel, [d.one_line() for d in report.diagnostics])
        # its program, holding code for the arch asked for (read back from the offload bundle)
        prog = next(o for o in proj.outputs if o.endswith("/" + program))
        assert report.code_objects[prog] == [f"amdgcn-amd-amdhsa--{arch}"], report.code_objects
    assert by_path[f"{INTRO}/vectorAdd"].system == "make"
    bad = by_path[BAD]
    assert not bad.ok and bad.errors >= 1 and bad.outputs == []
    # every error is the failing sample's, on its PTX line, mapped back to the CUDA source, the rule named
    ptx_line = next(i for i, ln in enumerate((TREE / BAD / "laneIdPtx.cu").read_text().splitlines(), 1)
                    if "asm volatile" in ln)
    errors = report.errors
    assert errors and all(d.file == f"{BAD}/laneIdPtx.cu" for d in errors), [d.one_line() for d in errors]
    first = errors[0]
    assert first.source_file.endswith(f"{BAD}/laneIdPtx.cu") and first.source_line == ptx_line
    assert first.rule == "PORT001"
    assert not any("helper_cuda.h" in d.message for d in report.diagnostics)


@pytest.mark.parametrize("top_makefile", [True, False], ids=["recursing-top-makefile", "no-top-build-file"])
def test_each_project_builds_on_its_own_for_gfx942_with_clang19(tmp_path, toolchain942, top_makefile):
    out = _convert(tmp_path, top_makefile)
    report = run_build(out, BuildOptions(arch="gfx942"), toolchain=toolchain942)
    _check_per_project(report, out, "gfx942")


def test_each_project_builds_on_its_own_for_gfx90a_with_hipcc(tmp_path, toolchain90a):
    out = _convert(tmp_path, top_makefile=True)
    report = run_build(out, BuildOptions(arch="gfx90a"), toolchain=toolchain90a)
    _check_per_project(report, out, "gfx90a")


def _porter_build(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "porter", "build", *args], capture_output=True, text=True,
                          timeout=600, cwd=ROOT)


def test_the_cli_reports_each_project_and_project_builds_one(tmp_path, toolchain942):
    out = _convert(tmp_path, top_makefile=True)
    r = _porter_build(str(out), "--arch", "gfx942", "--project", f"{INTRO}/vectorAdd/vectorAdd.cu", "--json")
    assert r.returncode == 0, r.stdout + r.stderr
    rep = json.loads(r.stdout)
    assert [p["path"] for p in rep["projects"]] == [f"{INTRO}/vectorAdd"] and rep["ok"]
    assert not (out / INTRO / "matrixScale" / "matrixScale").exists()  # the others were not built
    r = _porter_build(str(out), "--arch", "gfx942", "--project", BAD)
    assert r.returncode == 1
    assert f"project {BAD}: failed (make), 1 error" in r.stdout
    assert "build FAILED: projects for gfx942" in r.stdout and "0 of 1 projects built" in r.stdout
    # a shared header is in no one project: all are built, and the output says so, one line per project
    r = _porter_build(str(out), "--arch", "gfx942", "--project", "Common/helper_cuda.h")
    assert r.returncode == 1
    lines = r.stdout.splitlines()
    assert "note: Common/helper_cuda.h is in none of the 4 projects of this folder: building all of them" in lines
    assert f"project {INTRO}/vectorAdd: ok (make), programs: {INTRO}/vectorAdd/vectorAdd" in lines
    assert f"project {BAD}: failed (make), 1 error" in lines
    assert any(ln.startswith("build FAILED: projects for gfx942") and "3 of 4 projects built" in ln for ln in lines)


def test_a_project_path_not_in_the_folder_is_one_line_and_writes_nothing(tmp_path):
    out = _convert(tmp_path, top_makefile=True)
    before = sorted(p for p in out.rglob("*"))
    r = _porter_build(str(out), "--project", "Samples/no_such_sample")
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == [f"porter: error: --project Samples/no_such_sample: no such file or "
                                             f"folder in {out.resolve()}"]
    assert sorted(p for p in out.rglob("*")) == before


def test_one_sample_built_from_its_own_folder_has_the_trees_target_and_cuda_lines(tmp_path, toolchain942):
    # A user converts the whole samples tree for ROCm 5.2, then builds one sample from its folder (cd into it,
    # `porter build .`): the tree's record (target, CUDA source lines) is in the tree's root, two folders up.
    src = tmp_path / "cuda"
    shutil.copytree(TREE, src)
    out = tmp_path / "hip"
    r = subprocess.run([sys.executable, "-m", "porter", "convert", "-q", "--target-rocm", "5.2", str(src), "-o",
                        str(out)], capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert r.returncode in (0, 1), r.stdout + r.stderr
    r = _porter_build(str(out / BAD), "--arch", "gfx942", "--json")
    assert r.returncode == 1, r.stdout + r.stderr
    rep = json.loads(r.stdout.strip().splitlines()[-1])
    assert rep["target_rocm"] == "5.2"
    ptx_line = next(i for i, ln in enumerate((TREE / BAD / "laneIdPtx.cu").read_text().splitlines(), 1)
                    if "asm volatile" in ln)
    errors = [d for d in rep["diagnostics"] if d["severity"] == "error"]
    assert errors and errors[0]["file"] == "laneIdPtx.cu"
    assert (errors[0]["source_file"], errors[0]["source_line"]) == (str(src / BAD / "laneIdPtx.cu"), ptx_line)
    r = _porter_build(str(out / BAD), "--arch", "gfx942")
    assert "note: the port targets ROCm 5.2 (as porter convert recorded in ../../../.porter/manifest.json)" in r.stdout


def test_a_note_several_projects_share_is_said_once_with_how_many():
    """A samples tree's CMake projects all fall back to per-file builds on a machine without ROCm's hip-lang
    package: one line saying how many (and which, the first three), not one per project; a note only one
    project has keeps its project in front."""
    from porter.build.runner import project_notes

    fallback = "building per file instead, with the definitions, include folders and libraries of CMakeLists.txt"
    said = [(f"Samples/{n}", fallback) for n in ("a", "b", "c", "d", "e")]
    said.insert(2, ("Samples/b", "link b: linked again"))
    assert project_notes(said) == [
        f"{fallback} (5 projects: Samples/a, Samples/b, Samples/c and 2 more)",
        "Samples/b: link b: linked again"]
    assert project_notes(said[:2]) == [f"{fallback} (2 projects: Samples/a, Samples/b)"]
    assert project_notes([("Samples/a", fallback)]) == [f"Samples/a: {fallback}"]
