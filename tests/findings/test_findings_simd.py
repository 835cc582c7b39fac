"""PORT030's fix for CUDA's SIMD-within-a-word intrinsics: the helper porter inserts must give
CUDA's per-lane result.  The reference below is written from NVIDIA's CUDA Math API
documentation (SIMD Intrinsics), independently of porter's table; the helpers are compiled
as plain C++ on the host (no GPU needed) and compared on edge values and random words."""

from __future__ import annotations

import random
import shutil
import subprocess

import pytest

from porter.findings import apply_fixes, scan
from porter.findings.predicates.api import simd_helpers


def _lanes(word: int, bits: int, signed: bool) -> list[int]:
    out = []
    for i in range(0, 32, bits):
        v = (word >> i) & ((1 << bits) - 1)
        if signed and v >> (bits - 1):
            v -= 1 << bits
        out.append(v)
    return out


def _pack(values: list[int], bits: int) -> int:
    return sum((v & ((1 << bits) - 1)) << (i * bits) for i, v in enumerate(values))


OPS = {  # name: (bits, signed, lane function) -- CUDA semantics
    "__vadd4": (8, False, lambda x, y: x + y), "__vadd2": (16, False, lambda x, y: x + y),
    "__vsub4": (8, False, lambda x, y: x - y), "__vsub2": (16, False, lambda x, y: x - y),
    "__vmaxu4": (8, False, max), "__vmaxs4": (8, True, max), "__vminu4": (8, False, min), "__vmins4": (8, True, min),
    "__vmaxu2": (16, False, max), "__vmaxs2": (16, True, max), "__vminu2": (16, False, min), "__vmins2": (16, True, min),
    "__vabsdiffu4": (8, False, lambda x, y: abs(x - y)), "__vabsdiffu2": (16, False, lambda x, y: abs(x - y)),
    "__vabsdiffs4": (8, True, lambda x, y: abs(x - y)),
    "__vavgu4": (8, False, lambda x, y: (x + y + 1) // 2),
    "__vcmpeq4": (8, False, lambda x, y: -1 if x == y else 0), "__vcmpne4": (8, False, lambda x, y: -1 if x != y else 0),
    "__vcmpgtu4": (8, False, lambda x, y: -1 if x > y else 0), "__vcmpgts4": (8, True, lambda x, y: -1 if x > y else 0),
    "__vcmpeq2": (16, False, lambda x, y: -1 if x == y else 0),
}


def _reference(name: str, a: int, b: int) -> int:
    bits, signed, op = OPS[name]
    return _pack([op(x, y) for x, y in zip(_lanes(a, bits, signed), _lanes(b, bits, signed))], bits)


def test_every_helper_has_a_reference():
    assert sorted(simd_helpers()) == sorted(OPS)


@pytest.mark.skipif(not shutil.which("g++"), reason="g++ not installed")
def test_helpers_compute_cudas_lanes(tmp_path):
    rng = random.Random(7)
    pairs = [(0, 0), (0xFFFFFFFF, 1), (0x7F7F7F7F, 0x01010101), (0x80808080, 0x7F7F7F7F), (0x80008000, 0xFFFF0001),
             (0x12345678, 0x87654321)] + [(rng.getrandbits(32), rng.getrandbits(32)) for _ in range(200)]
    names = sorted(OPS)
    program = ["#include <cstdio>", "#define __device__"] + [simd_helpers()[n][1] for n in names]
    program.append("int main() { unsigned a, b; while (std::scanf(\"%u %u\", &a, &b) == 2) {")
    program += [f'std::printf("%u\\n", {simd_helpers()[n][0]}(a, b));' for n in names]
    program.append("} return 0; }")
    (tmp_path / "simd.cpp").write_text("\n".join(program))
    subprocess.run(["g++", "-O1", "-o", str(tmp_path / "simd"), str(tmp_path / "simd.cpp")], check=True, timeout=120)
    run = subprocess.run([str(tmp_path / "simd")], input="".join(f"{a} {b}\n" for a, b in pairs), capture_output=True,
                         text=True, check=True, timeout=60)
    got = [int(v) for v in run.stdout.split()]
    expected = [_reference(n, a, b) for a, b in pairs for n in names]
    wrong = [(n, hex(a), hex(b), hex(g), hex(e)) for (a, b), chunk in zip(pairs, range(len(pairs)))
             for n, g, e in zip(names, got[chunk * len(names):], expected[chunk * len(names):]) if g != e]
    assert not wrong, wrong[:10]


def test_two_intrinsics_share_one_helper_block():
    src = b"""__global__ void k(unsigned* o, unsigned a, unsigned b) {
    o[0] = __vmaxs4(a, b);
    o[1] = __vmaxs4(b, a) ^ __vsub2(a, b);
}
"""
    findings = [f for f in scan(src, "k.cu") if f.rule == "PORT030"]
    assert len(findings) == 3 and all(f.fix and f.fix.safe for f in findings)
    fixed = apply_fixes(src, findings).decode()
    assert fixed.count("static inline unsigned porter_vmaxs4") == 1 and fixed.count("porter_vsub2(a, b)") == 1
    assert "__vmaxs4" not in fixed.split("__global__")[1]
    assert [f.rule for f in scan(fixed.encode(), "k.cu") if f.rule == "PORT030"] == []
