"""``--roc`` emits the roc* name AMD's HIPIFY tables pair with a CUDA name (hipify-api-tables.tsv).

The tables are AMD's facts; porter may differ only where a curated entry says why, or where the
roc* name is younger than the HIP name the entry's versions describe (porter dates HIP names only).
"""

import os
import shutil


import killable

from porter.mapping import truth
from porter.translate import TranslateOptions, translate
from required_tools import require

# curated on purpose (porter/mapping/curated/cublas.toml: rocBLAS's own status for "not supported";
# porter/mapping/curated/rocsparse.toml: every csrsv2 call's rocSPARSE counterpart takes rocsparse_mat_info)
CURATED = {"CUBLAS_STATUS_NOT_SUPPORTED", "csrsv2Info_t"}


def _rows():
    return truth.read_tables(truth.SOURCES / truth.TABLES)


def test_every_declared_roc_pair_of_amds_tables_is_emitted_with_roc(db):
    t = truth.Truth()
    typedef_roc = {r["cuda"]: r["roc"] for r in _rows() if r["cuda"].endswith("_t") and r["roc"]}
    missing = []
    for r in _rows():
        cuda, roc = r["cuda"], r["roc"]
        if not roc or r["family"] == "CUDNN" or cuda in CURATED:
            continue  # cuDNN: the MIOpen name is porter's HIP name (checked below)
        if "::" in roc:  # rocrand_device::philox4x32_10_engine: the tables' typedef of it is the name
            roc = typedef_roc.get(cuda + "_t")
            if roc is None:
                continue
        e = db.identifiers.get(cuda)
        if e is None or not e.renames:
            continue  # no HIP name: a roc*-only pair (see the README's conformance section)
        found = t.declared(roc)
        if found is None or truth.later(found.since, e.since_hip):
            continue
        if e.target(roc=True) != roc:
            missing.append(f"{cuda}: tables {roc}, porter {e.target(roc=True)}")
    assert not missing, "\n".join(missing)


def test_cudnn_names_become_amds_miopen_names(db):
    wrong = [(r["cuda"], r["roc"], db.identifiers[r["cuda"]].target(roc=True))
             for r in _rows() if r["family"] == "CUDNN" and r["roc"] and "::" not in r["roc"]
             and r["cuda"] in db.identifiers and db.identifiers[r["cuda"]].renames
             and db.identifiers[r["cuda"]].target(roc=True) != r["roc"]]
    assert not wrong


def _roc(src: str) -> str:
    return translate(src.encode(), "t.cu", TranslateOptions(roc=True)).output.decode()


def test_rocsparse_bsr_format_and_sliced_ell_spmv_convert_with_roc():
    # AMD's tables: CUSPARSE_FORMAT_BSR -> rocsparse_format_bsr, CUSPARSE_SPMV_SELL_ALG1 -> rocsparse_spmv_alg_ell
    out = _roc("#include <cusparse.h>\n"
               "void f() {\n  cusparseFormat_t f = CUSPARSE_FORMAT_BSR;\n"
               "  cusparseSpMVAlg_t a = CUSPARSE_SPMV_SELL_ALG1;\n}\n")
    assert "rocsparse_format f = rocsparse_format_bsr;" in out
    assert "rocsparse_spmv_alg a = rocsparse_spmv_alg_ell;" in out
    assert "HIPSPARSE_" not in out


CURAND_KERNEL = """#include <curand_kernel.h>
__global__ void k(float* out, unsigned long long seed) {
  int i = threadIdx.x;
  curandStatePhilox4_32_10 s;
  curand_init(seed, i, 0, &s);
  out[i] = curand_uniform(&s);
}
"""


def test_philox_state_struct_name_becomes_rocrands_philox_state_with_roc():
    out = _roc(CURAND_KERNEL)
    assert "rocrand_state_philox4x32_10 s;" in out
    assert "hiprandStatePhilox4_32_10" not in out


def test_roc_philox_kernel_compiles_with_hipcc_against_rocrand(tmp_path):
    hipcc = shutil.which("hipcc")
    require(hipcc and os.path.isdir("/usr/include/rocrand"), "hipcc / rocRAND headers not installed")
    src = tmp_path / "k.hip"
    src.write_text(_roc(CURAND_KERNEL))
    code, log = killable.run([hipcc, "--offload-arch=gfx90a", "-c", str(src), "-o", str(tmp_path / "k.o")], 300,
                             env={**os.environ, "HIP_PLATFORM": "amd"}, what="hipcc")
    assert code == 0, src.read_text() + "\n" + log[-3000:]


def test_a_name_amds_tables_pair_with_a_roc_name_alone_is_renamed_under_roc_only():
    # cublasGetStatusString has no hipBLAS counterpart; AMD's tables pair it with rocBLAS's
    # rocblas_status_to_string (both: const char *f(status)). Without --roc it stays, reported unsupported.
    src = ("#include <cublas_v2.h>\n"
           "const char *why(cublasStatus_t s) { return cublasGetStatusString(s); }\n")
    out = translate(src.encode(), "t.cu", TranslateOptions(roc=True))
    assert "rocblas_status_to_string(s)" in out.output.decode()
    assert not any(u.name == "cublasGetStatusString" for u in out.unsupported)
    plain = translate(src.encode(), "t.cu", TranslateOptions())
    assert "cublasGetStatusString(s)" in plain.output.decode()
    assert any(u.name == "cublasGetStatusString" for u in plain.unsupported)


def test_roc_only_pairs_that_change_meaning_are_not_used():
    # the tables give plain ELL for sliced ELLPACK (another layout of the same arrays) and a matrix
    # descriptor for csrsv2's analysis info: porter keeps them unsupported rather than emit either
    src = "cusparseFormat_t f = CUSPARSE_FORMAT_SLICED_ELLPACK; struct csrsv2Info *i;\n"
    out = _roc(src)
    assert "rocsparse_format_ell" not in out and "_rocsparse_mat_descr" not in out


def test_curand_sub_headers_become_their_rocrand_headers_under_roc():
    # each cuRAND generator / distribution header has a rocRAND header of the same name family
    # (Debian's librocrand-dev: /usr/include/rocrand); hipRAND's umbrella header stays without --roc
    src = "#include <curand_mrg32k3a.h>\n#include <curand_philox4x32_x.h>\n#include <curand_lognormal.h>\n"
    out = _roc(src)
    for h in ("rocrand/rocrand_mrg32k3a.h", "rocrand/rocrand_philox4x32_10.h", "rocrand/rocrand_log_normal.h"):
        assert h in out
        assert os.path.exists("/usr/include/" + h) or not os.path.isdir("/usr/include/rocrand")
    assert "hiprand" not in out
    assert "hiprand/hiprand_kernel.h" in translate(src.encode(), "t.cu", TranslateOptions()).output.decode()


def test_a_roc_header_is_given_only_to_a_library_whose_functions_have_roc_names(db):
    """--roc swaps a library's header for its roc* one; where none of the library's names has a roc*
    name (cuFFT: AMD's tables give none, rocFFT's API is not cuFFT's), the port keeps calling the hip*
    functions and needs the hip* header: a roc* header there is a port that does not compile."""
    with_roc = {e.category for e in db.entries() if e.kind == "identifier" and e.renames and e.roc}
    wrong = sorted(e.cuda for e in db.entries() if e.kind == "header" and e.roc and e.category not in with_roc)
    assert wrong == []


def test_a_cufft_file_under_roc_keeps_hipffts_header():
    src = b"#include <cufft.h>\nvoid g(cufftHandle p, cufftComplex* x) { cufftExecC2C(p, x, x, CUFFT_FORWARD); }\n"
    out = translate(src, "fft.cu", TranslateOptions(roc=True)).output.decode()
    assert "#include <hipfft/hipfft.h>" in out and "hipfftExecC2C(p, x, x, HIPFFT_FORWARD)" in out
    assert "rocfft" not in out
