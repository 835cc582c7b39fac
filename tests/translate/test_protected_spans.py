"""The translator's test "is this byte in a comment or a literal?" (SourceIndex.protected_test, the
closure its hot loop calls): a CUDA name in a comment or a string literal is text, not code, and stays
as written; the same name in code is renamed, also right before the first comment and right after one
ends.  The closure answers as SourceIndex.is_protected at every byte."""

from __future__ import annotations

from porter.translate import translate
from porter.translate.source_index import index_source

# a call before the file's first comment; a name in a // comment, in a string literal and in a block
# comment over two lines; a call that starts at the very byte where a block comment ends
SOURCE = (b"void* p; cudaMalloc(&p, 4); // cudaMalloc in a comment\n"
          b"const char* s = \"cudaFree(p)\"; char q = '\"';\n"
          b"/* cudaMemcpy\n   over two lines */cudaFree(p);\n")


def test_names_in_comments_and_literals_stay_and_code_around_them_is_renamed():
    out = translate(SOURCE, "t.cu").output
    assert b"void* p; hipMalloc(&p, 4); // cudaMalloc in a comment\n" in out
    assert b"const char* s = \"cudaFree(p)\"; char q = '\"';\n" in out
    assert b"/* cudaMemcpy\n   over two lines */hipFree(p);\n" in out


def test_the_closure_answers_as_is_protected_at_every_byte():
    for source in (SOURCE, b"// cudaFree\ncudaFree(0);\n", b"cudaFree(0);\n", b""):
        index = index_source(source)
        protected = index.protected_test()
        assert [protected(pos) for pos in range(len(source) + 1)] == \
               [index.is_protected(pos) for pos in range(len(source) + 1)]
    index = index_source(SOURCE)
    protected = index.protected_test()
    comment = SOURCE.index(b"// cudaMalloc")
    assert not protected(SOURCE.index(b"cudaMalloc"))  # code before the first comment
    assert protected(comment) and protected(SOURCE.index(b"cudaMalloc", comment))
    assert protected(SOURCE.index(b"cudaFree(p)\""))  # in the string literal
    assert protected(SOURCE.index(b"cudaMemcpy")) and protected(SOURCE.index(b"over two"))
    assert not protected(SOURCE.index(b"*/cudaFree") + 2)  # the byte right after the comment's end
