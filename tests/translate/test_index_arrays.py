"""The index of a file keeps its line starts and its comment/literal spans as arrays of 4-byte
integers while offsets fit (issue 34: 8 bytes a line and 16 a span were 27 MB and 40 MB of a
200 MB file's convert), and as 8-byte ones past 4 GB; look-ups answer the same either way."""

from porter.translate.source_index import Spans, index_source

SOURCE = ("// r\u00e9sum\u00e9\n"
          "__global__ void k(float *x) { x[threadIdx.x] = 0.f; /* a\nblock */ }\n"
          "const char *s = \"cudaMalloc\";\n").encode()


def test_a_file_under_4_gb_keeps_4_byte_offsets_and_the_same_answers():
    index = index_source(SOURCE)
    assert index.line_starts.itemsize == 4 and index.protected.starts.itemsize == 4
    assert index.protected.ends.itemsize == 4
    assert list(index.line_starts) == [0, SOURCE.index(b"__global__"), SOURCE.index(b"block"),
                                      SOURCE.index(b"const char"), len(SOURCE)]  # (the empty line after the last)
    literal = SOURCE.index(b'"cudaMalloc"')
    assert index.is_protected(literal + 1) and not index.is_protected(SOURCE.index(b"threadIdx"))
    assert index.line_col(SOURCE.index(b"threadIdx")) == (2, SOURCE.index(b"threadIdx") - SOURCE.index(b"__global__") + 1)
    assert index.line_col(SOURCE.index(b"s =")) == (4, 13)


def test_spans_past_4_gb_are_kept_whole():
    spans = Spans([(10, 20), (5 << 30, (5 << 30) + 7)])
    assert list(spans) == [(10, 20), (5 << 30, (5 << 30) + 7)]
    assert spans.starts.itemsize == 8
