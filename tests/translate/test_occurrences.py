"""occurrences(): every whole-identifier occurrence of a set of names, found in one pass."""

from pathlib import Path

from porter.translate.engine import occurrences
from porter.translate.source_index import IDENTIFIER

SAMPLES = Path(__file__).resolve().parents[2] / "sample_projects"


def reference(source: bytes, words) -> list[tuple[int, bytes]]:
    """What the translator means by an occurrence: a token of the identifier regex that is one of the words."""
    words = set(words)
    return [(m.start(), m.group()) for m in IDENTIFIER.finditer(source) if m.group() in words]


def test_names_inside_longer_names_and_overlapping_names():
    source = b"cudaFree(x); cudaFreeHost(y); my_cudaFree(); cudaFree_t; $cudaFree; a.cudaFree; cuda; 9cudaFree"
    words = [b"cudaFree", b"cudaFreeHost", b"cuda", b"Free"]
    got = occurrences(source, words)
    assert got == reference(source, words)
    assert [w for _, w in got] == [b"cudaFree", b"cudaFreeHost", b"cudaFree", b"cuda"]


def test_end_bound_and_empty_word_set():
    source = b"cudaMalloc cudaMalloc cudaMalloc"
    assert occurrences(source, [b"cudaMalloc"], end=21) == [(0, b"cudaMalloc"), (11, b"cudaMalloc")]
    assert occurrences(source, [b"cudaMalloc"], end=15) == [(0, b"cudaMalloc")]  # a name cut by the bound is not one
    assert occurrences(source, []) == []


def test_same_places_as_the_identifier_regex_on_every_sample():
    for path in sorted(SAMPLES.rglob("*.cu*")) + sorted(SAMPLES.rglob("*.h")):
        source = path.read_bytes()
        names = sorted(set(IDENTIFIER.findall(source)))
        words = names[::3]  # a third of the file's names, prefixes and all
        assert occurrences(source, words) == reference(source, words), path
