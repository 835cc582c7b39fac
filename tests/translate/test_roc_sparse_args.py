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
from porter.mapping.roc_sparse_args import CallArgs, load_call_args
from required_tools import require

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
    monkeypatch.setattr(call_args, "plans", lambda roc, target: {"cusparseCgtsvInterleavedBatch": (fact.cuda_args, fact.args, fact)})
    src = (b'#include <cusparse.h>\nvoid f(cusparseHandle_t h, void* p, cuComplex* d, cuComplex* du, cuComplex* x,\n'
           b'  int n, void* buf) {\n  cusparseCgtsvInterleavedBatch(h, 0, 8, (cuComplex*)p, d, du, x, n, buf);\n}\n')
    dl = "reinterpret_cast<rocsparse_float_complex*>((hipComplex*)p)"
    assert _call(_port(src), "rocsparse_cgtsv_interleaved_batch")[0].startswith(
        f"h, static_cast<rocsparse_gtsv_interleaved_alg>((0) + 1), 8, {dl}, {dl}, reinterpret_cast")


def _syntax_check(tmp_path, fixture: str) -> None:
    hipcc = shutil.which("hipcc")
    require(hipcc is not None and ROCSPARSE_HEADER.is_file(), "hipcc or rocSPARSE's headers (librocsparse-dev) missing: the port is not compile-checked")
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


def test_triangular_solves_pass_rocsparse_policies_and_info():
    cuda = (FIXTURES / "triangular_solves.cu").read_text(encoding="utf-8")
    out = _port(cuda.encode())
    # csrsv2's info object is rocSPARSE's rocsparse_mat_info (AMD's tables say rocsparse_mat_descr, which no
    # csrsv call takes), created and destroyed as one
    assert "rocsparse_mat_info info;" in out and "rocsparse_mat_descr info" not in out
    assert "rocsparse_create_mat_info(&info);" in out and "rocsparse_destroy_mat_info(info);" in out
    # the analysis analyses (force), the one solve policy is rocSPARSE's only value
    assert _call(out, "rocsparse_scsrsv_analysis") == [
        "handle, rocsparse_operation_none, m, nnz, descr, val, rowPtr, colInd, info, "
        "rocsparse_analysis_policy_force, rocsparse_solve_policy_auto, buffer"]
    assert _call(out, "rocsparse_scsrsv_solve")[0].endswith("info, f, x, rocsparse_solve_policy_auto, buffer")
    # csrsm2's algo (1: the block version) is not passed: rocSPARSE picks its own
    for fn in ("rocsparse_dcsrsm_buffer_size", "rocsparse_dcsrsm_analysis", "rocsparse_dcsrsm_solve"):
        assert _call(out, fn)[0].startswith("handle, rocsparse_operation_none, rocsparse_operation_none, m, nrhs"), fn
    assert _call(out, "rocsparse_dcsrsm_analysis")[0].endswith(
        "info, rocsparse_analysis_policy_force, rocsparse_solve_policy_auto, buffer")
    assert _call(out, "rocsparse_scsrilu0_analysis")[0].endswith(
        "rocsparse_analysis_policy_force, rocsparse_solve_policy_auto, buffer")
    assert _call(out, "rocsparse_sbsrsv_analysis")[0].endswith(
        "binfo, rocsparse_analysis_policy_force, rocsparse_solve_policy_auto, buffer")
    # the policy is written where the argument was: no line moves
    assert len(out.splitlines()) == len(cuda.splitlines())


def test_a_policy_with_a_side_effect_leaves_the_call_as_written():
    src = (b"#include <cusparse.h>\ncusparseSolvePolicy_t next();\n"
           b"void f(cusparseHandle_t h, cusparseMatDescr_t d, const float* v, const int* r, const int* c, "
           b"csrilu02Info_t i, void* b) {\n"
           b"  cusparseScsrilu02_analysis(h, 4, 8, d, v, r, c, i, next(), b);\n"
           b"  cusparseScsrilu02_analysis(h, 4, 8, d, v, r, c, i, CUSPARSE_SOLVE_POLICY_NO_LEVEL, b);\n}\n")
    # the first would lose its call of next(): renamed only (PORT179 reports it); the second is rewritten
    assert _call(_port(src), "rocsparse_scsrilu0_analysis") == [
        "h, 4, 8, d, v, r, c, i, next(), b",
        "h, 4, 8, d, v, r, c, i, rocsparse_analysis_policy_force, rocsparse_solve_policy_auto, b"]


@pytest.mark.hipcc
def test_ported_triangular_solves_compile_against_rocsparse(tmp_path):
    # csrsv2 (its info object included), csrsm2 with algo, csrilu02, bsrsv2: 10 errors before porter wrote
    # rocSPARSE's policies and info type
    _syntax_check(tmp_path, "triangular_solves.cu")


def _roc_parameter_names(function: str) -> list[str]:
    """rocSPARSE's parameter names of ``function``, read from rocsparse-functions.h itself."""
    header = ROCSPARSE_HEADER.with_name("rocsparse-functions.h")
    require(header.is_file(), "rocSPARSE's headers (librocsparse-dev) missing")
    text = re.sub(r"/\*.*?\*/|//[^\n]*", " ", header.read_text(encoding="utf-8"), flags=re.S)
    m = re.search(rf"\brocsparse_status\s+{function}\s*\(([^;]*)\)\s*;", text)
    assert m, function
    return [re.findall(r"\w+", p)[-1] for p in m.group(1).split(",")]


def _uncast(argument: str) -> str:
    m = re.fullmatch(r"reinterpret_cast<(?:const )?rocsparse_(?:float|double)_complex\*>\((\w+)\)", argument)
    return m.group(1) if m else argument


# Each CUDA call passes variables named as rocSPARSE names the parameter each one is (written in
# cuSPARSE's order, from cusparse.h 12.5 and, for the legacy csc2dense, hipSPARSE's mirror of it), so
# the port's argument list must be rocSPARSE's parameter list, name for name.
_ORDER_CALLS = {
    # cusparse?csr2csr_compress(handle, m, n, descrA, csrValA, csrColIndA, csrRowPtrA, nnzA, nnzPerRow,
    #                           csrValC, csrColIndC, csrRowPtrC, tol)
    "cusparseDcsr2csr_compress": ("double", "rocsparse_dcsr2csr_compress",
                                  "handle, m, n, descr_A, csr_val_A, csr_col_ind_A, csr_row_ptr_A, nnz_A, nnz_per_row, "
                                  "csr_val_C, csr_col_ind_C, csr_row_ptr_C, tol"),
    "cusparseZcsr2csr_compress": ("cuDoubleComplex", "rocsparse_zcsr2csr_compress",
                                  "handle, m, n, descr_A, csr_val_A, csr_col_ind_A, csr_row_ptr_A, nnz_A, nnz_per_row, "
                                  "csr_val_C, csr_col_ind_C, csr_row_ptr_C, tol"),
    # cusparse?csc2dense(handle, m, n, descrA, cscVal, cscRowInd, cscColPtr, A, lda)
    "cusparseScsc2dense": ("float", "rocsparse_scsc2dense", "handle, m, n, descr, csc_val, csc_row_ind, csc_col_ptr, A, ld"),
    "cusparseCcsc2dense": ("cuComplex", "rocsparse_ccsc2dense",
                           "handle, m, n, descr, csc_val, csc_row_ind, csc_col_ptr, A, ld"),
    # cusparse?dense2csc(handle, m, n, descrA, A, lda, nnzPerCol, cscVal, cscRowInd, cscColPtr)
    "cusparseDdense2csc": ("double", "rocsparse_ddense2csc",
                           "handle, m, n, descr, A, ld, nnz_per_columns, csc_val, csc_row_ind, csc_col_ptr"),
}


@pytest.mark.parametrize("cuda", sorted(_ORDER_CALLS))
def test_index_arrays_are_passed_in_rocsparse_order(cuda):
    value, roc, args = _ORDER_CALLS[cuda]
    declared = ", ".join(f"{'int' if n in ('m', 'n', 'nnz_A', 'ld') else value + '*'} {n}"
                         for n in args.split(", ")[1:] if n not in ("descr", "descr_A", "tol"))
    src = (f"#include <cusparse.h>\nvoid f(cusparseHandle_t handle, cusparseMatDescr_t descr_A, cusparseMatDescr_t descr, "
           f"{value} tol, {declared}) {{\n    {cuda}({args});\n}}\n").encode()
    (ported,) = _call(_port(src), roc)
    assert [_uncast(a) for a in ported.split(", ")] == _roc_parameter_names(roc), ported
    # the complex pointers are still cast, by their (rocSPARSE) position
    if "Complex" in value:
        assert "_complex*>(csc_val)" in ported or "_complex*>(csr_val_A)" in ported


def test_the_index_order_fixture_ports_with_rocsparse_order():
    out = _port((FIXTURES / "index_order.cu").read_bytes())
    assert _call(out, "rocsparse_dcsr2csr_compress") == [
        "handle, m, n, descrA, valA, rowPtrA, colIndA, nnzA, nnzPerRow, valC, rowPtrC, colIndC, 1e-12"]
    assert _call(out, "rocsparse_scsc2dense") == ["handle, m, n, descrA, cscVal, cscColPtr, cscRowInd, A, lda"]
    assert _call(out, "rocsparse_sdense2csc") == [
        "handle, m, n, descrA, A, lda, nnzPerCol, outVal, outColPtr, outRowInd"]
    zc = "rocsparse_double_complex"
    assert _call(out, "rocsparse_zdense2csc") == [
        f"handle, m, n, descrA, reinterpret_cast<const {zc}*>(zA), lda, nnzPerCol, reinterpret_cast<{zc}*>(zVal), "
        "outColPtr, outRowInd"]
    assert not any(f.differs == "order" for f in load_call_args().values())  # every such function paired


@pytest.mark.hipcc
def test_ported_index_order_calls_compile_against_rocsparse(tmp_path):
    _syntax_check(tmp_path, "index_order.cu")


def test_a_move_composes_with_insertions_drops_duplicates_and_wrapping(monkeypatch):
    # a made-up plan over csc2dense's 9 arguments: a constant inserted after the first, the fourth
    # wrapped in place, the fifth and sixth swapped (the sixth wrapped, the fifth written twice), the
    # last dropped; the renames inside a moved argument (and a comment in it) move with it, those of the
    # replaced text go
    plan = ({"arg": 0}, {"text": "nullptr"}, {"arg": 1}, {"arg": 2}, {"arg": 3}, {"arg": 4, "format": "W({})"},
            {"arg": 6}, {"arg": 5, "format": "V({})"}, {"arg": 6}, {"arg": 7})
    fact = CallArgs("rocsparse_scsc2dense", 9, plan, "made up", "", ())
    monkeypatch.setattr(call_args, "plans", lambda roc, target: {"cusparseScsc2dense": (fact.cuda_args, fact.args, fact)})
    src = (b'#include <cusparse.h>\nvoid f(cusparseHandle_t h, cusparseMatDescr_t d, float* v, void* p, void* q,\n'
           b'  float* A, int lda) {\n'
           b'  cusparseScsc2dense(h, 4, 4, d, v, (cuComplex*)p, /* c */ (cuDoubleComplex*)q, A, lda);\n}\n')
    assert _call(_port(src), "rocsparse_scsc2dense") == [
        "h, nullptr, 4, 4, d, W(v), /* c */ (hipDoubleComplex*)q, V((hipComplex*)p), /* c */ (hipDoubleComplex*)q, A"]


def _generator():
    import importlib.util

    path = Path(__file__).resolve().parents[2] / "scripts" / "gen_roc_sparse_args.py"
    spec = importlib.util.spec_from_file_location("gen_roc_sparse_args", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_generator_pairs_index_arrays_by_name_or_keeps_order():
    gen = _generator()
    types = {"int": "rocsparse_int"}
    # cuSPARSE (cols, rows) against rocSPARSE (rows, cols), the same types: the k-th row array goes to
    # rocSPARSE's k-th row slot
    cuda = [("int", "n"), ("int*", "csrColIndA"), ("int*", "csrRowPtrA"), ("float*", "v")]
    roc = [("rocsparse_int", "n"), ("rocsparse_int*", "csr_row_ptr"), ("rocsparse_int*", "csr_col_ind"),
           ("float*", "v")]
    plan, why = gen.edits_for("cusparseXf", "rocsparse_xf", cuda, roc, set(), types, None, "cusparse.h")
    assert plan == [{"arg": 0}, {"arg": 2}, {"arg": 1}, {"arg": 3}]
    assert "csr_row_ptr, csr_col_ind in rocsparse-functions.h, csrColIndA, csrRowPtrA in cusparse.h" in why
    # another position that does not line up by type: no plan, recorded as "order"
    odd = roc[:3] + [("double*", "v")]
    assert gen.edits_for("cusparseXf", "rocsparse_xf", cuda, odd, set(), types) == (None, "order")
    # another length: not paired
    longer = roc + [("rocsparse_int", "extra")]
    assert gen.edits_for("cusparseXf", "rocsparse_xf", cuda, longer, set(), types) == (None, "order")


def test_the_generator_writes_rocsparse_policies():
    gen = _generator()
    types = {"int": "rocsparse_int", "cusparseSolvePolicy_t": "rocsparse_solve_policy",
             "csrsm2Info_t": "rocsparse_mat_info", "cusparseHandle_t": "rocsparse_handle"}
    # an analysis call: one policy in cuSPARSE, an analysis and a solve policy in rocSPARSE
    cuda = [("cusparseHandle_t", "handle"), ("int", "m"), ("csrsm2Info_t", "info"),
            ("cusparseSolvePolicy_t", "policy"), ("void*", "pBuffer")]
    roc = [("rocsparse_handle", "handle"), ("rocsparse_int", "m"), ("rocsparse_mat_info", "info"),
           ("rocsparse_analysis_policy", "analysis"), ("rocsparse_solve_policy", "solve"), ("void*", "temp_buffer")]
    plan, why = gen.edits_for("cusparseXf_analysis", "rocsparse_xf_analysis", cuda, roc, set(), types)
    assert plan == [{"arg": 0}, {"arg": 1}, {"arg": 2}, {"text": "rocsparse_analysis_policy_force"},
                    {"text": "rocsparse_solve_policy_auto", "replaces": 3}, {"arg": 4}]
    assert "rocsparse_analysis_policy_force" in why and "one value" in why
    # csrsm2's algo is not passed
    with_algo = cuda[:1] + [("int", "algo")] + cuda[1:]
    plan, why = gen.edits_for("cusparseXf_analysis", "rocsparse_xf_analysis", with_algo, roc, set(), types)
    assert plan == [{"arg": 0}, {"arg": 2}, {"arg": 3}, {"text": "rocsparse_analysis_policy_force"},
                    {"text": "rocsparse_solve_policy_auto", "replaces": 4}, {"arg": 5}]
    assert "`algo`" in why
    # a list that does not fit after these: no plan
    assert gen.edits_for("cusparseXf_analysis", "rocsparse_xf_analysis", cuda, roc + [("int", "x")], set(),
                         types) == (None, "differs")
