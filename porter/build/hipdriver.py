"""A hipcc-like front for a plain clang++-NN, for Makefiles that call $(HIPCC).

Run as ``python -SE hipdriver.py CONFIG.json ARGS...`` (the small ``hipcc``
script porter writes beside CONFIG.json does it; ``make HIPCC=that-script``).
Like hipcc it compiles every C/C++/CUDA source as HIP, adds the ROCm paths,
and, when it links, ``--hip-link`` and the HIP runtime.  It replaces itself
with clang (exec), so make's signals and exit codes reach clang directly.

Self-contained on purpose (no porter import): it runs once per compile.
"""

from __future__ import annotations

import json
import os
import sys

SOURCES = (".cu", ".cpp", ".cc", ".cxx", ".c", ".hip", ".C")
NO_LINK = {"-c", "-E", "-S", "-M", "-MM", "-fsyntax-only"}


def argv_for(cfg: dict, args: list[str]) -> list[str]:
    # hipcc --genco (a code object for hipModuleLoad) is clang's --cuda-device-only: nothing is linked
    args = ["--cuda-device-only" if a == "--genco" else a for a in args]
    link = not any(a in NO_LINK or a == "--cuda-device-only" for a in args)
    out = [cfg["clang"]]
    if link:
        out.append("--hip-link")
    out += cfg["flags"]
    prev = ""
    for a in args:
        # a source (not the value of -o/-MF/...): compile it as HIP, as hipcc does
        if a.endswith(SOURCES) and not a.startswith("-") and prev not in ("-o", "-MF", "-MT", "-MQ", "-include",
                                                                         "-x", "-I", "-L"):
            out += ["-x", "hip", a, "-x", "none"]
        else:
            out.append(a)
        prev = a
    if out[-2:] == ["-x", "none"]:  # nothing after the last source
        del out[-2:]
    if link:
        out += cfg["link"]
    return out


def main() -> None:
    if len(sys.argv) < 2:
        sys.stderr.write("usage: hipdriver.py CONFIG.json ARGS...\n")
        raise SystemExit(2)
    with open(sys.argv[1], encoding="utf-8") as fh:
        cfg = json.load(fh)
    argv = argv_for(cfg, sys.argv[2:])
    try:
        os.execv(argv[0], argv)
    except OSError as exc:
        sys.stderr.write(f"porter hipcc: cannot run {argv[0]}: {exc.strerror or exc}\n")
        raise SystemExit(127) from None


if __name__ == "__main__":
    main()
