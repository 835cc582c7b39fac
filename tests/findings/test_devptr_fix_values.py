"""PORT190's safe fixes, checked by running them: a CUdeviceptr is an unsigned long long in CUDA (cuda.h, 64-bit
hosts) and the port's hipDeviceptr_t a void* (read here from the installed HIP header).  The fixture's
functions (NVIDIA matrixMulDrv's argument packing, offsets added to device addresses, addresses compared and
subtracted) are host code: compiled with g++ twice, as CUDA against a stand-in for cuda.h's declarations and as
porter's fixed port against HIP's own headers, and run on the same inputs, they store the same bytes, compute
the same addresses and pass the same address to the copy."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from host_programs import cuda_and_fixed_port

FIXTURE = Path(__file__).with_name("fixtures") / "PORT190" / "positive.cu"
HIP_TYPES = Path("/usr/include/hip/driver_types.h")

# what cuda.h declares (CUDA 12/13: CUdeviceptr_v2 is an unsigned long long where __LP64__), and a copy that
# shows where it was asked to write
CUDA_PRELUDE = """\
#include <cstddef>
#include <cstdio>
#include <cstring>
typedef unsigned long long CUdeviceptr;
typedef int CUresult;
static CUresult cuMemcpyHtoD(CUdeviceptr dst, const void*, size_t bytes)
{ std::printf("copy %llx %zu\\n", (unsigned long long)(dst), bytes); return 0; }
"""
HIP_COPY = """
#include <cstdio>
hipError_t hipMemcpyHtoD(hipDeviceptr_t dst, void*, size_t bytes)
{ std::printf("copy %llx %zu\\n", (unsigned long long)(dst), bytes); return hipSuccess; }
"""
# written in CUDA's terms, appended before the fixes and the translation (nothing in it is reported)
MAIN = """
#include <cstdio>
static unsigned long long number(CUdeviceptr p) { return (unsigned long long)(p); }
int main()
{
    char buffer[48];
    std::memset(buffer, 0xab, sizeof buffer);
    CUdeviceptr a = (CUdeviceptr)(unsigned long long)(0x7f3a00001000ull);
    CUdeviceptr b = (CUdeviceptr)(unsigned long long)(0x7f3a00402040ull);
    size_t packed = pack_arguments(buffer, a, b, -3, 70001);
    std::printf("packed %zu:", packed);
    for (size_t i = 0; i < sizeof buffer; i++) std::printf(" %02x", (unsigned char)buffer[i]);
    std::printf("\\n");
    std::printf("half %llx\\n", number(second_half(a, 4096)));
    std::printf("walk %llx %llx\\n", number(walk(a, 256, 3)), number(walk(b, 64, 0)));
    std::printf("distance %llx %llx %llx\\n", distance(a, b),
                distance((CUdeviceptr)(unsigned long long)(16), (CUdeviceptr)(unsigned long long)(64)),
                distance(b, a));
    CUdeviceptr odd = (CUdeviceptr)(unsigned long long)(0x7f3a00001003ull);
    CUdeviceptr limit = (CUdeviceptr)(unsigned long long)(0x7f3a00001400ull);
    std::printf("align %llx %llx %llx\\n", number(align_up(odd, limit, 64)), number(align_up(odd, limit, 4096)),
                number(align_up(a, limit, 16)));
    float host[8] = {0};
    upload_tail(b, host, 8);
    return 0;
}
"""


@pytest.mark.skipif(shutil.which("g++") is None or not HIP_TYPES.exists(), reason="needs g++ and HIP's headers")
def test_the_fixed_port_stores_computes_and_passes_cudas_addresses(tmp_path):
    assert re.search(r"typedef\s+void\s*\*\s*hipDeviceptr_t\s*;", HIP_TYPES.read_text())  # the premise
    expected, got, code = cuda_and_fixed_port(FIXTURE.read_text() + MAIN, "PORT190", CUDA_PRELUDE, HIP_COPY, tmp_path)
    assert "CUdeviceptr" not in code and "hipDeviceptr_t" in code
    # the CUDA program's own figures, from CUdeviceptr's semantics: -3 and 70001 packed as 8-byte integers
    assert "packed 32: 00 10 00 00 3a 7f 00 00 40 20 40 00 3a 7f 00 00 fd ff ff ff ff ff ff ff 71 11 01 00 00 00 00 00 ab" \
        in expected
    assert "copy 7f3a00402050 16" in expected
    assert got == expected
