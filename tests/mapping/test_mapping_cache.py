"""The built database kept between runs: the same tables as a fresh build, never a stale copy,
and a damaged or unwritable cache costs only the time of a build."""

from __future__ import annotations

import os
import shutil

import pytest

import porter.mapping as mapping
from porter.mapping import cache


@pytest.fixture
def data(tmp_path, monkeypatch):
    """A private copy of the shipped data and curated folders, and a private cache folder."""
    data_dir, curated_dir = tmp_path / "data", tmp_path / "curated"
    shutil.copytree(mapping.DATA_DIR, data_dir, ignore=shutil.ignore_patterns("calls"))
    shutil.copytree(mapping.CURATED_DIR, curated_dir)
    monkeypatch.setattr(mapping, "DATA_DIR", data_dir)
    monkeypatch.setattr(mapping, "CURATED_DIR", curated_dir)
    monkeypatch.setenv("PORTER_CACHE_DIR", str(tmp_path / "cache"))
    mapping.load_database.cache_clear()
    yield tmp_path
    mapping.load_database.cache_clear()


def _copies(tmp_path):
    return sorted((tmp_path / "cache" / "mapping").glob("*.marshal"))


def _fresh_load():
    mapping.load_database.cache_clear()
    return mapping.load_database()


def _same(a, b):
    for t in ("identifiers", "headers", "namespaces"):
        assert list(getattr(a, t).items()) == list(getattr(b, t).items()), t  # entries and their order


def test_a_second_process_reads_the_tables_back_without_building(data, monkeypatch):
    built = mapping.build_database(mapping.DATA_DIR, mapping.CURATED_DIR)
    first = _fresh_load()
    _same(first, built)
    assert len(_copies(data)) == 1

    def no_build(*_):
        raise AssertionError("built again although a copy is cached")

    monkeypatch.setattr(mapping, "build_database", no_build)
    again = _fresh_load()
    _same(again, built)
    entry = again.identifiers["cudaMalloc"]
    assert isinstance(entry, mapping.Entry) and entry.renames and entry.target() == "hipMalloc"


def test_an_edited_data_file_is_read_instead_of_the_cached_copy(data):
    db = _fresh_load()
    assert db.identifiers["cudaMalloc"].hip == "hipMalloc"
    curated = mapping.CURATED_DIR / "zz_test_override.toml"
    curated.write_text('[[entry]]\ncuda = "cudaMalloc"\nhip = "hipMallocTest"\ncategory = "runtime"\n')
    assert _fresh_load().identifiers["cudaMalloc"].hip == "hipMallocTest"
    # an edit that keeps the size: the modification time tells
    curated.write_text('[[entry]]\ncuda = "cudaMalloc"\nhip = "hipMallocTEST"\ncategory = "runtime"\n')
    st = curated.stat()
    os.utime(curated, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    assert _fresh_load().identifiers["cudaMalloc"].hip == "hipMallocTEST"
    curated.unlink()
    assert _fresh_load().identifiers["cudaMalloc"].hip == "hipMalloc"


def test_a_damaged_copy_is_built_again(data):
    built = _fresh_load()
    (copy,) = _copies(data)
    for damage in (copy.read_bytes()[: copy.stat().st_size // 2], b"", b"\x00not marshal at all"):
        copy.write_bytes(damage)
        _same(_fresh_load(), built)
    # a copy of the wrong shape (another layout under the same name) is not trusted either
    copy.write_bytes(__import__("marshal").dumps(([("cudaMalloc", "hipWrong")], [], [])))
    _same(_fresh_load(), built)
    assert _fresh_load().identifiers["cudaMalloc"].hip == "hipMalloc"


def test_an_unwritable_cache_folder_changes_nothing(data, monkeypatch):
    blocker = data / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("PORTER_CACHE_DIR", str(blocker))
    db = _fresh_load()
    _same(db, mapping.build_database(mapping.DATA_DIR, mapping.CURATED_DIR))
    assert blocker.read_text() == "not a folder"


def test_older_copies_are_pruned_to_the_newest_few(data):
    folder = data / "cache" / "mapping"
    folder.mkdir(parents=True)
    for i in range(cache.KEEP + 3):
        old = folder / f"old{i}.marshal"
        old.write_bytes(b"x")
        os.utime(old, ns=(10**18 + i, 10**18 + i))
    _fresh_load()
    left = {p.name for p in _copies(data)}
    assert len(left) == cache.KEEP
    assert {f"old{i}.marshal" for i in (cache.KEEP + 2, cache.KEEP + 1, cache.KEEP)} <= left
    assert not list(folder.glob(".tmp-*"))


def _planted(data, hip_name: str) -> None:
    """A well-formed copy under the current key whose cudaMalloc says ``hip_name``."""
    real = _fresh_load()
    (copy,) = _copies(data)
    rows = [tuple(e) for e in real.identifiers.values()]
    i = next(k for k, r in enumerate(rows) if r[0] == "cudaMalloc")
    rows[i] = (rows[i][0], hip_name, *rows[i][2:])
    tables = (rows, [tuple(e) for e in real.headers.values()], [tuple(e) for e in real.namespaces.values()])
    cache.write(copy.parent, copy.stem, tables)
    mapping.load_database.cache_clear()


def test_one_flipped_bit_in_a_copy_is_built_again_not_used(data):
    built = _fresh_load()
    (copy,) = _copies(data)
    raw = bytearray(copy.read_bytes())
    at = raw.find(b"hipMalloc")
    raw[at + 3] ^= 0x04  # hipMalloc -> hipLalloc, the file still decodes
    copy.write_bytes(bytes(raw))
    _same(_fresh_load(), built)
    assert _fresh_load().identifiers["cudaMalloc"].hip == "hipMalloc"


@pytest.mark.skipif(not hasattr(os, "getuid") or os.getuid() != 0, reason="chown to another uid needs root")
def test_a_copy_in_a_folder_another_user_can_write_is_never_read(data):
    _planted(data, "hipMallocManaged")
    assert _fresh_load().identifiers["cudaMalloc"].hip == "hipMallocManaged"  # our own folder: trusted
    folder = data / "cache" / "mapping"
    for mode, owner in ((0o777, None), (0o775, None), (0o700, 65534)):
        _planted(data, "hipMallocManaged")
        os.chmod(folder, mode)
        if owner is not None:
            os.chown(folder, owner, owner)
        try:
            assert _fresh_load().identifiers["cudaMalloc"].hip == "hipMalloc", (oct(mode), owner)
            # and nothing is written into such a folder either
            assert {p.stat().st_mtime_ns for p in _copies(data)}
        finally:
            os.chown(folder, 0, 0)
            os.chmod(folder, 0o700)


# porter's own TOML data files (the translator's rules, the GPU targets), kept parsed: load_toml

RULES = '''# a comment
[device_code]
identifiers = ["__global__", "__device__"]
runtime_header = "hip/hip_runtime.h"

[leftover]
pattern = '^(cuda|cu)[A-Z]\\w*'
leads = ["cuda", "cu"]

[[remove]]
name = "x"
nested = { a = 1, b = [1.5, true, "s"] }
'''


@pytest.fixture
def toml_file(tmp_path, monkeypatch):
    monkeypatch.setenv("PORTER_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / "rules.toml"
    path.write_text(RULES)
    return path


def _without_the_parser(monkeypatch):
    monkeypatch.setitem(__import__("sys").modules, "tomllib", None)  # `import tomllib` now fails


def test_a_toml_file_is_read_back_parsed_without_the_toml_parser(toml_file, monkeypatch):
    import tomllib

    expected = tomllib.loads(RULES)
    assert cache.load_toml(toml_file) == expected
    assert list(cache.load_toml(toml_file)) == list(expected)  # tables in the file's order
    with monkeypatch.context() as m:
        _without_the_parser(m)
        assert cache.load_toml(toml_file) == expected
        assert cache.load_toml(str(toml_file)) == expected
    # an edit that keeps the size: the modification time tells, and the file is parsed again
    toml_file.write_text(RULES.replace('"cuda", "cu"', '"cudb", "cv"'))
    st = toml_file.stat()
    os.utime(toml_file, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    assert cache.load_toml(toml_file)["leftover"]["leads"] == ["cudb", "cv"]


def test_a_bad_or_missing_toml_file_raises_what_tomllib_and_reading_raise(toml_file, tmp_path):
    import tomllib

    toml_file.write_text("[device_code]\nidentifiers = [\n")
    with pytest.raises(tomllib.TOMLDecodeError) as got:
        cache.load_toml(toml_file)
    with pytest.raises(tomllib.TOMLDecodeError) as direct:
        tomllib.loads(toml_file.read_text())
    assert str(got.value) == str(direct.value)
    assert not list((tmp_path / "cache").rglob("*.marshal"))
    with pytest.raises(FileNotFoundError):
        cache.load_toml(tmp_path / "gone.toml")


def test_a_damaged_or_planted_toml_copy_is_not_used(toml_file, tmp_path, monkeypatch):
    import tomllib

    expected = tomllib.loads(RULES)
    cache.load_toml(toml_file)
    (copy,) = (tmp_path / "cache" / "toml").glob("rules-*.marshal")
    raw = bytearray(copy.read_bytes())
    raw[raw.find(b"__global__") + 2] ^= 0x01
    copy.write_bytes(bytes(raw))
    assert cache.load_toml(toml_file) == expected
    # a well-formed copy under the right name, in a folder others can write: not read
    cache.write(copy.parent, copy.stem, {"device_code": {"identifiers": ["planted"]}})
    os.chmod(copy.parent, 0o777)
    try:
        assert cache.load_toml(toml_file) == expected
    finally:
        os.chmod(copy.parent, 0o700)
    assert cache.load_toml(toml_file) == {"device_code": {"identifiers": ["planted"]}}  # (the plant itself reads)
