"""The argument facts of cuDNN calls that porter renames to MIOpen (``data/calls/miopen_args.json``, made by
scripts/gen_miopen_args.py from NVIDIA's cuDNN headers and MIOpen's miopen.h): for each cuDNN function whose
MIOpen counterpart takes another parameter list, MIOpen's list and either the arguments porter passes
(``args``, applied by ``porter.translate.call_args``) or nothing (PORT183 reports the call)."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import NamedTuple

DATA_FILE = Path(__file__).with_name("data") / "calls" / "miopen_args.json"


class MiopenArgs(NamedTuple):
    miopen: str
    cuda_args: int
    args: tuple | None  # ({"arg": i} | {"text": s}, ...): the edit; None: PORT183 reports the call
    why: str  # why the edit keeps the meaning, or what to pass where there is none
    miopen_params: tuple[str, ...]
    pure: tuple[int, ...] = ()  # the call's arguments passed twice: no side effect allowed
    beta: bool = False  # MIOpen declares the function only under MIOPEN_BETA_API

    @property
    def roc(self) -> str:  # the name call_args.unfit's messages give
        return self.miopen


@functools.cache
def load_miopen_call_args() -> dict[str, MiopenArgs]:
    import json  # here: read on the first cuDNN call only

    doc = json.loads(DATA_FILE.read_text(encoding="utf-8"))
    return {name: MiopenArgs(f["miopen"], f["cuda_args"], tuple(f["args"]) if "args" in f else None,
                             f.get("why", ""), tuple(f["miopen_params"]), tuple(f.get("pure", ())),
                             bool(f.get("beta")))
            for name, f in doc["functions"].items()}
