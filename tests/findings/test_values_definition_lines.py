"""The line a constant's definition is shown at ("`WS` (32, defined at t.cu:N)") is the line of its
#define, whatever stands before it: an ASCII file's lines are read from the scan's index, a file with
UTF-8 text from the code's own newlines; block comments and continued lines before it count as lines."""

from __future__ import annotations

import re

import pytest

from porter.findings import scan

KERNEL = b"""\
__global__ void k(float* v) {
    int lane = threadIdx.x % WS;
    float x = v[threadIdx.x];
    x += __shfl_down_sync(0xffffffff, x, 16, WS);
    if (lane == 0) v[0] = x;
}
"""

HEADS = {
    "ascii": b"// lane width\n",
    "utf8 comment": "// largeur de warp \u00e9\u00e9\u00e9 \u2014 32 voies\n".encode(),
    "block comment": b"/* one\n   two\n   three */\n",
    "utf8 block comment and continued macro": "/* \u00e9t\u00e9\n */\n#define OTHER 1 + \\\n  2\n".encode(),
}


@pytest.mark.parametrize("head", HEADS.values(), ids=list(HEADS))
def test_the_definition_line_is_the_define_line(head):
    src = head + b"#define WS 32\n" + KERNEL
    line = head.count(b"\n") + 1
    shown = {m for f in scan(src, "t.cu") if f.rule == "PORT015"
             for m in re.findall(r"defined at t\.cu:(\d+)", f.message)}
    assert shown == {str(line)}
