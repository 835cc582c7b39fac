"""The compiler flags a user gives ``porter build --flag``, made to mean what they meant where they typed them.

A build runs its compiles in the project's folder (make, CMake, per file), not in the folder the user ran
porter from, so ``--flag=-Ithird_party/include`` typed beside the project named another folder, or none, by
the time the compiler read it: the build failed with "file not found" for a header that is there.  A flag
that names a folder or file (``-I``, ``-isystem``, ``-iquote``, ``-idirafter``, ``-include``, ``-imacros``,
``--include-directory=``) and whose relative path exists from the caller's folder is made absolute; one that
does not exist there is left as written (it may name a path inside the project, which the build's own folder
resolves)."""

from __future__ import annotations

import os
from pathlib import Path

# the joined forms: the prefix, then the path (``-Idir``, ``-isystemdir``, ``--include-directory=dir``)
PATH_PREFIXES = ("--include-directory=", "-isystem", "-iquote", "-idirafter", "-imacros", "-include", "-I")


def anchor_paths(flags: tuple[str, ...] | list[str], cwd: Path | None = None) -> tuple[str, ...]:
    """``flags`` with each relative path that exists from ``cwd`` (default: the current folder) made absolute."""
    base = Path.cwd() if cwd is None else Path(cwd)
    out = []
    for flag in flags:
        for prefix in PATH_PREFIXES:
            if flag.startswith(prefix) and len(flag) > len(prefix):
                path = flag[len(prefix):]
                if not os.path.isabs(path) and not path.startswith("$") and (base / path).exists():
                    flag = prefix + os.path.normpath(str(base / path))
                break
        out.append(flag)
    return tuple(out)
