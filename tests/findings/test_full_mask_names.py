"""A conventional mask name (FULL_MASK, FULL_WARP_MASK) is trusted as the full 32-lane mask only while it
can be a macro of another header (warp_utils.cuh's ``#define FULL_MASK 0xffffffff``).

Once the file declares the name itself (an enumerator, a variable of any type, a second declarator, a
member, a range-for variable, a template parameter) it is no object-like macro (a macro would have
replaced the declared name) and its value is what the declaration says, here a partial mask. CUDA then
runs the intrinsic for the lanes of that mask only (``__ballot_sync(0xffff, p)`` holds no bit of lanes
16..31; CUDA Programming Guide, warp vote and shuffle functions), while porter's full-mask fix drops the
mask (``__ballot(p)``, ``__shfl(v, 0, 32)``, a wave barrier): a "safe" fix that changes what correct code
computes. Porter read declarations with a regular expression over a few type keywords and missed these
shapes; each must leave the fix a suggestion that ``--fix`` does not apply.
A name the file only uses (the header's macro), and only mentions in comments, strings or macro bodies,
keeps the safe fix.
"""

from __future__ import annotations

import pytest

import porter.translate.source_index as source_index
from porter.findings import apply_fixes, scan
from porter.translate.source_index import index_source

# each: a file whose function body holds {use}, and the mask name it declares (with a value that is not
# the full mask: 0xffff as an unsigned short is lanes 0..15; 0x00ff, lanes 0..7)
DECLARED = {
    "an enumerator": ("FULL_MASK", """
enum Lanes { LOW_HALF = 0x0000ffff, FULL_MASK = LOW_HALF };
__device__ float f(float v) { {use} return v; }
"""),
    # a scoped enumerator: FULL_MASK is then no macro (the kernel's FULL_MASK is some header's constant)
    "a scoped enumerator": ("FULL_MASK", """
#include "lanes.h"
enum class Half : unsigned { FULL_MASK = 0x0000ffff };
__device__ float f(float v) { {use} return v; }
"""),
    "a short": ("FULL_MASK", """
__device__ short FULL_MASK = 0x00ff;
__device__ float f(float v) { {use} return v; }
"""),
    "an unsigned short, initialised in parentheses": ("FULL_MASK", """
__device__ unsigned short FULL_MASK(0xffff);
__device__ float f(float v) { {use} return v; }
"""),
    "a uint16_t": ("FULL_WARP_MASK", """
#include <cstdint>
__device__ uint16_t FULL_WARP_MASK = 0xffff;
__device__ float f(float v) { {use} return v; }
"""),
    "a second declarator": ("FULL_MASK", """
__device__ unsigned lanes = 16, FULL_MASK = 0x0000ffff;
__device__ float f(float v) { {use} return v; }
"""),
    "a member": ("FULL_MASK", """
#include <cstdint>
struct Half {
    uint16_t FULL_MASK{0xffff};
    __device__ float f(float v) const { {use} return v; }
};
"""),
    "a range-for variable": ("FULL_MASK", """
__device__ const unsigned short halves[2] = {0x00ff, 0xff00};
__device__ float f(float v) { for (unsigned short FULL_MASK : halves) { {use} } return v; }
"""),
    "a template parameter": ("FULL_MASK", """
template <unsigned FULL_MASK>
__device__ float f(float v) { {use} return v; }
template __device__ float f<0x0000ffff>(float);
"""),
}

# each: the statement, the rule that reports it, and the CUDA call a safe fix would have replaced
USES = {
    "shfl": ("v = __shfl_sync({mask}, v, 0);", "PORT020", "__shfl_sync("),
    "ballot": ("v += (float)__ballot_sync({mask}, v > 0.0f);", "PORT020", "__ballot_sync("),
    "syncwarp": ("__syncwarp({mask});", "PORT021", "__syncwarp("),
}


def _file(template: str, mask: str, use: str) -> bytes:
    return template.replace("{use}", USES[use][0].format(mask=mask)).encode()


def _fixes(source: bytes, rule: str, **kw) -> list:
    return [f.fix for f in scan(source, "k.cu", **kw) if f.rule == rule]


@pytest.mark.parametrize("use", sorted(USES))
@pytest.mark.parametrize("shape", sorted(DECLARED))
def test_a_mask_name_the_file_declares_is_not_trusted_as_full(shape, use):
    mask, template = DECLARED[shape]
    source = _file(template, mask, use)
    _statement, rule, call = USES[use]
    findings = scan(source, "k.cu")
    fixes = [f.fix for f in findings if f.rule == rule]
    assert fixes and all(x is not None and not x.safe for x in fixes), [f.message for f in findings]
    assert (call + mask).encode() in apply_fixes(source, findings)  # --fix leaves the call for a human


# the kernel's FULL_MASK is warp_utils.cuh's macro: the file uses it, and names it in a comment, a string and
# a macro body, but declares nothing of that name
UNDECLARED = """
#include <cstdio>
#include "warp_utils.cuh"  // unsigned FULL_MASK = 0xffffffff; lives there, as a macro
#define BROADCAST(x) __shfl_sync(FULL_MASK, x, 0)
__device__ float f(float v) {
    const char* what = "unsigned short FULL_MASK = 0xffff;";
    if (v < 0.0f) printf("%s\\n", what);
    {use}
    return BROADCAST(v);
}
"""


@pytest.mark.parametrize("use", sorted(USES))
def test_a_mask_name_only_used_is_the_headers_full_mask(use):
    source = _file(UNDECLARED, "FULL_MASK", use)
    _statement, rule, call = USES[use]
    findings = scan(source, "k.cu")
    fixes = [f.fix for f in findings if f.rule == rule and f.line == 8]
    assert fixes and all(x is not None and x.safe for x in fixes), [f.message for f in findings]
    assert (call + "FULL_MASK").encode() not in apply_fixes(source, findings)  # --fix applied it


def test_a_declaration_in_another_region_of_a_big_file_counts(monkeypatch):
    """A big file is read a region at a time: the enumerator lies regions away from the call, and is
    found without the whole file's tree being built."""
    filler = "".join(f"__device__ float g{i}(float* a) {{\n    return a[{i}] * 2.0f + a[{i + 1}];\n}}\n"
                     for i in range(60))
    source = _file("enum Lanes { FULL_MASK = 0x0000ffff };\n" + filler
                   + "__device__ float f(float v) { {use} return v; }\n", "FULL_MASK", "ballot")
    monkeypatch.setattr(source_index, "BIG_BYTES", 512)
    monkeypatch.setattr(source_index, "REGION_BYTES", 256)
    index = index_source(source)
    assert index.big and len(index.regions) > 3
    fixes = _fixes(source, "PORT020", index=index)
    assert fixes and all(x is not None and not x.safe for x in fixes)
    assert not index.parsed


# A project header porter reads decides what its name holds: the kernel includes "lanes.h", which declares
# FULL_MASK (no macro). CUDA runs the intrinsic for the lanes of that mask only: a partial or narrowed mask
# must leave the fix to a human; a 32-bit all-ones constant keeps the safe fix (as warp_utils.cuh's macro does).
HEADERS = {
    "a constexpr of the low half": ("constexpr unsigned FULL_MASK = 0x0000ffffu;\n", False),
    "an enumerator of the low half": ("enum Lanes { FULL_MASK = 0xffff };\n", False),
    "an unsigned short all-ones": ("__device__ const unsigned short FULL_MASK = 0xffffffff;\n", False),
    "a namespaced half mask": ("namespace lanes { constexpr unsigned FULL_MASK = 0x00ff00ffu; }\n"
                               "using lanes::FULL_MASK;\n", False),
    "a constexpr all-ones": ("constexpr unsigned FULL_MASK = 0xffffffffu;\n", True),
    "a uint32_t all-ones of another name": ("#include <cstdint>\nconstexpr uint32_t kWarpAll = 0xffffffff;\n", True),
}


@pytest.mark.parametrize("use", sorted(USES))
@pytest.mark.parametrize("shape", sorted(HEADERS))
def test_a_project_headers_declaration_decides_a_mask_name(tmp_path, shape, use):
    header, full = HEADERS[shape]
    mask = "kWarpAll" if "kWarpAll" in header else "FULL_MASK"
    (tmp_path / "lanes.h").write_text("#pragma once\n" + header)
    source = _file('#include "lanes.h"\n__device__ float f(float v) { {use} return v; }\n', mask, use)
    (tmp_path / "k.cu").write_bytes(source)
    _statement, rule, call = USES[use]
    findings = scan(source, "k.cu", file=str(tmp_path / "k.cu"))
    fixes = [f.fix for f in findings if f.rule == rule]
    assert fixes and all(x is not None and x.safe is full for x in fixes), [f.message for f in findings]
    assert ((call + mask).encode() in apply_fixes(source, findings)) is not full


# The file shows its FULL_MASK is no macro of some header, though it declares no variable of that name in
# its syntax tree: a macro of the file declares it, or a using-declaration brings it from a namespace
# (``using ns::0xffffffff;`` would not compile). Its value is then not the name's to say.
NOT_A_MACRO = {
    "declared by a macro": ("#define LANE_CONSTANTS const unsigned short FULL_MASK = 0xffff;\nLANE_CONSTANTS\n"),
    "assigned by a macro": ("__device__ unsigned lanes_of_half;\n#define PICK_HALF() (FULL_MASK = 0x0000ffff)\n"),
    "a using-declaration": ("#include \"half.h\"  // namespace half { constexpr unsigned FULL_MASK = 0xffff; }\n"
                            "using half::FULL_MASK;\n"),
}


@pytest.mark.parametrize("use", sorted(USES))
@pytest.mark.parametrize("shape", sorted(NOT_A_MACRO))
def test_a_mask_name_the_file_shows_is_no_macro_is_not_trusted(shape, use):
    source = _file(NOT_A_MACRO[shape] + "__device__ float f(float v) { {use} return v; }\n", "FULL_MASK", use)
    _statement, rule, call = USES[use]
    findings = scan(source, "k.cu")
    fixes = [f.fix for f in findings if f.rule == rule]
    assert fixes and all(x is not None and not x.safe for x in fixes), [f.message for f in findings]
    assert (call + "FULL_MASK").encode() in apply_fixes(source, findings)


@pytest.mark.parametrize("shape", ["a constexpr of the low half", "a constexpr all-ones"])
def test_a_shuffle_in_a_macro_body_reads_the_headers_declaration_too(tmp_path, shape):
    header, full = HEADERS[shape]
    (tmp_path / "lanes.h").write_text("#pragma once\n" + header)
    source = (b'#include "lanes.h"\n#define BROADCAST(x) __shfl_sync(FULL_MASK, x, 0)\n'
              b"__device__ float f(float v) { return BROADCAST(v); }\n")
    (tmp_path / "k.cu").write_bytes(source)
    findings = [f for f in scan(source, "k.cu", file=str(tmp_path / "k.cu")) if f.rule == "PORT020" and f.line == 2]
    assert findings and all(f.fix is not None and f.fix.safe is full for f in findings), [f.message for f in findings]
