"""The findings API other layers call: scan() on odd input, apply_fixes, the catalogue,
the JSON / SARIF / text reports."""

from __future__ import annotations

import json

import pytest

from porter.findings import CATEGORIES, SEVERITIES, apply_fixes, catalogue, report, scan, scan_build_file
from porter.findings import engine, predicates
from porter.findings.model import Finding, Fix, FixEdit

WARP = b"""__device__ float f(float v)
{
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);
    return v;
}
"""


def test_findings_sorted_with_positions_and_json_shape():
    findings = scan(WARP, "w.cu")
    assert [f.start_byte for f in findings] == sorted(f.start_byte for f in findings)
    shfl = next(f for f in findings if f.rule == "PORT020")
    assert (shfl.line, shfl.column) == (3, 43)
    assert WARP[shfl.start_byte:shfl.end_byte].startswith(b"__shfl_down_sync(")
    doc = report.to_json(findings, {"files_scanned": 1})
    assert set(doc) == {"findings", "summary"}
    item = next(d for d in doc["findings"] if d["rule"] == "PORT020")
    assert set(item) == {"rule", "category", "severity", "file", "line", "column", "end_line", "end_column",
                         "message", "fix"}
    assert item["fix"]["safe"] is True and item["fix"]["edits"][0].keys() == {"start_byte", "end_byte", "replacement"}
    assert doc["summary"]["files_scanned"] == 1 and doc["summary"]["by_severity"]["error"] >= 1
    json.dumps(doc)


@pytest.mark.parametrize("data", [b"", b"\x00\xff\xfe garbage \x80", b"}}}}{{{{", b"__global__ void k( {",
                                  "// caf\u00e9 \u00fc\n__global__ void k() { int l = threadIdx.x & 31; }".encode(),
                                  b"\xef\xbb\xbf__global__ void k() {}", b"#define X(\n", b"asm(", b"asm(\"\" : :"])
def test_scan_never_raises(data):
    findings = scan(data, "odd.cu")
    assert all(f.category in CATEGORIES and f.severity in SEVERITIES for f in findings)
    assert not [f for f in findings if f.rule == "PORT900"]


def test_broken_file_gets_findings_outside_the_broken_region_and_one_parse_finding():
    src = (b"__device__ int a(int x) { return __popc(x) }}} ) (;\n"
           b"int broken( { ;\n"
           b"__global__ void k(float* v) {\n"
           b"    v[0] = __shfl_down_sync(0xffffffff, v[0], 1);\n"
           b"}\n")
    findings = scan(src, "broken.cu")
    parse = [f for f in findings if f.rule == "PORT901"]
    assert len(parse) == 1 and parse[0].severity == "info"
    assert "could not read" in parse[0].message
    assert any(f.rule == "PORT020" and f.line == 4 for f in findings)


def test_a_failing_rule_is_an_internal_error_finding_and_the_scan_goes_on(monkeypatch):
    def boom(ctx, node, caps):
        raise RuntimeError("odd input")
    monkeypatch.setitem(predicates.REGISTRY, "PORT021", boom)
    src = b"__global__ void k(float* s) { __syncwarp(); __syncwarp(); s[0] = __shfl_down_sync(0xffffffff, s[0], 1); }"
    findings = scan(src, "x.cu")
    internal = [f for f in findings if f.rule == "PORT900"]
    assert len(internal) == 1, "one internal error per file and rule"
    assert internal[0].category == "other" and "PORT021" in internal[0].message and "odd input" in internal[0].message
    assert any(f.rule == "PORT020" for f in findings)


def test_a_failing_file_rule_is_reported_too(monkeypatch):
    def boom(ctx):
        raise ValueError("database unreadable")
    monkeypatch.setitem(predicates.FILE_REGISTRY, "PORT030", boom)
    findings = scan(b"__global__ void k(unsigned* o) { o[0] = __vadd4(o[1], o[2]); }", "x.cu")
    assert [f.extra.get("failed_rule") for f in findings if f.rule == "PORT900"] == ["PORT030"]


def _finding(start, end, text, safe=True, rule="PORT020"):
    return Finding(rule, "lane-mask", "error", "x", 1, start + 1, 1, end + 1, "m",
                   Fix(safe, "d", (FixEdit(start, end, text),)), start, end)


def test_apply_fixes_skips_overlapping_and_unsafe_fixes():
    src = b"0123456789"
    fs = [_finding(2, 5, "A"), _finding(4, 6, "B"), _finding(7, 8, "C", safe=False), _finding(0, 0, "<")]
    assert apply_fixes(src, fs) == b"<01A56789"
    assert apply_fixes(src, fs, safe_only=False) == b"<01A56C89"


def test_fixes_converge_on_a_whole_file():
    src = open(__file__.replace("test_findings_api.py", "fixtures/PORT020/positive.cu"), "rb").read()
    once = apply_fixes(src, scan(src))
    twice = apply_fixes(once, scan(once))
    assert once != src and twice == once


def test_hip_spelling_is_recognised():
    hip = b"""#include <hip/hip_runtime.h>
__global__ void k(int* out)
{
    unsigned m = __ballot(threadIdx.x > 3);
    out[0] = __popc(__ballot(1));
    for (int o = 16; o > 0; o >>= 1) out[1] += __shfl_xor(out[1], o);
    hipMallocManaged((void**)&out, 4);
}
"""
    rules = {f.rule for f in scan(hip, "k.hip")}
    assert {"PORT023", "PORT024", "PORT012", "PORT120"} <= rules


def test_clean_hip_code_has_no_warning():
    clean = b"""#include <hip/hip_runtime.h>
#define TILE 32
__global__ void add(const float* a, const float* b, float* c, int n)
{
    __shared__ float tile[TILE][TILE + 1];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
    float v = c[0];
    for (int o = warpSize / 2; o > 0; o >>= 1) v += __shfl_down(v, o);
    unsigned long long m = __ballot(v > 0);
    tile[threadIdx.y][threadIdx.x] = v + __popcll(m);
}
int blocks(int n) { return (n + 31) / 32; }
"""
    assert [f for f in scan(clean, "clean.hip") if f.severity != "info"] == []


def test_catalogue_pages_have_the_sections_explain_promises():
    rules = catalogue()
    assert len(rules) >= 30
    cats = {r.category for r in rules.values()}
    assert set(CATEGORIES) <= cats, f"categories without rules: {set(CATEGORIES) - cats}"
    for r in rules.values():
        text = r.page_text()
        assert text.startswith(f"{r.id}: {r.title}")
        if r.scope != "engine":
            assert "Before" in text and "After" in text, r.id
            assert r.docs, f"{r.id} names no documentation topic"
            assert r.fix, f"{r.id} has no suggested fix"


def test_every_query_pattern_names_one_rule_and_compiles():
    patterns = engine.rule_patterns()
    from porter.findings import predicates

    # a source rule is a query pattern, or a whole-file check (PORT030, PORT032, PORT033: database look-ups)
    source_rules = {r.id for r in catalogue().values() if r.scope == "source" and r.id not in predicates.FILE_REGISTRY
                    and not r.reported_by}
    assert source_rules <= set(patterns)
    # a rule reported by another rule's predicate names a rule that runs
    for r in catalogue().values():
        if r.reported_by:
            assert r.reported_by in patterns or r.reported_by in predicates.FILE_REGISTRY, r.id
    assert engine.combined_query().pattern_count == sum(len(v) for v in patterns.values())


def test_sarif_is_2_1_0_with_rules_and_results():
    findings = scan(WARP, "src/w.cu") + scan_build_file("NVCCFLAGS = -arch=sm_80\n", "Makefile")
    doc = report.to_sarif(findings)
    assert doc["version"] == "2.1.0" and "sarif-2.1.0" in doc["$schema"]
    run = doc["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    ids = [r["id"] for r in rules]
    assert set(catalogue()) <= set(ids)
    for res in run["results"]:
        assert rules[res["ruleIndex"]]["id"] == res["ruleId"]
        assert res["level"] in ("error", "warning", "note")
        region = res["locations"][0]["physicalLocation"]["region"]
        assert region["startLine"] >= 1 and region["startColumn"] >= 1
    assert any("fixes" in r for r in run["results"])
    json.dumps(doc)


def test_text_report_lists_each_finding_and_a_total():
    text = report.to_text(scan(WARP, "w.cu"))
    assert "w.cu:3:43: error: PORT020 [lane-mask]" in text
    assert text.rstrip().splitlines()[-1].startswith(f"{len(scan(WARP))} findings")


def _all_sources():
    root = __import__("pathlib").Path(__file__).resolve().parents[2]
    files = sorted((root / "tests" / "findings" / "fixtures").glob("*/*.cu"))
    files += sorted(p for p in (root / "sample_projects").rglob("*") if p.suffix in (".cu", ".cuh", ".h", ".cpp"))
    return files


def test_trigger_words_lose_no_finding(monkeypatch):
    """The speed-ups (a rule's query only visits declarations holding its trigger words, and
    runs only in a file that meets its ``requires`` conditions) must give exactly the findings
    of a plain whole-file query of every rule.  Each file is scanned where it lies, so the
    project headers it includes are read too."""
    files = _all_sources()
    fast = {p: [f.as_dict() for f in scan(p.read_bytes(), str(p))] for p in files}
    plain = tuple(((rid,), (), False, ()) for rid in engine._triggers())
    assert engine.rule_groups() != plain
    assert any(req for _ids, _w, _d, req in engine.rule_groups()), "no rule has a requires condition to check"
    monkeypatch.setattr(engine, "rule_groups", lambda: plain)
    for p in files:
        assert [f.as_dict() for f in scan(p.read_bytes(), str(p))] == fast[p], p


def test_rocm62_style_64bit_mask_is_only_a_warning():
    src = b"__device__ float r(float v) { return __shfl_down_sync(0xffffffffffffffffull, v, 1); }"
    (f,) = [f for f in scan(src) if f.rule == "PORT020"]
    assert f.severity == "warning" and f.fix.safe


def test_porter_ignore_comments_silence_a_line():
    src = (b"__global__ void k(int* o)\n{\n"
           b"    int lane = threadIdx.x & 31;  // porter: ignore PORT011 (32-lane logical warps on purpose)\n"
           b"    int warp = threadIdx.x >> 5;  // porter: ignore\n"
           b"    int w2 = threadIdx.x >> 5;    // porter: ignore PORT020\n"
           b"    const char* s = \"porter: ignore\"; int w3 = threadIdx.x >> 5;\n"
           b"    o[lane] = __shfl_down_sync(0xffffffff, warp + w2 + w3, 1);\n}\n")
    lines = {(f.line, f.rule) for f in scan(src)}
    assert (3, "PORT011") not in lines and (4, "PORT011") not in lines
    assert (5, "PORT011") in lines, "another rule's id does not silence this one"
    assert (6, "PORT011") in lines, "the words in a string are not a comment"
    assert (7, "PORT020") in lines


def test_a_file_without_trigger_words_is_not_parsed_and_not_reported():
    """No rule can match where none of its trigger words occurs: such a file is not parsed, so valid code
    tree-sitter cannot read (macro attributes) gets no parse-error noise; a file that looks broken still does."""
    from porter import parse
    from porter.translate.source_index import index_source

    valid = b"#define HD inline\nHD int twice(int x) { return 2 * x; }\nstruct S { int v; };\n"
    assert parse.parse(valid).root_node.has_error  # what PORT901 used to report here
    idx = index_source(valid)
    assert scan(valid, "ok.h", idx) == [] and not idx.parsed
    broken = b"int twice(int x) { return 2 * x;\n/* never closed\n"
    assert [f.rule for f in scan(broken, "broken.h")] == ["PORT901"]


def test_finding_messages_name_no_package_release_the_mapping_fact_was_checked_against():
    # the mapping data notes which hip-python release it checked a name against; a user reads
    # that the HIP headers lack the name, not a PyPI version string
    src = b"void f(cudaArray_t a) { cudaArray_t p; cudaArrayGetPlane(&p, a, 0); }\n"
    [f] = [f for f in scan(src, "a.cu") if f.rule == "PORT030"]
    assert "hipArrayGetPlane is not declared in the HIP" in f.message
    assert "PyPI" not in f.message and "10.0.0" not in f.message and "rocm-bindings" not in f.message


def test_bytes_that_are_not_utf8_do_not_break_a_rule_and_keep_the_offsets():
    # tree-sitter decodes a node's text as strict UTF-8 for a query predicate (#match?): a stray
    # byte in an include path made PORT050's query raise (PORT900, "please report it"); found
    # by the property test. A Latin-1 comment before a real mma.h keeps its finding in place.
    stray = b"#include <mma\xff.h>\n#include <cuda_fp16.h>\n"
    assert not [f for f in scan(stray, "m.cu") if f.rule == "PORT900"]
    latin1 = b"// caf\xe9 (Latin-1)\n#include <mma.h>\n"
    [f] = [f for f in scan(latin1, "m.cu") if f.rule == "PORT050"]
    assert (f.start_byte, f.line) == (latin1.index(b"#include"), 2)
