"""Import torch lazily, quietly, and with a one-line message when it is missing."""

from __future__ import annotations

import warnings

from porter.smoke.options import SmokeError

TORCH_MISSING = ("torch is not installed in this Python; install the build for your GPU "
                 "(ROCm: the wheel from https://download.pytorch.org/whl/rocm6.x), or `pip install torch` for CPU")


def installed_torch_version() -> str | None:
    """torch's version from its package metadata, without importing it."""
    from importlib import metadata  # noqa: PLC0415

    try:
        return metadata.version("torch")
    except metadata.PackageNotFoundError:
        return None


def import_torch():
    try:
        with warnings.catch_warnings():
            # a torch wheel without numpy warns at import; the smoke test does not use numpy
            warnings.filterwarnings("ignore", message=".*NumPy.*")
            import torch  # noqa: PLC0415
    except ImportError as exc:
        raise SmokeError(f"{TORCH_MISSING} ({exc})") from None
    return torch


def out_of_memory_types(torch) -> tuple[type, ...]:
    types = []
    for holder, name in ((torch, "OutOfMemoryError"), (getattr(torch, "cuda", None), "OutOfMemoryError")):
        t = getattr(holder, name, None)
        if isinstance(t, type) and t not in types:
            types.append(t)
    return tuple(types) or (MemoryError,)
