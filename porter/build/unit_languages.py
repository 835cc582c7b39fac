"""The language a project's CMakeLists compiles each unit in, for porter build's per-file builds of it.

CMake compiles a .cpp / .cc / .cxx file with the C++ compiler and a .c file with the C compiler, not as HIP (or
CUDA), unless the source's LANGUAGE property says otherwise.  So under CUDA such a unit never saw
``__CUDACC__``: NVIDIA's convolutionFFT2D samples' header picks ``typedef float2 fComplex`` under ``#ifdef
__CUDACC__`` and a plain struct otherwise, and its .cpp files, which include no CUDA header, get the struct.
Compiled as HIP (``__HIPCC__`` defined, the port's name for it) the same .cpp stops at "unknown type name
'float2'".  A per-file build compiles these units as the CMakeLists does: as C++ (or C) with HIP's headers
for the host (``__HIP_PLATFORM_AMD__``, what CMake's hip::host gives them).

Left as HIP: every unit of a project whose CMakeLists sets the C++ compiler itself (CMAKE_CXX_COMPILER, often
hipcc) or adds targets through FindHIP / FindCUDA's macros (hip_add_executable...), whose rules for .cpp files
are their own, or gives ``LANGUAGE HIP`` / ``CUDA`` to files it names through a variable or a glob; a unit named
with ``LANGUAGE HIP`` or ``LANGUAGE CUDA``; .cu and .hip units."""

from __future__ import annotations

import os
import re
from pathlib import Path

from porter.build import cmakelists
from porter.findings.build_modes import MAKEFILES

HOST_SUFFIXES = {".cpp": "c++", ".cc": "c++", ".cxx": "c++", ".c": "c"}
_OWN_RULES = re.compile(r"\bCMAKE_(?:CXX|C)_COMPILER\b|\b(?:hip|cuda)_add_(?:executable|library)\s*\(", re.I)
_LANGUAGE_PROPERTY = re.compile(r"(?is)\bset_source_files_properties\s*\(([^)]*)\)")
_SETS_DEVICE_LANGUAGE = re.compile(r"(?i)\bLANGUAGE\s+(?:HIP|CUDA)\b")


def host_languages(root: Path, units: list[str]) -> dict[str, str]:
    """{unit: "c++" or "c"} of the ``units`` (relative to ``root``) that ``root``'s CMakeLists.txt compiles
    with the C++ or C compiler; empty when ``root`` has no CMakeLists.txt, has a Makefile (porter runs make),
    or the CMakeLists has compile rules of its own (see the module's text)."""
    if any((root / m).is_file() for m in MAKEFILES):
        return {}
    text = cmakelists.text(root)
    if text is None or _OWN_RULES.search(text):
        return {}
    device = set()
    for m in _LANGUAGE_PROPERTY.finditer(text):
        if _SETS_DEVICE_LANGUAGE.search(m.group(1)):
            files = re.split(r"(?i)\bPROPERTIES\b", m.group(1))[0].split()
            if any("$" in f or "*" in f for f in files):
                return {}  # (files named through a variable or a glob: which ones, porter does not read)
            device.update(os.path.basename(f.strip('"')) for f in files)
    out = {}
    for rel in units:
        lang = HOST_SUFFIXES.get(os.path.splitext(rel)[1].lower())
        if lang and os.path.basename(rel) not in device:
            out[rel] = lang
    return out
