"""Build the fused_ops extension: pip install . (or python setup.py develop)."""
import os

from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension

# Default to Ampere and Hopper; override with TORCH_CUDA_ARCH_LIST="8.0;9.0".
os.environ.setdefault("TORCH_CUDA_ARCH_LIST", "8.0;9.0")

setup(
    name="fused_ops",
    version="0.1.0",
    description="Fused bias+GELU and RMSNorm kernels for PyTorch (CUDA)",
    ext_modules=[
        CUDAExtension(
            name="fused_ops",
            sources=["binding.cpp", "kernels.cu"],
            extra_compile_args={
                "cxx": ["-O3", "-std=c++17"],
                "nvcc": [
                    "-O3",
                    "--use_fast_math",
                    "-lineinfo",
                    "-U__CUDA_NO_HALF_OPERATORS__",
                    "-U__CUDA_NO_HALF_CONVERSIONS__",
                    "-U__CUDA_NO_BFLOAT16_CONVERSIONS__",
                ],
            },
        )
    ],
    cmdclass={"build_ext": BuildExtension},
)
