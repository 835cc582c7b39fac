"""The argument facts of cuSPARSE calls under ``--roc`` (``data/calls/roc_sparse_args.json``, made by
scripts/gen_roc_sparse_args.py from NVIDIA's cusparse.h and rocSPARSE 5.3's headers): for each cuSPARSE
function porter renames to rocSPARSE, the arguments the rocSPARSE function takes (``args``, applied by
``porter.translate.call_args``) or what differs (``differs``: PORT179 reports the call), and rocSPARSE's
parameter list.

The same shape holds the cuBLAS and cuSOLVER calls porter renames to rocBLAS and rocSOLVER
(``data/calls/roc_blas_args.json``, made by scripts/gen_roc_blas_args.py; ``load_blas_call_args``; PORT181
reports them), with ``pure``: the call's arguments that are dropped or passed twice, which must be free
of side effects."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import NamedTuple

DATA_FILE = Path(__file__).with_name("data") / "calls" / "roc_sparse_args.json"
BLAS_DATA_FILE = Path(__file__).with_name("data") / "calls" / "roc_blas_args.json"


class CallArgs(NamedTuple):
    roc: str
    cuda_args: int
    args: tuple | None  # ({"arg": i} | {"arg": i, "format": "...{}...", "keep_null": bool} | {"text": s}, ...)
    why: str
    differs: str  # "" (an edit), "differs", "int_size", "order" or (rocBLAS) "complex_value"
    roc_params: tuple[str, ...]
    pure: tuple[int, ...] = ()  # the call's arguments dropped or passed twice: no side effect allowed


def _load(path: Path) -> dict[str, CallArgs]:
    import json  # here: only a --roc run or PORT179/PORT181 reads the facts

    doc = json.loads(path.read_text(encoding="utf-8"))
    return {name: CallArgs(f["roc"], f["cuda_args"], tuple(f["args"]) if "args" in f else None,
                           f.get("why", ""), f.get("differs", ""), tuple(f["roc_params"]), tuple(f.get("pure", ())))
            for name, f in doc["functions"].items()}


@functools.cache
def load_call_args() -> dict[str, CallArgs]:
    """The cuSPARSE functions' facts (rocSPARSE)."""
    return _load(DATA_FILE)


@functools.cache
def load_blas_call_args() -> dict[str, CallArgs]:
    """The cuBLAS and cuSOLVER functions' facts (rocBLAS, rocSOLVER)."""
    return _load(BLAS_DATA_FILE)


@functools.cache
def load_roc_call_args() -> dict[str, CallArgs]:
    """Both: every call whose roc* function takes other arguments (the names do not overlap)."""
    return {**load_call_args(), **load_blas_call_args()}
