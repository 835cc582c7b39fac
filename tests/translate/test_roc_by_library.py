"""--roc names that depend on the roc* library a file calls (rules.toml [[roc_by_library]]): CUDA's data
types passed to rocSPARSE's generic API are rocsparse_datatype's (rocsparse-types.h), not the rocBLAS
names AMD's tables give, which a rocSPARSE-only port neither includes nor can pass."""

from __future__ import annotations

from pathlib import Path

import pytest

from porter.mapping import truth
from porter.translate import TranslateOptions, translate
from porter.translate.engine import structure_rules

# written from cuSPARSE's generic API: a dense vector of each real and complex precision
SPARSE = b"""#include <cusparse.h>
void vectors(cusparseDnVecDescr_t* v, void* x, int n) {
  cudaDataType real = CUDA_R_32F;
  const cudaDataType_t wide = CUDA_R_64F;
  cusparseCreateDnVec(&v[0], n, x, real);
  cusparseCreateDnVec(&v[1], n, x, wide);
  cusparseCreateDnVec(&v[2], n, x, CUDA_C_32F);
  cusparseCreateDnVec(&v[3], n, x, CUDA_C_64F);
}
"""


def _roc(src: bytes) -> str:
    return translate(src, "t.cu", TranslateOptions(roc=True)).output.decode()


def test_a_rocsparse_file_gets_rocsparse_data_types():
    out = _roc(SPARSE)
    assert "rocsparse_datatype real = rocsparse_datatype_f32_r;" in out
    assert "const rocsparse_datatype wide = rocsparse_datatype_f64_r;" in out
    assert "rocsparse_create_dnvec_descr(&v[2], n, x, rocsparse_datatype_f32_c);" in out
    assert "rocsparse_create_dnvec_descr(&v[3], n, x, rocsparse_datatype_f64_c);" in out
    assert "rocblas" not in out


def test_a_file_calling_rocblas_too_and_a_port_without_roc_keep_their_names():
    both = SPARSE.replace(b"#include <cusparse.h>", b"#include <cusparse.h>\n#include <cublas_v2.h>")
    assert "rocblas_datatype real = rocblas_datatype_f32_r;" in _roc(both)  # AMD's pair: two libraries
    assert "hipDataType real = HIP_R_32F;" in translate(SPARSE, "t.cu").output.decode()


def test_every_name_the_table_emits_is_declared_by_its_library():
    t = truth.Truth()
    for lib in structure_rules()["roc_by_library"]:
        undeclared = sorted(n for n in lib["names"].values() if t.declared(n) is None)
        assert undeclared == [], lib["library"]


def _rocsparse_or_skip():
    if not Path("/usr/include/rocsparse/rocsparse.h").exists():
        pytest.skip("rocSPARSE's headers are not installed (Debian: librocsparse-dev)")


@pytest.mark.hipcc
def test_the_port_compiles_against_rocsparse(hipcc_compile):
    _rocsparse_or_skip()
    rc, out = hipcc_compile(_roc(SPARSE).encode(), "vectors")
    assert rc == 0, out[-3000:]


# written from cuSPARSE's API: cusparse.h brings cuComplex in (it includes cuComplex.h), so a CUDA file
# calling a complex cuSPARSE function may use cuComplex without including cuComplex.h
COMPLEX = b"""#include <cusparse.h>
void scale(cusparseHandle_t h, int nnz, const cuComplex* xVal, const int* xInd, cuComplex* y) {
  cuComplex a = make_cuComplex(2.0f, 0.0f);
  cusparseCaxpyi(h, nnz, &a, xVal, xInd, y, CUSPARSE_INDEX_BASE_ZERO);
}
"""


def test_a_roc_port_using_hips_complex_type_gets_its_header():
    out = _roc(COMPLEX)
    assert out.index("#include <hip/hip_complex.h>") < out.index("hipComplex a = make_hipComplex(2.0f, 0.0f);")
    assert out.count("hip_complex.h") == 1
    # without --roc, hipsparse.h includes it (hipsparse.h:45): nothing added
    assert b"hip_complex.h" not in translate(COMPLEX, "t.cu").output
    # a file that includes cuComplex.h itself keeps that one include
    own = _roc(b"#include <cuComplex.h>\n" + COMPLEX)
    assert own.count("hip_complex.h") == 1


@pytest.mark.hipcc
def test_the_complex_roc_port_compiles_against_rocsparse(hipcc_compile):
    _rocsparse_or_skip()
    rc, out = hipcc_compile(_roc(COMPLEX).encode(), "scale")
    assert rc == 0, out[-3000:]
