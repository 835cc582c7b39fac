"""The full-lane masks a file defines as constants (`const unsigned FULL = 0xffffffff;`) are read
from the text a piece at a time (issue 34: decoding a 200 MB file whole cost up to 4 bytes a byte
at the scan's peak): a definition is found wherever the pieces are cut, next to UTF-8 text."""

from types import SimpleNamespace

import pytest

from porter.findings.predicates import common

SOURCE = ("// r\u00e9sum\u00e9 \u8a08\u7b97: masks of a 32-lane warp\n"
          "const unsigned FULL = 0xffffffff;  /* every lane \u2713 */\n"
          "static const unsigned HALF = 0x0000ffff;\n"
          "constexpr unsigned long long ALL64 = ~0ull; // \u00e9\n"
          "__device__ const int MINUS = -1;\n"
          "int notconst = 0xffffffff;\n"
          "__global__ void k(float *v) { v[threadIdx.x] = __shfl_sync(FULL, v[0], 0); }\n").encode()


@pytest.mark.parametrize("piece", [1, 7, 8, 13, 64, 1 << 20])
def test_const_full_masks_are_found_however_the_text_is_cut(monkeypatch, piece):
    monkeypatch.setattr(common, "_PIECE", piece)
    found = common._const_masks(SimpleNamespace(source=SOURCE))
    assert set(found) == {"FULL", "ALL64", "MINUS"}
    for name, offsets in found.items():  # each at the byte offset of its name (after UTF-8 text too)
        assert [SOURCE[at:at + len(name)] for at in offsets] == [name.encode()]
