"""PORT030's fix for a `case` label of a status HIP lacks (NVIDIA's samples' Common/helper_cuda.h: `case
CUFFT_LICENSE_ERROR: return "CUFFT_LICENSE_ERROR";` inside `_cudaGetErrorEnum(cufftResult error)`, which
alone stopped simpleCUFFT and simpleCUFFT_MGPU).  hipFFT's hipfftResult has no license status and no
value 15 (CUFFT_LICENSE_ERROR's), so no value hipFFT returns reaches that label: the case can go where
nothing falls into or out of it.  The expected strings are written from cuFFT's status list (cufft.h of
nvidia-cufft-cu12 11.4.1.4: CUFFT_SUCCESS = 0 ... CUFFT_LICENSE_ERROR = 15, CUFFT_NOT_SUPPORTED = 16) and
hipFFT's (hipfft/hipfft.h, hipFFT 1.0.14: HIPFFT_SUCCESS = 0 ... HIPFFT_NOT_IMPLEMENTED = 14,
HIPFFT_NOT_SUPPORTED = 16), not from what porter prints."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

import killable
from porter.findings import apply_fixes, scan
from porter.findings.predicates import status_cases
from porter.translate import TranslateOptions, translate

# cuFFT's status codes in cufft.h's order (value = position): the CUDA original returns each one's name
CUFFT_STATUS = ["CUFFT_SUCCESS", "CUFFT_INVALID_PLAN", "CUFFT_ALLOC_FAILED", "CUFFT_INVALID_TYPE",
                "CUFFT_INVALID_VALUE", "CUFFT_INTERNAL_ERROR", "CUFFT_EXEC_FAILED", "CUFFT_SETUP_FAILED",
                "CUFFT_INVALID_SIZE", "CUFFT_UNALIGNED_DATA", "CUFFT_INCOMPLETE_PARAMETER_LIST",
                "CUFFT_INVALID_DEVICE", "CUFFT_PARSE_ERROR", "CUFFT_NO_WORKSPACE", "CUFFT_NOT_IMPLEMENTED",
                "CUFFT_LICENSE_ERROR", "CUFFT_NOT_SUPPORTED"]
# hipFFT's hipfftResult: name -> value (no 15)
HIPFFT_STATUS = {"HIPFFT_" + n.removeprefix("CUFFT_"): v for v, n in enumerate(CUFFT_STATUS) if v != 15}

# helper_cuda.h's shape: one case per cuFFT status, a blank line between them, the fallback after the switch
HELPER = ("#include <cufft.h>\n"
          "static const char *_cudaGetErrorEnum(cufftResult error) {\n"
          "  switch (error) {\n"
          + "\n".join(f"    case {n}:\n      return \"{n}\";\n" for n in CUFFT_STATUS)
          + "  }\n\n  return \"<unknown>\";\n}\n").encode()
LICENSE_LINE = 4 + 3 * CUFFT_STATUS.index("CUFFT_LICENSE_ERROR")


def _port030(src: bytes) -> list:
    return [f for f in scan(src, "t.cu") if f.rule == "PORT030"]


def _fixed_port(src: bytes) -> bytes:
    """``porter convert --fix``: the safe fixes applied to the CUDA, then the translation."""
    return translate(apply_fixes(src, scan(src, "t.cu")), "t.cu", TranslateOptions()).output


def test_the_license_case_gets_a_safe_fix_that_removes_it():
    (f,) = _port030(HELPER)
    assert f.line == LICENSE_LINE and f.fix is not None and f.fix.safe
    assert "no `hipfftResult` value is 15" in f.message
    fixed = apply_fixes(HELPER, [f]).decode()
    assert "LICENSE" not in fixed
    # exactly the case's two lines and one of the blank lines around it went
    assert fixed.splitlines() == [l for i, l in enumerate(HELPER.decode().splitlines(), 1)
                                  if i not in (LICENSE_LINE, LICENSE_LINE + 1, LICENSE_LINE + 2)]
    assert _port030(fixed.encode()) == []


def test_the_tables_values_are_cuda_and_hipffts():
    enum = status_cases.status_enums()["CUFFT_LICENSE_ERROR"]
    assert enum.cuda == {n: v for v, n in enumerate(CUFFT_STATUS)} and enum.hip == HIPFFT_STATUS


def test_the_hip_table_is_the_header_when_it_is_here(hipfft_include):
    header = hipfft_include / "hipfft" / "hipfft.h"
    body = re.search(r"typedef enum hipfftResult_t\s*\{(.*?)\}\s*hipfftResult;", header.read_text(), re.S).group(1)
    body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
    assert {n: int(v, 0) for n, v in re.findall(r"(HIPFFT_\w+)\s*=\s*(\w+)", body)} == HIPFFT_STATUS


# ---------------------------------------------------------------- where the case cannot simply go
def _switch(body: str, param: str = "cufftResult e") -> bytes:
    return (f"#include <cufft.h>\nint log(const char*);\nconst char* f({param}) {{\n  switch (e) {{\n{body}  }}\n"
            "  return \"?\";\n}\n").encode()


INTO = _switch('    case CUFFT_SUCCESS: log("ok");\n    case CUFFT_LICENSE_ERROR:\n      return "L";\n')
OUT_OF = _switch('    case CUFFT_LICENSE_ERROR:\n      log("L");\n    case CUFFT_SUCCESS:\n      return "S";\n')
ON_INT = _switch('    case CUFFT_LICENSE_ERROR:\n      return "L";\n', param="int e")
DECLARES = _switch('    case CUFFT_SUCCESS:\n      return "S";\n    case CUFFT_LICENSE_ERROR:\n      int n; return "L";\n'
                   '    case CUFFT_INVALID_PLAN:\n      n = 1; return n ? "P" : "";\n')


@pytest.mark.parametrize("src, why", [(INTO, "falls through into it"), (OUT_OF, "fall through into the next label"),
                                      (ON_INT, "cannot tell"), (DECLARES, "declare a name")],
                         ids=["fallthrough-into", "fallthrough-out-of", "switch-on-an-int", "declares"])
def test_no_fix_where_the_case_cannot_simply_go(src, why):
    (f,) = _port030(src)
    assert f.fix is None and why in f.message


def test_a_shared_label_goes_alone():
    first = _switch('    case CUFFT_LICENSE_ERROR:\n    case CUFFT_INVALID_PLAN:\n      return "bad";\n')
    (f,) = _port030(first)
    assert f.fix.safe and apply_fixes(first, [f]) == first.replace(b"    case CUFFT_LICENSE_ERROR:\n", b"")
    second = _switch('    case CUFFT_SUCCESS: return "S";\n    case CUFFT_INVALID_PLAN:\n    case CUFFT_LICENSE_ERROR:\n'
                     '      return "bad";\n')
    (f,) = _port030(second)
    assert f.fix.safe and apply_fixes(second, [f]) == second.replace(b"    case CUFFT_LICENSE_ERROR:\n", b"")


def test_no_fix_where_a_hip_status_has_the_value(monkeypatch):
    # were there a HIP status of value 15, it would now go to `default` instead of a label: not a safe fix
    real = status_cases.status_enums()
    enum = real["CUFFT_LICENSE_ERROR"]
    clash = enum._replace(hip={**enum.hip, "HIPFFT_SOMETHING": 15})
    monkeypatch.setattr(status_cases, "status_enums", lambda: {n: clash for n in real})
    (f,) = _port030(HELPER)
    assert f.fix is None and "HIPFFT_SOMETHING has its value (15)" in f.message


# ---------------------------------------------------------------- compiled with hipFFT's headers and run
@pytest.fixture
def hipfft(tmp_path, hipcc_compile, hipfft_include):
    def build(source: bytes, name: str) -> tuple[int, str, Path]:
        src = tmp_path / f"{name}.hip"
        src.write_bytes(source)
        exe = tmp_path / name
        rc, out = killable.run([shutil.which("hipcc"), "--offload-arch=gfx90a", "-x", "hip", "-isystem",
                                str(hipfft_include), str(src), "-o", str(exe)], 300,
                               dict(os.environ, HIP_PLATFORM="amd"), f"hipcc on {name}")
        return rc, out, exe

    return build


MAIN = ("\n#include <cstdio>\nint main() {\n"
        + "".join(f"  std::printf(\"%d %s\\n\", {v}, _cudaGetErrorEnum({n}));\n" for n, v in HIPFFT_STATUS.items())
        + "  return 0;\n}\n").encode()


def test_the_port_did_not_compile_before_the_fix(hipfft):
    rc, out, _exe = hipfft(translate(HELPER, "t.cu", TranslateOptions()).output + MAIN, "unfixed")
    assert rc != 0 and "use of undeclared identifier 'CUFFT_LICENSE_ERROR'" in out


def test_the_fixed_port_returns_cudas_name_for_every_hipfft_status(hipfft):
    rc, out, exe = hipfft(_fixed_port(HELPER) + MAIN, "fixed")
    assert rc == 0, out[-3000:]
    rc, out = killable.run([str(exe)], 60, None, "the fixed program")
    assert rc == 0, out
    got = dict(line.split(" ", 1) for line in out.splitlines())
    # the CUDA original's logic: the value of each status reaches the case of the same cuFFT status
    assert got == {str(v): CUFFT_STATUS[v] for v in HIPFFT_STATUS.values()}
