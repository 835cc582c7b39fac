"""The texture-reference calls' mode arguments (rules.toml, kinds "texture-*-mode*"): CUDA's driver API takes
CUaddress_mode / CUfilter_mode (cuda.h: WRAP 0, CLAMP 1, MIRROR 2, BORDER 3; POINT 0, LINEAR 1), porter renames
them to HIP's driver enums (HIPaddress_mode, HIPfilter_mode), and HIP declares hipTexRefSetAddressMode and its
kin with the runtime's enums (hipTextureAddressMode, hipTextureFilterMode), to which C++ does not convert
another enum: the renamed call does not compile unless the mode is converted."""

from __future__ import annotations

import pytest

from porter.translate import translate

# written from CUDA's driver API (cuda.h): the texture-reference setters and getters, with constants and
# with variables of CUDA's enum types
SOURCE = b"""#include <cuda.h>
void configure(CUtexref tex, CUaddress_mode mode, CUfilter_mode filter) {
  cuTexRefSetAddressMode(tex, 0, CU_TR_ADDRESS_MODE_MIRROR);
  cuTexRefSetAddressMode(tex, 1, mode);
  cuTexRefSetFilterMode(tex, CU_TR_FILTER_MODE_LINEAR);
  cuTexRefSetMipmapFilterMode(tex, filter);
  CUaddress_mode am;
  CUfilter_mode fm, mm;
  cuTexRefGetAddressMode(&am, tex, 0);
  cuTexRefGetFilterMode(&fm, tex);
  cuTexRefGetMipmapFilterMode(&mm, tex);
}
"""


def test_the_modes_are_converted_to_the_enums_hip_declares():
    out = translate(SOURCE, "tex.cpp").output.decode()
    assert "hipTexRefSetAddressMode(tex, 0, static_cast<hipTextureAddressMode>(HIP_TR_ADDRESS_MODE_MIRROR));" in out
    assert "hipTexRefSetAddressMode(tex, 1, static_cast<hipTextureAddressMode>(mode));" in out
    assert "hipTexRefSetFilterMode(tex, static_cast<hipTextureFilterMode>(HIP_TR_FILTER_MODE_LINEAR));" in out
    assert "hipTexRefSetMipmapFilterMode(tex, static_cast<hipTextureFilterMode>(filter));" in out
    assert "hipTexRefGetAddressMode(reinterpret_cast<hipTextureAddressMode*>(&am), tex, 0);" in out
    assert "hipTexRefGetFilterMode(reinterpret_cast<hipTextureFilterMode*>(&fm), tex);" in out
    assert "hipTexRefGetMipmapFilterMode(reinterpret_cast<hipTextureFilterMode*>(&mm), tex);" in out


def test_a_mode_already_of_hips_runtime_enum_is_left():
    src = b"#include <cuda.h>\nvoid f(CUtexref t) { cuTexRefSetFilterMode(t, (hipTextureFilterMode)1); }\n"
    out = translate(src, "t.cpp").output.decode()
    assert "hipTexRefSetFilterMode(t, (hipTextureFilterMode)1);" in out


# the casts keep the value only where HIP's two enums agree with each other (and CUDA's, above): checked
# against the installed headers by the compiler
SAME = b"""
static_assert(sizeof(HIPaddress_mode) == sizeof(hipTextureAddressMode), "");
static_assert(sizeof(HIPfilter_mode) == sizeof(hipTextureFilterMode), "");
static_assert(HIP_TR_ADDRESS_MODE_WRAP == 0 && hipAddressModeWrap == 0, "");
static_assert(HIP_TR_ADDRESS_MODE_CLAMP == 1 && hipAddressModeClamp == 1, "");
static_assert(HIP_TR_ADDRESS_MODE_MIRROR == 2 && hipAddressModeMirror == 2, "");
static_assert(HIP_TR_ADDRESS_MODE_BORDER == 3 && hipAddressModeBorder == 3, "");
static_assert(HIP_TR_FILTER_MODE_POINT == 0 && hipFilterModePoint == 0, "");
static_assert(HIP_TR_FILTER_MODE_LINEAR == 1 && hipFilterModeLinear == 1, "");
"""


@pytest.mark.hipcc
def test_the_port_compiles_and_the_enums_agree(hipcc_compile):
    port = translate(SOURCE, "tex.cpp").output
    rc, out = hipcc_compile(port + SAME, "tex", syntax_only=True)
    assert rc == 0, out[-3000:]
    # the renamed calls without the conversion are what hipcc rejects
    bare = translate(SOURCE, "tex.cpp").output
    for wrap in (b"static_cast<hipTextureAddressMode>(", b"static_cast<hipTextureFilterMode>(",
                 b"reinterpret_cast<hipTextureAddressMode*>(", b"reinterpret_cast<hipTextureFilterMode*>("):
        while wrap in bare:
            i = bare.index(wrap)
            j = bare.index(b")", i + len(wrap))
            bare = bare[:i] + bare[i + len(wrap):j] + bare[j + 1:]
    rc, out = hipcc_compile(bare, "bare", syntax_only=True)
    assert rc != 0 and out.count("no matching function") == 7, out[-3000:]
