"""`porter convert F -o OUT` writes the port to its temporary file a piece at a time, as it is made
(issue 34: a 200 MB file's port held whole was 200 MB more at the peak), still atomically: the
bytes on disk are those of the port made whole, the status says whether the file changed, and a
write that fails part way leaves neither a half file nor a temporary one."""


import pytest

import porter.translate.engine as engine
from porter.project.convert import ConvertOptions, convert_bytes, convert_tree
from porter.translate import TranslateOptions, translate
from porter.translate.engine import Edit, Translation
from test_full_disk import _disk_full_after  # (os.write fails with ENOSPC past a number of bytes)

# CUDA whose port differs in length from it (cuda* -> hip*, the runtime include added first)
KERNEL = (b"#include <cstdio>\n"
          b"__global__ void scale(float *x, float a) { x[blockIdx.x * blockDim.x + threadIdx.x] *= a; }\n"
          b"int main() {\n  float *d;\n  cudaMalloc(&d, 256 * sizeof(float));\n"
          b"  scale<<<1, 256>>>(d, 2.f);\n  cudaDeviceSynchronize();\n  cudaFree(d);\n}\n")
HOST_ONLY = b"#include <cstdio>\nint main() { std::puts(\"no GPU here\"); return 0; }\n"


def _big_kernel_file(copies: int) -> bytes:
    """Over a megabyte of CUDA (more than one buffer of the writer), every copy with its own names."""
    parts = [b"#include <cstdio>\n"]
    for i in range(copies):
        parts.append(b"__global__ void scale%d(float *x) { x[threadIdx.x] *= 2.f; }\n"
                     b"void run%d(float *d) {\n  cudaMemset(d, 0, 1024);\n  scale%d<<<1, 256>>>(d);\n"
                     b"  cudaDeviceSynchronize();\n}\n" % (i, i, i))
    return b"".join(parts)


@pytest.fixture
def port_never_made_whole(monkeypatch):
    """Making the port whole fails: a conversion that succeeds streamed it."""
    def whole(*_a, **_k):
        raise AssertionError("the port was made whole")

    monkeypatch.setattr(engine, "_apply_sorted", whole)


def _made_whole(data: bytes, name: str) -> bytes:
    return convert_bytes(data, name, ConvertOptions(findings=False))[0]


@pytest.mark.parametrize("findings", [False, True], ids=["quiet", "findings"])
def test_the_port_on_disk_is_written_without_making_it_whole(tmp_path, monkeypatch, findings):
    data = _big_kernel_file(9000)
    assert len(data) > 1 << 20
    src = tmp_path / "big.cu"
    src.write_bytes(data)
    expected = _made_whole(data, "big.cu")
    assert b"hipMemset(d, 0, 1024);" in expected and b"cudaMemset" not in expected
    monkeypatch.setattr(engine, "_apply_sorted", lambda *a, **k: pytest.fail("the port was made whole"))
    report = convert_tree(src, tmp_path / "out.cu", ConvertOptions(findings=findings))
    assert report.exit_code == 0 and report.files[0].status == "converted"
    assert (tmp_path / "out.cu").read_bytes() == expected
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big.cu", "out.cu"]  # no temporary file left


def test_a_tree_s_ports_are_streamed_and_a_file_without_cuda_is_unchanged(tmp_path, port_never_made_whole):
    src = tmp_path / "proj"
    src.mkdir()
    (src / "k.cu").write_bytes(KERNEL)
    (src / "host.cpp").write_bytes(HOST_ONLY)
    report = convert_tree(src, tmp_path / "out", ConvertOptions(findings=False, jobs=1))
    status = {f.rel: f.status for f in report.files}
    assert status == {"k.cu": "converted", "host.cpp": "unchanged"}
    port = (tmp_path / "out" / "k.cu").read_bytes()
    assert port.startswith(b"#include <hip/hip_runtime.h>\n") and b"hipMalloc(&d" in port and b"cuda" not in port
    assert (tmp_path / "out" / "host.cpp").read_bytes() == HOST_ONLY


def test_a_disk_that_fills_part_way_leaves_no_half_port(tmp_path, monkeypatch):
    data = _big_kernel_file(9000)
    src = tmp_path / "big.cu"
    src.write_bytes(data)
    _disk_full_after(monkeypatch, (1 << 20) + 4096)  # the first buffer goes, the second does not
    report = convert_tree(src, tmp_path / "out.cu", ConvertOptions(findings=False))
    assert report.exit_code == 1
    assert report.files[0].status == "error" and report.files[0].message == "cannot write: No space left on device"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big.cu"]


def test_a_conversion_that_fails_while_streaming_writes_nothing(tmp_path, monkeypatch):
    src = tmp_path / "k.cu"
    src.write_bytes(KERNEL)
    (tmp_path / "out.cu").write_bytes(b"an earlier port\n")

    def broken(self, write):
        write(b"#include <hip/hip_runtime.h>\n")
        raise ValueError("overlapping edits at byte 7")

    monkeypatch.setattr(Translation, "write_output", broken)
    report = convert_tree(src, tmp_path / "out.cu", ConvertOptions(findings=False))
    assert report.files[0].status == "error"
    assert report.files[0].message == "internal error: ValueError: overlapping edits at byte 7"
    assert (tmp_path / "out.cu").read_bytes() == b"an earlier port\n"  # the old file, whole
    assert sorted(p.name for p in tmp_path.iterdir()) == ["k.cu", "out.cu"]


SOURCE = b"int a = cudaSuccess; // done\n"


@pytest.mark.parametrize("edits, changed", [
    ([], False),
    ([Edit(8, 19, b"cudaSuccess")], False),  # the same bytes put back
    ([Edit(4, 5, b""), Edit(5, 5, b"a")], False),  # a byte taken out and put back: the same text
    ([Edit(8, 12, b"hip")], True),  # shorter
    ([Edit(8, 12, b"HIPx")], True),  # same length, other bytes
    ([Edit(0, 0, b"#include <x>\n")], True),
    ([Edit(0, 0, b"int"), Edit(0, 3, b"")], False),  # "int" inserted, "int" removed
    ([Edit(27, 29, b"")], True),  # the end cut off
])
def test_write_output_hands_over_the_port_and_says_whether_it_differs(edits, changed):
    t = Translation(SOURCE, None, edits, _sorted_edits=True)
    pieces = []
    got = t.write_output(pieces.append)
    assert b"".join(bytes(p) for p in pieces) == engine.apply_edits(SOURCE, edits)
    assert got is changed
    assert t.output == engine.apply_edits(SOURCE, edits) and t.changed is changed


def test_the_output_made_on_first_read_is_the_streamed_port():
    t = translate(KERNEL, "k.cu", TranslateOptions())
    pieces = []
    assert t.write_output(pieces.append) is True
    assert b"".join(bytes(p) for p in pieces) == t.output
    assert b"hipDeviceSynchronize();" in t.output and t.output.startswith(b"#include <hip/hip_runtime.h>\n")
