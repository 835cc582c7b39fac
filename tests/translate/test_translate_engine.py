"""Behaviour of the translator on single files: what is renamed, what is kept byte for byte."""

from porter.translate import TranslateOptions, translate


def conv(src: str, path: str = "t.cu", **opts) -> str:
    return translate(src.encode(), path, TranslateOptions(**opts)).output.decode()


def test_runtime_api_calls_and_types_are_renamed():
    out = conv("#include <cuda_runtime.h>\nint main(){ float* d; cudaMalloc(&d, 4); cudaFree(d); }\n")
    assert "hipMalloc(&d, 4)" in out and "hipFree(d)" in out
    assert "#include <hip/hip_runtime.h>" in out
    assert "cuda" not in out


def test_comments_and_strings_are_not_rewritten():
    src = ('#include <cuda_runtime.h>\n// call cudaMalloc here\n/* cudaFree */\n'
           'const char* m = "cudaMalloc failed"; char c = \'c\';\nvoid f(){ cudaFree(0); }\n')
    out = conv(src)
    assert "// call cudaMalloc here" in out
    assert "/* cudaFree */" in out
    assert '"cudaMalloc failed"' in out
    assert "hipFree(0)" in out


def test_strings_and_comments_inside_macro_bodies_are_kept():
    out = conv('#define CHECK(x) if (x) printf("cudaMalloc failed") // cudaFree\n#define F cudaFree\n')
    assert '"cudaMalloc failed"' in out and "// cudaFree" in out
    assert "#define F hipFree" in out


def test_member_access_with_a_cuda_name_is_not_renamed():
    out = conv("#include <cuda_runtime.h>\nvoid f(S s, S* p){ s.cudaMalloc = 1; p->cudaFree = 2; cudaFree(0); }\n")
    assert "s.cudaMalloc" in out and "p->cudaFree" in out and "hipFree(0)" in out


def test_crlf_tabs_bom_and_latin1_bytes_are_preserved():
    src = b"\xef\xbb\xbf#include <cuda_runtime.h>\r\n\t// caf\xe9 cudaMalloc\r\nvoid f(){\tcudaFree(0);  \r\n}\r\n"
    out = translate(src, "t.cu").output
    assert out == src.replace(b"cuda_runtime.h", b"hip/hip_runtime.h").replace(b"cudaFree(0)", b"hipFree(0)")


def test_namespace_cub_is_mapped_only_as_a_namespace():
    out = conv("#include <cuda_runtime.h>\nvoid f(){ cub::DeviceReduce::Sum(); int cub = 3; }\n")
    assert "hipcub::DeviceReduce::Sum()" in out
    assert "int cub = 3" in out


def test_cuda_arch_is_renamed_only_in_defined_tests():
    out = conv("#ifdef __CUDA_ARCH__\nx\n#endif\n#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700\ny\n#endif\n")
    assert "#ifdef __HIP_DEVICE_COMPILE__" in out
    # a directive that also compares the arch as a number is a finding (PORT100): left whole
    assert "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700" in out


def test_a_directive_after_a_block_comment_is_still_a_directive():
    # the preprocessor reads a comment as one space, so each of these lines is an #ifdef/#ifndef
    out = conv("/* note */ #ifdef __CUDA_ARCH__\nx\n#endif\n/* a\n   b */#ifndef __CUDA_ARCH__\ny\n#endif\n")
    assert "/* note */ #ifdef __HIP_DEVICE_COMPILE__" in out
    assert "b */#ifndef __HIP_DEVICE_COMPILE__" in out
    # code before the comment: the `#` is not the line's first token, so no directive
    assert "int v; /* c */ #ifdef __CUDA_ARCH__" in conv("int v; /* c */ #ifdef __CUDA_ARCH__\n")


def test_unsupported_identifier_is_reported_not_renamed():
    t = translate(b"void f(){\n  cudaBindTexture(0, tex, p);\n}\n", "t.cu")
    assert b"cudaBindTexture" in t.output
    [u] = [r for r in t.unsupported if r.name == "cudaBindTexture"]
    assert (u.line, u.column) == (2, 3)
    assert u.why and u.alternative


def test_leftover_cuda_looking_identifiers_are_listed():
    t = translate(b"void f(){ cudaSomethingPorterDoesNotKnow(); my_cuda_helper(); }\n", "t.cu")
    assert [r.name for r in t.leftovers] == ["cudaSomethingPorterDoesNotKnow"]


def test_symbol_apis_get_hip_symbol_on_unwrapped_calls_exactly():
    """HIP declares the symbol argument ``const void* symbol`` (hip_runtime_api.h: hipMemcpyToSymbol(symbol,
    src, ...), hipMemcpyFromSymbol(dst, symbol, ...), hipGetSymbolAddress(devPtr, symbol),
    hipGetSymbolSize(size, symbol)); hip-clang needs the variable wrapped in HIP_SYMBOL().  The expected
    text is written from those signatures: only the symbol argument is wrapped, spacing kept."""
    src = ("__constant__ float c[4];\n__device__ int counter;\n"
           "void f(float* h, int* n, void** p, size_t* sz, cudaStream_t st) {\n"
           "  cudaMemcpyToSymbol(c, h, 16);\n"
           "  cudaMemcpyToSymbolAsync(c, h, 16, 0, cudaMemcpyHostToDevice, st);\n"
           "  cudaMemcpyFromSymbol(n, counter, sizeof(int));\n"
           "  cudaMemcpyFromSymbolAsync(n, counter, sizeof(int), 0, cudaMemcpyDeviceToHost, st);\n"
           "  cudaGetSymbolAddress(p, counter);\n"
           "  cudaGetSymbolSize(sz, c);\n"
           "  cudaMemcpyToSymbol( c , h, 16);\n"
           "}\n")
    expected = ("#include <hip/hip_runtime.h>\n"
                "__constant__ float c[4];\n__device__ int counter;\n"
                "void f(float* h, int* n, void** p, size_t* sz, hipStream_t st) {\n"
                "  hipMemcpyToSymbol(HIP_SYMBOL(c), h, 16);\n"
                "  hipMemcpyToSymbolAsync(HIP_SYMBOL(c), h, 16, 0, hipMemcpyHostToDevice, st);\n"
                "  hipMemcpyFromSymbol(n, HIP_SYMBOL(counter), sizeof(int));\n"
                "  hipMemcpyFromSymbolAsync(n, HIP_SYMBOL(counter), sizeof(int), 0, hipMemcpyDeviceToHost, st);\n"
                "  hipGetSymbolAddress(p, HIP_SYMBOL(counter));\n"
                "  hipGetSymbolSize(sz, HIP_SYMBOL(c));\n"
                "  hipMemcpyToSymbol( HIP_SYMBOL(c) , h, 16);\n"
                "}\n")
    assert conv(src) == expected


def test_an_already_wrapped_symbol_is_not_wrapped_again():
    src = "void f(float* h){ cudaMemcpyToSymbol(HIP_SYMBOL(c), h, 16); }\n"
    assert conv(src, path="t.cpp") == "void f(float* h){ hipMemcpyToSymbol(HIP_SYMBOL(c), h, 16); }\n"


def test_runtime_include_added_for_device_code_after_guard():
    src = "// kernels\n#ifndef K_H\n#define K_H\n__global__ void k(float* a) { a[threadIdx.x] = 0; }\n#endif\n"
    t = translate(src.encode(), "k.cuh")
    assert t.output.decode() == src.replace("#define K_H\n", "#define K_H\n#include <hip/hip_runtime.h>\n")
    assert t.inserted_lines == [(3, 1)]
    assert t.output_line_to_source(5) == 4


def test_runtime_include_goes_before_first_include_and_not_twice():
    src = "#include <stdio.h>\n__global__ void k() {}\n"
    out = conv(src)
    assert out.startswith("#include <hip/hip_runtime.h>\n#include <stdio.h>\n")
    assert conv(out) == out


def test_host_only_file_gets_no_runtime_include():
    src = "#include <vector>\nint add(int a, int b) { return a + b; }\n"
    assert conv(src) == src


def test_kernel_launch_kept_by_default():
    src = "#include <cuda_runtime.h>\nvoid f(){ k<<<g, b>>>(x); }\n"
    assert "k<<<g, b>>>(x)" in conv(src)


def test_kernel_launch_syntax_rewrite():
    src = ("#include <cuda_runtime.h>\nvoid f(cudaStream_t s){\n"
           "  k<<<g, b>>>(x);\n"
           "  ns::kt<float, 4><<<dim3(n, 1), 256, smem, s>>>(f(a, b), p);\n"
           "}\n")
    out = conv(src, kernel_launch_syntax=True)
    assert "hipLaunchKernelGGL(k, dim3(g), dim3(b), 0, 0, x);" in out
    assert "hipLaunchKernelGGL(HIP_KERNEL_NAME(ns::kt<float, 4>), dim3(n, 1), dim3(256), smem, s, f(a, b), p);" in out
    assert conv(out, kernel_launch_syntax=True) == out


def test_parse_error_still_converts_and_warns():
    t = translate(b"#include <cuda_runtime.h>\nvoid f( { cudaFree(0);\nvoid g() { cudaMalloc(&p, 1); }\n", "bad.cu")
    assert b"hipFree(0)" in t.output and b"hipMalloc(&p, 1)" in t.output
    assert t.warnings and "bad.cu:" in t.warnings[0]


def test_conversion_is_idempotent_on_mixed_input():
    src = ("#include <cuda_runtime.h>\n#include <cub/cub.cuh>\n__constant__ int c;\n"
           "__global__ void k(){}\nint main(){ cudaMemcpyToSymbol(c, &x, 4); cub::X y; k<<<1,1>>>(); }\n")
    once = conv(src)
    assert conv(once) == once
    twice = conv(conv(src, kernel_launch_syntax=True), kernel_launch_syntax=True)
    assert twice == conv(src, kernel_launch_syntax=True)


def test_kernel_launch_inside_a_macro_is_rewritten():
    src = ("#include <cuda_runtime.h>\n"
           "#define LAUNCH(k, n, ...) k<<<(n + 255) / 256, 256, 0, stream>>>(__VA_ARGS__)\n"
           "#define RUN(p) \\\n  fill<float><<<1, 32>>>(p, cudaFree(p))\n")
    out = conv(src, kernel_launch_syntax=True)
    assert "#define LAUNCH(k, n, ...) hipLaunchKernelGGL(k, dim3((n + 255) / 256), dim3(256), 0, stream, __VA_ARGS__)\n" in out
    assert "  hipLaunchKernelGGL(HIP_KERNEL_NAME(fill<float>), dim3(1), dim3(32), 0, 0, p, hipFree(p))\n" in out


def test_api_newer_than_the_target_hip_is_reported_not_emitted():
    from porter.mapping import Database, Entry

    db = Database()
    db.add(Entry("cudaNewThing", "hipNewThing", since_hip="6.1"))
    db.add(Entry("cudaOldThing", "hipOldThing", since_hip="1.5"))
    src = b"void f(){ cudaNewThing(); cudaOldThing(); }\n"
    t = translate(src, "t.cu", TranslateOptions(target_rocm="5.2"), db=db)
    assert t.output == b"void f(){ cudaNewThing(); hipOldThing(); }\n"
    [u] = t.unsupported
    assert u.name == "cudaNewThing" and u.status == "too-new" and "ROCm 6.1" in u.why
    assert translate(src, "t.cu", TranslateOptions(target_rocm="6.2"), db=db).output.count(b"hip") == 2
    assert translate(src, "t.cu", db=db).output.count(b"hip") == 2  # default: the newest release porter knows


def test_api_removed_by_the_target_rocm_is_reported_not_emitted():
    from porter.mapping import Database, Entry

    db = Database()
    db.add(Entry("cudaGoneThing", "hipGoneThing", removed_hip="6.0"))
    src = b"void f(){ cudaGoneThing(); }\n"
    assert translate(src, "t.cu", TranslateOptions(target_rocm="5.7"), db=db).output == b"void f(){ hipGoneThing(); }\n"
    t = translate(src, "t.cu", TranslateOptions(target_rocm="6.1"), db=db)
    assert t.output == src
    [u] = t.unsupported
    assert u.status == "removed" and "removed in ROCm 6.0" in u.why


def test_header_newer_than_the_target_rocm_stays_and_is_reported():
    src = b"#include <math_constants.h>\n__device__ float inf() { return CUDART_INF_F; }\n"
    old = translate(src, "t.cu", TranslateOptions(target_rocm="5.2"))
    assert b"<math_constants.h>" in old.output and b"CUDART_INF_F" in old.output
    assert {(u.name, u.status) for u in old.unsupported} == {("math_constants.h", "too-new"), ("CUDART_INF_F", "too-new")}
    new = translate(src, "t.cu", TranslateOptions(target_rocm="6.1"))
    assert b"#include <hip/hip_math_constants.h>" in new.output and b"return HIP_INF_F;" in new.output


def test_header_whose_device_code_is_guarded_by_cudacc_gets_no_runtime_include():
    src = ("#pragma once\n#include <cstdio>\n#ifdef __CUDACC__\n#define HD __host__ __device__\n#else\n#define HD\n#endif\n"
           "HD inline int div_up(int a, int b) { return (a + b - 1) / b; }\n")
    assert conv(src, "div_up.h") == src.replace("__CUDACC__", "__HIPCC__")


def test_cudart_cb_is_removed_and_headers_that_bring_the_runtime_get_no_extra_include():
    out = conv("#include <cuda_runtime.h>\nstatic void CUDART_CB done(void* p) {}\n")
    assert "static void done(void* p) {}" in out
    src = "#include <curand_kernel.h>\n__global__ void k(curandState* s) {}\n"
    out = conv(src)
    assert "hip/hip_runtime.h" not in out and "<hiprand/hiprand_kernel.h>" in out


def test_roc_option_maps_library_names_and_headers_to_roc():
    src = "#include <cublas_v2.h>\nvoid f(cublasHandle_t h) { cublasSgemm(h, CUBLAS_OP_N); }\n"
    out = conv(src, roc=True)
    assert out == "#include <rocblas/rocblas.h>\nvoid f(rocblas_handle h) { rocblas_sgemm(h, rocblas_operation_none); }\n"
    assert conv(src).startswith("#include <hipblas/hipblas.h>\nvoid f(hipblasHandle_t h) { hipblasSgemm(h, HIPBLAS_OP_N)")


def test_kernel_attribute_apis_get_a_const_void_pointer():
    src = ("#include <cuda_runtime.h>\n__global__ void k() {}\nvoid f() {\n"
           "  cudaFuncAttributes a; cudaFuncGetAttributes(&a, k);\n"
           "  cudaFuncSetCacheConfig(k, cudaFuncCachePreferShared);\n"
           "  cudaFuncSetAttribute((const void*)k, cudaFuncAttributeMaxDynamicSharedMemorySize, 1);\n}\n")
    out = conv(src)
    assert "hipFuncGetAttributes(&a, reinterpret_cast<const void*>(k));" in out
    assert "hipFuncSetCacheConfig(reinterpret_cast<const void*>(k), hipFuncCachePreferShared);" in out
    assert "hipFuncSetAttribute((const void*)k," in out
    assert conv(out) == out


def test_graph_instantiate_depends_on_the_argument_count():
    out = conv("#include <cuda_runtime.h>\nvoid f() { cudaGraphInstantiate(&e, g, 0); cudaGraphInstantiate(&e, g, nullptr, nullptr, 0); }\n")
    assert "hipGraphInstantiateWithFlags(&e, g, 0);" in out
    assert "hipGraphInstantiate(&e, g, nullptr, nullptr, 0);" in out


def test_cublas_enums_in_cusolver_calls_take_the_hipblas_names_amds_tables_give():
    """AMD's HIPIFY tables: CUBLAS_OP_N -> HIPBLAS_OP_N, cusolverDnSgetrs -> hipsolverDnSgetrs; a recent
    hipSOLVER's enum types are typedefs of hipBLAS's (hip-python's bindings).  No HIPSOLVER_OP_N: porter
    has seen it declared in no source."""
    src = ("#include <cusolverDn.h>\nvoid f() {\n  cusolverDnSgetrs(h, CUBLAS_OP_N, n, 1, A, n, ipiv, B, n, info);\n"
           "  cublasSgemv(b, CUBLAS_OP_N, m, n, &one, A, m, x, 1, &zero, y, 1);\n}\n")
    out = conv(src)
    assert "hipsolverDnSgetrs(h, HIPBLAS_OP_N," in out
    assert "hipblasSgemv(b, HIPBLAS_OP_N," in out
    assert "HIPSOLVER_OP" not in out


def test_host_only_code_is_returned_untouched_without_a_parse(monkeypatch):
    from porter.translate import engine

    calls = []
    monkeypatch.setattr(engine, "index_source", lambda *a, **k: calls.append(1))
    src = b"#include <vector>\n// plain C++\nint add(int a, int b) { return a + b; }\n"
    t = translate(src, "h.cpp")
    assert t.output == src and not t.edits and not calls


def test_thrust_cuda_execution_policy_becomes_thrust_hip():
    """rocThrust's policies live in thrust::hip; `cuda` alone (a user namespace, cuda::std) is left alone."""
    src = ("#include <thrust/sort.h>\nnamespace cuda { int x; }\n"
           "void f(float* p, int n, cudaStream_t s) { thrust::sort(thrust::cuda::par.on(s), p, p + n); }\n"
           "int y = cuda::x; auto z = thrust :: cuda :: par;\n")
    out = conv(src)
    assert "thrust::sort(thrust::hip::par.on(s), p, p + n)" in out
    assert "thrust :: hip :: par" in out
    assert "namespace cuda { int x; }" in out and "int y = cuda::x;" in out
    assert conv(out) == out


def test_a_struct_member_entry_acts_only_after_a_member_access():
    # cudaDeviceProp::sharedMemPerBlockOptin: a hipDeviceProp_t field only from ROCm 6.0 on
    src = b"void f(cudaDeviceProp p, cudaDeviceProp* q) { int sharedMemPerBlockOptin = p.sharedMemPerBlockOptin + q->sharedMemPerBlockOptin; }\n"
    t = translate(src, "t.cpp", TranslateOptions(target_rocm="5.2"))
    fields = [src.index(b"p.sharedMem") + 2, src.index(b"q->sharedMem") + 3]  # the two field accesses, not the variable
    assert [(u.name, u.status) for u in t.unsupported] == [("sharedMemPerBlockOptin", "too-new")] * 2
    assert [t.index.line_col(pos)[1] for pos in fields] == [u.column for u in t.unsupported]
    assert translate(src, "t.cpp", TranslateOptions(target_rocm="6.0")).unsupported == []
