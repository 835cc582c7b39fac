"""The scans a big file's convert makes over its whole text find what the plain patterns find
(issue 34: directives, a region's closing ``}`` and the identifiers are found from their first byte
or by splitting the text, 3-8x faster than patterns tried at every line start): the same
directives, the same cuts, the same names, on the shapes where the fast way could slip (a ``#``
in the middle of a line, a ``#define`` continued onto a line that holds another, a byte order
mark, ``$`` in names, numbers, non-ASCII text), and the port is the same."""

import re

from porter.parse.lexical import directives
from porter.translate import translate
from porter.translate.source_index import (CONDITIONAL_LINE, IDENTIFIER, TOP_CLOSE, distinct_identifiers,
                                           index_source)

TRICKY = (b"\xef\xbb\xbf#if A\n"
          b"  #  ifdef B // #endif\n"
          b"x = 1; #if C\n"  # not a directive: code before the '#'
          b"#define M(a) a + \\\n"
          b"#define N 2\n"  # a continuation of M's body, not a #define of its own
          b"y #define P \\\n"  # not a directive, continued onto a line that is one
          b"#define Q 3\n"
          b"\t#else\n"
          b"#endif\n"
          b"#endif\n")

DEFINE_LINE = re.compile(rb"^[ \t]*#[ \t]*define\b(?:[^\n]*\\\r?\n)*[^\n]*", re.M)


def test_directives_are_those_the_line_anchored_pattern_finds():
    hash_define = re.compile(rb"#[ \t]*define\b(?:[^\n]*\\\r?\n)*[^\n]*")
    found = [(line, m.end()) for line, m in directives(hash_define, re.compile(rb"[ \t]*\Z"), TRICKY)]
    assert found == [m.span() for m in DEFINE_LINE.finditer(TRICKY)]
    assert [TRICKY[a:b].split(b"\\")[0].strip() for a, b in found] == [b"#define M(a) a +", b"#define Q 3"]


def test_conditionals_are_the_directive_lines_outside_comments():
    index = index_source(TRICKY)
    expected = [(m.start(), m.group(1).decode(), m.group(0)) for m in CONDITIONAL_LINE.finditer(TRICKY)]
    assert [tuple(c) for c in index.conditionals] == expected
    assert [c.keyword for c in index.conditionals] == ["if", "ifdef", "else", "endif", "endif"]
    assert index.conditionals[0].start_byte == 0  # (the byte order mark is part of the first line)


def test_regions_are_cut_where_a_top_level_closing_brace_starts_its_line():
    body = "".join(f"int f{i}(int x) {{\n  if (x) {{ return {i};\n  }} return 0; int g{i};\n}}\n"
                   for i in range(400)).encode()
    source = b"/* }\n} */\n" + body + b"struct S { int a;\n  };\n" + body
    index = index_source(source)
    cuts = [end for _start, end in index.regions[:-1]]
    assert len(cuts) > 2
    closes = {m.end() for m in TOP_CLOSE.finditer(source)}
    assert all(cut in closes and source[cut - 2:cut] == b"}\n" for cut in cuts)
    assert cuts == sorted(set(cuts)) and cuts[-1] > len(source) // 2


def test_identifiers_are_those_the_pattern_finds():
    text = ("int a$b = 1e5f + 0x1Fu + 12abc; $x = r\u00e9sultat + _y9;\n"
            "cudaMalloc(&p, n); caf\u00e9Name; x$; __global__\n").encode()
    assert distinct_identifiers(text) == frozenset(IDENTIFIER.findall(text))
    assert {b"a", b"cudaMalloc", b"r", b"sultat", b"caf", b"Name", b"x", b"__global__"} <= distinct_identifiers(text)
    assert not {b"b", b"abc", b"f", b"e5f", b"x1Fu"} & distinct_identifiers(text)


def test_an_include_is_dropped_only_after_the_same_header_included_outside_conditionals():
    # in a big file (regions, and the includes walked once): an include seen only under `#if USE_X`
    # may not be there, so the first unconditional one stays; every later one is a no-op and goes
    group = b"#if USE_X\n#include <cuda_runtime.h>\n#endif\n#include <cuda.h>\n#include <cuda_runtime.h>\n"
    code = b"void h(float *p) {\n  cudaMalloc(&p, 4); cudaFree(p);\n}\n" * 2000
    # (in a header: its include guard is no condition)
    port = translate(b"#ifndef BIG_H\n#define BIG_H\n" + group * 3 + code + b"#endif\n", "big.h").output
    assert port.count(b"#include <hip/hip_runtime.h>") == 2  # the first group's #if one and its cuda.h
    assert port.count(b"#include") == 2 and port.count(b"hipMalloc(&p, 4); hipFree(p);") == 2000
    lines = port.split(b"\n")
    assert lines[2:7] == [b"#if USE_X", b"#include <hip/hip_runtime.h>", b"#endif", b"#include <hip/hip_runtime.h>", b""]
