"""Issue 33 item 13: `porter build` on a disk that fills in the middle of the build (a real tmpfs, no mocking):
an object, the program or porter's state written after the compiles does not fit.  The build ends with one
line naming the file and the full file system, exit 1, the --json report still comes out (or the line says it
could not), nothing is reported as built that is not on disk, and no half-written file is left behind."""

import json
import os
import shutil

from reliability_helpers import need, pages, porter, tmpfs

MAIN = "#include <hip/hip_runtime.h>\n__global__ void scale(float* a) { a[threadIdx.x] *= 2.0f; }\nint main() { return 0; }\n"
# a __device__ array with a non-zero initializer is data in the code object: 262144 floats, 1 MiB per
# object (and as much again in the program), far more than the small tmpfs below holds
TABLE = ("#include <hip/hip_runtime.h>\n__device__ float table[262144] = {1.5f};\n"
         "__global__ void lookup(float* a) { a[threadIdx.x] = table[threadIdx.x * 997 % 262144]; }\n")


def _tree(where, big: bool = True):
    where.mkdir()
    (where / "a_main.cpp").write_text(MAIN)
    if big:
        (where / "b_table.cpp").write_text(TABLE)
    return where


def _build(tree, *extra, stdout=None):
    kw = {} if stdout is None else {"stdout": stdout}
    # (run from outside the small disk: nothing porter starts holds it busy when the test unmounts it)
    return porter("build", str(tree), "--arch", "gfx90a", "-j", "1", *extra, cwd=tree.parent.parent, **kw)


def _left_behind(tree) -> list[str]:
    return [str(p) for p in tree.rglob("*") if p.is_file() and (".tmp" in p.name or p.stat().st_size == 0)]


def _built_means_on_disk(tree, report) -> None:
    """Every unit reported compiled or linked has its output on disk, a whole ELF file."""
    for u in report["units"]:
        if u["status"] in ("compiled", "linked"):
            assert (tree / u["output"]).read_bytes()[:4] == b"\x7fELF", u
    for prog in report["outputs"]:
        assert (tree / prog).read_bytes()[:4] == b"\x7fELF", prog


def _the_line(stderr: str, mnt) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in stderr, stderr
    line = lines[0]
    assert line.startswith("porter: error: no space left on device: cannot write ")
    assert f"the file system at {mnt} (tmpfs" in line and "free some space there" in line
    return line


def test_an_object_that_does_not_fit_fails_the_build_in_one_line_with_a_json_report(tmp_path):
    need("hipcc")
    with tmpfs(tmp_path / "disk", 256 * 1024) as mnt:  # the sources, porter's state and a small object fit
        tree = _tree(mnt / "port")
        r = _build(tree, "--json")
        assert r.returncode == 1
        line = _the_line(r.stderr, mnt)
        assert "cannot write .porter/build/gfx90a/obj/b_table.cpp.o:" in line
        report = json.loads(r.stdout)
        assert report["ok"] is False and report["error"] == line[len("porter: error: "):]
        status = {u["file"]: u["status"] for u in report["units"]}
        assert status == {"a_main.cpp": "compiled", "b_table.cpp": "failed"}
        assert report["outputs"] == [] and not (tree / ".porter/build/gfx90a/bin").exists()  # nothing linked
        assert not (tree / ".porter/build/gfx90a/obj/b_table.cpp.o").exists()
        _built_means_on_disk(tree, report)
        assert _left_behind(tree) == []

        # the same build in text form: the compiler's own line, then the summary; the one line last, on stderr
        r = _build(tree)
        assert r.returncode == 1 and "No space left on device" in r.stdout and "build FAILED" in r.stdout
        assert "cannot write .porter/build/gfx90a/obj/b_table.cpp.o:" in _the_line(r.stderr, mnt)


def test_a_json_report_that_cannot_be_written_either_is_said_in_the_same_line(tmp_path):
    need("hipcc")
    with tmpfs(tmp_path / "disk", 256 * 1024) as mnt, open("/dev/full", "w") as full:
        tree = _tree(mnt / "port")
        r = _build(tree, "--json", stdout=full)
        assert r.returncode == 1
        line = _the_line(r.stderr, mnt)
        assert "b_table.cpp.o" in line
        assert line.endswith("; the --json report could not be written to stdout either (No space left on device)")


def test_state_written_after_the_compiles_that_does_not_fit(tmp_path):
    """The object fits; porter's record of the build (cache.json, written after the compiles) does not."""
    need("hipcc")
    measured = _tree(tmp_path / "measured", big=False)
    assert _build(measured, "--no-link").returncode == 0
    state = measured / ".porter/build/cache.json"
    before = pages(measured) - pages(state)  # the tree and porter's state, all but cache.json
    assert os.path.getsize(state) > 3 * os.sysconf("SC_PAGE_SIZE"), "cache.json must not fit in the slack"
    with tmpfs(tmp_path / "disk", before + 2 * os.sysconf("SC_PAGE_SIZE")) as mnt:
        tree = _tree(mnt / "port", big=False)
        r = _build(tree, "--json")
        assert r.returncode == 1
        line = _the_line(r.stderr, mnt)
        assert "cannot write .porter/build/cache.json:" in line
        report = json.loads(r.stdout)
        assert report["ok"] is False and report["error"] in line
        # compiled, and said so (the object is on disk), but not linked: the build stopped there
        assert [(u["file"], u["status"]) for u in report["units"]] == [("a_main.cpp", "compiled")]
        assert report["outputs"] == []
        _built_means_on_disk(tree, report)
        assert not (tree / ".porter/build/cache.json").exists() and _left_behind(tree) == []


def test_a_program_that_does_not_fit(tmp_path):
    """The objects fit; the linked program (1 MiB of table data) does not."""
    need("hipcc")
    measured = _tree(tmp_path / "measured")
    assert _build(measured, "--no-link").returncode == 0
    room = pages(measured) + 256 * 1024  # every object and porter's state, and less than the program
    shutil.rmtree(measured)
    with tmpfs(tmp_path / "disk", room) as mnt:
        tree = _tree(mnt / "port")
        r = _build(tree, "--json")
        assert r.returncode == 1
        line = _the_line(r.stderr, mnt)
        assert "cannot write .porter/build/gfx90a/bin/port:" in line
        report = json.loads(r.stdout)
        status = {u["file"]: u["status"] for u in report["units"]}
        assert status == {"a_main.cpp": "compiled", "b_table.cpp": "compiled", "port": "failed"}
        assert report["outputs"] == [] and not (tree / ".porter/build/gfx90a/bin/port").exists()
        link = next(d for d in report["diagnostics"] if d.get("unit") == "link port")
        assert "No space left on device" in link["message"]  # the linker's own words, not just "exit 1"
        _built_means_on_disk(tree, report)
        assert _left_behind(tree) == []
