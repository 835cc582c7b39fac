"""conventions.toml's `only` / `skip` regexes match whole CUDA names (scripts/gen_mappings.py add_library)."""

from porter.mapping import DATA_DIR

SOURCES = DATA_DIR.parent / "sources"


def _admitted(gen, names, **spec):
    """The CUDA names a [[library]] rule with ``spec`` records, out of a name set holding ``names``."""
    src = gen.Sources(SOURCES)
    src.docs["test_names"] = {"source": "test", "functions": [], "macros": list(names),
                              "names": {n: "test.h" for n in names}}
    b = gen.Builder(src, {})
    # no rule pairs anything and every unpaired name is recorded: the entries are what only/skip let through
    b.add_library({"category": "runtime", "cuda_sets": ["test_names"], "rules": [], "unmatched": "unsupported",
                   "doc_source": "test", **spec})
    return {cuda for _kind, cuda in b.entries}


def test_only_takes_whole_names_not_names_that_start_like_them(gen):
    # CUDA's vector types are int1..int4, double1..double4 (vector_types.h); int16_t is the C type and
    # double4_16a is CUDA 13's 16-byte-aligned double4, a different type: neither is what the rule names
    names = ["int1", "double4", "dim3", "int16_t", "double4_16a", "make_double4_32a"]
    got = _admitted(gen, names, only=r"(make_)?(u?char|u?short|u?int|u?long|u?longlong|float|double)[1-4]|dim3")
    assert got == {"int1", "double4", "dim3"}


def test_skip_leaves_out_whole_names_only(gen):
    # math_constants.h's CUDART_PI_HI and CUDART_SQRT_HALF are constants, not the version macro or an include
    # guard the skip names (a prefix match of CUDART_\w*_H_? took 'CUDART_PI_H' of CUDART_PI_HI)
    names = ["CUDART_VERSION", "CUDART_PI_HI", "CUDART_SQRT_HALF", "CUDART_PI_F"]
    got = _admitted(gen, names, only=r"CUDART_[A-Z0-9_]+", skip=r"CUDART_VERSION|CUDART_\w*_H_?")
    assert got == {"CUDART_PI_HI", "CUDART_SQRT_HALF", "CUDART_PI_F"}


def test_shipped_rules_report_the_names_their_comments_cover(db):
    # cudnn_version.h: CUDNN_MAX_SM_MAJOR_NUMBER is a cuDNN constant (the newest SM major it supports), not
    # one of the version macros `skip` leaves out (CUDNN_MAJOR, CUDNN_<sub-library>_MAJOR)
    assert db.identifiers["CUDNN_MAX_SM_MAJOR_NUMBER"].status == "unsupported"
    assert "CUDNN_MAJOR" not in db.identifiers
    # enum values with lower case in them stay covered by the rules meant for every CUBLASLT_/CUDNN_ name
    # (cublasLtMatmulTile_t, cudnnDataType_t), and fp16's h* functions with an underscore (htanh_approx)
    for name in ("CUBLASLT_MATMUL_TILE_128x64", "CUBLASLT_CLUSTER_SHAPE_2x1x1", "CUDNN_DATA_INT8x32",
                 "CUDNN_TENSOR_REORDERING_F16x16", "htanh_approx", "h2tanh_approx"):
        e = db.identifiers[name]
        assert e.status == "unsupported" and e.target() is None, name
        assert "headers" in e.source, (name, e.source)  # the rule's entry, citing the CUDA headers it read
