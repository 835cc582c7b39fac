"""cuBLAS's math mode on hipBLAS: hipblasSetMathMode, hipblasGetMathMode, hipblasMath_t and the HIPBLAS_*_MATH
values came with ROCm 6.1 (AMD's HIPIFY tables; hip-python's declarations of a recent hipBLAS have them).  A
hand entry had called them unsupported ("no hipBLAS counterpart in ROCm 5.x"), so llm.c's
`cublasSetMathMode(handle, CUBLAS_TF32_TENSOR_OP_MATH)` was an error at every target.  From 6.1 they are
renamed; before it, reported with what to do instead."""

from __future__ import annotations

import csv
import json

from porter.findings import scan
from porter.mapping import load_database
from porter.mapping.truth import SOURCES
from porter.translate import TranslateOptions, translate

CUDA = b"""#include <cublas_v2.h>
void setup(cublasHandle_t h, bool tf32)
{
    cublasMath_t mode = tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH;
    cublasSetMathMode(h, mode);
}
"""
NAMES = {"cublasMath_t": "hipblasMath_t", "CUBLAS_TF32_TENSOR_OP_MATH": "HIPBLAS_TF32_TENSOR_OP_MATH",
         "CUBLAS_DEFAULT_MATH": "HIPBLAS_DEFAULT_MATH", "cublasSetMathMode": "hipblasSetMathMode",
         "cublasGetMathMode": "hipblasGetMathMode", "CUBLAS_TENSOR_OP_MATH": "HIPBLAS_TENSOR_OP_MATH"}


def test_the_names_and_their_release_are_amds():
    with (SOURCES / "hipify-api-tables.tsv").open(encoding="utf-8") as f:
        rows = list(csv.reader((ln for ln in f if not ln.startswith("#")), delimiter="\t"))
    head = rows[0]
    table = {r[head.index("cuda")]: dict(zip(head, r)) for r in rows[1:] if len(r) > 2}
    declared = json.loads((SOURCES / "snapshots" / "rocm_hipblas.json").read_text())
    db = load_database()
    for cuda, hip in NAMES.items():
        [entry] = db.lookup(cuda)
        assert (entry.hip, entry.since_hip) == (hip, "6.1"), cuda
        assert hip in table[cuda].values() and "6.1.0" in table[cuda].values(), cuda
        assert hip in json.dumps(declared), hip


def test_renamed_from_6_1_and_reported_before():
    port = translate(CUDA, "mm.cu", TranslateOptions(target_rocm="6.1")).output
    assert b"hipblasSetMathMode(h, mode)" in port and b"HIPBLAS_TF32_TENSOR_OP_MATH" in port
    assert not [f for f in scan(CUDA, "mm.cu", options=TranslateOptions(target_rocm="6.1"))]
    old = [f for f in scan(CUDA, "mm.cu", options=TranslateOptions(target_rocm="6.0"))]
    assert {f.rule for f in old} == {"PORT032"}
    assert sorted(f.line for f in old) == [4, 4, 4, 5]
    assert all("needs ROCm 6.1" in f.message for f in old)
    assert any("drop the call" in f.message for f in old if f.line == 5)
