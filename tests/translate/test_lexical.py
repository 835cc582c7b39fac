"""The lexical layer: what is a comment or a literal, without a parse.

The translator protects these spans from renaming, so a mistake here renames a
name inside a string or leaves one in code alone.  Checked against
tree-sitter's comment and literal nodes on every CUDA file in the repository,
and on the cases a lexer gets wrong when it is written carelessly."""

from pathlib import Path

import pytest

from porter import parse
from porter.parse.lexical import lex
from porter.translate import translate
from porter.translate.source_index import index_source

ROOT = Path(__file__).resolve().parents[2]
CORPUS = sorted(p for folder in ("sample_projects", "tests/heldout", "tests/golden", "tests/findings/fixtures")
                for p in (ROOT / folder).rglob("*") if p.suffix in (".cu", ".cuh", ".cpp", ".h", ".hpp", ".cc", ".inl"))


def tree_sitter_spans(source: bytes) -> set[int]:
    """Non-blank bytes inside tree-sitter's comments and literals (not #include paths), plus literals
    inside #define bodies."""
    tree = parse.parse(source)
    query = parse.ts.Query(parse.language(), "(comment) @p (string_literal) @p (raw_string_literal) @p (char_literal) @p "
                                             "(concatenated_string) @p (preproc_arg) @macro")
    caps = parse.captures(query, tree.root_node)
    covered = set()
    for n in caps.get("p", []):
        covered.update(range(n.start_byte, n.end_byte))
    for body in caps.get("macro", []):  # tree-sitter does not lex #define bodies: lex just that text
        text = source[body.start_byte:body.end_byte]
        for s, e in lex(text).spans:
            covered.update(range(body.start_byte + s, body.start_byte + e))
    return {i for i in covered - _include_paths(source) if source[i] not in b" \t\r\n"}


def _include_paths(source: bytes) -> set[int]:
    return {i for inc in index_source(source).includes for i in range(inc.start_byte, inc.end_byte)}


def lexer_spans(source: bytes) -> set[int]:
    idx = index_source(source)
    covered = set()
    for s, e in idx.protected:
        covered.update(range(s, e))
    return {i for i in covered - _include_paths(source) if source[i] not in b" \t\r\n"}


def test_the_corpus_is_there():
    assert len(CORPUS) > 100


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: str(p.relative_to(ROOT)))
def test_lexer_agrees_with_tree_sitter(path):
    source = path.read_bytes()
    assert lexer_spans(source) == tree_sitter_spans(source)


def protected_texts(source: bytes) -> list[bytes]:
    return [source[s:e] for s, e in lex(source).spans]


def test_raw_string_with_quotes_and_parentheses_inside():
    src = b'auto s = R"x(cudaMalloc "q" )" still)x"; cudaFree(p);\n'
    assert protected_texts(src) == [b'R"x(cudaMalloc "q" )" still)x"']
    assert translate(src).output == src.replace(b"cudaFree", b"hipFree")


def test_digit_separators_are_not_character_literals():
    src = b"int n = 1'000'000; cudaFree(p); auto m = 0x1'FFu; char c = L'a';\n"
    assert protected_texts(src) == [b"L'a'"]
    assert b"hipFree(p)" in translate(src).output


def test_encoding_prefixes_belong_to_the_literal():
    assert protected_texts(b'a = u8"x"; b = U\'y\'; c = LR"(z)";') == [b'u8"x"', b"U'y'", b'LR"(z)"']


def test_line_comment_continued_by_a_backslash():
    src = b"// note \\\n cudaMalloc(continued);\ncudaFree(q);\n"
    out = translate(src).output
    assert b"cudaMalloc(continued)" in out and b"hipFree(q)" in out


def test_apostrophe_in_error_text_is_not_a_literal():
    src = b"#error don't build this\ncudaFree(p);\n"
    assert protected_texts(src) == []
    assert b"hipFree(p)" in translate(src).output


def test_escaped_quotes():
    src = b'x = \'"\'; cudaFree(p); y = "\\"cudaMalloc\\""; z = \'\\\'\';\n'
    out = translate(src).output
    assert b"hipFree(p)" in out and b'"\\"cudaMalloc\\""' in out


def test_name_pasted_between_literals_is_part_of_the_literal():
    src = b'printf("%d" PRIu64 "\\n", cudaFree(p));\n'
    idx = index_source(src)
    assert idx.is_protected(src.index(b"PRIu64")) and not idx.is_protected(src.index(b"cudaFree"))


def test_unterminated_comment_and_string_are_reported():
    assert lex(b"a(); /* open\n cudaMalloc").unterminated == [(5, "block comment")]
    assert lex(b'a = "open\ncudaFree(p);\n').unterminated == [(4, "string")]
    assert lex(b'a = R"d(open').unterminated == [(4, "raw string")]


def test_a_clean_file_is_converted_without_a_parse():
    """Plain renames need no syntax tree: the tree is parsed only where a rewrite depends on it."""
    src = b"#include <cuda_runtime.h>\n__global__ void k(float* a) { a[threadIdx.x] = 0; }\nvoid f() { cudaFree(0); }\n"
    idx = index_source(src)
    t = translate(src, index=idx)
    assert b"hipFree(0)" in t.output and not idx.parsed
    sym = b"__constant__ int c;\nvoid f() { cudaMemcpyToSymbol(c, &x, 4); }\n"
    idx = index_source(sym)
    assert b"HIP_SYMBOL(c)" in translate(sym, index=idx).output and idx.parsed


def test_valid_code_tree_sitter_cannot_parse_gets_no_warning():
    """tree-sitter-cuda stumbles on macro attributes (HD inline int f()); the code is valid,
    its brackets balance, so the conversion does not cry wolf."""
    src = (b"#define HD __host__ __device__\nHD inline int twice(int x) { return 2 * x; }\n"
           b"void f() { cudaFree(0); }\n")
    assert parse.parse(src).root_node.has_error
    t = translate(src, "hd.cu")
    assert b"hipFree(0)" in t.output and t.warnings == []


def test_unterminated_comment_warns_where_it_opens():
    t = translate(b"void f() { cudaFree(0); }\n/* never closed cudaMalloc\n", "open.cu")
    assert b"hipFree(0)" in t.output and b"never closed cudaMalloc" in t.output
    assert t.warnings and t.warnings[0].startswith("open.cu:2:")


@pytest.mark.parametrize("path", [p for p in CORPUS if "sample_projects" in p.parts], ids=lambda p: p.name)
def test_output_does_not_depend_on_who_parsed_first(path):
    """`porter convert` parses only when it must; with --print-stats the findings rules parse every
    file first. The HIP written, the references and the warnings must be the same either way."""
    source = path.read_bytes()
    lazy = translate(source, path.name)
    parsed = index_source(source)
    parsed.tree  # what the findings rules do before the translator runs
    eager = translate(source, path.name, index=parsed)
    assert (eager.output, eager.warnings, eager.converted, eager.unsupported, eager.leftovers) == \
        (lazy.output, lazy.warnings, lazy.converted, lazy.unsupported, lazy.leftovers)


_PIECES = [b"/", b"*", b'"', b"'", b"\\", b"\n", b"\r\n", b"R", b"u8", b"L", b"1", b"x", b" ", b"(", b")", b"d",
           b"#error ", b"//", b"/*", b"*/", b'R"d(', b')d"', b"1'0", b"cudaFree"]


@pytest.mark.parametrize("seed", range(3))
def test_spans_are_ordered_disjoint_and_inside_the_file(seed):
    """Whatever the bytes (quotes, backslashes, half-open comments), the spans never overlap or run past the end."""
    import random

    rng = random.Random(seed)
    for _ in range(3000):
        src = b"".join(rng.choice(_PIECES) for _ in range(rng.randint(0, 40)))
        spans = lex(src).spans
        assert all(0 <= s < e <= len(src) for s, e in spans), src
        assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:])), src


def test_directive_bodies_are_found_around_hash_lines_in_file_order():
    """SourceIndex.macro_bodies queries only the lines that hold a '#' (and the lines that continue
    them), not the whole tree: it must find every body the whole-tree query finds -- a function-like
    macro whose body starts on the continued line, a #define inside #if, a #pragma -- and none for a
    '#' inside a string or comment, in the order they stand in the file (last definition wins)."""
    from porter import parse
    from porter.translate.source_index import index_source

    src = (b'#include <cstdio>\n'
           b'#define CHECK(x)   \\\n'
           b'    do { if (!(x)) return; } while (0)\n'
           b'#if defined(FOO)\n'
           b'#define WIDTH 64\n'
           b'#else\n'
           b'  #  define WIDTH 32\n'
           b'#endif\n'
           b'const char* s = "#define NOT_A_MACRO 1"; // #define NOR_THIS 2\n'
           b'__global__ void k(int* o) {\n'
           b'#pragma unroll\n'
           b'    for (int i = 0; i < WIDTH; ++i) o[i] = i;\n'
           b'}\n'
           b'#define LAST 1\n')
    index = index_source(src)
    found = [src[n.start_byte:n.end_byte].strip() for n in index.macro_bodies]
    whole = sorted(parse.captures(parse.load_query("macro_bodies"), parse.parse(src).root_node)["macro"],
                   key=lambda n: n.start_byte)
    assert found == [src[n.start_byte:n.end_byte].strip() for n in whole]
    assert found[0].startswith(b"do { if") and b"64" in found and b"32" in found and found[-1] == b"1"
    assert found.index(b"64") < found.index(b"32")
    assert not any(b"NOT_A_MACRO" in f or b"NOR_THIS" in f for f in found)
