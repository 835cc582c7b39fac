"""Issue 33 item 13: a damaged device-library file.  gfx942 builds with clang-19 link the ROCm device
libraries through a folder porter makes in its cache (porter/build/devicelibs.py: links to ROCm's shipped
bitcode, and oclc_isa_version_942.bc, which ROCm 5.2 lacks, assembled by porter).

- A damaged file in that folder (truncated, a flipped byte, a file in place of a link) is found before a
  build uses it, also when the build remembers its toolchain (.porter/build/toolchain.json), and made again.
- A damaged library porter does not make and cannot remake (ROCm's own ocml.bc) fails the build with clang's
  own line, not only "1 error generated", and one line saying which file it is and what to do.

Real clang-19 runs through `porter build` as a user runs it."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from porter.build import devicelibs

ROOT = Path(__file__).resolve().parents[2]
# sinf: a call into ROCm's ocml.bc (the math library clang links into every HIP device module)
KERNEL = """#include <hip/hip_runtime.h>
__global__ void wave(float* x) { x[threadIdx.x] = sinf(x[threadIdx.x]); }
int main() { return 0; }
"""


def _porter_build(tree: Path, cache: Path, *extra: str, env: dict | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ if env is None else env, PORTER_CACHE_DIR=str(cache), PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "porter", "build", str(tree), "--arch", "gfx942", *extra],
                          capture_output=True, text=True, timeout=300, env=env, cwd=str(tree.parent))


def _edit(tree: Path, n: int) -> None:
    """A new source content: the unit compiles again (and links the device libraries again)."""
    (tree / "k.cpp").write_text(KERNEL + f"// edit {n}\n")


def _isa_942(folder: Path) -> str:
    return subprocess.run(["llvm-dis-19", str(folder / "oclc_isa_version_942.bc"), "-o", "-"], capture_output=True,
                          text=True, check=True, timeout=60).stdout


def _truncate(p: Path) -> None:
    data = p.read_bytes()
    p.write_bytes(data[: len(data) // 2])


def _flip(p: Path) -> None:
    data = bytearray(p.read_bytes())
    data[len(data) // 2] ^= 0xFF
    p.write_bytes(bytes(data))


def _garbage(p: Path) -> None:
    p.unlink()  # (a link: the file it leads to is ROCm's, left alone)
    p.write_bytes(b"not bitcode\n")


@pytest.mark.parametrize("name,damage", [("oclc_isa_version_942.bc", _truncate), ("oclc_isa_version_942.bc", _flip),
                                         ("oclc_isa_version_942.bc", _garbage), ("ocml.bc", _garbage)],
                         ids=["generated-truncated", "generated-flipped-byte", "generated-garbage", "link-garbage"])
def test_a_damaged_file_in_porters_folder_is_made_again_before_the_build_uses_it(need_hipcc, need_clang19, tmp_path,
                                                                                 name, damage):
    tree, cache = tmp_path / "port", tmp_path / "cache"
    tree.mkdir()
    _edit(tree, 0)
    first = _porter_build(tree, cache, "--json")
    assert first.returncode == 0, first.stdout + first.stderr
    folders = list((cache / "devicelibs").iterdir())
    assert len(folders) == 1 and (tree / ".porter/build/toolchain.json").is_file()  # remembered for the next build
    folder = folders[0]
    shipped_ocml = os.readlink(folder / "ocml.bc")
    damage(folder / name)

    _edit(tree, 1)
    r = _porter_build(tree, cache, "--json")
    report = json.loads(r.stdout)
    assert r.returncode == 0 and report["ok"], [d["message"] for d in report["diagnostics"]]
    assert any(m.startswith(f"device library {folder / name}") and m.endswith("made again")
               for m in report["messages"]), report["messages"]
    assert "constant i32 9402" in _isa_942(folder)
    assert os.readlink(folder / "ocml.bc") == shipped_ocml
    assert devicelibs.check_folder(str(folder)) == ""


def test_a_damaged_rocm_device_library_shows_clangs_line_and_what_to_do(need_hipcc, need_clang19, tmp_path):
    """ROCm's own ocml.bc, cut short: porter links it and cannot remake it.  A ROCm tree of its own for the
    test (ROCM_PATH): the HIP headers of this machine, a copy of its device libraries, one of them damaged."""
    shipped = devicelibs.find_bitcode_dir("/usr")
    rocm = tmp_path / "rocm"
    (rocm / "amdgcn").mkdir(parents=True)
    shutil.copytree(shipped, rocm / "amdgcn" / "bitcode")
    os.symlink("/usr/include", rocm / "include")  # include/hip/hip_runtime.h
    ocml = rocm / "amdgcn" / "bitcode" / "ocml.bc"
    _truncate(ocml)
    tree, cache = tmp_path / "port", tmp_path / "cache"
    tree.mkdir()
    _edit(tree, 0)
    env = dict(os.environ, ROCM_PATH=str(rocm))

    r = _porter_build(tree, cache, "--toolchain", "clang", "--json", env=env)
    assert r.returncode == 1
    report = json.loads(r.stdout)
    clangs = [d for d in report["diagnostics"] if d["message"].startswith("cannot open file '")]
    assert len(clangs) == 1 and "ocml.bc': " in clangs[0]["message"], report["diagnostics"]
    notes = [n["message"] for n in clangs[0].get("notes", [])]
    assert len(notes) == 1 and f"the device library {ocml} is damaged" in notes[0], notes
    assert "cannot remake" in notes[0] and "apt-get install --reinstall rocm-device-libs" in notes[0]

    text = _porter_build(tree, cache, "--toolchain", "clang", env=env)  # what a user reads
    assert text.returncode == 1
    lines = text.stdout.splitlines()
    at = next(i for i, ln in enumerate(lines) if "error: cannot open file '" in ln and "ocml.bc" in ln)
    assert lines[at + 1].strip().startswith(f"build: note: the device library {ocml} is damaged"), lines
    assert ocml.stat().st_size > 0  # porter left ROCm's file as it was (only the user can mend it)


def test_clangs_line_for_a_damaged_generated_library_says_porter_makes_it_again(tmp_path, monkeypatch):
    """The note for a file porter generated (its SHA-256 beside it): made again before the next build."""
    monkeypatch.setenv("PORTER_CACHE_DIR", str(tmp_path))
    folder = tmp_path / "devicelibs" / "llvm19-0123456789ab"
    folder.mkdir(parents=True)
    (folder / "oclc_isa_version_942.bc").write_bytes(b"BC\xc0\xde")
    (folder / "oclc_isa_version_942.bc.sha256").write_text("0" * 64 + "\n")
    msg = f"cannot open file '{folder}/oclc_isa_version_942.bc': Invalid encoding"
    note = devicelibs.damaged_library_note(msg)
    assert note.startswith(f"the device library {folder}/oclc_isa_version_942.bc is damaged (Invalid encoding)")
    assert "makes it again" in note
    assert devicelibs.damaged_library_note("cannot open file 'k.cpp': No such file or directory") == ""
