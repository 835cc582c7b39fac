"""A scan reads a file's text for words once: the rules' trigger words and the names the file checks
look up in every file (unsupported APIs for PORT030, the CUDA names that collapse into one HIP name for
PORT033, HIP's vector types for PORT176) are found in one Aho-Corasick pass (``Context.occurrences``),
and that pass finds what a pass per word list finds.

CUDA facts used: CUresult (driver API) and cudaError_t (runtime API) are two types, so C++ overloads a
function on them; HIP names both hipError_t, so the port has two definitions of one function (PORT033).
HIP declares the vector types (float4, uint2, ulonglong3 ...) and operators on them (PORT176)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import ahocorasick_rs
import pytest

import porter.findings.engine as engine
from porter.findings import scan
from porter.findings.predicates import api, hipdefs, overloads
from porter.project.files import discover
from porter.translate.source_index import index_source

ROOT = Path(__file__).resolve().parents[2]

# a driver-API and a runtime-API overload (PORT033 at the second), a kernel with a warp shuffle of
# width 32 (trigger words of the warp rules), float4 arithmetic (a HIP vector type)
SOURCE = b"""\
#include <cuda.h>
#include <cuda_runtime.h>

const char* describe(CUresult r) { return "driver"; }
const char* describe(cudaError_t e) { return "runtime"; }

__global__ void scale(float4* v, float s, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float4 a = v[i];
        a.x = __shfl_down_sync(0xffffffff, a.x, 16, 32);
        v[i] = a;
    }
}
"""


class _Counting:
    """An Aho-Corasick searcher that records the haystacks its overlapping searches read."""

    reads: list = []

    def __init__(self, words, *args, **kwargs):
        self._real = _REAL(words, *args, **kwargs)

    def find_matches_as_indexes(self, haystack, overlapping=False):
        if overlapping:
            _Counting.reads.append(haystack)
        return self._real.find_matches_as_indexes(haystack, overlapping=overlapping)


_REAL = ahocorasick_rs.BytesAhoCorasick


def _fresh_searchers():
    for cached in (engine._searcher, engine._shared_words, api._name_searcher, overloads._searcher):
        cached.cache_clear()


@pytest.fixture
def counting(monkeypatch):
    _fresh_searchers()
    monkeypatch.setattr(ahocorasick_rs, "BytesAhoCorasick", _Counting)
    _Counting.reads = []
    yield _Counting.reads
    monkeypatch.undo()
    _fresh_searchers()  # (no counting searcher stays cached for the next test)


def test_a_scan_reads_the_text_once_for_every_word_list(counting):
    found = scan(SOURCE, "t.cu")
    assert [f.line for f in found if f.rule == "PORT033"] == [5]  # the overload check ran and found it
    whole = [h for h in counting if h is SOURCE or h == SOURCE]
    assert len(whole) == 1, f"{len(whole)} overlapping Aho-Corasick passes over the file's text"


def _sources():
    files = [pf.path for pf in discover(ROOT / "sample_projects") if pf.kind == "source"]
    files += sorted((ROOT / "tests" / "findings" / "fixtures").rglob("*.cu"))
    return files


def test_the_shared_pass_finds_what_a_pass_per_word_list_finds(monkeypatch):
    """Every sample and rule fixture scanned with the word lists shared and with each list searched on
    its own (SHARED_WORDS empty: each check makes its own pass) gives the same findings."""
    files = _sources()
    assert len(files) > 40
    shared = {str(p): scan(p.read_bytes(), str(p)) for p in files}
    monkeypatch.setattr(engine, "SHARED_WORDS", [])
    alone = {str(p): scan(p.read_bytes(), str(p)) for p in files}
    assert alone == shared
    assert sum(len(v) for v in shared.values()) > 100


@pytest.mark.parametrize("text, named", [
    (b"float4 v;", True), (b"(uchar3)x", True), (b"ulonglong2 q", True), (b"longlong1 a", True),
    (b"double2*p", True), (b"$int4 x", True),  # `$` does not join a name to a regular expression's \b
    (b"myfloat4 v;", False), (b"float4x v;", False), (b"float5 v;", False), (b"float42", False),
    (b"uint 4", False), (b"_short2", False), (b"", False),
])
def test_vector_type_names_are_whole_words(text, named):
    """As a file of its own, and at the end of a big file (read a slice at a time, past 1 MB)."""
    for pad in (b"", b"x;\n" * 349_524 + b" "):  # (the name starts 3 bytes before the first 1 MB slice ends)
        source = pad + text
        ctx = SimpleNamespace(source=source, index=index_source(source),
                              occurrences=lambda words, s=source: engine.trigger_matches(s, words))
        assert hipdefs._has_vector_word(ctx) is named, (len(pad), text)
