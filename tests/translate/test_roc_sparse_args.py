"""``--roc``: cuSPARSE calls whose rocSPARSE function takes other arguments get rocSPARSE's
argument list (porter/mapping/data/calls/roc_sparse_args.json, porter/translate/call_args.py).

Renaming ``cusparseDcsrmv(...)`` to ``rocsparse_dcsrmv(...)`` with CUDA's arguments made a port
that does not compile (rocsparse_dcsrmv takes a ``rocsparse_mat_info`` before x; rocsparse_?csrmm
a trans_B; the interleaved batch solvers an algorithm enumerator and a batch stride; csrgeam no
workspace; rocsparse_sparse_to_dense both the size query and the buffer).  The fixture is written
from the cuSPARSE documentation's signatures; the decisive test compiles the port against
rocSPARSE 5.3's headers."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

import killable
from porter.translate import TranslateOptions, translate
from porter.translate.call_args import load_call_args

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


@pytest.mark.hipcc
def test_ported_calls_compile_against_rocsparse(tmp_path):
    hipcc = shutil.which("hipcc")
    if hipcc is None or not ROCSPARSE_HEADER.is_file():
        if os.environ.get("PORTER_REQUIRE_HIPCC") == "1":
            pytest.fail("hipcc and librocsparse-dev are required (PORTER_REQUIRE_HIPCC=1)")
        pytest.skip("hipcc or rocSPARSE's headers (librocsparse-dev) missing: the port is not compile-checked")
    src = tmp_path / "sparse_calls.hip"
    src.write_text(_port((FIXTURES / "sparse_calls.cu").read_bytes()), encoding="utf-8")
    rc, out = killable.run([hipcc, "--offload-arch=gfx90a", "-fsyntax-only", "-x", "hip", str(src)], 180,
                           dict(os.environ, HIP_PLATFORM="amd"), "hipcc on the rocSPARSE port")
    assert rc == 0, out[-3000:]
