"""PORT191's safe fix, checked by running it: cuMemcpyHtoD and cuMemcpyHtoDAsync take `const void*` (cuda.h),
HIP's forms `void*` before HIP 7.0, and the fix casts the source to `void*`.  The fixture's host functions
(const parameters, a const vector's data(), a const string's c_str(), const tables, a string literal, a const
scalar's address, a pointer plus an offset, casts to const) compiled with g++ twice, as CUDA against a
stand-in for cuda.h's declarations and as porter's fixed port against HIP's own headers, each with a copy that
prints the destination and the bytes it reads from the source, copy the same bytes to the same places."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from host_programs import cuda_and_fixed_port

FIXTURE = Path(__file__).with_name("fixtures") / "PORT191" / "positive.cu"
HIP_API = Path("/usr/include/hip/hip_runtime_api.h")

_SHOW = """{ std::printf("copy %llx %zu:", (unsigned long long)(dst), bytes);
  for (size_t i = 0; i < bytes; i++) std::printf(" %02x", ((const unsigned char*)src)[i]);
  std::printf("\\n"); return RESULT; }
"""
# what cuda.h declares (CUDA 12/13, 64-bit hosts), with copies that show what they read
CUDA_PRELUDE = """\
#include <cstddef>
#include <cstdio>
typedef unsigned long long CUdeviceptr;
typedef int CUresult;
typedef struct CUstream_st* CUstream;
#define CUDA_SUCCESS 0
static CUresult cuMemcpyHtoD(CUdeviceptr dst, const void* src, size_t bytes)
""" + _SHOW.replace("RESULT", "0") + """static CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void* src, size_t bytes)
""" + _SHOW.replace("RESULT", "0") + """static CUresult cuMemcpyHtoDAsync(CUdeviceptr dst, const void* src, size_t bytes, CUstream)
""" + _SHOW.replace("RESULT", "0")
# HIP's declarations come from its header; the definitions print the same
HIP_COPIES = """
#include <cstdio>
hipError_t hipMemcpyHtoD(hipDeviceptr_t dst, void* src, size_t bytes)
""" + _SHOW.replace("RESULT", "hipSuccess") + """hipError_t hipMemcpyHtoDAsync(hipDeviceptr_t dst, void* src, size_t bytes, hipStream_t)
""" + _SHOW.replace("RESULT", "hipSuccess")
# written in CUDA's terms, appended before the fixes and the translation (nothing in it is reported)
MAIN = """
int main()
{
    float w[6] = {1.5f, -2.0f, 3.25f, 0.0f, 1e-3f, 7.0f};
    std::vector<float> v(w, w + 4);
    CUdeviceptr d = (CUdeviceptr)(unsigned long long)(0x7f3a00001000ull);
    CUdeviceptr e = (CUdeviceptr)(unsigned long long)(0x7f3a00402040ull);
    upload(d, w, 3);
    upload_east_const(e, w + 1, 2);
    upload_vector(d, v, 0);
    upload_text(e, std::string("ROCm"));
    upload_tables(d, e);
    upload_scalar(d, 1.25);
    upload_tail(e, w, 6, 4);
    upload_cast(d, w, 2, 0);
    return 0;
}
"""


@pytest.mark.skipif(shutil.which("g++") is None or not HIP_API.exists(), reason="needs g++ and HIP's headers")
def test_the_fixed_port_copies_the_bytes_cuda_copies(tmp_path):
    assert re.search(r"hipMemcpyHtoDAsync\(hipDeviceptr_t dst, void\* src,", HIP_API.read_text())  # the premise
    expected, got, code = cuda_and_fixed_port(FIXTURE.read_text() + MAIN, "PORT191", CUDA_PRELUDE, HIP_COPIES,
                                              tmp_path)
    assert "hipMemcpyHtoDAsync" in code and "cuMemcpy" not in code
    # the CUDA program's own bytes: 1.5f, -2.0f, 3.25f little-endian; the table {3,1,4,1}; "ROCm\\0"; 2.5
    assert "copy 7f3a00001000 12: 00 00 c0 3f 00 00 00 c0 00 00 50 40" in expected
    assert "copy 7f3a00402040 5: 52 4f 43 6d 00" in expected
    assert "copy 7f3a00001000 8: 00 00 00 00 00 00 04 40" in expected
    assert expected.count("copy ") == 12  # every call of the fixture ran
    assert got == expected
