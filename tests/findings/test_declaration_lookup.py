"""Where a rule reads a name's type (the expression types of PORT174/186/187/188, PORT190, PORT191): the last
declaration in the function, else at file scope, never another function's parameter or local; and the file
is searched around the places the name occurs, not run over whole (a pattern with no literal prefix cost
0.18 s a lookup on 9 MB of real HeCBench sources concatenated: 46 of a 57 s scan)."""

from __future__ import annotations

from porter.findings import scan
from porter.findings.predicates import expr_types
from porter.translate import TranslateOptions

R52 = TranslateOptions(target_rocm="5.2")

# CUDA semantics: `limit` in `tail` is the file's unsigned; min(unsigned, unsigned) in CUDA, and HIP 5.2's
# coordinate converts to unsigned int, which makes min(limit, blockDim.x) ambiguous there (PORT174)
HEAD = "#include <cuda_runtime.h>\n__device__ unsigned limit = 64;\n"
OTHER = "__device__ int other_{i}(int limit) {{ int x = limit * {i}; return x; }}\n"
USE = "__global__ void tail(unsigned* out)\n{{\n    out[threadIdx.x] = min(limit, blockDim.x);{mark}\n}}\n"


def _source(functions: int) -> bytes:
    return (HEAD + "".join(OTHER.format(i=i) for i in range(functions)) + USE.format(mark="")).encode()


def test_a_global_is_read_past_other_functions_parameters():
    src = _source(3)
    found = [f.line for f in scan(src, "t.cu", options=R52) if f.rule == "PORT174"]
    assert found == [src.count(b"\n") - 1]  # the min line: the global unsigned, not an `int limit` parameter


def test_the_file_is_searched_where_the_name_occurs(monkeypatch):
    src = _source(20000)  # about 1.3 MB
    spanned = []
    real = expr_types.pattern_for

    class Counting:
        def __init__(self, rx):
            self.rx = rx

        def finditer(self, text, pos=0, endpos=None):
            end = len(text) if endpos is None else min(endpos, len(text))
            if isinstance(text, (bytes, bytearray, memoryview)):
                spanned.append(end - pos)
            return self.rx.finditer(text, pos, end)

    monkeypatch.setattr(expr_types, "pattern_for", lambda pattern, as_bytes: Counting(real(pattern, as_bytes)))
    found = [f.line for f in scan(src, "t.cu", options=R52) if f.rule == "PORT174"]
    assert found == [src.count(b"\n") - 1]
    assert spanned and sum(spanned) < len(src) // 20, (len(spanned), sum(spanned), len(src))


# CUDA semantics: a prototype's parameter and a struct's member are not in the file's scope; `pending` and
# `offset` in the functions below are the file's ints, so `pending < 0` is true (-1 < 0) in CUDA and in the port,
# and there is nothing to report.  Taken for CUdeviceptrs they were PORT190 findings whose "safe" fix,
# `(unsigned long long)(pending) < 0`, makes the test false.
SCOPES = """#include <cuda.h>
int pending = -1;
void release(CUdeviceptr pending);
int offset = 4;
struct Slot { CUdeviceptr offset; };
CUdeviceptr base_address;
"""
USES = """int still_pending(CUdeviceptr base)
{
    CUdeviceptr d = base;
    (void)d;
    return pending < 0 ? 1 : offset + 2;
}
CUdeviceptr next_base()
{
    return base_address + 256;
}
"""
FILLER = "int filler_{i}(int a, int b)\n{{\n    int c = a * {i} + b;\n    return c - a;\n}}\n"


def _port190_lines(src: bytes) -> list[int]:
    return [f.line for f in scan(src, "t.cu") if f.rule == "PORT190"]


def test_a_prototypes_parameter_or_a_members_type_is_not_the_files():
    src = (SCOPES + USES).encode()
    # only the file's CUdeviceptr global, `base_address + 256` (arithmetic on a CUdeviceptr: HIP's is a void*)
    assert _port190_lines(src) == [src.count(b"\n") - 1]


def test_a_big_file_reads_other_regions_scopes_from_their_own_trees():
    """A file over 64 KB is parsed a region at a time: a place in another region was read in the tree of the
    use's region, where it lies in no function, so another function's parameter counted as the file's."""
    from porter.translate.source_index import BIG_BYTES

    src = (SCOPES + "void release(CUdeviceptr pending) { (void)pending; }\n"
           + "".join(FILLER.format(i=i) for i in range(2000)) + USES).encode()
    assert len(src) > 2 * BIG_BYTES
    assert _port190_lines(src) == [src.count(b"\n") - 1]


def test_a_short_name_is_tried_only_where_it_is_a_whole_word(monkeypatch):
    """`n` occurs in `int`, `return` ... (900 times in the prototypes here): a declaration is tried only where the
    name stands alone."""
    from porter.findings.predicates import common, declarations

    text = ("#include <cuda.h>\nvoid release(CUdeviceptr n) { (void)n; }\nint n = -1;\n" + "".join(f"int filler_{i}(int a, int b);\n" for i in range(300))
            + "".join(FILLER.format(i=i) for i in range(300))
            + "int last(CUdeviceptr base)\n{\n    CUdeviceptr d = base;\n    (void)d;\n    return n < 0;\n}\n")
    tried = []
    real = common.named_at

    def counting(rx, code, at, size, reach=240):
        tried.append(at)
        return real(rx, code, at, size, reach)

    monkeypatch.setattr(declarations, "named_at", counting)
    assert _port190_lines(text.encode()) == []  # `n` is the file's int
    assert 0 < len(tried) <= 3, tried


def test_a_member_is_read_in_the_struct_a_project_header_defines(tmp_path):
    """PORT191 (hipMemcpyHtoD's `void*` source before HIP 7): `h.w` where the project's header declares
    `const float* w;` in the struct `h`'s type names is a pointer to const; `h.grad` (`float*`) is not, even
    of a const object (the pointer is const, not the data)."""
    (tmp_path / "weights.h").write_text("#pragma once\n#include <cstddef>\nstruct Weights {\n"
                                        "    const float* w;  // read only\n    float* grad;\n    size_t n;\n};\n")
    src = (b'#include <cuda.h>\n#include "weights.h"\n'
           b"CUresult up(CUdeviceptr d, const Weights& h) { return cuMemcpyHtoD(d, h.w, h.n * 4); }\n"
           b"CUresult ug(CUdeviceptr d, const Weights& h) { return cuMemcpyHtoD(d, h.grad, h.n * 4); }\n")
    (tmp_path / "upload.cu").write_bytes(src)
    found = [f.line for f in scan(src, "upload.cu", options=R52, file=tmp_path / "upload.cu") if f.rule == "PORT191"]
    assert found == [3]
