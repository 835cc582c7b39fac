"""Whole-database properties the translator relies on."""

import json
import re

from porter.mapping import DATA_DIR, STATUSES

IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
HEADER = re.compile(r"[A-Za-z0-9_.+-]+(/[A-Za-z0-9_.+-]+)*\Z")


def test_identifier_and_namespace_keys_are_single_identifiers(db):
    bad = [k for k in [*db.identifiers, *db.namespaces] if not IDENT.match(k)]
    assert bad == []


def test_every_rename_targets_a_valid_name(db):
    bad = []
    for e in db.entries():
        if not e.renames:
            continue
        check = HEADER if e.kind == "header" else IDENT
        for target in (e.hip, e.roc):
            if target is not None and not check.match(target):
                bad.append((e.cuda, target))
    assert bad == []


def test_every_entry_has_status_category_and_source(db):
    for e in db.entries():
        assert e.status in STATUSES and e.category and e.source, e


def test_unsupported_entries_do_not_rename(db):
    for name in ("cuMemcpy", "cudaBindTexture", "__vadd4", "cublasInit", "__fadd_rd"):
        e = db.identifiers[name]
        assert e.status == "unsupported" and not e.renames, name


def test_torchs_manual_markers_are_unsupported_where_amds_tables_are_silent(db):
    # torch 2.13's "name__" values mark calls whose HIP counterpart takes different arguments
    # (cuMemcpy -> hipMemcpy__); AMD's tables list no counterpart for cuMemcpy either
    e = db.identifiers["cuMemcpy"]
    assert not e.renames and "signature" in e.note
    # where AMD's tables pair the call, their answer wins: cuStreamCreate(&s, flags) is hipStreamCreateWithFlags
    assert db.identifiers["cuStreamCreate"].hip == "hipStreamCreateWithFlags"
    assert "torch.utils.hipify" in db.identifiers["cuStreamCreate"].others


def test_plain_words_are_not_marked_unsupported(db):
    # names a user may well write for their own things must never be reported as CUDA APIs
    for word in ("any", "all", "ballot", "throw", "umin", "max", "MAJOR_VERSION", "USE_CUDA"):
        e = db.identifiers.get(word)
        assert e is None or e.renames, word


def test_every_category_the_issue_names_has_entries(db):
    cats = {e.category for e in db.entries()}
    need = {"runtime", "driver", "device", "cublas", "cublaslt", "cusparse", "cusolver", "curand", "cufft",
            "cudnn", "cub", "nccl", "thrust", "complex", "fp16", "bf16", "cooperative-groups", "nvtx", "error",
            "preprocessor", "texture", "pytorch"}
    assert need <= cats, need - cats


def test_data_files_are_one_per_category_and_small():
    total = 0
    for p in sorted(DATA_DIR.glob("*.json")):
        doc = json.loads(p.read_text())
        assert doc["category"] == p.stem
        assert doc["generated_by"] == "scripts/gen_mappings.py"
        assert doc["sources"] and doc["entries"]
        total += p.stat().st_size
    assert total < 5_000_000


def test_torch_pairs_that_run_backwards_are_not_imported(db):
    # caffe2's table maps HIP_CHECK -> CUDA_CHECK; a port must never rewrite HIP names to CUDA ones
    assert "HIP_CHECK" not in db.identifiers
    assert not [e for e in db.entries() if e.renames and e.target() and e.target().lower().startswith("cuda")
                and e.kind != "header" and not e.cuda.lower().startswith("cuda")]


def test_device_side_deprecations_do_not_mark_host_calls(db):
    # cuda_device_runtime_api.h deprecates cudaDeviceSynchronize *in device code* only
    assert db.identifiers["cudaDeviceSynchronize"].status == "supported"


def test_curated_hip_names_are_checked_or_say_why_not():
    """A curated rename names something the installed HIP 5.2 headers (or a recent ROCm's bindings) declare,
    or it carries since_hip, or its source says the library is not installed here."""
    from porter.mapping import CURATED_DIR, read_curated

    snap = DATA_DIR.parent / "sources" / "snapshots"
    known = set()
    for p in snap.glob("hip_*.json"):
        known |= set(json.loads(p.read_text())["names"])
    for p in snap.glob("rocm_*.json"):
        known |= set(json.loads(p.read_text())["names"])
    # the include guards the headers define (hip*/roc* headers installed here, Debian 13's library .debs)
    for p in [*snap.glob("hip_*.json"), *snap.glob("deb_*.json")]:
        known |= set(json.loads(p.read_text()).get("guards", {}).values())
    unchecked = []
    for path in sorted(CURATED_DIR.glob("*.toml")):
        for e in read_curated(path):
            if e.kind != "identifier" or not e.renames:
                continue
            for target in filter(None, (e.hip, e.roc)):
                if target in known or e.since_hip or "not installed" in e.source or target == e.hip == e.cuda and e.since_hip:
                    continue
                if target == e.roc and "rocBLAS" in e.source:
                    continue  # rocBLAS is not installable here: named from its API reference
                unchecked.append((path.name, e.cuda, target))
    assert unchecked == []
