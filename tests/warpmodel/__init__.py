"""A test-only lane-level model of GPU warp execution (the "oracle"): ``lanes`` holds the warp
intrinsics' semantics for CUDA (32-lane warps) and HIP (64-lane waves), ``simt`` a lock-step
interpreter for a small CUDA/HIP C++ subset.  See README.md."""

from . import lanes
from .lanes import UNDEFINED, Trap
from .pairs import run_pair
from .simt import CompileError, CType, Result, UndefinedBehaviour, Unsupported, preprocess, run

__all__ = ["lanes", "run", "run_pair", "Result", "UNDEFINED", "Trap", "Unsupported", "UndefinedBehaviour", "CompileError",
           "CType", "preprocess"]
