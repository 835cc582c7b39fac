"""The argument facts of cuSPARSE calls under ``--roc`` (``data/calls/roc_sparse_args.json``, made by
scripts/gen_roc_sparse_args.py from NVIDIA's cusparse.h and rocSPARSE 5.3's headers): for each cuSPARSE
function porter renames to rocSPARSE, the arguments the rocSPARSE function takes (``args``, applied by
``porter.translate.call_args``) or what differs (``differs``: PORT179 reports the call), and rocSPARSE's
parameter list."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import NamedTuple

DATA_FILE = Path(__file__).with_name("data") / "calls" / "roc_sparse_args.json"


class CallArgs(NamedTuple):
    roc: str
    cuda_args: int
    args: tuple | None  # ({"arg": i} | {"arg": i, "format": "...{}...", "keep_null": bool} | {"text": s}, ...)
    why: str
    differs: str  # "" (an edit), "differs", "int_size" or "order"
    roc_params: tuple[str, ...]


@functools.cache
def load_call_args() -> dict[str, CallArgs]:
    import json  # here: only a --roc run or PORT179 reads the facts

    doc = json.loads(DATA_FILE.read_text(encoding="utf-8"))
    return {name: CallArgs(f["roc"], f["cuda_args"], tuple(f["args"]) if "args" in f else None,
                           f.get("why", ""), f.get("differs", ""), tuple(f["roc_params"]))
            for name, f in doc["functions"].items()}
