"""What a folder given to ``porter build`` is: porter's output (a port, which it left a manifest or a
session in), or a CUDA source tree that was never converted (refused before anything is written:
the source is never written), or hand-written HIP (built as it is).  And what porter convert
recorded in a port (the target ROCm)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from porter.findings.build_modes import MAKEFILES  # noqa: F401  (porter.build reads it from here too)

# what porter convert (or the review app) leaves in an output folder: the folder is a port, not CUDA source
MANIFEST = os.path.join(".porter", "manifest.json")  # porter convert's (porter/project/convert.py)
PORT_MARKERS = (MANIFEST, os.path.join(".porter", "session.json"))
UNIT_SUFFIXES = (".cu", ".cpp", ".cc", ".cxx", ".c", ".hip")
SKIP_DIRS = {".porter", ".git", ".hg", ".svn", "build", "CMakeFiles", "__pycache__", ".venv", "node_modules"}


def _still_cuda(path: Path) -> bool:
    """A build file that was not migrated (still calls nvcc / enables CUDA)."""
    try:
        text = re.sub(r"#[^\n]*", "", path.read_text(errors="replace"))
    except OSError:
        return False
    if path.name == "CMakeLists.txt":
        return re.search(r"(?is)\b(project|enable_language)\s*\([^)]*\bCUDA\b", text) is not None
    return re.search(r"(?<![\w./-])nvcc\b", text) is not None


# a CUDA header included: the file is CUDA source (HIP has none of these names)
_CUDA_INCLUDE = re.compile(
    r'^[ \t]*#[ \t]*include[ \t]*[<"](?:cuda|cuComplex|cublas|curand|cufft|cusparse|cusolver|cudnn|nvrtc|nvToolsExt|'
    r'nvtx3/|nccl|cooperative_groups|device_launch_parameters|sm_\d+_|mma\.h|cub/)[\w./+-]*[>"]',
    re.M)
# a CUDA runtime call in a .cu file (nvcc includes cuda_runtime.h by itself)
_CUDA_CALL = re.compile(r"\bcuda[A-Z]\w*\s*\(")
_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
HEADER_SUFFIXES = (".h", ".cuh", ".hpp", ".hh", ".inl")


def is_port(root: Path) -> bool:
    """porter convert's (or the review app's) output, or a folder in one: it left its manifest or session there."""
    return any((d / m).is_file() for d in (root, *root.parents) for m in PORT_MARKERS)


def cuda_source(root: Path) -> str | None:
    """Why ``root`` is an unconverted CUDA tree (one short reason), or None: a folder porter made, or
    one with no CUDA in it (hand-written HIP builds as it is)."""
    if is_port(root):
        return None
    for name in (*MAKEFILES, "CMakeLists.txt"):
        if (root / name).is_file() and _still_cuda(root / name):
            return f"{name} calls nvcc" if name != "CMakeLists.txt" else "CMakeLists.txt enables CUDA"
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.startswith("."))
        for name in sorted(filenames):
            if not name.endswith((*UNIT_SUFFIXES, *HEADER_SUFFIXES)):
                continue
            path = os.path.join(dirpath, name)
            try:
                with open(path, "rb") as fh:
                    text = fh.read(1 << 20).decode("utf-8", "replace")
            except OSError:
                continue
            rel = os.path.relpath(path, root).replace(os.sep, "/")
            m = _CUDA_INCLUDE.search(text)
            if m:
                return f"{rel} includes {m.group(0).split('include', 1)[1].strip()}"
            if name.endswith(".cu"):
                m = _CUDA_CALL.search(_COMMENT.sub(" ", text))
                if m:
                    return f"{rel} calls {m.group(0).rstrip('( ').strip()}"
    return None


def port_record(directory: str | os.PathLike) -> tuple[Path, dict] | None:
    """The manifest porter convert left in the port ``directory`` is in: (the converted tree's root, the
    manifest), looked up from ``directory`` through its parents, so a sub-project of a converted tree (one
    sample of a samples tree, built from its own folder) has its tree's record; None when there is none or
    the nearest one cannot be read."""
    here = Path(os.path.abspath(directory))
    for folder in (here, *here.parents):
        path = folder / MANIFEST
        if not path.is_file():
            continue
        try:
            with open(path, encoding="utf-8") as fh:
                record = json.load(fh)
        except (OSError, ValueError):
            return None
        return (folder, record) if isinstance(record, dict) else None
    return None


def recorded_target(directory: str | os.PathLike) -> str | None:
    """The ROCm release porter convert converted the tree for (its manifest's ``convert.target_rocm``; the
    manifest of the converted tree ``directory`` is in), None when it recorded none or the manifest cannot
    be read."""
    from porter.mapping import parse_target

    found = port_record(directory)
    try:
        record = found[1].get("convert") if found else None
        return parse_target(record["target_rocm"]) if isinstance(record, dict) and record.get("target_rocm") else None
    except (ValueError, TypeError, KeyError, AttributeError):
        return None
