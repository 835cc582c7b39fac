"""A CUDA error-string helper over every cusolverStatus_t value ports, with `porter convert --fix`, to a switch that
compiles: no label hipSOLVER lacks at the target, no two labels of one value.

Two kinds of label stop the port besides those PORT030 always had (test_cusolver_status_cases.py):
* a status whose hipSOLVER name the target lacks (PORT032): HIPSOLVER_STATUS_ZERO_PIVOT came with ROCm 5.6,
  HIPSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED with 6.1 (AMD's HIPIFY tables; the hipSOLVER headers of ROCm 5.2
  and 5.5 end at HIPSOLVER_STATUS_UNKNOWN = 11);
* an alias: AMD's HIPIFY tables give CUSOLVER_STATUS_IRS_PARAMS_INVALID, _IRS_INTERNAL_ERROR and _IRS_NOT_SUPPORTED
  the HIP names of CUSOLVER_STATUS_INVALID_VALUE, _INTERNAL_ERROR and _NOT_SUPPORTED, so a switch with both
  labels has a duplicate case value in the port (a compile error porter said nothing about).
The expected labels and values are this file's and test_cusolver_status_cases.py's tables (NVIDIA's and
hipSOLVER's lists), not what porter prints."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

import killable
from porter.findings import apply_fixes, scan
from porter.translate import TranslateOptions, translate
from test_cusolver_status_cases import CUSOLVER, HELPER, NO_HIP, _labels, hipsolver_at

# AMD's HIPIFY pairs: the alias -> the status whose HIP name the port writes for it
ALIASES = {"CUSOLVER_STATUS_IRS_PARAMS_INVALID": "CUSOLVER_STATUS_INVALID_VALUE",
           "CUSOLVER_STATUS_IRS_INTERNAL_ERROR": "CUSOLVER_STATUS_INTERNAL_ERROR",
           "CUSOLVER_STATUS_IRS_NOT_SUPPORTED": "CUSOLVER_STATUS_NOT_SUPPORTED"}


def _hip(name: str) -> str:
    return "HIPSOLVER" + name[len("CUSOLVER"):]


def _fixed_port(src: bytes, target: str | None) -> bytes:
    """``porter convert --fix [--target-rocm target]``: the safe fixes applied to the CUDA, then the translation."""
    opts = TranslateOptions(target_rocm=target)
    return translate(apply_fixes(src, scan(src, "t.cu", options=opts)), "t.cu", opts).output


@pytest.mark.parametrize("target", [None, "5.2", "5.6"], ids=["newest", "rocm5.2", "rocm5.6"])
def test_the_fixed_helper_has_declared_labels_of_distinct_values(target):
    declared = hipsolver_at(target or "6.3")
    labels = _labels(_fixed_port(HELPER, target))
    assert set(labels) <= set(declared), set(labels) - set(declared)
    assert len({declared[l] for l in labels}) == len(labels)  # no duplicate case value
    # and nothing more went: every status the target has a label for in the CUDA keeps its label
    assert sorted(labels) == sorted(h for h in map(_hip, CUSOLVER) if h in declared)


def test_the_unfixed_port_had_duplicate_values():
    labels = _labels(translate(HELPER, "t.cu", TranslateOptions()).output)
    assert sorted(l for l in set(labels) if labels.count(l) > 1) == sorted(_hip(o) for o in ALIASES.values())


@pytest.mark.parametrize("target", [None, "5.2"], ids=["newest", "rocm5.2"])
def test_each_alias_label_is_flagged_with_the_removal_fix(target):
    found = {f.line: f for f in scan(HELPER, "t.cu", options=TranslateOptions(target_rocm=target)) if f.rule == "PORT030"}
    for alias, own in ALIASES.items():
        f = found[4 + 3 * list(CUSOLVER).index(alias)]
        assert f.fix is not None and f.fix.safe and _hip(own) in f.message and own in f.message


def test_labels_newer_than_the_target_are_flagged_with_the_removal_fix():
    found = {f.line: f for f in scan(HELPER, "t.cu", options=TranslateOptions(target_rocm="5.2")) if f.rule == "PORT032"}
    for name, since in (("CUSOLVER_STATUS_ZERO_PIVOT", "5.6"), ("CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED", "6.1")):
        f = found[4 + 3 * list(CUSOLVER).index(name)]
        assert f.fix is not None and f.fix.safe and f"came with ROCm {since}" in f.message
    newest = [f for f in scan(HELPER, "t.cu") if f.rule == "PORT032"]
    assert newest == []


def _switch(body: str) -> bytes:
    return (f"#include <cusolverDn.h>\nconst char* f(cusolverStatus_t e) {{\n  switch (e) {{\n{body}  }}\n"
            "  return \"?\";\n}\n").encode()


def test_the_alias_goes_whichever_label_comes_first():
    src = _switch('    case CUSOLVER_STATUS_IRS_PARAMS_INVALID:\n      return "irs";\n'
                  '    case CUSOLVER_STATUS_INVALID_VALUE:\n      return "invalid";\n')
    port = _fixed_port(src, None).decode()
    assert _labels(port.encode()) == ["HIPSOLVER_STATUS_INVALID_VALUE"] and '"invalid"' in port and '"irs"' not in port


def test_an_alias_alone_stays():
    alone = _switch('    case CUSOLVER_STATUS_IRS_INTERNAL_ERROR:\n      return "irs";\n')
    assert [f for f in scan(alone, "t.cu") if f.rule == "PORT030"] == []
    assert _labels(_fixed_port(alone, None)) == ["HIPSOLVER_STATUS_INTERNAL_ERROR"]


def test_a_shared_alias_label_goes_alone():
    src = _switch('    case CUSOLVER_STATUS_NOT_SUPPORTED:\n    case CUSOLVER_STATUS_IRS_NOT_SUPPORTED:\n'
                  '      return "not supported";\n')
    port = _fixed_port(src, None).decode()
    assert _labels(port.encode()) == ["HIPSOLVER_STATUS_NOT_SUPPORTED"] and '"not supported"' in port


def test_no_fix_where_the_alias_falls_through():
    src = _switch('    case CUSOLVER_STATUS_INTERNAL_ERROR:\n      return "internal";\n'
                  '    case CUSOLVER_STATUS_IRS_INTERNAL_ERROR:\n      (void)0;\n'
                  '    case CUSOLVER_STATUS_SUCCESS:\n      return "ok";\n')
    (f,) = [f for f in scan(src, "t.cu") if f.rule == "PORT030"]
    assert f.fix is None and "fall through" in f.message


# ---------------------------------------------------------------- compiled with hipSOLVER's headers and run
def test_the_fixed_port_compiles_and_names_each_status_as_cuda_did(hipsolver_include, hipcc_compile, tmp_path):
    # the headers at hand (hipSOLVER 1.7.0, ROCm 5.5, where Debian 13's) have ROCm 5.2's statuses: the port for 5.2
    declared = hipsolver_at("5.2")
    main = ("\n#include <cstdio>\nint main() {\n"
            + "".join(f"  std::printf(\"%d %s\\n\", {v}, _cudaGetErrorEnum({h}));\n" for h, v in declared.items())
            + "  return 0;\n}\n").encode()
    unfixed = translate(HELPER, "t.cu", TranslateOptions(target_rocm="5.2")).output + main
    rc, out = hipcc_compile(unfixed, "unfixed", flags=["-isystem", str(hipsolver_include)], syntax_only=True)
    assert rc != 0 and "duplicate case value" in out and "undeclared identifier" in out
    src = tmp_path / "fixed.hip"
    src.write_bytes(_fixed_port(HELPER, "5.2") + main)
    exe = tmp_path / "fixed"
    rc, out = killable.run([shutil.which("hipcc"), "--offload-arch=gfx90a", "-x", "hip", "-isystem",
                            str(hipsolver_include), str(src), "-o", str(exe)], 300,
                           dict(os.environ, HIP_PLATFORM="amd"), "hipcc on the fixed port")
    assert rc == 0, out[-3000:]
    rc, out = killable.run([str(exe)], 60, None, "the fixed program")
    assert rc == 0, out
    got = dict(line.split(" ", 1) for line in out.splitlines())
    # each hipSOLVER status reaches the case of the cuSOLVER status of its name; the HIP-only ones none
    cuda_of = {_hip(n): n for n in CUSOLVER}
    assert got == {str(v): cuda_of.get(h, "<unknown>") for h, v in declared.items()}
