"""scripts/header_declarations.py: the C-declaration parser the four argument generators share
(gen_roc_sparse_args, gen_hip_sparse_args, gen_roc_blas_args, gen_miopen_args), and their common last
steps: the data file written whole with the counts printed, or one line on stderr and nothing written.

The headers here are written from NVIDIA's and AMD's declarations: cusparse.h (CUDA 12.5) declares
cusparseSpSV_solve with 9 parameters, hipsparse.h of ROCm 5.3 (libhipsparse-dev 5.3.3) hipsparseSpSV_solve
with 10 (a trailing ``void* externalBuffer``), under ``#if(!defined(CUDART_VERSION) || ...)``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = ROOT / "scripts"
sys.path.insert(0, str(SCRIPTS))

from header_declarations import declarations, parameter_lists  # noqa: E402

CUSPARSE_H = """
/* cusparseSpSV_solve(int old); in a comment: not a declaration */
cusparseStatus_t CUSPARSEAPI
cusparseSpSV_solve(cusparseHandle_t          handle,
                   cusparseOperation_t       opA,
                   const void*               alpha,
                   cusparseConstSpMatDescr_t matA,
                   cusparseConstDnVecDescr_t vecX,
                   cusparseDnVecDescr_t      vecY,
                   cudaDataType              computeType,
                   cusparseSpSVAlg_t         alg,
                   cusparseSpSVDescr_t       spsvDescr);
"""

HIPSPARSE_H = """
#if(!defined(CUDART_VERSION) || CUDART_VERSION < 12000)
HIPSPARSE_EXPORT
hipsparseStatus_t hipsparseSpSV_solve(hipsparseHandle_t           handle,
                                      hipsparseOperation_t        opA,
                                      const void*                 alpha,
                                      const hipsparseSpMatDescr_t matA,
                                      const hipsparseDnVecDescr_t x,
                                      const hipsparseDnVecDescr_t y,
                                      hipDataType                 computeType,
                                      hipsparseSpSVAlg_t          alg,
                                      hipsparseSpSVDescr_t        spsvDescr,
                                      void*                       externalBuffer);
#endif
"""


def test_the_parser_reads_each_function_once_without_comments_or_export_macros():
    text = ("// rocsparse_f(int unused);\n"
            "ROCSPARSE_EXPORT rocsparse_status rocsparse_f(rocsparse_handle handle, const float* x, float* y,\n"
            "                                              void (*cb)(void*));\n"
            "ROCSPARSE_EXPORT rocsparse_status rocsparse_f(int again);\n"  # a second declaration: the first counts
            "ROCSPARSE_EXPORT rocsparse_status rocsparse_g(void);\n"
            "int other_h(int a);\n")
    consts: dict = {}
    got = declarations(text, "rocsparse_", consts)
    assert set(got) == {"rocsparse_f", "rocsparse_g"} and got["rocsparse_g"] == []
    # 4 parameters, the last a function pointer (its parentheses do not end the list)
    assert len(got["rocsparse_f"]) == 4
    assert got["rocsparse_f"][:3] == [("rocsparse_handle", "handle"), ("float*", "x"), ("float*", "y")]
    # x points to const, y does not (what the complex casts keep or leave out)
    assert consts["rocsparse_f"][:3] == [False, True, False]
    assert set(parameter_lists(text, "other_")) == {"other_h"}


def _run(script: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPTS / script), *args], capture_output=True, text=True,
                          timeout=120, cwd=ROOT)


def test_a_generator_writes_its_data_whole_and_prints_its_counts(tmp_path):
    (tmp_path / "cusparse.h").write_text(CUSPARSE_H)
    (tmp_path / "hipsparse.h").write_text(HIPSPARSE_H)
    out = tmp_path / "hip_sparse_args.json"
    out.write_text("the previous data\n")
    done = _run("gen_hip_sparse_args.py", "--cusparse", str(tmp_path / "cusparse.h"), "--cusparse-version", "12.5.10.65",
                "--hipsparse", str(tmp_path / "hipsparse.h"), "--hipsparse-version", "5.3.3", "-o", str(out))
    assert done.returncode == 0, done.stderr
    doc = json.loads(out.read_text(encoding="utf-8"))
    # the one function both headers declare, with the counts the two libraries' lists have
    assert list(doc["functions"]) == ["cusparseSpSV_solve"]
    entry = doc["functions"]["cusparseSpSV_solve"]
    assert entry["cuda_args"] == 9 and len(entry["hip_params"]) == 10
    assert entry["hip_params"][-1] == "void* externalBuffer"
    assert doc["counts"]["compared"] == 1 and doc["counts"]["differs"] == 1
    assert "12.5.10.65" in doc["sources"]["cuda"] and "5.3.3" in doc["sources"]["hip"]
    # stdout: the counts as one JSON line; the file: sorted keys, one space indent, nothing left beside it
    (line,) = done.stdout.splitlines()
    assert json.loads(line) == doc["counts"]
    assert out.read_text(encoding="utf-8") == json.dumps(doc, indent=1, sort_keys=True) + "\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cusparse.h", "hip_sparse_args.json", "hipsparse.h"]


MISSING = "/nonexistent/header.h"
COMMANDS = {
    "gen_roc_sparse_args.py": ["--cusparse", MISSING, "--cusparse-version", "1", "--hipsparse", MISSING,
                               "--hipsparse-version", "1", "--rocsparse", MISSING, "--rocsparse-version", "1"],
    "gen_hip_sparse_args.py": ["--cusparse", MISSING, "--cusparse-version", "1", "--hipsparse", MISSING,
                               "--hipsparse-version", "1"],
    "gen_roc_blas_args.py": ["--cublas", MISSING, "--cublas-version", "1", "--cusolver", MISSING,
                             "--cusolver-version", "1", "--rocblas", "/nonexistent", "--rocblas-version", "1",
                             "--rocsolver", "/nonexistent", "--rocsolver-version", "1"],
    "gen_miopen_args.py": ["--cudnn", "/nonexistent", "--cudnn-source", "x", "--miopen", MISSING,
                           "--miopen-source", "y"],
}


@pytest.mark.parametrize("script", sorted(COMMANDS))
def test_a_missing_input_stops_a_generator_with_one_line_and_keeps_the_data(tmp_path, script):
    out = tmp_path / "data.json"
    out.write_text("the previous data\n")
    done = _run(script, *COMMANDS[script], "-o", str(out))
    assert done.returncode == 1
    (line,) = done.stderr.splitlines()
    assert line.startswith(script[:-3] + ": ") and "/nonexistent" in line
    assert done.stdout == ""
    assert out.read_text() == "the previous data\n" and [p.name for p in tmp_path.iterdir()] == ["data.json"]
