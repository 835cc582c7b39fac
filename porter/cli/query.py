"""``porter query NAME [--json] [--roc]``: look a CUDA name or header up in the mapping database.

Prints what the name becomes on HIP (and the roc* name), its status, category, header,
the ROCm releases that have the name porter writes (the roc* one with ``--roc``), note, alternative and source (the source whose
answer won), and under ``others`` what the other sources said when they disagree.  An unknown name exits 1 with one line of
close matches.
"""

from __future__ import annotations

import json
import sys


_FIELDS = ("roc", "header", "rocm", "context", "note", "alternative", "source")


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "query",
        help="look up a CUDA name or header in the mapping database",
        description="Look up a CUDA identifier (cudaMalloc, cublasSgemm_v2, __CUDA_ARCH__), "
        "header path (cuda_runtime.h, <cub/cub.cuh>) or namespace (cub) in the CUDA -> HIP mapping database.",
    )
    p.add_argument("name", metavar="NAME", help="CUDA identifier, header path or namespace")
    p.add_argument("--json", action="store_true", help="print the entries as JSON")
    p.add_argument("--roc", action="store_true", help="prefer the roc* library name (rocBLAS, rocSPARSE, rocRAND...)")
    p.set_defaults(run=run)


def _normalise(name: str) -> str:
    name = name.strip()
    if name.startswith("#include"):
        name = name[len("#include"):].strip()
    if len(name) > 2 and name[0] + name[-1] in ("<>", '""'):
        name = name[1:-1].strip()
    return name


def _status_words(e, target: str | None, roc: bool = False) -> str | None:
    """What a deprecated or removed status is about: the status is NVIDIA's, of the CUDA name; the
    HIP name porter writes instead has its own dates (the rocm line)."""
    if e.status not in ("deprecated", "removed"):
        return None
    what = "deprecates" if e.status == "deprecated" else "has removed"
    text = f"{e.status}: NVIDIA {what} {e.cuda} (the CUDA name, not the HIP one)"
    if e.alternative:
        text += f"; use {e.alternative}"
    if e.renames and target:
        deprecated = e.deprecated_roc if roc and e.roc else e.deprecated_hip
        hip = f"deprecated in ROCm since {deprecated}" if deprecated else "current (not deprecated)"
        text += f"; in its place porter writes {target}, which is {hip}"
    return text


def run(args) -> int:
    from porter.mapping import MappingError, load_database  # not at import: every `porter` start loads this module

    try:
        db = load_database()
    except MappingError as exc:
        print(f"porter: mapping database: {exc}", file=sys.stderr)
        return 1
    name = _normalise(args.name)
    entries = db.lookup(name)
    if not entries and "::" in name:
        spelled, used = db.resolve(name, args.roc)
        if used:
            if args.json:
                print(json.dumps({"name": name, "hip": spelled, "entries": [e.as_dict() for e in used]},
                                 indent=2, sort_keys=True))
                return 0
            print(f"{name} -> {spelled}")
            entries = used
            print()
    if not entries:
        close = db.suggest(name)
        hint = f"; close matches: {', '.join(close)}" if close else ""
        print(f"porter: {name!r} is not in the mapping database{hint}", file=sys.stderr)
        return 1
    if args.json:
        out = []
        for e in entries:
            d = e.as_dict()
            d["renames"] = e.renames
            d["target"] = e.target(args.roc) if e.renames else None
            d["rocm"] = e.rocm_range(args.roc)
            if e.others:
                d["others"] = e.others.splitlines()
            out.append(d)
        print(json.dumps(out, indent=2, sort_keys=True))
        return 0
    for i, e in enumerate(entries):
        if i:
            print()
        target = e.target(args.roc)
        arrow = f"{e.cuda} -> {target}" if e.renames and target != e.cuda else (
            f"{e.cuda} (kept: same name on HIP)" if e.renames else f"{e.cuda} (no HIP rename)")
        print(f"{arrow}    [{e.kind}, {e.category}, {e.status}]")
        why = _status_words(e, target, args.roc)
        if why:
            print(f"  {'status':<12}{why}")
        if e.hip and (args.roc and e.roc and e.roc != target or e.hip != target):
            print(f"  {'hip':<12}{e.hip}")
        for key in _FIELDS:
            value = e.rocm_range(args.roc) if key == "rocm" else getattr(e, key)
            if key == "roc" and (not value or value == target):
                continue
            if value:
                print(f"  {key:<12}{value}")
        if e.others:  # the sources that said something else, and why they lost
            print(f"  {'others':<12}" + f"\n  {'':<12}".join(e.others.splitlines()))
    return 0
