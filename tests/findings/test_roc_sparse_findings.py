"""PORT179: under --roc, the cuSPARSE calls whose rocSPARSE function takes other arguments than the
port passes are reported, and the prediction is checked against the compiler: the port of
fixtures/PORT179/positive.cu, compiled with hipcc against rocSPARSE 5.3's headers, fails on exactly
the lines PORT179 flags (the calls porter rewrites on the other lines compile, complex ones included:
porter casts their pointers; so do the calls whose index arrays rocSPARSE takes in the other order,
which porter passes in rocSPARSE's order and no longer reports); and the fixes the rule gives (a
size_t size variable, rocSPARSE's parameter list, the complex pointer cast) compile."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

import killable
from porter.findings import scan
from porter.translate import TranslateOptions, translate
from required_tools import require

FIXTURES = Path(__file__).with_name("fixtures") / "PORT179"
ROCSPARSE_HEADER = Path("/usr/include/rocsparse/rocsparse.h")


def _findings(source: bytes, roc: bool = True):
    return [f for f in scan(source, "t.cu", options=TranslateOptions(roc=roc)) if f.rule == "PORT179"]


def _hipcc_errors(tmp_path, hip: str, name: str) -> dict[int, str]:
    """{line: message} of hipcc's errors on ``hip`` (gfx90a, rocSPARSE's headers); skips (fails
    under PORTER_REQUIRE_HIPCC=1) without hipcc or librocsparse-dev."""
    hipcc = shutil.which("hipcc")
    require(hipcc is not None and ROCSPARSE_HEADER.is_file(), "hipcc or rocSPARSE's headers (librocsparse-dev) missing: the prediction is not compile-checked")
    src = tmp_path / f"{name}.hip"
    src.write_text(hip, encoding="utf-8")
    rc, out = killable.run([hipcc, "--offload-arch=gfx90a", "-fsyntax-only", "-ferror-limit=0", "-x", "hip",
                            str(src)], 180, dict(os.environ, HIP_PLATFORM="amd"), f"hipcc on {name}")
    errors = {int(m.group(1)): m.group(2) for m in
              re.finditer(rf"^{re.escape(str(src))}:(\d+):\d+: error: (.*)$", out, re.M)}
    assert (rc == 0) == (not errors), out[-3000:]
    return errors


def _port_lines(cuda: bytes, anchor: str) -> tuple[str, int]:
    """The --roc port and how many lines it adds before ``anchor`` (the includes it writes)."""
    hip = translate(cuda, "t.cu", TranslateOptions(roc=True)).output.decode()
    before = next(i for i, line in enumerate(cuda.decode().splitlines()) if anchor in line)
    after = next(i for i, line in enumerate(hip.splitlines()) if anchor in line)
    assert len(hip.splitlines()) - len(cuda.decode().splitlines()) == after - before, "lines moved below the includes"
    return hip, after - before


@pytest.mark.hipcc
def test_hipcc_fails_on_exactly_the_flagged_lines(tmp_path):
    cuda = (FIXTURES / "positive.cu").read_bytes()
    flagged = {f.line: f for f in _findings(cuda)}
    hip, shift = _port_lines(cuda, "void preconditioners(")
    errors = {line - shift: msg for line, msg in _hipcc_errors(tmp_path, hip, "positive").items()}
    assert set(errors) == set(flagged), (sorted(errors), sorted(flagged))
    for line, msg in errors.items():  # the function hipcc rejects is the one the finding names
        roc = re.search(r"`\w+` becomes `(\w+)\(", flagged[line].message).group(1)
        assert f"'{roc}'" in msg, (msg, flagged[line].message)


@pytest.mark.hipcc
def test_the_rewritten_calls_compile(tmp_path):
    # negative_roc.cu: nothing flagged (csr2csr_compress and csc2dense/dense2csc among them, their index
    # arrays passed in rocSPARSE's order), and the port compiles (a call whose arguments a macro supplies,
    # which porter leaves as written, is in positive.cu: flagged)
    cuda = (FIXTURES / "negative_roc.cu").read_bytes()
    assert _findings(cuda) == []
    hip, shift = _port_lines(cuda, "void multiply(")
    assert _hipcc_errors(tmp_path, hip, "negative_roc") == {}


def test_messages_name_rocsparse_function_parameters_and_fix():
    text = (FIXTURES / "positive.cu").read_text(encoding="utf-8")
    found = {}
    for f in _findings(text.encode()):
        found.setdefault(f.message.split("`")[1], f.message)  # the first call of each name
    size = found["cusparseDcsrilu02_bufferSize"]
    assert "`rocsparse_dcsrilu0_buffer_size(rocsparse_handle handle, " in size and "size_t* buffer_size)`" in size
    assert "declare the size variable `size_t`" in size and "reinterpret_cast" not in size
    # the analysis call porter would write with rocSPARSE's two policies, left because the policy argument
    # it replaces is a call
    analysis = found["cusparseDcsrilu02_analysis"]
    assert "rocsparse_analysis_policy analysis, rocsparse_solve_policy solve" in analysis
    assert "porter keeps cuSPARSE's 10 arguments (argument 9 (`policy_for(m)`) would be dropped" in analysis
    assert "cusparseDcsric02_analysis" not in found  # rewritten: both policies written
    assert "cusparseZcsrmv" not in found and "cusparseZcsrilu02_analysis" not in found  # rewritten, pointers cast
    both = found["cusparseZcsrilu02_bufferSize"]  # left with CUDA's arguments: its complex pointer too
    assert "declare the size variable `size_t`" in both and "(csr_val)" in both
    assert "reinterpret_cast<const rocsparse_double_complex*>" in both
    tol = found["cusparseZnnz_compress"]  # the pointers are cast, the value is not
    assert "complex value (tol)" in tol and "rocsparse_double_complex(t.x, t.y)" in tol
    assert "complex arguments" not in tol and "porter keeps" not in tol
    # the index arrays porter passes in rocSPARSE's order: only the complex value tol is left
    order = found["cusparseZcsr2csr_compress"]
    assert "complex value (tol)" in order and "rocsparse_double_complex(t.x, t.y)" in order
    assert "swapped" not in order and "complex arguments" not in order and "porter keeps" not in order
    # the same source without --roc: hipSPARSE takes cuSPARSE's arguments
    assert _findings(text.encode(), roc=False) == []


@pytest.mark.hipcc
def test_the_fixes_the_rule_gives_compile(tmp_path):
    # the rule page's After, written from rocsparse-functions.h 5.3 and rocsparse-complex-types.h
    hip = """#include <hip/hip_runtime.h>
#include <hip/hip_complex.h>
#include <rocsparse/rocsparse.h>
void f(rocsparse_handle handle, rocsparse_mat_descr descr, rocsparse_mat_info info, int m, int n, int nnz,
       double* val, const int* rowPtr, const int* colInd, void* buffer, const hipDoubleComplex* alpha,
       const hipDoubleComplex* zval, const hipDoubleComplex* x, const hipDoubleComplex* beta, hipDoubleComplex* y)
{
    size_t bufferSize;
    rocsparse_dcsrilu0_buffer_size(handle, m, nnz, descr, val, rowPtr, colInd, info, &bufferSize);
    using zc = rocsparse_double_complex;
    rocsparse_zcsrmv(handle, rocsparse_operation_none, m, n, nnz,
                     reinterpret_cast<const zc*>(alpha), descr, reinterpret_cast<const zc*>(zval),
                     rowPtr, colInd, nullptr, reinterpret_cast<const zc*>(x),
                     reinterpret_cast<const zc*>(beta), reinterpret_cast<zc*>(y));
}
"""
    assert _hipcc_errors(tmp_path, hip, "after") == {}


def test_a_call_whose_arguments_a_macro_supplies_is_reported_with_why():
    # porter cannot fit a macro's arguments to rocSPARSE's list (the translator leaves the call as
    # written), so the port does not compile there: the message says so, for a function porter rewrites
    # (csrmv) as for one it never could (csrilu02's size query)
    text = (FIXTURES / "positive.cu").read_text(encoding="utf-8")
    lines = text.splitlines()
    macro_lines = {i for i, line in enumerate(lines, 1) if "_ARGS(h, d, v, r, c" in line and "#define" not in line}
    by_line = {f.line: f.message for f in _findings(text.encode())}
    assert len(macro_lines) == 2 and macro_lines <= set(by_line)
    for line in macro_lines:
        assert "where CUDA's list has" in by_line[line] and "a macro supplies some" in by_line[line]
