"""``--roc`` names are checked against ``--target-rocm`` (issue 30): a roc* name the target ROCm does not
declare is left as written and reported (PORT032), as HIP names are.

The facts are AMD's HIPIFY tables' rows (porter/mapping/sources/hipify-api-tables.tsv: the roc column and
its roc_added release), read here and stated in each test, never porter's own output.
"""

from __future__ import annotations

import pytest

from porter.cli.main import main
from porter.findings import scan
from porter.mapping import truth, version_key
from porter.translate import TranslateOptions, translate


@pytest.fixture(scope="module")
def rows():
    return {r["cuda"]: r for r in truth.read_tables(truth.SOURCES / truth.TABLES)}


def _row(rows, cuda: str, **facts) -> dict:
    """The tables' row for ``cuda``, checked to say what the test relies on."""
    r = rows[cuda]
    for key, value in facts.items():
        assert r[key] == value, (cuda, key, r[key])
    return r


def _port(src: str, **options) -> tuple[str, list[str]]:
    """(the port, PORT032's messages) of ``src`` converted with these options."""
    opts = TranslateOptions(**options)
    out = translate(src.encode(), "t.cu", opts).output.decode()
    return out, [f.message for f in scan(src.encode(), "t.cu", options=opts) if f.rule == "PORT032"]


# rocRAND: rocrand_create_generator_host_blocking came with ROCm 6.2; hipRAND's name is far older
HOST_GEN = ("#include <curand.h>\n"
            "void f(curandGenerator_t *g) { curandCreateGeneratorHost(g, CURAND_RNG_PSEUDO_DEFAULT); }\n")


def test_roc_name_newer_than_the_target_stays_as_written_with_a_finding_naming_its_release(rows):
    r = _row(rows, "curandCreateGeneratorHost", roc="rocrand_create_generator_host_blocking", roc_added="6.2.0")
    assert version_key(r["hip_added"]) < (5, 2)  # the HIP name alone would pass at 6.1
    out, found = _port(HOST_GEN, roc=True, target_rocm="6.1")
    assert "curandCreateGeneratorHost(g" in out and r["roc"] not in out
    assert "rocrand_generator *g" in out  # the rest of the file is still ported to rocRAND
    assert len(found) == 1 and r["roc"] in found[0] and "ROCm 6.2" in found[0] and "6.1" in found[0]


@pytest.mark.parametrize("target", ["6.2", None])
def test_roc_name_is_emitted_from_its_release_on_and_by_default(rows, target):
    r = _row(rows, "curandCreateGeneratorHost", roc_added="6.2.0")
    out, found = _port(HOST_GEN, roc=True, target_rocm=target)
    assert f"{r['roc']}(g, ROCRAND_RNG_PSEUDO_DEFAULT)" in out and not found


def test_without_roc_the_hip_name_is_judged_as_before(rows):
    r = _row(rows, "curandCreateGeneratorHost", hip="hiprandCreateGeneratorHost")
    out, found = _port(HOST_GEN, target_rocm="6.1")
    assert f"{r['hip']}(g, HIPRAND_RNG_PSEUDO_DEFAULT)" in out and not found


# rocBLAS, a name the tables date 6.2 (hipBLAS's too) and one they date before the 5.2 floor
GBMV = ("#include <cublas_v2.h>\n"
        "void f(cublasHandle_t h, int64_t n, const cuComplex *a, cuComplex *x, cuComplex *y, float *s) {\n"
        "  cublasCgbmv_v2_64(h, CUBLAS_OP_N, n, n, 1, 1, a, a, n, x, 1, a, y, 1);\n"
        "  cublasSgemm_v2(h, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, s, s, 4, s, 4, s, s, 4);\n"
        "}\n")


def test_rocblas_function_of_6_2_is_left_at_6_1_and_emitted_from_6_2(rows):
    new = _row(rows, "cublasCgbmv_v2_64", roc="rocblas_cgbmv_64", roc_added="6.2.0")
    old = _row(rows, "cublasSgemm_v2", roc="rocblas_sgemm")
    assert version_key(old["roc_added"]) <= (5, 2)
    out, found = _port(GBMV, roc=True, target_rocm="6.1")
    assert "cublasCgbmv_v2_64(h" in out and f"{old['roc']}(h" in out
    assert len(found) == 1 and new["roc"] in found[0] and "ROCm 6.2" in found[0]
    for target in ("6.2", None):
        out, found = _port(GBMV, roc=True, target_rocm=target)
        assert f"{new['roc']}(h" in out and f"{old['roc']}(h" in out and not found
    out, found = _port(GBMV, roc=True, target_rocm="5.2")  # the old name is in every release porter targets
    assert f"{old['roc']}(h" in out and "cublasCgbmv_v2_64(h" in out


def test_rocblas_status_code_newer_than_the_target_is_not_emitted(rows):
    # hipBLAS has HIPBLAS_STATUS_ARCH_MISMATCH since before 5.2; rocBLAS's code came with 5.7
    r = _row(rows, "CUBLAS_STATUS_ARCH_MISMATCH", roc="rocblas_status_arch_mismatch", roc_added="5.7.0")
    src = "#include <cublas_v2.h>\nbool arch(cublasStatus_t s) { return s == CUBLAS_STATUS_ARCH_MISMATCH; }\n"
    out, found = _port(src, roc=True, target_rocm="5.6")
    assert "s == CUBLAS_STATUS_ARCH_MISMATCH" in out
    assert len(found) == 1 and r["roc"] in found[0] and "ROCm 5.7" in found[0]
    out, found = _port(src, roc=True, target_rocm="5.7")
    assert f"s == {r['roc']}" in out and not found
    out, found = _port(src, target_rocm="5.6")
    assert f"s == {r['hip']}" in out and not found


def test_roc_name_older_than_the_hip_name_is_emitted_under_roc(rows):
    # rocBLAS has rocblas_axpy_ex_64 from 6.1; hipBLAS's hipblasAxpyEx_v2_64 came with 6.2
    r = _row(rows, "cublasAxpyEx_64", roc="rocblas_axpy_ex_64", roc_added="6.1.0", hip_added="6.2.0")
    src = ("#include <cublas_v2.h>\nvoid f(cublasHandle_t h, int64_t n, const void *a, void *x, void *y) {\n"
           "  cublasAxpyEx_64(h, n, a, CUDA_R_32F, x, CUDA_R_32F, 1, y, CUDA_R_32F, 1, CUDA_R_32F);\n}\n")
    out, found = _port(src, roc=True, target_rocm="6.1")
    assert f"{r['roc']}(h, n" in out and not found
    out, found = _port(src, target_rocm="6.1")
    assert "cublasAxpyEx_64(h, n" in out and len(found) == 1 and r["hip"] in found[0]


def test_every_rocblas_name_carries_the_tables_release(db, rows):
    """rocBLAS is not installed here: the tables' roc_added dates each of its names (after the 5.2 floor)."""
    first: dict[str, str] = {}  # a name several rows pair (rocblas_status_memory_error): its earliest release
    for r in rows.values():
        if r["roc"].startswith("rocblas_") and r["roc_added"]:
            added = truth.version(r["roc_added"])
            if r["roc"] not in first or truth.later(first[r["roc"]], added):
                first[r["roc"]] = added
    wrong = []
    for cuda, r in rows.items():
        e = db.identifiers.get(cuda)
        if r["roc"] not in first or e is None or e.roc != r["roc"]:
            continue
        want = first[e.roc] if truth.later(first[e.roc], truth.FLOOR) else None
        if e.since_roc != want:
            wrong.append(f"{cuda}: {e.roc} tables {first[e.roc]}, porter {e.since_roc}")
    assert not wrong, "\n".join(wrong[:20])


def test_query_with_roc_shows_the_roc_names_releases(rows, capsys):
    _row(rows, "curandCreateGeneratorHost", roc_added="6.2.0")
    assert main(["query", "curandCreateGeneratorHost", "--roc"]) == 0
    rocm = [line for line in capsys.readouterr().out.splitlines() if line.strip().startswith("rocm ")]
    assert rocm == ["  rocm        ROCm 6.2 and later"]
    assert main(["query", "curandCreateGeneratorHost"]) == 0  # the HIP name: older than the floor
    rocm = [line for line in capsys.readouterr().out.splitlines() if line.strip().startswith("rocm ")]
    assert rocm == ["  rocm        every ROCm from 5.2 (or older) on"]


def test_the_reference_carries_the_written_names_release(rows):
    # the report's `hip`/`since_hip` of a reference are the name porter writes and the release that brought
    # it: under --roc the roc* name's, not hipRAND's (which came with ROCm 5.x or earlier)
    r = _row(rows, "curandCreateGeneratorHost", roc="rocrand_create_generator_host_blocking", roc_added="6.2.0")
    assert version_key(r["hip_added"] or "0") < version_key("6.2")
    (ref,) = [c for c in translate(HOST_GEN.encode(), "t.cu", TranslateOptions(roc=True)).converted
              if c.name == "curandCreateGeneratorHost"]
    assert (ref.hip, ref.since_hip) == ("rocrand_create_generator_host_blocking", "6.2")
    (plain,) = [c for c in translate(HOST_GEN.encode(), "t.cu").converted if c.name == "curandCreateGeneratorHost"]
    assert plain.hip == "hiprandCreateGeneratorHost" and plain.since_hip != "6.2"
