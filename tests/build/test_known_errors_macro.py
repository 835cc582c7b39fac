"""Known-error hints match the offending token, not clang's macro stack (issue 32 defect 1).

A project's own error-check macro is often named ``CUDA_CHECK``: every error inside it comes
with clang's note ``expanded from macro 'CUDA_CHECK'``, which is no CUDA name left unconverted.
The messages here are clang-19's own, compiled for gfx942 from a converted file that keeps the
user's macro; the hint must still come for a CUDA name that truly was not converted."""

from __future__ import annotations

import subprocess

from porter.build.diagnostics import parse

UNCONVERTED = "a CUDA name the translator did not convert"

# HIP as porter writes it, with the project's CUDA_CHECK macro kept (user code, not CUDA API):
# line 7 calls hipMalloc with one argument (a user error, no porting problem); lines 8 and 9
# hold a runtime call and a library enum the translator left in CUDA spelling
FIXTURE = """#include <hip/hip_runtime.h>
#include <cstdio>
#define CUDA_CHECK(call) do { hipError_t err_ = (call); \\
    if (err_ != hipSuccess) printf("%s\\n", hipGetErrorString(err_)); } while (0)
int main() {
    float *p = nullptr;
    CUDA_CHECK(hipMalloc(&p));
    CUDA_CHECK(cudaFree(p));
    int kind = CUDA_R_32F;
    return kind;
}
"""


def test_an_error_inside_a_user_macro_named_cuda_check_gets_no_unconverted_name_hint(tmp_path, toolchain942):
    src = tmp_path / "check.hip"
    src.write_text(FIXTURE)
    cmd = [*toolchain942.compile_prefix("gfx942"), "-fsyntax-only", str(src)]
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=toolchain942.env(), cwd=tmp_path)
    assert run.returncode != 0
    output = run.stdout + run.stderr
    assert "expanded from macro 'CUDA_CHECK'" in output  # the real macro stack is there
    by_line = {d.line: d for d in parse(output, cwd=str(tmp_path), root=str(tmp_path)) if d.severity == "error"}
    assert "no matching function for call to 'hipMalloc'" in by_line[7].message
    assert any("CUDA_CHECK" in n.message for n in by_line[7].notes)
    assert UNCONVERTED not in by_line[7].hint
    assert by_line[7].rule == ""
    # truly unconverted names keep the hint: a runtime call inside the same macro, and a CUDA_ enum
    assert "'cudaFree'" in by_line[8].message and UNCONVERTED in by_line[8].hint
    assert "'CUDA_R_32F'" in by_line[9].message and UNCONVERTED in by_line[9].hint
