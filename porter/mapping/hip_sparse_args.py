"""The argument facts of cuSPARSE calls that ``porter convert`` (no ``--roc``) renames to hipSPARSE
(``data/calls/hip_sparse_args.json``, made by scripts/gen_hip_sparse_args.py from NVIDIA's cusparse.h
and hipSPARSE's header): for each function whose hipSPARSE counterpart declares another parameter count,
what applies from each ROCm release on: the arguments the hipSPARSE function takes (``args``, applied by
``porter.translate.call_args``), or the finding PORT180 reports where no edit keeps the meaning."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import NamedTuple

from porter.mapping import version_key

DATA_FILE = Path(__file__).with_name("data") / "calls" / "hip_sparse_args.json"


class Release(NamedTuple):
    since: str  # the first ROCm release this holds for
    hip_args: int  # hipSPARSE's parameter count there
    args: tuple | None  # ({"arg": i} | {"text": s}, ...): the edit; None: no edit
    why: str
    finding: str  # "" or what PORT180 says (no edit keeps the meaning)


class HipCallArgs(NamedTuple):
    hip: str
    cuda_args: int
    hip_params: tuple[str, ...]  # as the generator's header declares them
    releases: tuple[Release, ...]  # oldest first

    def at(self, target: str) -> Release | None:
        """What applies with ROCm ``target``: the latest release at or below it."""
        key = version_key(target)
        found = None
        for r in self.releases:
            if version_key(r.since) <= key:
                found = r
        return found


@functools.cache
def load_hip_call_args() -> dict[str, HipCallArgs]:
    import json  # here: read on the first cuSPARSE call only

    doc = json.loads(DATA_FILE.read_text(encoding="utf-8"))
    out = {}
    for name, f in doc["functions"].items():
        releases = sorted((Release(r["from"], r["hip_args"], tuple(r["args"]) if "args" in r else None,
                                   r.get("why", ""), r.get("finding", "")) for r in f["releases"]),
                          key=lambda r: version_key(r.since))
        out[name] = HipCallArgs(f["hip"], f["cuda_args"], tuple(f["hip_params"]), tuple(releases))
    return out
