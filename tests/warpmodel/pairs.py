"""Running a CUDA original and its HIP port side by side: each on its own copy of the arguments, CUDA on
32-lane warps and HIP on 64-lane waves, neither allowed to meet undefined behaviour."""

from __future__ import annotations

from .simt import Result, run


def run_pair(cuda: str, hip: str, kernel: str, block: int, args: dict) -> tuple[Result, Result]:
    """(CUDA result, HIP result) of ``kernel`` over a block of ``block`` threads."""
    copy = lambda: {k: list(v) if isinstance(v, list) else v for k, v in args.items()}  # noqa: E731
    c = run(cuda, kernel, platform="cuda", block=(block,), args=copy())
    h = run(hip, kernel, platform="hip", block=(block,), args=copy())
    assert not c.undefined, c.events
    assert not h.undefined, h.events
    return c, h
