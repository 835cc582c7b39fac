"""``--roc``: cuSPARSE calls whose rocSPARSE function takes other arguments get rocSPARSE's
argument list (porter/mapping/data/calls/roc_sparse_args.json, porter/translate/call_args.py).

Renaming ``cusparseDcsrmv(...)`` to ``rocsparse_dcsrmv(...)`` with CUDA's arguments made a port
that does not compile (rocsparse_dcsrmv takes a ``rocsparse_mat_info`` before x; rocsparse_?csrmm
a trans_B; the interleaved batch solvers an algorithm enumerator and a batch stride; csrgeam no
workspace; rocsparse_sparse_to_dense both the size query and the buffer); and complex calls passed
HIP's hipComplex* / hipDoubleComplex* where rocSPARSE takes rocsparse_float_complex* /
rocsparse_double_complex*, which hipcc rejects ("no known conversion"): porter casts each one.  The
fixtures are written from the cuSPARSE documentation's signatures; the decisive tests compile the
ports against rocSPARSE 5.3's headers."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

import killable
from porter.translate import TranslateOptions, call_args, translate
from porter.translate.call_args import CallArgs, load_call_args

FIXTURES = Path(__file__).with_name("fixtures_roc_sparse")
ROCSPARSE_HEADER = Path("/usr/include/rocsparse/rocsparse.h")


def _port(text: bytes, roc: bool = True) -> str:
    return translate(text, "t.cu", TranslateOptions(roc=roc)).output.decode()


def _call(out: str, name: str) -> list[str]:
    """The argument lists of the calls of ``name``, blanks folded."""
    return [" ".join(m.split()) for m in re.findall(rf"\b{name}\(([^;]*)\);", out)]


def test_each_shape_gets_rocsparse_arguments():
    out = _port((FIXTURES / "sparse_calls.cu").read_bytes())
    # csrmv: no analysis step, so rocSPARSE's info is NULL (the general routine)
    assert _call(out, "rocsparse_dcsrmv") == [
        "handle, rocsparse_operation_none, m, n, nnz, alpha, descrA, csrVal, csrRowPtr, csrColInd, nullptr, x, beta, y"]
    # legacy csrmm computes op(A)*B: B is not transposed
    assert _call(out, "rocsparse_dcsrmm") == [
        "handle, rocsparse_operation_none, rocsparse_operation_none, m, n, k, nnz, alpha, descrA, csrVal, csrRowPtr, "
        "csrColInd, B, ldb, beta, C, ldc"]
    # csrgeam takes no workspace
    assert _call(out, "rocsparse_scsrgeam")[0].endswith("descrC, valC, rowC, colC")
    assert _call(out, "rocsparse_csrgeam_nnz")[0].endswith("descrC, rowC, nnzC")
    # interleaved layout: the stride between a system's entries is batchCount; algo 1 (LU) is rocSPARSE's lu (2)
    assert _call(out, "rocsparse_sgtsv_interleaved_batch") == [
        "handle, static_cast<rocsparse_gtsv_interleaved_alg>((1) + 1), m, dl, d, du, x, batchCount, batchCount, buffer"]
    assert _call(out, "rocsparse_sgpsv_interleaved_batch_buffer_size") == [
        "handle, static_cast<rocsparse_gpsv_interleaved_alg>((0) + 1), m, ds, dl, d, du, dw, x, batchCount, batchCount, &size"]
    # one rocSPARSE function answers the size query (no buffer) and computes (no size)
    assert _call(out, "rocsparse_sparse_to_dense") == [
        "handle, matA, matB, rocsparse_sparse_to_dense_alg_default, &bufferSize, nullptr",
        "handle, matA, matB, rocsparse_sparse_to_dense_alg_default, nullptr, dBuffer"]


def test_commas_and_brackets_in_comments_and_literals_are_not_arguments():
    src = (b'#include <cusparse.h>\n'
           b'void f(cusparseHandle_t h, cusparseSpMatDescr_t A, cusparseDnMatDescr_t B, void* buf, void** bufs) {\n'
           b'  cusparseSparseToDense(h, /* A, (B) */ A, B, CUSPARSE_SPARSETODENSE_ALG_DEFAULT,\n'
           b'                        bufs[g(",)", 1)]);\n'
           b'}\n')
    out = _port(src)
    # (the inserted argument goes after the argument before it)
    assert ('rocsparse_sparse_to_dense(h, /* A, (B) */ A, B, rocsparse_sparse_to_dense_alg_default, nullptr,\n'
            '                        bufs[g(",)", 1)]);') in out, out


def test_a_call_with_another_argument_count_is_left_as_written():
    # a project macro that supplies arguments itself: not CUDA's signature, so nothing is guessed
    src = (b'#include <cusparse.h>\n#define ARGS h, A, B, CUSPARSE_SPARSETODENSE_ALG_DEFAULT, buf\n'
           b'void f(cusparseHandle_t h, cusparseSpMatDescr_t A, cusparseDnMatDescr_t B, void* buf) {\n'
           b'  cusparseSparseToDense(ARGS);\n}\n')
    out = _port(src)
    assert "rocsparse_sparse_to_dense(ARGS);" in out


def test_without_roc_the_port_keeps_cusparse_arguments():
    out = _port((FIXTURES / "sparse_calls.cu").read_bytes(), roc=False)
    assert "nullptr, x, beta, y" not in out and "batchCount, batchCount" not in out
    assert _call(out, "hipsparseSparseToDense") == [
        "handle, matA, matB, HIPSPARSE_SPARSETODENSE_ALG_DEFAULT, dBuffer"]


def test_int_buffer_sizes_get_no_cast():
    # cusparseScsrsv2_bufferSize writes an int; rocsparse_scsrsv_buffer_size a size_t: casting the
    # int's address would write 8 bytes into 4, so the data holds no edit for it and the call stays
    fact = load_call_args()["cusparseScsrsv2_bufferSize"]
    assert fact.args is None and fact.differs == "int_size"
    src = (b'#include <cusparse.h>\nvoid f(cusparseHandle_t h, cusparseMatDescr_t d, float* v, int* r, int* c,\n'
           b'  csrsv2Info_t info, int n, int nnz) {\n  int size;\n'
           b'  cusparseScsrsv2_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, n, nnz, d, v, r, c, info, &size);\n}\n')
    out = _port(src)
    assert "reinterpret_cast" not in out and "info, &size);" in out


def test_complex_pointers_are_cast_to_rocsparse_complex():
    out = _port((FIXTURES / "complex_calls.cu").read_bytes())
    zc, cc = "rocsparse_double_complex", "rocsparse_float_complex"
    # inputs (const in rocSPARSE) keep const, outputs do not; the scalars' addresses are cast as they are
    assert _call(out, "rocsparse_zcsrmv") == [
        f"handle, rocsparse_operation_none, m, n, nnz, reinterpret_cast<const {zc}*>(&alpha), descrA, "
        f"reinterpret_cast<const {zc}*>(csrVal), csrRowPtr, csrColInd, nullptr, reinterpret_cast<const {zc}*>(x), "
        f"reinterpret_cast<const {zc}*>(&beta), reinterpret_cast<{zc}*>(y)"]
    # gemvi: the parameter lists match but for the complex types
    assert _call(out, "rocsparse_cgemvi") == [
        f"handle, rocsparse_operation_none, m, n, reinterpret_cast<const {cc}*>(&alpha), "
        f"reinterpret_cast<const {cc}*>(A), lda, nnz, reinterpret_cast<const {cc}*>(xVal), xInd, "
        f"reinterpret_cast<const {cc}*>(&beta), reinterpret_cast<{cc}*>(y), rocsparse_index_base_zero, buffer"]
    # with the other edits: the workspace dropped, the algorithm and the duplicated batch count
    assert _call(out, "rocsparse_zcsrgeam")[0].endswith(f"descrC, reinterpret_cast<{zc}*>(valC), rowC, colC")
    assert _call(out, "rocsparse_cgtsv_interleaved_batch") == [
        "handle, static_cast<rocsparse_gtsv_interleaved_alg>((0) + 1), m, "
        + ", ".join(f"reinterpret_cast<{cc}*>({v})" for v in ("dl", "d", "du", "x"))
        + ", batchCount, batchCount, buffer"]
    assert f"reinterpret_cast<const {cc}*>(dl)" in _call(out, "rocsparse_cgtsv_interleaved_batch_buffer_size")[0]
    # without --roc hipSPARSE takes hipDoubleComplex*: nothing is cast
    assert "reinterpret_cast" not in _port((FIXTURES / "complex_calls.cu").read_bytes(), roc=False)


def test_a_null_pointer_constant_is_not_cast():
    # reinterpret_cast<const rocsparse_double_complex*>(nullptr) does not compile; nullptr converts as it is
    src = (b'#include <cusparse.h>\nvoid f(cusparseHandle_t h, cusparseMatDescr_t d, const cuDoubleComplex* a,\n'
           b'  const cuDoubleComplex* v, const int* r, const int* c, const cuDoubleComplex* x, cuDoubleComplex* y) {\n'
           b'  cusparseZcsrmv(h, CUSPARSE_OPERATION_NON_TRANSPOSE, 4, 4, 8, a, d, v, r, c, x, ( NULL ), y);\n'
           b'  cusparseZcsrmv(h, CUSPARSE_OPERATION_NON_TRANSPOSE, 4, 4, 8, nullptr, d, v, r, c, x, 0, y);\n}\n')
    calls = _call(_port(src), "rocsparse_zcsrmv")
    assert "nullptr, reinterpret_cast<const rocsparse_double_complex*>(x), ( NULL ), reinterpret_cast" in calls[0]
    assert calls[1].startswith("h, rocsparse_operation_none, 4, 4, 8, nullptr, d, reinterpret_cast")
    assert "(x), 0, reinterpret_cast<rocsparse_double_complex*>(y)" in calls[1]


def test_a_duplicated_wrapped_argument_is_wrapped_both_times(monkeypatch):
    # no rocSPARSE function in the data duplicates a complex pointer (only interleaved batch counts are
    # duplicated), but the edit composes: each copy carries its wrapping and the renames inside it
    real = load_call_args()["cusparseCgtsvInterleavedBatch"]
    cast = {"arg": 3, "format": "reinterpret_cast<rocsparse_float_complex*>({})", "keep_null": True}
    fact = real._replace(args=real.args[:3] + (cast, cast) + real.args[4:])
    monkeypatch.setattr(call_args, "load_call_args", lambda: {"cusparseCgtsvInterleavedBatch": fact})
    monkeypatch.setattr(call_args, "names", lambda: frozenset({"cusparseCgtsvInterleavedBatch"}))
    src = (b'#include <cusparse.h>\nvoid f(cusparseHandle_t h, void* p, cuComplex* d, cuComplex* du, cuComplex* x,\n'
           b'  int n, void* buf) {\n  cusparseCgtsvInterleavedBatch(h, 0, 8, (cuComplex*)p, d, du, x, n, buf);\n}\n')
    dl = "reinterpret_cast<rocsparse_float_complex*>((hipComplex*)p)"
    assert _call(_port(src), "rocsparse_cgtsv_interleaved_batch")[0].startswith(
        f"h, static_cast<rocsparse_gtsv_interleaved_alg>((0) + 1), 8, {dl}, {dl}, reinterpret_cast")


def _syntax_check(tmp_path, fixture: str) -> None:
    hipcc = shutil.which("hipcc")
    if hipcc is None or not ROCSPARSE_HEADER.is_file():
        if os.environ.get("PORTER_REQUIRE_HIPCC") == "1":
            pytest.fail("hipcc and librocsparse-dev are required (PORTER_REQUIRE_HIPCC=1)")
        pytest.skip("hipcc or rocSPARSE's headers (librocsparse-dev) missing: the port is not compile-checked")
    src = tmp_path / Path(fixture).with_suffix(".hip").name
    src.write_text(_port((FIXTURES / fixture).read_bytes()), encoding="utf-8")
    rc, out = killable.run([hipcc, "--offload-arch=gfx90a", "-fsyntax-only", "-x", "hip", str(src)], 180,
                           dict(os.environ, HIP_PLATFORM="amd"), "hipcc on the rocSPARSE port")
    assert rc == 0, out[-3000:]


@pytest.mark.hipcc
def test_ported_calls_compile_against_rocsparse(tmp_path):
    _syntax_check(tmp_path, "sparse_calls.cu")


@pytest.mark.hipcc
def test_ported_complex_calls_compile_against_rocsparse(tmp_path):
    # csrmv, csrmm, gemvi, csrgeam2, gtsv/gpsv interleaved, cuComplex and cuDoubleComplex, &alpha/&beta
    _syntax_check(tmp_path, "complex_calls.cu")
