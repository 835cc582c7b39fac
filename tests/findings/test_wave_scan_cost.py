"""What the warp-size predicates cost a scan, with the same findings.

* A file with project headers whose unit cannot hold a warp-size constant (no header defines a warp- or
  lane-named value, a lane role or a width template, and the file's code has no such words) is scanned
  without reading its own constants: building the unit was most of PORT015's cost on host files.
* A warp width defined in a project header still reaches a file whose own code names no warp or lane.
* The searches rewritten to let the regex engine skip to a literal (a name, an intrinsic) find what the
  expressions they replace found, on text written to hit their edge cases.
"""

from __future__ import annotations

import random
import re

import pytest

from porter.findings import scan, values
from porter.findings.predicates.warp import _has_warp_word
from porter.findings.predicates.warpvalues import _native_hint
from porter.findings.wave.name_regex import name_at, word_at
from porter.translate.source_index import index_source

# a host-side CUDA file and its project header: error checking and a block size, no warp in sight
_CHECKS_H = """\
#pragma once
#include <cstdio>
#define CHECK(call) do { cudaError_t e = (call); if (e != cudaSuccess) { printf("%s\\n", cudaGetErrorString(e)); } } while (0)
static const int kBlock = 256;
"""
_SCALE_CU = """\
#include "checks.h"

__global__ void scale(float* x, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= a;
}

int main() {
    float* d = nullptr;
    const int n = 1 << 20;
    CHECK(cudaMalloc(&d, n * sizeof(float)));
    scale<<<(n + kBlock - 1) / kBlock, kBlock>>>(d, 2.0f, n);
    CHECK(cudaDeviceSynchronize());
    return 0;
}
"""


def _own_reads(monkeypatch) -> list[str]:
    """The files whose own constants a scan reads (values.read_facts of the scanned file's text)."""
    reads: list[str] = []
    real = values.read_facts

    def counting(text, shown, in_scanned_file, line_of=None):
        if in_scanned_file:
            reads.append(shown)
        return real(text, shown, in_scanned_file, line_of)

    monkeypatch.setattr(values, "read_facts", counting)
    return reads


def test_a_unit_without_warp_constants_is_not_built(tmp_path, monkeypatch):
    (tmp_path / "checks.h").write_text(_CHECKS_H)
    cu = tmp_path / "scale.cu"
    cu.write_text(_SCALE_CU)
    reads = _own_reads(monkeypatch)
    found = scan(cu.read_bytes(), str(cu))
    assert reads == []
    # nothing in it depends on the wave's width: no warp-size finding either way
    assert not [f for f in found if f.rule in ("PORT010", "PORT011", "PORT013", "PORT015", "PORT016")]


# a 32-lane warp width named in a header; the kernel's file uses it only through a name without "warp"
_TILING_H = """\
#pragma once
#define WARP_SIZE 32
#define ROW_THREADS WARP_SIZE
"""
_ROWS_CU = """\
#include "tiling.h"

__global__ void row_sums(const float* in, float* out) {
    __shared__ float partial[ROW_THREADS];
    int t = threadIdx.x % ROW_THREADS;
    partial[t] = in[blockIdx.x * blockDim.x + threadIdx.x];
    __syncthreads();
    if (t == 0) {
        float s = 0.f;
        for (int k = 0; k < ROW_THREADS; ++k) s += partial[k];
        out[blockIdx.x] = s;
    }
}
"""


def test_a_header_warp_width_still_reaches_a_file_without_warp_words(tmp_path):
    (tmp_path / "tiling.h").write_text(_TILING_H)
    cu = tmp_path / "rows.cu"
    cu.write_text(_ROWS_CU)
    found = scan(cu.read_bytes(), str(cu))
    # `threadIdx.x % ROW_THREADS` numbers lanes within a 32-lane warp (ROW_THREADS = WARP_SIZE = 32):
    # on a 64-lane MI300X wave the lane is threadIdx.x % 64
    line = _ROWS_CU.splitlines().index("    int t = threadIdx.x % ROW_THREADS;") + 1
    assert any(f.rule == "PORT015" and f.line == line for f in found), [(f.rule, f.line) for f in found]


# ------------------------------------------------------------------------ same places found
_ATOMS = ["x", "xs", "sx", "_x", "x_", ".x", "->x", ">x", "1x", "x1", " ", "\n", "=", "==", ";", "[", "]", "(", ")",
          "x=1;", "x[i]", "// x\n", "/* x */", '"x"', "é", "éx", "\\", "xé"]


def _texts(seed: int, count: int):
    rng = random.Random(seed)
    for _ in range(count):
        yield "".join(rng.choice(_ATOMS) for _ in range(rng.randint(0, 9)))


@pytest.mark.parametrize("names", [["x"], ["xs", "x"], ["x", "sx"], ["é"], ["a.b"], ["xé"]])
@pytest.mark.parametrize("before", [r"[\w.]", r"\w", r"[\w.>]"])
def test_name_at_finds_what_a_leading_look_behind_finds(names, before):
    tail = r"\s*(?:=(?!=)\s*([^;]*);|\[([^\]]*)\])?"
    old = re.compile(r"(?<!" + before + r")(?:" + "|".join(map(re.escape, names)) + r")" + tail)
    new = re.compile(name_at(names, before) + tail)
    old_b, new_b = re.compile(old.pattern.encode()), re.compile(new.pattern.encode())
    for text in _texts(len(names) * 31 + len(before), 1500):
        assert [m.span() + m.groups() for m in new.finditer(text)] == [m.span() + m.groups() for m in old.finditer(text)]
        data = text.encode()
        assert [m.span() + m.groups() for m in new_b.finditer(data)] == \
            [m.span() + m.groups() for m in old_b.finditer(data)]


@pytest.mark.parametrize("names", [["x"], ["x", "sx"], [".x"], ["é"]])
def test_word_at_finds_what_a_leading_word_boundary_finds(names):
    old = re.compile(r"\b(?:" + "|".join(map(re.escape, names)) + r")\s*\[([^\]]*)\]")
    new = re.compile(word_at(names) + r"\s*\[([^\]]*)\]")
    for text in _texts(len(names) * 7, 1500):
        assert new.findall(text) == old.findall(text)
        assert [m.span() for m in new.finditer(text)] == [m.span() for m in old.finditer(text)]


# the expression `_uses_warp_primitives` searched the file with: its words outside comments and literals
_WARP_WORDS = re.compile(rb"__shfl|__ballot|__any|__all|__syncwarp|__activemask|__match_|__reduce_\w+_sync|tiled_partition"
                         rb"|thread_block_tile|\b[Ww]arp|WARP|[Ll]ane|LANE|__popc|%laneid")
_WARP_ATOMS = [b"warp", b"Warp", b"WARP", b"xwarp", b"_warp", b"1warp", b".Warp", b"swarp", b"lane", b"Lane", b"LANE",
               b"%laneid", b"__reduce_add_sync", b"__reduce_", b"__reduce_x", b"_sync", b"__popc", b"__syncwarp",
               b"tiled_partition", b"thread_block_tile", b"/* warp */", b"// lane\n", b'"__shfl"', b"'a'", b" ", b"\n",
               b"int", b"x", b"asm(\"mov.u32 %0, %%laneid;\")"]


def test_warp_words_are_found_where_the_expression_found_them():
    rng = random.Random(29)
    for _ in range(4000):
        data = b"".join(rng.choice(_WARP_ATOMS) for _ in range(rng.randint(0, 7)))
        index = index_source(data)
        expected = any(not index.is_protected(m.start()) for m in _WARP_WORDS.finditer(data))
        assert _has_warp_word(data, index.is_protected) == expected, data


# the native-wave hint: one of these words, then the expression
_NATIVE_WORDS = (b"warpSize", b"__lane_id", b"__AMDGCN_WAVEFRONT_SIZE", b"__ballot", b"__popcll", b"__ffsll")
_NATIVE_HINT = re.compile(rb"(?<![\w.>])warpSize\b|__lane_id\s*\(|__AMDGCN_WAVEFRONT_SIZE|__ballot(?:64)?\s*\(|"
                          rb"__(?:popc|ffs|clz)ll\s*\(")
_NATIVE_ATOMS = [b"warpSize", b"prop.warpSize", b"p->warpSize", b"xwarpSize", b"warpSizex", b"__ballot", b"__ballot64",
                 b"__ballot_sync", b"(", b" ", b"\n", b"__lane_id", b"__AMDGCN_WAVEFRONT_SIZE", b"__popcll", b"__ffsll",
                 b"__clzll", b"__popc", b"ll", b"x", b".", b">"]


def test_the_native_hint_is_the_expression_it_replaces():
    rng = random.Random(64)
    for _ in range(6000):
        data = b"".join(rng.choice(_NATIVE_ATOMS) for _ in range(rng.randint(0, 6)))
        expected = any(w in data for w in _NATIVE_WORDS) and _NATIVE_HINT.search(data) is not None
        assert _native_hint(data) == expected, data
        assert _native_hint(bytearray(data)) == expected, data
