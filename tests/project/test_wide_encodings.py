"""UTF-16 and UTF-32 sources (Visual Studio saves files as UTF-16LE with a byte-order mark): scan and
convert read them, say so, and write the port back in the same encoding; one that does not decode,
or a UTF-16 file without a mark (NUL bytes), is reported as unreadable with exit 1 by both commands,
so a `scan --fail-on error` gate cannot pass on a file it never read."""

import subprocess
import sys

import pytest

from porter.project.convert import ConvertOptions, convert_tree
from porter.project.scan import scan_path

# an inline PTX statement: an error finding (PORT001) in any encoding
CODE = ('#include <cuda_runtime.h>\r\n// r\u00e9sum\u00e9: \u8a08\u7b97\r\n'
        '__global__ void k(int* a) { asm("mov.u32 %0, %laneid;" : "=r"(a[0])); }\r\n'
        'void f() { cudaFree(0); }\r\n')
NAMES = {"utf-16-le": "UTF-16LE", "utf-16-be": "UTF-16BE", "utf-32-le": "UTF-32LE", "utf-32-be": "UTF-32BE"}
ENCODINGS = list(NAMES)


def porter(*args):
    return subprocess.run([sys.executable, "-m", "porter", *map(str, args)], capture_output=True, timeout=120)


def _write(path, text, encoding):
    path.write_bytes(("\ufeff" + text).encode(encoding))
    return path


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_scan_reads_a_wide_file_and_its_gate_fails(tmp_path, encoding):
    f = _write(tmp_path / "k.cu", CODE, encoding)
    r = porter("scan", f, "--fail-on", "error")
    assert r.returncode == 1
    out = r.stdout.decode()
    assert f"{f}:3:" in out and "PORT001" in out  # the same line as in the UTF-8 file
    assert r.stderr.decode() == f"porter: note: {f}: read as {NAMES[encoding]} (byte-order mark)\n"


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_convert_writes_the_port_back_in_the_same_encoding(tmp_path, encoding):
    f = _write(tmp_path / "k.cu", CODE, encoding)
    r = porter("convert", f)
    assert r.returncode == 0
    expected = "\ufeff" + CODE.replace("<cuda_runtime.h>", "<hip/hip_runtime.h>").replace("cudaFree", "hipFree")
    assert r.stdout == expected.encode(encoding)
    assert r.stderr.decode() == f"porter: warning: k.cu: read as {NAMES[encoding]} (byte-order mark), written back as {NAMES[encoding]}\n"


def test_tree_convert_of_a_utf16_file_matches_the_utf8_port(tmp_path):
    src = tmp_path / "p"
    src.mkdir()
    _write(src / "wide.cu", CODE, "utf-16-le")
    (src / "narrow.cu").write_bytes(("\ufeff" + CODE).encode("utf-8"))
    report = convert_tree(src, tmp_path / "out", ConvertOptions(findings=False, jobs=1))
    assert report.exit_code == 0
    wide = (tmp_path / "out" / "wide.cu").read_bytes()
    narrow = (tmp_path / "out" / "narrow.cu").read_bytes()
    assert wide.startswith(b"\xff\xfe") and wide.decode("utf-16-le") == narrow.decode("utf-8")
    assert b"hipFree" in narrow


@pytest.mark.parametrize("data, reason", [
    (b"\xff\xfe" + "int x;".encode("utf-16-le") + b"\x00", "starts with a UTF-16LE byte-order mark but is not UTF-16LE text"),
    (b"\xfe\xff\xd8\x00\x00x", "starts with a UTF-16BE byte-order mark but is not UTF-16BE text"),  # a lone surrogate
    ("void f() { cudaFree(0); }\n".encode("utf-16-le"), "binary file (NUL bytes)"),  # no mark: not guessed
])
def test_undecodable_files_are_unreadable_in_both_commands(tmp_path, data, reason):
    (tmp_path / "src").mkdir()
    f = tmp_path / "src" / "bad.cu"
    f.write_bytes(data)
    r = porter("scan", f, "--fail-on", "error")
    assert r.returncode == 1 and r.stderr.decode().startswith(f"porter: {f}: {reason}")
    assert r.stderr.count(b"\n") == 1
    r = porter("convert", f, "-o", tmp_path / "out.cu")
    assert r.returncode == 1 and reason in r.stderr.decode() and r.stderr.count(b"\n") == 1
    result = scan_path(tmp_path / "src", jobs=1)
    assert result.files == 0 and [rel for rel, _ in result.errors] == ["bad.cu"]
