"""Big single files: the translator parses a region at a time and finds every name in one pass, and
the port is byte for byte the one a whole-file parse gives."""

from pathlib import Path

import pytest

import porter.translate.source_index as source_index
from porter.translate.engine import translate
from porter.translate.source_index import index_source

SAMPLES = Path(__file__).resolve().parents[2] / "sample_projects"


def _amalgamation() -> bytes:
    """Every sample source one after the other, as an amalgamated file is."""
    parts = [p.read_bytes() for p in sorted(SAMPLES.rglob("*")) if p.suffix in (".cu", ".cuh", ".h", ".cpp")]
    return b"\n".join(parts)


@pytest.fixture
def small_regions(monkeypatch):
    monkeypatch.setattr(source_index, "BIG_BYTES", 4096)  # the samples are ~150 kB: a big file
    monkeypatch.setattr(source_index, "REGION_BYTES", 2048)  # of dozens of regions


def test_regions_cut_after_top_level_closing_braces_and_cover_the_file(small_regions):
    source = _amalgamation()
    index = index_source(source)
    assert index.big
    regions = index.regions
    assert len(regions) > 10
    assert regions[0][0] == 0 and regions[-1][1] == len(source)
    assert all(a[1] == b[0] for a, b in zip(regions, regions[1:]))  # no gap, no overlap
    code = index.blanked()
    for start, end in regions[:-1]:
        assert source[:end].rsplit(b"\n", 2)[-2].startswith(b"}")  # the region ends with a `}` line
        assert all(code.count(a, 0, end) == code.count(b, 0, end) for a, b in (b"{}", b"()", b"[]"))


def test_port_of_a_big_file_is_the_one_a_whole_parse_gives(small_regions, monkeypatch):
    source = _amalgamation()
    by_regions = translate(source, "all.cu")
    monkeypatch.setattr(source_index, "BIG_BYTES", 10 ** 9)  # not big: the whole file's tree
    whole = translate(source, "all.cu")
    assert by_regions.output == whole.output
    assert by_regions.converted == whole.converted and by_regions.unsupported == whole.unsupported
    assert by_regions.lines_changed == whole.lines_changed
    assert b"HIP_SYMBOL(" in by_regions.output  # the wraps, which need the tree, are in


def test_a_file_with_no_place_to_cut_is_one_region(small_regions):
    source = b"namespace n {\n" + b"__global__ void k(float* a) { a[0] = 0; }\n" * 200 + b"}\n"
    index = index_source(source)
    assert index.big and index.regions == [(0, len(source))]


def test_a_big_file_is_never_parsed_whole(small_regions):
    source = _amalgamation()
    index = index_source(source)
    result = translate(source, "all.cu", index=index)
    assert b"HIP_SYMBOL(" in result.output
    assert not index.parsed  # only regions were parsed, and none is kept after the translation
    assert not index._region_trees


def test_lines_changed_counts_each_line_once():
    for path in sorted(SAMPLES.rglob("*.cu")):
        result = translate(path.read_bytes(), path.name)
        idx = result.index
        if idx is None:
            continue
        lines = set()
        for e in result.edits:
            lines.update(range(idx.line_of(e.start), idx.line_of(max(e.start, e.end - 1)) + 1))
        assert result.lines_changed == len(lines), path


# a definition whose head differs per configuration: each branch opens the body's brace (4 of 817 real
# files have this shape; counting every branch's brace left the rest of such a file uncut)
_TWO_HEADS = (b"#ifdef USE_DOUBLE\n__global__ void scale(double* a, double s) {\n#else\n"
              b"__global__ void scale(float* a, float s) {\n#endif\n    a[threadIdx.x] *= s;\n}\n")


@pytest.mark.parametrize("shape", ["two-heads", "bom-guard"])
def test_cutting_goes_on_after_conditional_heads_and_a_bom(small_regions, monkeypatch, shape):
    body = _amalgamation()
    if shape == "two-heads":
        source = body[:len(body) // 10] + b"\n" + _TWO_HEADS + body[len(body) // 10:]
    else:  # a byte order mark before an #if on line 1 (its #endif was read as closing nothing open)
        source = b"\xef\xbb\xbf#if defined(_WIN32)\n#define EXPORT __declspec(dllexport)\n#else\n#define EXPORT\n#endif\n" + body
    index = index_source(source)
    regions = index.regions
    where = source.find(b"USE_DOUBLE") if shape == "two-heads" else 0
    after = [(a, b) for a, b in regions if a > where]
    assert len(after) > 10, f"{len(regions)} regions, {len(after)} after the shape"
    assert max(b - a for a, b in after) < 16 * 2048  # no region runs to the end of the file
    by_regions = translate(source, "all.cu")
    monkeypatch.setattr(source_index, "BIG_BYTES", 10 ** 9)
    whole = translate(source, "all.cu")
    assert by_regions.output == whole.output
