"""Applying a fix in the review re-translates the CUDA with the fix but does not scan the
unchanged CUDA again (the scan was most of the ~0.3 s a fix cost on a 5,000-line file), and the
result is the one a full conversion with that fix gives."""

from __future__ import annotations

import porter.findings
from porter.project.file_conversion import convert_file, finding_key
from porter.project.file_review import FileReview

CUDA = """#include <cuda_runtime.h>
__device__ float warp_sum(float v)
{
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_down_sync(0xffffffff, v, o);
    return v;
}
__global__ void k(float* out) { out[threadIdx.x] = warp_sum(out[threadIdx.x]); }
"""


def test_a_fix_is_applied_without_a_second_scan_and_matches_a_full_conversion(monkeypatch):
    fr = FileReview.from_text("k.cu", CUDA)
    fix = next(f for f in fr.findings if f.fix and f.fix.edits)
    real = porter.findings.scan
    calls = []
    monkeypatch.setattr(porter.findings, "scan", lambda *a, **k: calls.append(1) or real(*a, **k))
    assert fr.apply_fix(fix)
    assert calls == []
    full = convert_file("k.cu", None, "source", data=CUDA.encode(), applied=(finding_key(fix),))
    assert fr.hip == full["hip"] and fr.hip != convert_file("k.cu", None, "source", data=CUDA.encode())["hip"]
    assert [finding_key(f) for f in fr.findings] == [finding_key(f) for f in full["findings"]]
