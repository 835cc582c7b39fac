"""A hipcc-like front for a plain clang++-NN, for Makefiles that call $(HIPCC).

Run as ``python -SE hipdriver.py CONFIG.json ARGS...`` (the small ``hipcc``
script porter writes beside CONFIG.json does it; ``make HIPCC=that-script``).
Like hipcc it compiles every C++/CUDA source as HIP and a ``.c`` one as C (hipcc.pl 5.2 and hipBin 6: ``-x c``;
a compile of C sources only gets no GPU target or ROCm paths, as hipcc gives it none), guesses no language
after an explicit ``-x``, adds the ROCm paths,
and, when it links, ``--hip-link`` and the HIP runtime; a command that names no
optimization level gets ``-O3``, hipcc's default (at -O0 a device link can need what -O3 folds away: a
``static constexpr`` member a C++14 header odr-uses, rocPRIM 5.7's ``radix_bits_per_pass``).  ``porter build --flag``'s
extra flags (CONFIG's "compile_flags") go to every command that compiles a
source, after porter's own flags and before the Makefile's, as hipcc places
HIPCC_COMPILE_FLAGS_APPEND (a link of objects only gets none, as with hipcc).
They stay in argv from the JSON file to clang: no shell reads them.  It replaces itself
with clang (exec), so make's signals and exit codes reach clang directly.

Self-contained on purpose (no porter import): it runs once per compile.
"""

from __future__ import annotations

import json
import os
import sys

SOURCES = (".cu", ".cpp", ".cc", ".cxx", ".c", ".hip", ".C")
NO_LINK = {"-c", "-E", "-S", "-M", "-MM", "-fsyntax-only"}
# the GPU target options hipcc takes for itself and gives to HIP compiles and links only (hipcc.pl 5.2)
ARCH_OPTIONS = ("--offload-arch=", "--amdgpu-target=")
VALUED = {"-o", "-MF", "-MT", "-MQ", "-include", "-x", "-I", "-L", "-D", "-U", "-isystem", "-l"}


def argv_for(cfg: dict, args: list[str]) -> list[str]:
    # hipcc --genco (a code object for hipModuleLoad) is clang's --cuda-device-only: nothing is linked
    args = ["--cuda-device-only" if a == "--genco" else a for a in args]
    link = not any(a in NO_LINK or a == "--cuda-device-only" for a in args)
    languages = _languages(args)
    c_only = not link and set(languages.values()) == {"c"}
    out = [cfg["clang"]]
    if link:
        out.append("--hip-link")
    if not c_only:  # (ROCm's paths and device libraries: clang warns that a C compile does not use them)
        out += cfg["flags"]
    if not any(a.startswith("-O") for a in args):
        out.append("-O3")  # hipcc's default for hip-clang when the command names no level (hipcc.pl, ROCm 5.2)
    if languages:
        out += cfg.get("compile_flags", [])
    for k, a in enumerate(args):
        if k in languages:
            # a source (not the value of -o/-MF/...), as HIP or as C as hipcc compiles it (a source named @x.cu
            # would be read by clang as a response file: options from the project)
            name = "./" + a if a.startswith("@") else a
            out += ["-x", languages[k], name, "-x", "none"] if languages[k] else [name]
        elif not (c_only and a.startswith(ARCH_OPTIONS)):  # (hipcc gives its GPU targets to HIP and links only)
            out.append(a)
    out = _drop_idle_language(out)
    if link:
        out += cfg["link"]
    return out


def _languages(args: list[str]) -> dict[int, str]:
    """The language hipcc gives each source of ``args`` (not the value of -o/-MF/..., by index): "c" for
    ``.c``, "hip" for the others, and "" after an explicit ``-x`` (the command's own, which hipcc keeps)."""
    found, prev, explicit = {}, "", False
    for k, a in enumerate(args):
        if a == "-x" or (a.startswith("-x") and len(a) > 2):
            explicit = True
        elif a.endswith(SOURCES) and not a.startswith("-") and prev not in VALUED:
            found[k] = "" if explicit else ("c" if a.endswith(".c") else "hip")
        prev = a
    return found


def _drop_idle_language(argv: list[str]) -> list[str]:
    """``-x none`` ends the HIP language for the inputs after it; with none after it (``-x hip a.cu -x none
    -o a.o``) clang warns that it has no effect, so it goes."""
    out = list(argv)
    k = len(out) - 1
    while k > 0:
        if out[k] == "none" and out[k - 1] == "-x":
            if any(not a.startswith("-") and out[j - 1] not in VALUED for j, a in enumerate(out[k + 1:], k + 1)):
                break  # an input follows: this one and every earlier one are needed
            del out[k - 1:k + 1]
            k -= 1
        k -= 1
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
