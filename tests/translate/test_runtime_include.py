"""Where the port needs ``#include <hip/hip_runtime.h>``.

The CUDA facts these tests stand on: nvcc includes ``cuda_runtime.h`` implicitly, ahead of
everything else, in every ``.cu`` translation unit, so a ``.cu`` (and every header it
includes) may use the runtime (``threadIdx``, ``cudaDeviceProp``, ``cudaSetDevice``) without
including it.  hipcc includes nothing: the port must say ``#include <hip/hip_runtime.h>``,
before any header that relies on it.  ``cuda_runtime_api.h`` (HIP: ``hip_runtime_api.h``)
declares the host API only, not ``threadIdx`` & co.  A ``.cpp`` or ``.h`` gets no implicit
include from g++ or from being a header; for those the runtime include is added only for
device code, as before.  HIP 5.2's ``hip/hip_cooperative_groups.h`` (and a few other HIP
headers) compile only after ``hip/hip_runtime.h``, whatever file includes them.
"""

from __future__ import annotations

import pytest

from porter.translate import translate

RUNTIME = b"#include <hip/hip_runtime.h>\n"

# A helper header in the style of NVIDIA's helper_cuda.h: it has no include of its own and
# defines its runtime helpers only when the runtime header is in (nvcc: always, in a .cu).
HELPER_H = b"""// helper.h - error checks
#pragma once
#include <cstdio>
#ifdef __DRIVER_TYPES_H__
inline int check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) { std::printf("%s: %s\\n", what, cudaGetErrorString(e)); return 1; }
  return 0;
}
#endif
"""


def port(source: bytes, path: str) -> bytes:
    return translate(source, path).output


def test_threadidx_with_only_the_runtime_api_header_gets_the_runtime():
    src = b"#include <cuda_runtime_api.h>\n__global__ void k(int* p) { p[threadIdx.x] = 1; }\n"
    assert port(src, "k.cu") == RUNTIME + src.replace(b"cuda_runtime_api.h", b"hip/hip_runtime_api.h")
    # the same in a header: threadIdx is not in the runtime API header either
    head = b"#pragma once\n#include <cuda_runtime_api.h>\n__device__ inline int lane() { return threadIdx.x & 31; }\n"
    assert port(head, "lane.cuh") == (b"#pragma once\n" + RUNTIME + b"#include <hip/hip_runtime_api.h>\n"
                                      b"__device__ inline int lane() { return threadIdx.x & 31; }\n")


def test_a_cu_that_uses_runtime_api_names_without_any_include_gets_the_runtime():
    """No device code at all: a .cu host file calling the runtime is valid CUDA (the implicit include)."""
    src = b"// query.cu\nint main() {\n  cudaDeviceProp p;\n  return cudaGetDeviceProperties(&p, 0) != cudaSuccess;\n}\n"
    out = port(src, "query.cu")
    assert out == (b"// query.cu\n" + RUNTIME + b"int main() {\n  hipDeviceProp_t p;\n"
                   b"  return hipGetDeviceProperties(&p, 0) != hipSuccess;\n}\n")
    # g++ compiles a .cpp: there the same code is wrong CUDA too, and porter adds nothing
    assert b"hip/hip_runtime.h" not in port(src, "query.cpp")


def test_a_helper_header_included_first_gets_the_runtime_ahead_of_it():
    src = (b"#include <cstdio>\n#include \"helper.h\"\n"
           b"int main() { cudaDeviceProp p; return check(cudaGetDeviceProperties(&p, 0), \"props\"); }\n")
    out = port(src, "main.cu")
    assert out.startswith(RUNTIME + b"#include <cstdio>\n#include \"helper.h\"\n")
    # the runtime include comes after the helper: too late for the helper's guard test
    late = b"#include \"helper.h\"\n#include <cuda_runtime.h>\nint main() { return check(cudaSetDevice(0), \"dev\"); }\n"
    assert port(late, "main.cu") == RUNTIME + late.replace(b"cuda_runtime.h", b"hip/hip_runtime.h").replace(
        b"cudaSetDevice", b"hipSetDevice")
    # an angle-bracket project header (the samples build with -I common/inc) is no different
    angle = late.replace(b'"helper.h"', b"<helper_cuda.h>")
    assert port(angle, "main.cu").startswith(RUNTIME + b"#include <helper_cuda.h>\n")


def test_the_runtime_after_standard_headers_only_is_left_where_it_is():
    src = (b"#include <cstdio>\n#include <vector>\n#include <cuda_runtime.h>\n#include \"helper.h\"\n"
           b"__global__ void k(float* x) { x[threadIdx.x] = 0; }\n")
    out = port(src, "k.cu")
    assert out == src.replace(b"cuda_runtime.h", b"hip/hip_runtime.h")
    assert port(out, "k.cu") == out


def test_host_only_cu_and_header_without_device_code_get_nothing():
    plain = b"#include <vector>\n#include \"config.h\"\nint add(int a, int b) { return a + b; }\n"
    assert port(plain, "add.cu") == plain
    header = b"#pragma once\n#include <cstdio>\ninline void report(cudaError_t e) { std::puts(cudaGetErrorString(e)); }\n"
    assert b"hip/hip_runtime.h" not in port(header, "report.h")


@pytest.mark.parametrize("path", ["coop.cu", "coop.cuh", "coop.h"])
def test_cooperative_groups_header_gets_the_runtime_before_it(path):
    src = (b"#pragma once\n#include <cooperative_groups.h>\n#include <cuda_runtime.h>\n"
           b"namespace cg = cooperative_groups;\n"
           b"__device__ inline unsigned rank() { return cg::this_thread_block().thread_rank(); }\n")
    out = port(src, path)
    assert out.startswith(b"#pragma once\n" + RUNTIME + b"#include <hip/hip_cooperative_groups.h>\n"
                          b"#include <hip/hip_runtime.h>\n")
    assert port(out, path) == out


def test_cooperative_groups_alone_in_a_header_without_device_words_gets_the_runtime():
    src = b"#pragma once\n#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\nusing block = cg::thread_block;\n"
    assert port(src, "cg_types.h").startswith(b"#pragma once\n" + RUNTIME + b"#include <hip/hip_cooperative_groups.h>\n")


def test_insertion_keeps_crlf_and_every_other_byte():
    src = b"// k.cu\r\n#include \"helper.h\"\r\n__global__ void k(int* p) {\tp[threadIdx.x] = 0; }\r\n"
    out = port(src, "k.cu")
    assert out == b"// k.cu\r\n#include <hip/hip_runtime.h>\r\n" + src[len(b"// k.cu\r\n"):]
    t = translate(src, "k.cu")
    assert t.inserted_lines == [(1, 1)] and t.output_line_to_source(3) == 2


def test_a_first_include_inside_a_conditional_gets_the_runtime_ahead_of_the_conditional():
    src = (b"#ifdef _WIN32\n#include <windows.h>\n#endif\n#include \"helper.h\"\n"
           b"__global__ void k(int* p) { p[threadIdx.x] = 0; }\n")
    assert port(src, "k.cu") == RUNTIME + src
    guarded = b"#ifndef K_CUH\n#define K_CUH\n#if USE_FP16\n#include <cuda_fp16.h>\n#endif\n__device__ int f() { return threadIdx.x; }\n#endif\n"
    assert port(guarded, "k.cuh") == guarded.replace(b"#define K_CUH\n", b"#define K_CUH\n" + RUNTIME).replace(
        b"cuda_fp16.h", b"hip/hip_fp16.h")


# ---------------------------------------------------------------- the ports compile

@pytest.mark.hipcc
def test_ported_helper_first_unit_compiles(tmp_path, hipcc_compile):
    (tmp_path / "helper.h").write_bytes(port(HELPER_H, "helper.h"))
    src = (b"#include \"helper.h\"\n#include <cuda_runtime.h>\n"
           b"__global__ void fill(int* p) { p[blockIdx.x * blockDim.x + threadIdx.x] = 1; }\n"
           b"int main() {\n  cudaDeviceProp prop;\n  if (check(cudaGetDeviceProperties(&prop, 0), \"props\")) return 1;\n"
           b"  int* d; check(cudaMalloc(&d, 256 * sizeof(int)), \"malloc\");\n"
           b"  fill<<<1, 256>>>(d);\n  return check(cudaDeviceSynchronize(), \"sync\");\n}\n")
    rc, out = hipcc_compile(port(src, "main.cu"), "main")
    assert rc == 0, out[-3000:]


@pytest.mark.hipcc
def test_ported_runtime_api_only_unit_compiles(hipcc_compile):
    src = (b"#include <cuda_runtime_api.h>\n"
           b"__global__ void k(float* x) { x[threadIdx.x] *= 2.0f; __syncthreads(); }\n"
           b"int main() { cudaDeviceProp p; return cudaGetDeviceProperties(&p, 0) == cudaSuccess ? 0 : 1; }\n")
    rc, out = hipcc_compile(port(src, "k.cu"), "k")
    assert rc == 0, out[-3000:]


@pytest.mark.hipcc
def test_ported_unit_with_no_include_compiles(hipcc_compile):
    src = b"__global__ void k(int* p) { p[threadIdx.x] = warpSize; }\nint main() { int n = 0; cudaGetDeviceCount(&n); return 0; }\n"
    rc, out = hipcc_compile(port(src, "k.cu"), "k")
    assert rc == 0, out[-3000:]


# A kernel written above the includes of a .cu: nvcc's implicit include came before it, so the port's
# include must too (before the first #include it would follow the kernel: "undeclared identifier
# 'threadIdx'" with hipcc 5.2); a runtime name above the includes likewise.
KERNEL_FIRST = (b"// vector add\n__global__ void add(float* a, const float* b) { a[threadIdx.x] += b[threadIdx.x]; }\n"
                b"#include <stdio.h>\nint main() { printf(\"%d\\n\", 1); return 0; }\n")
NAME_FIRST = b"static cudaError_t last;\n#include <stdio.h>\nint main() { last = cudaSuccess; return 0; }\n"


def test_code_above_the_first_include_gets_the_runtime_above_it():
    out = port(KERNEL_FIRST, "add.cu")
    assert out.startswith(b"// vector add\n" + RUNTIME + b"__global__ void add(")
    assert port(NAME_FIRST, "n.cu").startswith(RUNTIME + b"static hipError_t last;")
    later = b"#include <stdio.h>\n__global__ void k(int* p) { p[threadIdx.x] = 1; }\n"
    assert port(later, "k.cu") == RUNTIME + later  # code after the include: the include goes before it, as before


@pytest.mark.hipcc
def test_ported_kernel_above_the_includes_compiles(hipcc_compile):
    rc, out = hipcc_compile(port(KERNEL_FIRST, "add.cu"), "add")
    assert rc == 0, out[-3000:]


@pytest.mark.hipcc
def test_ported_cooperative_groups_before_runtime_compiles(hipcc_compile):
    src = (b"#include <cooperative_groups.h>\n#include <cuda_runtime.h>\nnamespace cg = cooperative_groups;\n"
           b"__global__ void k(int* out) {\n  cg::thread_block b = cg::this_thread_block();\n"
           b"  out[b.thread_rank()] = b.size();\n  b.sync();\n}\n")
    rc, out = hipcc_compile(port(src, "coop.cu"), "coop")
    assert rc == 0, out[-3000:]


# ---------------------------------------------------------------- line endings and byte order marks
# The inserted line ends the way the file's lines end (a CRLF file gets "\r\n"; an LF line in a
# CRLF file shows up as a stray ^M-less line in editors and in every diff), and a UTF-8 byte order
# mark stays the file's first three bytes (a BOM after the #include is text the compiler rejects).

BOM = b"\xef\xbb\xbf"
KERNEL = b"__global__ void k(int* p) { p[threadIdx.x] = 0; }"
CRLF_RUNTIME = b"#include <hip/hip_runtime.h>\r\n"


@pytest.mark.parametrize("before, after, path", [
    # before the first #include
    (b"#include <cstdio>\r\n" + KERNEL + b"\r\n", None, "k.cu"),
    # after an include guard
    (b"#ifndef K_CUH\r\n#define K_CUH\r\n", KERNEL + b"\r\n#endif\r\n", "k.cuh"),
    # after #pragma once
    (b"#pragma once\r\n", KERNEL + b"\r\n", "k.cuh"),
    # after the leading comments, no include at all
    (b"// kernels\r\n/* two\r\n   lines */\r\n", KERNEL + b"\r\n", "k.cu"),
    # nothing ahead of the code
    (b"", KERNEL + b"\r\n", "k.cu"),
], ids=["before-include", "after-guard", "after-pragma-once", "after-comments", "at-start"])
def test_the_inserted_include_ends_with_crlf_in_a_crlf_file(before, after, path):
    src = before if after is None else before + after
    expected = CRLF_RUNTIME + src if after is None else before + CRLF_RUNTIME + after
    out = port(src, path)
    assert out == expected
    assert b"\n" not in out.replace(b"\r\n", b"")  # no bare LF anywhere
    assert port(out, path) == out


def _fill(template: bytes, newline: bytes) -> bytes:
    return (template.replace(b"{bom}", BOM).replace(b"{rt}", b"#include <hip/hip_runtime.h>{nl}")
            .replace(b"{nl}", newline))


@pytest.mark.parametrize("newline", [b"\n", b"\r\n"], ids=["lf", "crlf"])
@pytest.mark.parametrize("source, expected, path", [
    # the first #include is on the BOM's line
    (b"{bom}#include <cstdio>{nl}K{nl}", b"{bom}{rt}#include <cstdio>{nl}K{nl}", "k.cu"),
    # a project header first, the runtime after it: the runtime goes ahead of the project header
    (b'{bom}#include "helper.h"{nl}#include <cuda_runtime.h>{nl}int main() { return cudaSetDevice(0); }{nl}',
     b'{bom}{rt}#include "helper.h"{nl}#include <hip/hip_runtime.h>{nl}int main() { return hipSetDevice(0); }{nl}',
     "k.cu"),
    # code on the BOM's line
    (b"{bom}K{nl}", b"{bom}{rt}K{nl}", "k.cu"),
    (b"{bom}// c{nl}#pragma once{nl}K{nl}", b"{bom}// c{nl}#pragma once{nl}{rt}K{nl}", "k.cuh"),
    (b"{bom}#ifndef K_H{nl}#define K_H{nl}K{nl}#endif{nl}", b"{bom}#ifndef K_H{nl}#define K_H{nl}{rt}K{nl}#endif{nl}",
     "k.cuh"),
], ids=["include", "helper-first", "code", "pragma-once", "guard"])
def test_a_byte_order_mark_stays_first_and_the_line_ends_like_the_file(source, expected, path, newline):
    src = _fill(source.replace(b"K", KERNEL), newline)
    out = port(src, path)
    assert out == _fill(expected.replace(b"K", KERNEL), newline)
    assert out.startswith(BOM) and out.count(BOM) == 1
    assert port(out, path) == out
