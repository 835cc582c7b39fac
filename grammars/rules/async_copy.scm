; PORT060: asynchronous-copy headers and APIs (cuda_pipeline.h, cuda::memcpy_async, cuda::pipeline, cuda::barrier, TMA)
((preproc_include path: (_) @path) @PORT060
 (#match? @path "^[<\"](cuda_pipeline\\.h|cuda_pipeline_primitives\\.h|cuda_awbarrier\\.h|cuda_awbarrier_primitives\\.h|cuda/pipeline|cuda/barrier|cuda/ptx)[>\"]$"))
((call_expression function: (identifier) @fn) @PORT060
 (#match? @fn "^(__pipeline_memcpy_async|__pipeline_commit|__pipeline_wait_prior|__pipeline_arrive_on|cuTensorMapEncodeTiled|cuTensorMapEncodeIm2col)$"))
((qualified_identifier scope: (namespace_identifier) @ns name: (_) @name) @PORT060
 (#eq? @ns "cuda")
 (#match? @name "^(memcpy_async|pipeline|make_pipeline|pipeline_shared_state|barrier|aligned_size_t|pipeline_consumer_wait_prior|device|ptx)"))

; PORT061: cp.async / cp.async.bulk (TMA) / mbarrier PTX in inline asm
(gnu_asm_expression) @PORT061

; PORT060: cooperative groups' asynchronous copies (cg::memcpy_async, cg::wait, <cooperative_groups/memcpy_async.h>)
((preproc_include path: (_) @path) @PORT060
 (#match? @path "^[<\"]cooperative_groups/memcpy_async\\.h[>\"]$"))
((call_expression function: (qualified_identifier) @fn) @PORT060
 (#match? @fn "^(cg|cooperative_groups)::(memcpy_async|wait|wait_prior)$"))
