"""Known CUDA -> HIP pairs, one or more per category, as a port would need them."""

import pytest

# (cuda name, hip name, category)
PAIRS = [
    ("cudaMalloc", "hipMalloc", "runtime"),
    ("cudaMemcpyHostToDevice", "hipMemcpyHostToDevice", "runtime"),
    ("cudaStreamCreateWithFlags", "hipStreamCreateWithFlags", "runtime"),
    ("cudaDevAttrMaxThreadsPerBlock", "hipDeviceAttributeMaxThreadsPerBlock", "runtime"),
    ("float4", "float4", "runtime"),
    ("cuCtxCreate", "hipCtxCreate", "driver"),
    ("cuModuleLoad", "hipModuleLoad", "driver"),
    ("cuLaunchKernel", "hipModuleLaunchKernel", "driver"),
    ("CUdeviceptr", "hipDeviceptr_t", "driver"),
    ("cudaError_t", "hipError_t", "error"),
    ("cudaErrorInvalidValue", "hipErrorInvalidValue", "error"),
    ("CUDA_ERROR_INVALID_VALUE", "hipErrorInvalidValue", "error"),
    ("__syncthreads", "__syncthreads", "device"),
    ("atomicAdd", "atomicAdd", "device"),
    ("threadIdx", "threadIdx", "device"),
    ("__popc", "__popc", "device"),
    ("cudaCreateTextureObject", "hipCreateTextureObject", "texture"),
    ("cublasSgemm", "hipblasSgemm", "cublas"),
    ("cublasSgemm_v2", "hipblasSgemm", "cublas"),
    ("cublasCreate_v2", "hipblasCreate", "cublas"),
    ("cublasHandle_t", "hipblasHandle_t", "cublas"),
    ("CUBLAS_OP_N", "HIPBLAS_OP_N", "cublas"),
    ("CUBLAS_STATUS_SUCCESS", "HIPBLAS_STATUS_SUCCESS", "cublas"),
    ("cublasGemmEx", "hipblasGemmEx_v2", "cublas"),  # AMD's tables: the hipDataType variant (ROCm 6.0)
    ("cublasLtMatmul", "hipblasLtMatmul", "cublaslt"),
    ("cublasLtHandle_t", "hipblasLtHandle_t", "cublaslt"),
    ("cusparseCreate", "hipsparseCreate", "cusparse"),
    ("cusparseSpMV", "hipsparseSpMV", "cusparse"),
    ("CUSPARSE_OPERATION_NON_TRANSPOSE", "HIPSPARSE_OPERATION_NON_TRANSPOSE", "cusparse"),
    ("cusolverDnSgetrf", "hipsolverDnSgetrf", "cusolver"),
    ("cusolverDnHandle_t", "hipsolverHandle_t", "cusolver"),  # AMD's tables
    ("curandState", "hiprandState", "curand"),  # AMD's tables (hiprand_kernel.h declares both spellings)
    ("curand_init", "hiprand_init", "curand"),
    ("curand_uniform", "hiprand_uniform", "curand"),
    ("curandCreateGenerator", "hiprandCreateGenerator", "curand"),
    ("CURAND_RNG_PSEUDO_DEFAULT", "HIPRAND_RNG_PSEUDO_DEFAULT", "curand"),
    ("cufftHandle", "hipfftHandle", "cufft"),
    ("cufftPlan1d", "hipfftPlan1d", "cufft"),
    ("CUFFT_C2C", "HIPFFT_C2C", "cufft"),
    ("cufftExecC2C", "hipfftExecC2C", "cufft"),
    ("cudnnHandle_t", "miopenHandle_t", "cudnn"),
    ("ncclAllReduce", "ncclAllReduce", "nccl"),
    ("ncclComm_t", "ncclComm_t", "nccl"),
    ("nvtxRangePushA", "roctxRangePushA", "nvtx"),
    ("nvtxRangePop", "roctxRangePop", "nvtx"),
    ("cuCaddf", "hipCaddf", "complex"),
    ("make_cuFloatComplex", "make_hipFloatComplex", "complex"),
    ("cuDoubleComplex", "hipDoubleComplex", "complex"),
    ("__half", "__half", "fp16"),
    ("__float2half", "__float2half", "fp16"),
    ("__nv_bfloat16", "__hip_bfloat16", "bf16"),
    ("__nv_bfloat162", "__hip_bfloat162", "bf16"),
    ("__CUDACC__", "__HIPCC__", "preprocessor"),
    ("__CUDA_RUNTIME_H__", "HIP_INCLUDE_HIP_HIP_RUNTIME_H", "preprocessor"),
    ("__DRIVER_TYPES_H__", "HIP_INCLUDE_HIP_DRIVER_TYPES_H", "preprocessor"),
    ("CURAND_H_", "HIPRAND_H_", "preprocessor"),
    ("CUBLAS_API_H_", "HIPBLAS_H", "preprocessor"),
]


@pytest.mark.parametrize("cuda,hip,category", PAIRS, ids=[p[0] for p in PAIRS])
def test_known_pair(db, cuda, hip, category):
    e = db.identifiers[cuda]
    assert e.renames, (cuda, e.status)
    assert e.target() == hip
    assert e.category == category
    assert e.source


HEADERS = [
    ("cuda_runtime.h", "hip/hip_runtime.h"),
    ("cuda.h", "hip/hip_runtime.h"),
    ("cuda_fp16.h", "hip/hip_fp16.h"),
    ("cuda_bf16.h", "hip/hip_bf16.h"),
    ("cooperative_groups.h", "hip/hip_cooperative_groups.h"),
    ("cub/cub.cuh", "hipcub/hipcub.hpp"),
    ("cub/block/block_reduce.cuh", "hipcub/hipcub.hpp"),
    ("curand_kernel.h", "hiprand/hiprand_kernel.h"),
    ("curand.h", "hiprand/hiprand.h"),
    ("cublas_v2.h", "hipblas/hipblas.h"),
    ("cusparse.h", "hipsparse/hipsparse.h"),
    ("cufft.h", "hipfft/hipfft.h"),
    ("nccl.h", "rccl/rccl.h"),
    ("cuComplex.h", "hip/hip_complex.h"),
    ("nvToolsExt.h", "roctracer/roctx.h"),
    ("thrust/device_vector.h", "thrust/device_vector.h"),
    ("thrust/system/cuda/execution_policy.h", "thrust/system/hip/execution_policy.h"),
    ("device_launch_parameters.h", "hip/hip_runtime.h"),
    ("math_functions.h", "hip/math_functions.h"),
    ("vector_functions.h", "hip/hip_vector_types.h"),
    ("texture_types.h", "hip/texture_types.h"),
    ("sm_61_intrinsics.h", "hip/hip_runtime.h"),
]


@pytest.mark.parametrize("cuda,hip", HEADERS, ids=[h[0] for h in HEADERS])
def test_known_header(db, cuda, hip):
    e = db.headers[cuda]
    assert e.renames and e.target() == hip


def test_roc_names_are_offered_for_libraries(db):
    assert db.identifiers["cublasSgemm_v2"].target(roc=True) == "rocblas_sgemm"
    assert db.identifiers["cublasCreate"].target(roc=True) == "rocblas_create_handle"
    assert db.identifiers["cublasSgemmStridedBatched"].target(roc=True) == "rocblas_sgemm_strided_batched"
    assert db.identifiers["CUBLAS_OP_T"].target(roc=True) == "rocblas_operation_transpose"
    assert db.identifiers["cusparseSpMV"].target(roc=True) == "rocsparse_spmv"
    assert db.identifiers["curandCreateGenerator"].target(roc=True) == "rocrand_create_generator"
    assert db.identifiers["curand_uniform"].target(roc=True) == "rocrand_uniform"
    # without --roc the portable hip* library stays the default
    assert db.identifiers["cublasSgemm_v2"].target() == "hipblasSgemm"
    # names without a roc counterpart fall back to the hip name
    assert db.identifiers["cudaMalloc"].target(roc=True) == "hipMalloc"


def test_namespaces(db):
    assert db.namespaces["cub"].target() == "hipcub"
    assert db.namespaces["thrust"].target() == "thrust"  # rocThrust keeps thrust::
    assert not db.namespaces["nvcuda"].renames


def test_defined_context_for_arch_and_version_macros(db):
    arch = db.identifiers["__CUDA_ARCH__"]
    assert arch.target() == "__HIP_DEVICE_COMPILE__" and arch.context == "defined"
    for name in ("CUDA_VERSION", "CUDART_VERSION", "__CUDA_RUNTIME_H__", "__cuda_cuda_h__"):
        assert db.identifiers[name].context == "defined", name


def test_cuda_deprecation_is_recorded(db):
    # cuda_runtime_api.h marks cudaDeviceGetSharedMemConfig __CUDA_DEPRECATED (CUDA 13)
    e = db.identifiers["cudaDeviceGetSharedMemConfig"]
    assert e.status == "deprecated" and e.renames


def test_names_absent_from_hip52_carry_since_hip(db):
    e = db.identifiers["__shfl_down_sync"]
    assert e.since_hip == "6.2" and e.alternative
    assert db.identifiers["__nv_bfloat16"].since_hip == "5.7"  # hip_bf16.h: first in the ROCm 5.7 headers
    assert db.identifiers["cudaMalloc"].since_hip is None  # declared in the installed headers


def test_header_of_an_entry_follows_the_installed_layout(db):
    assert db.identifiers["curand_init"].header == "hiprand/hiprand_kernel.h"
    assert db.identifiers["curandCreateGenerator"].header == "hiprand/hiprand.h"
    assert db.identifiers["cusparseCreate"].header == "hipsparse/hipsparse.h"
    assert db.identifiers["cudaMalloc"].header == "hip/hip_runtime.h"


def test_guards_only_for_like_for_like_headers(db):
    # cuda_pipeline.h has no HIP counterpart: `#ifdef _CUDA_PIPELINE_H_` must not turn into a hip_runtime.h test
    assert "_CUDA_PIPELINE_H_" not in db.identifiers
    assert db.headers["cuda_pipeline.h"].status == "unsupported"


def test_block_scoped_atomics_fall_back_to_device_scope(db):
    e = db.identifiers["atomicAdd_block"]
    assert e.target() == "atomicAdd" and "superset" in e.note


def test_unsupported_library_headers(db):
    for h in ("cufftw.h", "nccl_device.h", "mma.h", "cublasXt.h", "cupti.h", "cuda_gl_interop.h", "cuda_occupancy.h"):
        assert db.headers[h].status == "unsupported", h


MORE = [
    ("nvrtcCompileProgram", "hiprtcCompileProgram", "rtc"),
    ("magma_queue_create_from_cuda", "magma_queue_create_from_hip", "pytorch"),
    ("cudaMemLocationTypeHost", "hipMemLocationTypeHost", "runtime"),
    # AMD's HIPIFY cuTENSOR table, declared in hipTensor 2.0's hiptensor.h (tests/mapping/test_library_tables.py)
    ("cutensorContract", "hiptensorContract", "cutensor"),
    # AMD's HIPIFY cuSPARSELt table, declared in hipSPARSELt's hipsparselt.h (tests/mapping/test_library_tables.py)
    ("cusparseLtMatmul", "hipsparseLtMatmul", "cusparselt"),
]


@pytest.mark.parametrize("cuda,hip,category", MORE, ids=[p[0] for p in MORE])
def test_more_pairs(db, cuda, hip, category):
    e = db.identifiers[cuda]
    assert e.renames and e.target() == hip and e.category == category


def test_every_category_has_a_checked_fact(db):
    """Each category in the data is covered by a pair, header or unsupported check in this file."""
    checked = {c for _, _, c in PAIRS + MORE} | {db.headers[h].category for h, _ in HEADERS}
    checked |= {"cooperative-groups", "thrust", "cub"}  # namespaces and headers above
    unsupported_only = {"libcudacxx": "cuda/std/atomic", "profiling": "cupti.h", "nvml": "nvml.h", "fp8": "cuda_fp4.h",
                        "cudla": "cudla.h"}
    for cat, header in unsupported_only.items():
        e = db.headers[header]
        assert e.category == cat and not e.renames and e.alternative
    assert db.headers["c10/cuda/CUDAStream.h"].target() == "c10/hip/HIPStream.h"
    assert db.headers["cuda_fp8.h"].since_hip == "6.2"  # dated by __hip_fp8_storage_t, first in ROCm 6.2.0's headers
    cats = {e.category for e in db.entries()}
    assert cats <= checked | set(unsupported_only), cats - checked - set(unsupported_only)


def test_complex_blas_routines_take_the_hipComplex_variant(db):
    # AMD's tables: cuComplex arguments go to hipBLAS's _v2 routines (hipComplex*), which came with ROCm 6.0
    e = db.identifiers["cublasCgemm_v2"]
    assert e.hip == "hipblasCgemm_v2" and e.since_hip == "6.0" and e.available_in("5.7") == "too-new"
    assert db.identifiers["cublasComputeType_t"].note is None
    assert db.identifiers["CUDA_R_32F"].category == "runtime"
