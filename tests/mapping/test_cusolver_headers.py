"""cuSOLVER's refactorization (Rf), sparse (Sp) and multi-GPU (Mg) headers.

Facts (AMD's HIPIFY tables, ../shared/reference/hipify-api-tables.tsv): 32 of the 34 cusolverRf*
names have a hipsolverRf* counterpart, added in ROCm 5.6.0; 8 cusolverSp* names (the handle,
Create/Destroy/SetStream, csrlsvchol) have hipsolverSp* counterparts, added in ROCm 6.1.0; no
cusolverMg* name and none of the low-level sparse QR names (cusolverSp_LOWLEVEL_PREVIEW.h:
csrqrInfo_t, ...) has one.  hipSOLVER declares all of its API in ``hipsolver/hipsolver.h``.

So a port that calls hipsolverRf* must include hipsolver/hipsolver.h (from ROCm 5.6 on), and
the include of cusolverSp.h becomes it from ROCm 6.1 on; before those releases, and for Mg and
the low-level preview header at every release, the CUDA include stays and is reported.
"""

from __future__ import annotations

import pytest

from porter.translate import translate
from porter.translate.engine import TranslateOptions

HIPSOLVER = b"hipsolver/hipsolver.h"


def run(src: bytes, target: str | None = None):
    return translate(src, "solve.cpp", TranslateOptions(target_rocm=target))


RF = (b"#include <cusolverRf.h>\n"
      b"int setup(cusolverRfHandle_t* h) { return cusolverRfCreate(h) != CUSOLVER_STATUS_SUCCESS; }\n")


@pytest.mark.parametrize("target", [None, "5.6", "6.2"])
def test_refactorization_header_becomes_hipsolver_from_rocm_5_6(target):
    out = run(RF, target).output
    assert out.startswith(b"#include <" + HIPSOLVER + b">\n")
    assert b"hipsolverRfCreate(h)" in out and b"hipsolverRfHandle_t" in out  # the names the header now declares


@pytest.mark.parametrize("target", ["5.2", "5.5"])
def test_refactorization_header_before_rocm_5_6_stays_and_is_reported(target):
    t = run(RF, target)
    assert t.output.startswith(b"#include <cusolverRf.h>\n")
    ref = next(r for r in t.unsupported if r.name == "cusolverRf.h")
    assert ref.status == "too-new" and ref.since_hip == "5.6"


SP = b"#include <cusolverSp.h>\nint f(cusolverSpHandle_t* h) { return cusolverSpCreate(h); }\n"


def test_sparse_header_becomes_hipsolver_from_rocm_6_1():
    out = run(SP, "6.1").output
    assert out.startswith(b"#include <" + HIPSOLVER + b">\n") and b"hipsolverSpCreate(h)" in out


def test_sparse_header_at_rocm_6_0_stays_and_is_reported():
    t = run(SP, "6.0")
    assert t.output.startswith(b"#include <cusolverSp.h>\n")
    ref = next(r for r in t.unsupported if r.name == "cusolverSp.h")
    assert ref.status == "too-new" and ref.since_hip == "6.1"


@pytest.mark.parametrize("header", ["cusolverMg.h", "cusolverSp_LOWLEVEL_PREVIEW.h"])
@pytest.mark.parametrize("target", [None, "5.2"])
def test_multi_gpu_and_low_level_sparse_headers_stay_with_a_finding(header, target):
    src = b"#include <cusolverDn.h>\n#include <" + header.encode() + b">\n"
    t = run(src, target)
    assert t.output.splitlines()[1] == b"#include <" + header.encode() + b">"
    ref = next(r for r in t.unsupported if r.name == header)
    assert ref.status == "unsupported"
    assert "name has a hipSOLVER counterpart" in (ref.why or "")  # the finding says there is none


def test_rf_and_sp_headers_after_the_dense_one_leave_one_hipsolver_include():
    """cusolverDn.h, cusolverRf.h and cusolverSp.h are one HIP header: it is included once."""
    src = b"#include <cusolverDn.h>\n#include <cusolverRf.h>\n#include <cusolverSp.h>\n"
    assert run(src).output == b"#include <" + HIPSOLVER + b">\n\n\n"
