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
