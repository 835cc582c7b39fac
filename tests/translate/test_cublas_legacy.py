"""Legacy cuBLAS calls (cublas.h) are not renamed into hipBLAS's handle API.

With cublas.h alone, ``cublasSscal(n, alpha, x, incx)`` is the legacy function (no handle, alpha
by value); AMD's tables give it ``hipblasSscal``, whose signature is the handle API's
(``hipblasSscal(handle, n, const float* alpha, x, incx)``), so the rename made a port that does not
compile.  With cublas_v2.h the same name is the handle API and converts as before.  Helpers with
one signature in both APIs (cublasSetVector, cublasGetVector) are renamed in both cases."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from porter.cli.main import main
from porter.translate import TranslateOptions, translate

FIXTURES = Path(__file__).with_name("fixtures_cublas")
LEGACY_CALLS = ("cublasSscal", "cublasSnrm2", "cublasIsamax")


def _port(name: str, roc: bool = False):
    path = FIXTURES / name
    return translate(path.read_bytes(), str(path), TranslateOptions(roc=roc))


def _calls(text: str, name: str) -> list[str]:
    return re.findall(rf"\b{name}\([^;]*\);", text)


def test_legacy_calls_stay_as_written_and_are_reported():
    t = _port("legacy_v1.cu")
    out = t.output.decode()
    assert _calls(out, "cublasSscal") == ["cublasSscal(n, 2.0f, d_x, 1);"]
    assert "cublasSnrm2(n, d_x, 1)" in out and "cublasIsamax(n, d_x, 1)" in out
    # no call of the handle API with the legacy arguments
    assert not re.search(r"\bhipblas(Sscal|Snrm2|Isamax)\b", out), out
    # what is the same in both APIs is still ported
    assert "#include <hipblas/hipblas.h>" in out
    assert "hipblasSetVector(n, sizeof(float), host, 1, d_x, 1);" in out
    assert "hipblasGetVector(n, sizeof(float), d_x, 1, host, 1);" in out
    assert "hipblasStatus_t status" in out and "HIPBLAS_STATUS_SUCCESS" in out
    legacy = {r.name: r for r in t.unsupported if r.status == "legacy"}
    assert sorted(legacy) == sorted(LEGACY_CALLS)
    assert legacy["cublasSscal"].hip == "hipblasSscal" and legacy["cublasSscal"].line == 13
    assert "cublas.h, not cublas_v2.h" in legacy["cublasSscal"].why
    assert "hipblasHandle_t" in legacy["cublasSscal"].alternative


def test_legacy_calls_are_not_renamed_to_rocblas_either():
    out = _port("legacy_v1.cu", roc=True).output.decode()
    assert "cublasSscal(n, 2.0f, d_x, 1);" in out and "rocblas_sscal" not in out
    assert "rocblas_set_vector(" in out


def test_handle_api_converts_as_before():
    t = _port("handle_v2.cu")
    out = t.output.decode()
    assert "hipblasSscal(handle, n, &alpha, d_x, 1);" in out
    assert "hipblasSnrm2(handle, n, d_x, 1, &norm);" in out
    assert "hipblasIsamax(handle, n, d_x, 1, &at);" in out
    assert "hipblasCreate(&handle)" in out and "hipblasSetVector(" in out
    code = "\n".join(x for x in out.splitlines() if not x.lstrip().startswith("//"))
    assert not re.search(r"\bcublas\w*\(", code), code
    assert not [r for r in t.unsupported if r.status == "legacy"]


@pytest.mark.parametrize("includes", [
    "#include <cublas_v2.h>\n#include <cublas.h>\n",  # both (CUDA rejects it): as before, the handle API
    "#include \"helpers.h\"\n",  # neither in this file: the translator cannot tell, as before
])
def test_without_cublas_h_alone_the_names_are_renamed(includes):
    src = (includes + "void f(cublasHandle_t h, float* x, int n) { float a = 2; cublasSscal(h, n, &a, x, 1); }\n").encode()
    out = translate(src, "f.cu").output.decode()
    assert "hipblasSscal(h, n, &a, x, 1);" in out


def test_convert_and_scan_say_why_the_call_is_left(tmp_path, capsys):
    src = tmp_path / "legacy_v1.cu"
    src.write_bytes((FIXTURES / "legacy_v1.cu").read_bytes())
    assert main(["convert", str(src), "-o", str(tmp_path / "out.hip")]) == 0
    summary = capsys.readouterr().out
    assert "4 unsupported" in summary  # cublasAlloc (PORT030) and the three legacy calls
    assert "cublasSscal(n, 2.0f, d_x, 1);" in (tmp_path / "out.hip").read_text()
    main(["scan", str(src)])
    scanned = capsys.readouterr().out
    line = next(x for x in scanned.splitlines() if ":13:" in x)
    assert "PORT178" in line and "`cublasSscal`" in line and "`hipblasSscal`" in line, scanned
    assert "porter left the call as written" in line


@pytest.mark.hipcc
def test_ported_handle_api_compiles_with_hipcc(hipcc_compile, hipblas_include):
    rc, out = hipcc_compile(_port("handle_v2.cu").output, "cublas_v2_port", flags=("-isystem", str(hipblas_include)))
    assert rc == 0, out[-3000:]
