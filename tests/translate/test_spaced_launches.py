"""A launch written with spaced chevrons, `k << <grid, block >> > (args)` (how Visual Studio's formatter leaves
them; llm.c's dev/cuda/softmax_forward.cu has one): nvcc reads `<<` `<` and `>>` `>` as the launch's tokens
(nvcc 13 compiles every launch below), clang reads only `<<<` and `>>>` and stops with "expected expression".
The port closes them up; nothing else changes (a shift, a comment, a string, an `operator<< <T>`
specialisation keep their bytes)."""

from __future__ import annotations

from porter.translate import translate

CUDA = b"""#include <cstdio>
template <typename T> struct Box;
template <typename T> std::FILE* operator<<(std::FILE* f, const Box<T>& b);
template <typename T> struct Box {
    T v;
    friend std::FILE* operator<< <T>(std::FILE* f, const Box<T>& b);
};
__global__ void fill(int* p, int n) { if (threadIdx.x < n) p[threadIdx.x] = threadIdx.x; }
// fill << <1, 1 >> > (p, n) in a comment stays
void run(int* p, int n, cudaStream_t s)
{
    fill << <(n + 255) / 256, 256 >> > (p, n);
    fill<<<1, 32>>  >(p, n);
    fill<<  <2, 64, 0, s>>>(p, n >> 1);
    int shifted = n << 2 >> 1;
    const char* text = "<< <";
    (void)shifted; (void)text;
}
"""


def test_the_launches_are_closed_up_and_nothing_else_changes():
    port = translate(CUDA, "launch.cu").output
    assert b"fill <<<(n + 255) / 256, 256 >>> (p, n);" in port
    assert b"fill<<<1, 32>>>(p, n);" in port
    assert b"fill<<<2, 64, 0, s>>>(p, n >> 1);" in port
    for kept in (b"// fill << <1, 1 >> > (p, n) in a comment stays", b"int shifted = n << 2 >> 1;",
                 b'"<< <"', b"operator<< <T>(std::FILE* f, const Box<T>& b);"):
        assert kept in port, kept
    # and nothing else differs: the port is the CUDA text with those three spans closed up, the stream type
    # renamed and HIP's runtime header included
    expected = (b"#include <hip/hip_runtime.h>\n" + CUDA.replace(b"cudaStream_t", b"hipStream_t")
                .replace(b"fill << <(n + 255) / 256, 256 >> > (p, n);", b"fill <<<(n + 255) / 256, 256 >>> (p, n);")
                .replace(b"fill<<<1, 32>>  >(p, n);", b"fill<<<1, 32>>>(p, n);")
                .replace(b"fill<<  <2, 64, 0, s>>>(p, n >> 1);", b"fill<<<2, 64, 0, s>>>(p, n >> 1);"))
    assert port == expected


def test_the_port_compiles_with_hip(hipcc_compile):
    port = translate(CUDA, "launch.cu").output
    rc, out = hipcc_compile(port, "launch", syntax_only=True)
    assert rc == 0, out
    rc, out = hipcc_compile(CUDA.replace(b"cudaStream_t", b"hipStream_t"), "as_written", syntax_only=True)
    assert rc != 0 and "expected expression" in out  # what the user saw before
