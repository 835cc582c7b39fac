"""PORT033: overloads that become one function because two CUDA types map to one HIP type.

CUDA facts: CUresult (driver API, cuda.h) and cudaError_t (runtime API) are distinct enums,
so C++ overloads a function on them; HIP has one hipError_t for both, so the ported overloads
have one signature and the second is a redefinition."""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

import pytest

from porter.findings import apply_fixes, scan
from porter.mapping import load_database
from porter.translate import translate

POSITIVE = Path(__file__).with_name("fixtures") / "PORT033" / "positive.cu"


def _reported(data: bytes, path: str = "t.cu"):
    return [f for f in scan(data, path) if f.rule in ("PORT033", "PORT900")]


def test_every_pair_the_database_maps_to_one_hip_name_is_found():
    """The pairs come from the database, not from a list in the rule: for every HIP name that
    two CUDA names share, two overloads on those names are reported at the second."""
    by_hip = defaultdict(set)
    for e in load_database().identifiers.values():
        if e.renames and e.context is None:
            by_hip[e.hip].add(e.cuda)
    pairs = [tuple(sorted(names))[:2] for names in by_hip.values() if len(names) > 1]
    assert len(pairs) > 100
    lines = [f"void f{k}({a} x);\nvoid f{k}({b} x);\n" for k, (a, b) in enumerate(pairs)]
    found = _reported("".join(lines).encode())
    assert not [f for f in found if f.rule == "PORT900"]
    assert sorted(f.line for f in found) == [2 * k + 2 for k in range(len(pairs))]


def test_the_fix_keeps_crlf_and_wraps_the_whole_second_overload():
    src = (b"static int code(cudaError_t e) { return (int)e; }\r\n"
           b"template <typename T>\r\nstatic int code(T* p, CUresult e) { return (int)e; }\r\n"
           b"template <typename T>\r\nstatic int code(T* p, cudaError_t e) { return 1; }\r\n")
    [f] = _reported(src)
    assert f.line == 5 and "`code(T *, cudaError_t)`" in f.message and "(line 3)" in f.message
    fixed = apply_fixes(src, [f], safe_only=False)
    assert fixed == src.replace(b"template <typename T>\r\nstatic int code(T* p, cudaError_t",
                                b"#if !defined(__HIP_PLATFORM_AMD__)  // porter PORT033: cudaError_t and CUresult are one "
                                b"type in HIP\r\ntemplate <typename T>\r\nstatic int code(T* p, cudaError_t") + b"#endif\r\n"
    assert _reported(fixed) == []


def test_look_alikes_are_not_reported():
    src = (b"int f(cudaError_t e);\nint g(CUresult e);\n"  # two names
           b"int h(cudaError_t e) { return h2(CUDA_SUCCESS); }\n"
           b"#define F(x) int k(CUresult x); int k(cudaError_t x);\n"  # a macro body is not parsed as code
           b"const char* s = \"int f(CUresult);\";\n")
    assert _reported(src) == []


@pytest.mark.hipcc
def test_the_unfixed_port_fails_exactly_where_the_rule_points(tmp_path, hipcc_compile):
    data = POSITIVE.read_bytes()
    reported = {f.line for f in _reported(data, POSITIVE.name)}
    t = translate(data, POSITIVE.name)
    rc, out = hipcc_compile(t.output, "port032")
    assert rc != 0
    failing = {t.output_line_to_source(int(m.group(1)))
               for m in re.finditer(r"port032\.hip:(\d+):\d+: error: redefinition", out)}
    assert failing and failing <= reported, out[-3000:]


def test_names_cut_by_the_slices_a_big_file_is_searched_in_are_still_found(monkeypatch):
    """A big file is searched a slice at a time (a list of every occurrence of a 20 MB file is bigger
    than the file): a name that straddles a slice's end is found once, not missed and not twice."""
    from porter.findings.predicates import overloads

    data = POSITIVE.read_bytes()
    whole = [(f.line, f.column) for f in _reported(data)]
    assert whole
    for size in (7, 16, 61):  # slices shorter than the names, so every name straddles some cut
        monkeypatch.setattr(overloads, "_SLICE", size)
        assert [(f.line, f.column) for f in _reported(data)] == whole, size
