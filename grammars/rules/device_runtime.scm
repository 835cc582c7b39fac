; PORT080: texture references: texture<T, dim, mode> / surface<...> declarations
((declaration type: (template_type name: (type_identifier) @t)) @PORT080
 (#match? @t "^(texture|surface)$"))
; PORT080: the runtime calls that bind, unbind or look up texture / surface references
((call_expression function: (identifier) @fn) @PORT080
 (#match? @fn "^(cuda|hip)(BindTexture|BindTexture2D|BindTextureToArray|BindTextureToMipmappedArray|UnbindTexture|GetTextureAlignmentOffset|GetTextureReference|BindSurfaceToArray|GetSurfaceReference)$"))

; PORT081: a texture or surface fetch (gfx940/941/942 have no image instructions)
((call_expression function: (identifier) @fn) @PORT081
 (#match? @fn "^(tex1D|tex2D|tex3D|tex1Dfetch|tex1DLayered|tex2DLayered|texCubemap|texCubemapLayered|tex2Dgather|tex1DLod|tex2DLod|tex3DLod|tex1DGrad|tex2DGrad|tex3DGrad|texCubemapLod|tex1DLayeredLod|tex2DLayeredLod|surf1Dread|surf2Dread|surf3Dread|surf1Dwrite|surf2Dwrite|surf3Dwrite|surf1DLayeredread|surf2DLayeredread|surf1DLayeredwrite|surf2DLayeredwrite|surfCubemapread|surfCubemapwrite)$"))
((call_expression function: (template_function name: (identifier) @fn)) @PORT081
 (#match? @fn "^(tex1D|tex2D|tex3D|tex1Dfetch|tex1DLayered|tex2DLayered|texCubemap|texCubemapLayered|tex2Dgather|tex1DLod|tex2DLod|tex3DLod|tex1DGrad|tex2DGrad|tex3DGrad|texCubemapLod|tex1DLayeredLod|tex2DLayeredLod|surf1Dread|surf2Dread|surf3Dread|surf1Dwrite|surf2Dwrite|surf3Dwrite|surf1DLayeredread|surf2DLayeredread|surf1DLayeredwrite|surf2DLayeredwrite|surfCubemapread|surfCubemapwrite)$"))

; PORT090: a kernel launch inside device code (dynamic parallelism)
((call_expression (kernel_call_syntax)) @PORT090)
((call_expression function: (identifier) @fn) @PORT090
 (#match? @fn "^(cudaDeviceSynchronize|hipDeviceSynchronize|hipLaunchKernelGGL|cudaLaunchDevice|cudaGetParameterBuffer|cudaStreamFireAndForget|cudaStreamTailLaunch)$"))
; the CUDA device runtime's API (cudaStreamCreateWithFlags, cudaGetLastError, cudaMalloc, ... in a kernel)
((call_expression function: (identifier) @fn) @PORT090
 (#match? @fn "^(cudaStreamCreateWithFlags|cudaStreamDestroy|cudaStreamWaitEvent|cudaEventCreateWithFlags|cudaEventRecord|cudaEventDestroy|cudaGetLastError|cudaPeekAtLastError|cudaGetErrorString|cudaGetDevice|cudaGetDeviceCount|cudaDeviceGetAttribute|cudaDeviceGetLimit|cudaFuncGetAttributes|cudaMemcpyAsync|cudaMemcpy2DAsync|cudaMemcpy3DAsync|cudaMemsetAsync|cudaMemset2DAsync|cudaMemset3DAsync|cudaMalloc|cudaFree|cudaRuntimeGetVersion|cudaOccupancyMaxActiveBlocksPerMultiprocessor)$"))

; PORT100: __CUDA_ARCH__ used as a number (comparisons, values)
((identifier) @PORT100
 (#match? @PORT100 "^__CUDA_ARCH__$"))

; PORT173: the CUDA version macros used as numbers (#if CUDART_VERSION >= 11000): not defined under HIP
((identifier) @PORT173
 (#match? @PORT173 "^(CUDART_VERSION|CUDA_VERSION|__CUDACC_VER_MAJOR__|__CUDACC_VER_MINOR__|__CUDACC_VER_BUILD__)$"))

; PORT110: clock() / clock64() in device code
((call_expression function: (identifier) @fn arguments: (argument_list) @args) @PORT110
 (#match? @fn "^(clock|clock64|__clock64|__clock)$"))

; PORT120: managed memory
((call_expression function: (identifier) @fn) @PORT120
 (#match? @fn "^(cuda|hip)MallocManaged$"))
((type_qualifier) @q @PORT120
 (#eq? @q "__managed__"))

; PORT130: fp8 types and formats (OCP on NVIDIA, FNUZ on gfx942)
((type_identifier) @t @PORT130
 (#match? @t "^(__nv_fp8(x[24])?_(e4m3|e5m2)|__nv_fp8_storage_t|__hip_fp8(x[24])?_(e4m3|e5m2))$"))
((identifier) @t @PORT130
 (#match? @t "^(__NV_E4M3|__NV_E5M2|CUDA_R_8F_E4M3|CUDA_R_8F_E5M2|HIP_R_8F_E4M3|HIP_R_8F_E5M2)$"))
((preproc_include path: (_) @path) @PORT130
 (#match? @path "^[<\"]cuda_fp8\\.h[>\"]$"))
