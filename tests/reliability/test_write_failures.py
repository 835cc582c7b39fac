"""Issue 33 items 12-13: a build that cannot write its state is one line (and a --json report), never a
traceback; a legal 254-byte file name converts (porter's temporary name fits NAME_MAX)."""

import json

from reliability_helpers import need, porter


def test_build_state_that_cannot_be_written_is_one_line_and_a_json_report(tmp_path):
    need("hipcc")
    tree = tmp_path / "port"
    tree.mkdir()
    (tree / "m.cpp").write_text("#include <hip/hip_runtime.h>\nint main() { return 0; }\n")
    (tree / ".porter").write_text("")  # where porter keeps its build state is a file: no folder can be made
    r = porter("build", str(tree), "--arch", "gfx90a", "--json", cwd=tmp_path)
    assert r.returncode == 1
    assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    report = json.loads(r.stdout)
    assert report["ok"] is False and "cannot write" in report["error"]


def test_a_254_byte_file_name_converts(tmp_path):
    src = tmp_path / "p"
    src.mkdir()
    name = "k" * 251 + ".cu"  # 254 bytes: legal on Linux file systems (NAME_MAX 255)
    (src / name).write_text("__global__ void k() {}\nint main() { cudaFree(0); return 0; }\n")
    r = porter("convert", str(src), "-o", str(tmp_path / "o"), "--no-findings", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert b"hipFree(0)" in (tmp_path / "o" / name).read_bytes()
