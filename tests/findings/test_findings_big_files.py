"""Big single files: the findings rules query and look a region (a run of whole top-level
declarations) at a time, never holding the whole file's tree, and report exactly what a whole-file
parse reports."""

from __future__ import annotations

from pathlib import Path

import pytest

import porter.translate.source_index as source_index
from porter.findings.engine import scan
from porter.translate.source_index import index_source

ROOT = Path(__file__).resolve().parents[2]
SOURCES = sorted(p for d in (ROOT / "sample_projects", ROOT / "tests" / "findings" / "fixtures")
                 for p in d.rglob("*") if p.suffix in (".cu", ".cuh", ".h", ".hpp", ".cpp"))


def _amalgamation() -> bytes:
    return b"\n".join(p.read_bytes() for p in SOURCES if "sample_projects" in p.parts)


def _by_regions_and_whole(monkeypatch, source: bytes, path: str, file=None):
    monkeypatch.setattr(source_index, "BIG_BYTES", 512)  # files over 512 bytes count as big
    monkeypatch.setattr(source_index, "REGION_BYTES", 256)
    index = index_source(source)
    big = index.big
    by_regions = scan(source, path, index=index, file=file)
    parsed_whole = index.parsed
    monkeypatch.setattr(source_index, "BIG_BYTES", 10 ** 9)  # not big: the whole file's tree
    whole = scan(source, path, file=file)
    return big, parsed_whole, by_regions, whole


def test_every_sample_and_fixture_gives_the_same_findings_region_by_region(monkeypatch):
    """Each file scanned from disk (its project headers read) as a big file cut into small regions:
    the same findings, messages and fixes as with one tree for the file."""
    assert len(SOURCES) > 100
    cut = 0
    for path in SOURCES:
        source = path.read_bytes()
        big, parsed_whole, by_regions, whole = _by_regions_and_whole(monkeypatch, source, path.name, file=path)
        assert by_regions == whole, path
        assert not (big and parsed_whole), path  # a big file's whole tree was never built
        cut += big
    assert cut > 50  # most of them really were scanned region by region


def test_an_amalgamated_file_is_scanned_region_by_region_with_the_same_findings(monkeypatch):
    source = _amalgamation()
    big, parsed_whole, by_regions, whole = _by_regions_and_whole(monkeypatch, source, "all.cu")
    assert big and not parsed_whole
    assert by_regions == whole
    rules = {f.rule for f in whole}
    assert len(whole) > 100 and {"PORT001", "PORT010"} <= rules  # a real corpus of findings


def test_a_syntax_error_in_one_region_is_reported_once_at_its_place(monkeypatch):
    good = b"".join(b"__global__ void k%d(float* a) {\n"
                    b"    a[threadIdx.x] = __shfl_down_sync(0xffffffff, 1.f, 1);\n"
                    b"}\n" % i for i in range(40))
    broken = good + b"__global__ void bad(float* a) { a[0] = (1 + ; }\n" + good
    big, parsed_whole, by_regions, whole = _by_regions_and_whole(monkeypatch, broken, "broken.cu")
    assert big and not parsed_whole
    assert by_regions == whole
    errors = [f for f in by_regions if f.rule == "PORT901"]
    assert len(errors) == 1 and errors[0].line == 121


@pytest.mark.parametrize("regions", [256, 4096])
def test_no_region_tree_is_kept_after_a_scan(monkeypatch, regions):
    monkeypatch.setattr(source_index, "BIG_BYTES", 2 * regions)
    monkeypatch.setattr(source_index, "REGION_BYTES", regions)
    source = _amalgamation()
    index = index_source(source)
    assert scan(source, "all.cu", index=index)
    assert not index.parsed and not index._region_trees and index.keep_bytes == 0


def _counting_parses(monkeypatch, index):
    """Counts each region's parses and the most region trees alive at a parse."""
    parses: dict[int, int] = {}
    alive = [0]
    real = type(index)._parse_region

    def parse_region(self, k):
        alive[0] = max(alive[0], len(self._region_trees) + 1)
        parses[k] = parses.get(k, 0) + 1
        return real(self, k)

    monkeypatch.setattr(type(index), "_parse_region", parse_region)
    return parses, alive


def test_a_file_of_a_few_regions_parses_each_once_in_a_scan(monkeypatch):
    """The file checks each walk the whole file: a big file up to SCAN_KEEPS_BYTES keeps its region
    trees for the scan, so no region is parsed twice, and the findings are unchanged."""
    import porter.findings.engine as findings_engine

    source = _amalgamation()
    monkeypatch.setattr(source_index, "BIG_BYTES", 4096)
    monkeypatch.setattr(source_index, "REGION_BYTES", 2048)
    monkeypatch.setattr(findings_engine, "SCAN_KEEPS_BYTES", len(source))
    index = index_source(source)
    assert len(index.regions) > 10
    parses, _alive = _counting_parses(monkeypatch, index)
    found = scan(source, "all.cu", index=index)
    assert parses and set(parses.values()) == {1}
    monkeypatch.setattr(source_index, "BIG_BYTES", 10 ** 9)
    assert found == scan(source, "all.cu")


def test_a_file_of_many_regions_holds_one_region_tree_at_a_time(monkeypatch):
    """Past SCAN_KEEPS_BYTES, with no room for the trees the file checks ask for again
    (FILE_CHECK_KEEPS_BYTES: tests/findings/test_scan_parses_once.py), the memory stays one
    region's tree."""
    import porter.findings.engine as findings_engine

    source = _amalgamation()
    monkeypatch.setattr(source_index, "BIG_BYTES", 4096)
    monkeypatch.setattr(source_index, "REGION_BYTES", 2048)
    monkeypatch.setattr(findings_engine, "SCAN_KEEPS_BYTES", len(source) - 1)
    monkeypatch.setattr(findings_engine, "FILE_CHECK_KEEPS_BYTES", 0)
    index = index_source(source)
    assert len(index.regions) > 10
    parses, alive = _counting_parses(monkeypatch, index)
    assert scan(source, "all.cu", index=index)
    assert alive[0] == 1 and max(parses.values()) > 1


def _macros(monkeypatch, source: bytes, region_bytes: int) -> dict[str, str]:
    from porter.findings.engine import Context

    monkeypatch.setattr(source_index, "BIG_BYTES", 2 * region_bytes)
    monkeypatch.setattr(source_index, "REGION_BYTES", region_bytes)
    index = index_source(source)
    macros = Context(source, index, "x.cu").macros
    assert not (index.big and index.parsed)  # (no whole tree for the text's reading)
    return macros


def test_a_big_file_reads_its_object_like_macros_from_the_text_as_the_tree_gives_them(monkeypatch):
    """The #define values the rules expand (WARP_SIZE, masks) of a big file come from the text, with
    no region parsed for them: the same names and values as the tree's #define bodies."""
    tricky = (b"#define WARP 32\n"
              b"  #  define   HALF (WARP / 2)   // a comment\n"
              b"#define FULL 0xffffffff /* a comment\n   on two lines */\n"
              b"#define LONG_ONE (1 + \\\n   2)\n"
              b"#define FN(x) ((x) * 2)\n"
              b"#define EMPTY\n"
              b"#define ONLY_COMMENT // nothing\n"
              b"/*\n#define IN_COMMENT 7\n*/\n"
              b"const char* s = \"#define IN_STRING 8\";\n"
              b"#define WARP 64\n") + b"int pad;\n" * 100
    text = _macros(monkeypatch, tricky, 256)
    assert text == _macros(monkeypatch, tricky, 10 ** 9)
    assert text["WARP"] == "64" and text["HALF"] == "(WARP / 2)" and text["FULL"] == "0xffffffff"
    assert "FN" not in text and "EMPTY" not in text and "IN_COMMENT" not in text and "IN_STRING" not in text
    for path in SOURCES:
        source = path.read_bytes()
        if b"define" in source:
            assert _macros(monkeypatch, source, 256) == _macros(monkeypatch, source, 10 ** 9), path


@pytest.mark.parametrize("text, may", [
    (b"__device__ float atomicAdd(float* a, float b) {", True),
    (b"double fabs(double x) noexcept { return x; }", True),
    (b"float fabs(float x) /* ours */ {", True),
    (b"auto fmaxf(float a, float b) -> float {", True),
    (b"inline float4& operator+=(float4& a, float4 b)", True),
    (b'fabs(R"(x)")', True),                      # a raw string: it cannot tell, so maybe
    (b"x = atomicAdd(p, 1.f);", False),           # calls: what follows is ; ) or an operator
    (b"y = fabs(a) / b;", False),
    (b'printf("%d (\\n", x);', False),            # a ( inside a literal
    (b"fabs(a /* ) */, b);", False),              # a ) inside a comment
    (b"float atomicAdd(float*, float);", False),  # a prototype is no definition
])
def test_the_region_test_of_hip_function_definitions(text, may):
    """PORT170 parses only the regions of a big file whose text may define a HIP function: the
    test must say maybe wherever a definition could be."""
    from porter.findings.predicates.hipdefs import _may_define

    assert _may_define(text) is may


def test_a_scan_keeps_only_the_region_trees_its_file_checks_ask_for_again(monkeypatch):
    """Issue 34: a region's tree (about 28 bytes per source byte) goes once the query pass and the
    region checks are done with it.  At every parse, the trees alive cover at most the file checks'
    budget (FILE_CHECK_KEEPS_BYTES of source) and the region being parsed, however many regions the
    file has, with the default settings; the findings are those of a whole-file parse."""
    import porter.findings.engine as findings_engine

    source = _amalgamation()
    monkeypatch.setattr(source_index, "BIG_BYTES", 4096)
    monkeypatch.setattr(source_index, "REGION_BYTES", 2048)
    monkeypatch.setattr(findings_engine, "FILE_CHECK_KEEPS_BYTES", 8 << 10)
    index = index_source(source)
    sizes = [end - start for start, end in index.regions]
    assert len(sizes) > 40 and sum(sizes) > 20 * (8 << 10)  # far more source than the budget
    alive_bytes = [0]
    real = type(index)._parse_region

    def parse_region(self, k):
        alive = sum(sizes[j] for j in self._region_trees) + sizes[k]
        alive_bytes[0] = max(alive_bytes[0], alive)
        return real(self, k)

    monkeypatch.setattr(type(index), "_parse_region", parse_region)
    found = scan(source, "all.cu", index=index)
    assert 0 < alive_bytes[0] <= (8 << 10) + max(sizes)
    assert not index._region_trees  # and none after the scan
    monkeypatch.setattr(source_index, "BIG_BYTES", 10 ** 9)
    assert found == scan(source, "all.cu")
