"""``retranslate``: a change re-translated by its region alone gives what a whole translation
gives, or it declines (None), never a different HIP.  Checked on every fix of every fixture and
sample file (fixes are what the review app re-translates), and on the cases the splice must
refuse, written from what a whole translation does there."""

from __future__ import annotations

from pathlib import Path

import pytest

from porter.findings import apply_fixes, scan
from porter.project.files import discover
from porter.translate import TranslateOptions, translate
from porter.translate.incremental import retranslate

ROOT = Path(__file__).resolve().parents[2]


def _sources() -> list[Path]:
    fixtures = sorted((ROOT / "tests" / "findings" / "fixtures").glob("*/*.cu*"))
    samples = [pf.path for pf in discover(ROOT / "sample_projects") if pf.kind == "source"]
    return fixtures + sorted(samples)


def _splice(old: bytes, new: bytes, path: str, options=TranslateOptions()):
    t_old = translate(old, path, options)
    assert not t_old.warnings
    return retranslate(old, t_old.output.decode("utf-8", "replace").splitlines(keepends=True),
                       t_old.inserted_lines, new, path, options)


def _whole(new: bytes, path: str, options=TranslateOptions()):
    t = translate(new, path, options)
    return t.output.decode("utf-8", "replace"), t.inserted_lines


def test_every_fix_of_every_fixture_and_sample_splices_to_the_whole_translation():
    spliced = declined = 0
    for p in _sources():
        data = p.read_bytes()
        if translate(data, p.name).warnings:
            continue  # (the review re-translates a file that warns whole)
        for f in scan(data, p.name):
            if not (f.fix and f.fix.edits):
                continue
            new = apply_fixes(data, [f], safe_only=False)
            got = _splice(data, new, p.name)
            if got is None:
                declined += 1
                continue
            spliced += 1
            assert ("".join(got.hip_lines), got.inserted_lines) == _whole(new, p.name), (p, f.rule, f.line)
    assert spliced > 3 * declined  # the splice is the common case, not a path that never runs


def _functions(n: int, body: str = "    out[threadIdx.x] = __shfl_down_sync(0xffffffff, v, 1);\n") -> str:
    return "".join(f"__global__ void k{i}(float* out, float v)\n{{\n{body}}}\n\n" for i in range(n))


HEAD = "#include <cuda_runtime.h>\n\n"


def test_a_change_inside_a_namespace_of_many_functions_is_spliced():
    old = (HEAD + "namespace ops {\n" + _functions(40) + "}  // namespace ops\n").encode()
    new = old.replace(b"k20(float* out, float v)\n{\n    out[threadIdx.x] = __shfl_down_sync(",
                      b"k20(float* out, float v)\n{\n    out[threadIdx.x] = __shfl_up_sync(")
    assert new != old
    got = _splice(old, new, "ops.cu")
    assert got is not None
    assert ("".join(got.hip_lines), got.inserted_lines) == _whole(new, "ops.cu")
    assert "".join(got.hip_lines).count("__shfl_up_sync(") == 1


def test_a_change_to_an_include_is_translated_whole():
    old = (HEAD + _functions(5)).encode()
    new = old.replace(b"\n\n__global__ void k3", b"\n#include <cublas_v2.h>\n__global__ void k3")
    assert _splice(old, new, "k.cu") is None


def test_the_first_device_code_of_a_host_file_is_translated_whole():
    # a host-only .cpp gets no runtime include; once a kernel appears, the whole translation inserts one
    host = "".join(f"int f{i}(int x)\n{{\n    return x + {i};\n}}\n\n" for i in range(6))
    old = ("#include <cstdio>\n\n" + host).encode()
    new = old.replace(b"int f3(int x)\n{\n    return x + 3;\n}", b"__global__ void f3(int* x)\n{\n    x[threadIdx.x] = 3;\n}")
    text, inserted = _whole(new, "h.cpp")
    assert inserted and "#include <hip/hip_runtime.h>" in text  # what the splice must not miss
    assert _splice(old, new, "h.cpp") is None


def test_a_legacy_cublas_call_added_to_a_cublas_h_file_is_not_renamed_by_the_splice():
    # with cublas.h alone, cublasSscal is the legacy API and stays (PORT178); the region alone has
    # no includes, so a splice would rename it into hipBLAS's handle API
    host = "".join(f"void f{i}(float* x, int n)\n{{\n    x[0] = n + {i};\n}}\n\n" for i in range(6))
    old = ("#include <cublas.h>\n\n" + host).encode()
    new = old.replace(b"    x[0] = n + 3;", b"    cublasSscal(n, 2.0f, x, 1);")
    text, _ = _whole(new, "h.cpp")
    assert "cublasSscal(n, 2.0f, x, 1);" in text  # what a whole translation keeps
    got = _splice(old, new, "h.cpp")
    assert got is None or "".join(got.hip_lines) == text


def test_a_change_that_opens_a_comment_is_translated_whole():
    old = (HEAD + _functions(5)).encode()
    new = old.replace(b"__global__ void k2", b"/* __global__ void k2", 1)
    assert _splice(old, new, "k.cu") is None


def test_lone_carriage_returns_are_translated_whole():
    old = (HEAD + _functions(5)).encode().replace(b"\n", b"\r")
    new = old.replace(b"__shfl_down_sync", b"__shfl_up_sync", 1)
    assert _splice(old, new, "k.cu") is None


@pytest.mark.parametrize("options", [TranslateOptions(), TranslateOptions(roc=True, kernel_launch_syntax=True)])
def test_a_launch_changed_in_a_host_function_splices_with_the_options(options):
    host = "void run(float* d)\n{\n    k1<<<1, 64>>>(d, 1.0f);\n    cudaDeviceSynchronize();\n}\n"
    old = (HEAD + _functions(6) + host + _functions(3).replace("void k", "void j")).encode()
    new = old.replace(b"k1<<<1, 64>>>(d, 1.0f);", b"k1<<<2, 64>>>(d, 2.0f);")
    got = _splice(old, new, "k.cu", options)
    assert got is not None
    assert ("".join(got.hip_lines), got.inserted_lines) == _whole(new, "k.cu", options)


def test_a_data_type_added_to_a_rocsparse_file_under_roc_gets_the_whole_files_name():
    # under --roc, CUDA_R_32F is rocsparse_datatype_f32_r in a file that calls rocSPARSE only, and
    # rocBLAS's constant elsewhere: the region alone does not name cuSPARSE
    roc = TranslateOptions(roc=True)
    host = "".join(f"void f{i}(int* x, int n)\n{{\n    x[0] = n + {i};\n}}\n\n" for i in range(6))
    old = ("#include <cusparse.h>\n\n" + host).encode()
    new = old.replace(b"    x[0] = n + 3;", b"    x[0] = (int)CUDA_R_32F;")
    text, _ = _whole(new, "s.cpp", roc)
    assert "(int)rocsparse_datatype_f32_r;" in text  # what a whole translation writes
    got = _splice(old, new, "s.cpp", roc)
    assert got is None or "".join(got.hip_lines) == text


def test_a_complex_name_added_under_roc_gets_the_whole_files_include():
    # under --roc a file's first use of HIP's complex type needs hip/hip_complex.h, which the roc*
    # headers do not bring in: an insertion the region alone cannot make
    roc = TranslateOptions(roc=True)
    host = "".join(f"void f{i}(float* x, int n)\n{{\n    x[0] = n + {i};\n}}\n\n" for i in range(6))
    old = ("#include <cusparse.h>\n\n" + host).encode()
    new = old.replace(b"    x[0] = n + 3;", b"    cuComplex c = make_cuComplex(1.0f, 0.0f); x[0] = c.x;")
    text, inserted = _whole(new, "c.cpp", roc)
    assert "#include <hip/hip_complex.h>" in text  # what a whole translation writes
    got = _splice(old, new, "c.cpp", roc)
    assert got is None or ("".join(got.hip_lines), got.inserted_lines) == (text, inserted)
