"""The loader: curated data laid over generated data, and one-line errors for bad curated entries."""

import pytest

from porter.mapping import DATA_DIR, MappingError, build_database, load_database


def _curated(tmp_path, text):
    d = tmp_path / "curated"
    d.mkdir()
    (d / "mine.toml").write_text(text)
    return d


def _error(tmp_path, text):
    with pytest.raises(MappingError) as info:
        build_database(tmp_path / "no-data", _curated(tmp_path, text))
    msg = str(info.value)
    assert "\n" not in msg
    assert msg.startswith("mine.toml")
    return msg


def test_unknown_key_names_file_and_entry(tmp_path):
    msg = _error(tmp_path, '[[entry]]\ncuda = "cudaFoo"\nhip = "hipFoo"\ncolour = "red"\n')
    assert "'cudaFoo'" in msg and "colour" in msg


def test_bad_status(tmp_path):
    msg = _error(tmp_path, '[[entry]]\ncuda = "cudaFoo"\nhip = "hipFoo"\nstatus = "maybe"\n')
    assert "'cudaFoo'" in msg and "maybe" in msg


def test_supported_without_hip_name(tmp_path):
    msg = _error(tmp_path, '[[entry]]\ncuda = "cudaFoo"\n')
    assert "'cudaFoo'" in msg and "no hip name" in msg


def test_identifier_key_must_be_an_identifier(tmp_path):
    msg = _error(tmp_path, '[[entry]]\ncuda = "at::cuda::foo"\nhip = "at::hip::foo"\n')
    assert "'at::cuda::foo'" in msg and "identifier" in msg


def test_rename_target_must_be_an_identifier(tmp_path):
    msg = _error(tmp_path, '[[entry]]\ncuda = "CUarray"\nhip = "hipArray *"\n')
    assert "'CUarray'" in msg and "hipArray *" in msg


def test_non_string_value(tmp_path):
    msg = _error(tmp_path, '[[entry]]\ncuda = "cudaFoo"\nhip = 3\n')
    assert "'cudaFoo'" in msg and "hip" in msg


def test_toml_syntax_error(tmp_path):
    msg = _error(tmp_path, '[[entry]\ncuda = "x"\n')
    assert "TOML" in msg


def test_bad_context(tmp_path):
    msg = _error(tmp_path, '[[entry]]\ncuda = "__FOO__"\nhip = "__BAR__"\ncontext = "always"\n')
    assert "'__FOO__'" in msg and "context" in msg


def test_corrupt_generated_entry_is_named(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    (data / "x.json").write_text('{"category": "x", "defaults": {"category": "x"}, "entries": '
                                 '[{"cuda": "cudaA", "hip": "hipA"}, {"cuda": "cudaB", "hip": "hipB", "status": "odd"}]}')
    with pytest.raises(MappingError, match=r"^x\.json: entry 'cudaB' has status 'odd'"):
        build_database(data, tmp_path / "none")


def test_curated_entry_replaces_generated_one(tmp_path):
    cur = _curated(tmp_path, '[defaults]\ncategory = "runtime"\nsource = "test"\n'
                             '[[entry]]\ncuda = "cudaMalloc"\nhip = "hipMallocCustom"\nnote = "mine"\n')
    db = build_database(DATA_DIR, cur)
    e = db.identifiers["cudaMalloc"]
    assert (e.hip, e.note, e.source) == ("hipMallocCustom", "mine", "test")
    assert db.identifiers["cudaFree"].target() == "hipFree"  # the rest is still there


def test_shipped_database_loads_and_is_cached():
    assert load_database() is load_database()
    assert len(load_database()) > 10000


def test_suggest_offers_close_names(db):
    assert "cudaMalloc" in db.suggest("cudaMaloc")
    assert db.suggest("zzzzqqqq") == []


def test_resolve_qualified_names(db):
    assert db.resolve("cub::BlockReduce")[0] == "hipcub::BlockReduce"
    assert db.resolve("::cub::DeviceScan")[0] == "::hipcub::DeviceScan"
    assert db.resolve("thrust::sort")[0] == "thrust::sort"
    assert db.resolve("mylib::thing") == (None, [])
    assert db.resolve("cudaMalloc") == (None, [])


def test_corrupt_generated_row_is_named(tmp_path):
    import json

    fields = ["cuda", "hip", "kind", "category", "status", "roc", "since_hip", "header", "note", "alternative",
              "source", "context"]
    data = tmp_path / "data"
    data.mkdir()
    rows = [["cudaA", "hipA", "identifier", "runtime", "supported", None, None, None, None, None, 0, None],
            ["cudaB", "hip B", "identifier", "runtime", "supported", None, None, None, None, None, 0, None]]
    (data / "runtime.json").write_text(json.dumps({"category": "runtime", "sources": ["s"], "fields": fields,
                                                   "entries": rows}))
    with pytest.raises(MappingError, match=r"^runtime\.json: entry 'cudaB': target name 'hip B'"):
        build_database(data, tmp_path / "none")
    rows[1][1] = "hipB"
    (data / "runtime.json").write_text(json.dumps({"category": "runtime", "sources": ["s"], "fields": fields,
                                                   "entries": rows}))
    db = build_database(data, tmp_path / "none")
    assert db.identifiers["cudaB"].source == "s"
