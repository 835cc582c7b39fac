"""What the toolchain's HIP runtime library exports, to say why a link fails on a HIP function.

A HIP release's headers can declare a function its ``libamdhip64`` does not export (Debian 12's HIP 5.2:
``hip_runtime_api.h`` declares ``hipLaunchHostFunc``, ``libamdhip64.so.5`` 5.2.21153 has no such symbol), so
a port compiles and then fails to link with "undefined reference to `hipLaunchHostFunc'", which reads like a
file that did not compile.  The library's dynamic symbols are read with binutils' ``nm -D --defined-only``
(run as every tool is: no shell, time-limited); without ``nm`` nothing is said.
"""

from __future__ import annotations

import os
import re
from functools import lru_cache
from pathlib import Path

from porter import proc
from porter.build.toolchain import hip_lib_dir

RUNTIME = "libamdhip64.so"
# a HIP runtime function as a link error names it (a C name: hipLaunchHostFunc, hipGraphAddHostNode)
HIP_FUNCTION = re.compile(r"^hip[A-Z]\w*$")


def runtime_library(rocm_path: str, lib_dir: str = "") -> str:
    """The HIP runtime library the toolchain links (its -L folder, else the one its ROCm has: the folders
    toolchain.hip_lib_dir looks in), "" when none is found."""
    folder = lib_dir or hip_lib_dir(rocm_path)
    path = os.path.join(folder, RUNTIME) if folder else ""
    return os.path.realpath(path) if path and os.path.isfile(path) else ""


def exported(library: str) -> frozenset[str] | None:
    """The functions and objects ``library`` exports; None when they cannot be read (no nm, not a library)."""
    try:
        stat = os.stat(library)
    except OSError:
        return None
    return _exported(library, stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=8)
def _exported(library: str, _mtime: int, _size: int) -> frozenset[str] | None:
    r = proc.run(["nm", "-D", "--defined-only", library], timeout=30)
    if not r.ok:
        return None
    names = set()
    for line in r.stdout.splitlines():
        parts = line.split()
        if len(parts) >= 3:
            names.add(parts[2].split("@", 1)[0])
    return frozenset(names) if names else None


def missing_note(symbol: str, library: str, hip_version: str) -> str | None:
    """Why a link found no ``symbol``, when it is a HIP function the runtime ``library`` does not export:
    the header declared it (the port compiled), this runtime lacks it.  None when that is not the reason
    (not a HIP function, the library exports it, or the library cannot be read)."""
    if not HIP_FUNCTION.match(symbol) or not library:
        return None
    names = exported(library)
    if names is None or symbol in names:
        return None
    version = f" (HIP {hip_version})" if hip_version else ""
    return (f"{symbol} is declared by this HIP's headers but not exported by its runtime library "
            f"{Path(library).name}{version}: this ROCm release does not provide it; build against a ROCm whose "
            f"runtime has it, or do without the call")
