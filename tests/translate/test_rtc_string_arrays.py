"""NVRTC's string arrays (rules.toml, kind "option-strings"): nvrtc.h declares nvrtcCompileProgram's
`options` and nvrtcCreateProgram's `headers` and `includeNames` as `const char* const*`, to which C++
converts `char**`, `const char**` and `const char* const*`; HIP 5.2's hiprtc.h declares them
`const char**`, to which only `const char**` converts.  The translator casts each such argument as
CUDA's conversion did, and leaves a null pointer constant (const_cast does not take one)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from header_signatures import wrap_rule

from porter.translate import translate

# written from NVRTC's API: each kind of string array C++ converts to `const char* const*`, null
# arrays with no headers / no options, and an argument already cast to what HIP declares
SOURCE = b"""#include <nvrtc.h>
#include <vector>
int build(nvrtcProgram prog) {
  const char* hdrs[] = {"#define X 1\\n"};
  char* names[] = {(char*)"x.h"};
  nvrtcCreateProgram(&prog, "__global__ void k() {}", "k.cu", 1, hdrs, names);
  nvrtcCreateProgram(&prog, "__global__ void k() {}", "k.cu", 0, NULL, nullptr);
  const char* const opts[] = {"-O3"};
  nvrtcCompileProgram(prog, 1, opts);
  std::vector<char*> more{(char*)"-O2"};
  nvrtcCompileProgram(prog, (int)more.size(), more.data());
  nvrtcCompileProgram(prog, 0, 0);
  nvrtcCompileProgram(prog, 1, (const char**)hdrs);
  return 0;
}
"""


def test_each_string_array_is_cast_and_null_constants_are_left():
    out = translate(SOURCE, "rtc.cu").output.decode()
    assert ('hiprtcCreateProgram(&prog, "__global__ void k() {}", "k.cu", 1, const_cast<const char**>(hdrs), '
            'const_cast<const char**>(names));') in out
    assert 'hiprtcCreateProgram(&prog, "__global__ void k() {}", "k.cu", 0, NULL, nullptr);' in out
    assert "hiprtcCompileProgram(prog, 1, const_cast<const char**>(opts));" in out
    assert "hiprtcCompileProgram(prog, (int)more.size(), const_cast<const char**>(more.data()));" in out
    assert "hiprtcCompileProgram(prog, 0, 0);" in out
    assert "hiprtcCompileProgram(prog, 1, (const char**)hdrs);" in out
    assert out.count("const_cast") == 4


def test_the_rule_names_the_parameters_hip_declares_const_char_pointer_pointer():
    header = Path("/usr/include/hip/hiprtc.h")
    if not header.exists():
        pytest.skip("HIP's hiprtc.h is not installed")
    text = re.sub(r"/\*.*?\*/", "", header.read_text(encoding="utf-8", errors="replace"), flags=re.S)
    hip = {"nvrtcCompileProgram": "hiprtcCompileProgram", "nvrtcCreateProgram": "hiprtcCreateProgram"}
    for cuda, positions in wrap_rule("option-strings")["functions"].items():
        declaration = re.search(rf"\b{hip[cuda]}\s*\(([^;]*)\)\s*;", text)
        params = [p.strip() for p in declaration.group(1).split(",")]
        for position in positions if isinstance(positions, list) else [positions]:
            assert re.match(r"const\s+char\s*\*\s*\*", params[position]), (cuda, params[position])


@pytest.mark.hipcc
def test_the_port_compiles_with_hip_and_would_not_without_the_casts(hipcc_compile):
    port = translate(SOURCE, "rtc.cu").output.decode()
    rc, out = hipcc_compile(port.encode(), "rtc", syntax_only=True)
    assert rc == 0, out[-3000:]
    # the renamed calls with CUDA's arguments as they were
    bare = re.sub(r"const_cast<const char\*\*>\(([^()]*(?:\(\))?)\)", r"\1", port)
    rc, out = hipcc_compile(bare.encode(), "bare", syntax_only=True)
    assert rc != 0 and "hiprtcCompileProgram" in out and "hiprtcCreateProgram" in out
