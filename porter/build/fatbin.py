"""Which GPU code objects an object file or program holds.

HIP objects and programs keep their device code in the ELF section
``.hip_fatbin``: one or more clang offload bundles, each starting with
``__CLANG_OFFLOAD_BUNDLE__``, then the entry count and, per entry, offset,
size and target id (``hipv4-amdgcn-amd-amdhsa--gfx942``).  ``targets(path)``
reads them with no external tool, so a build can say what it produced.
"""

from __future__ import annotations

import struct

MAGIC = b"__CLANG_OFFLOAD_BUNDLE__"
COMPRESSED_MAGIC = b"CCOB"
SECTION = b".hip_fatbin"


class FatbinError(ValueError):
    """Not an ELF file, or its fat binary cannot be read: one line."""


def _section(data: bytes, name: bytes) -> bytes | None:
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise FatbinError("not a 64-bit little-endian ELF file")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    if not shoff or shentsize < 64 or shoff + shnum * shentsize > len(data) or shstrndx >= shnum:
        raise FatbinError("ELF section table is missing or truncated")

    def header(i):
        name_off, _type, _flags, _addr, off, size = struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize)
        return name_off, off, size

    _, str_off, str_size = header(shstrndx)
    names = data[str_off:str_off + str_size]
    for i in range(shnum):
        name_off, off, size = header(i)
        end = names.find(b"\0", name_off)
        if names[name_off:end] == name:
            return data[off:off + size]
    return None


def bundle_targets(blob: bytes) -> list[str]:
    """Target ids of every offload bundle in ``blob`` (in order, duplicates kept)."""
    out: list[str] = []
    at = blob.find(MAGIC)
    while at >= 0:
        pos = at + len(MAGIC)
        if pos + 8 > len(blob):
            raise FatbinError("offload bundle header is truncated")
        count, = struct.unpack_from("<Q", blob, pos)
        pos += 8
        for _ in range(count):
            if pos + 24 > len(blob):
                raise FatbinError("offload bundle entry is truncated")
            _off, _size, tlen = struct.unpack_from("<QQQ", blob, pos)
            pos += 24
            out.append(blob[pos:pos + tlen].decode("ascii", "replace"))
            pos += tlen
        at = blob.find(MAGIC, pos)
    return out


def targets(path: str) -> list[str]:
    """GPU targets in ``path``'s fat binary, e.g. ["amdgcn-amd-amdhsa--gfx942"]
    (the host entry and the "hipv4-" prefix left out; [] when it has none)."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        raise FatbinError(f"{path}: {exc.strerror or exc}") from None
    sec = _section(data, SECTION)
    if sec is None:
        return []
    if MAGIC not in sec and COMPRESSED_MAGIC in sec:
        raise FatbinError(f"{path}: compressed offload bundle (read it with clang-offload-bundler)")
    found = []
    for t in bundle_targets(sec):
        t = t.split("-", 1)[1] if t.startswith(("hipv4-", "hip-")) else t
        if t.startswith("amdgcn") and t not in found:
            found.append(t)
    return found


def processor(target: str) -> str:
    """The GPU of a target id: "amdgcn-amd-amdhsa--gfx90a:xnack-" -> "gfx90a:xnack-"."""
    return target.rsplit("--", 1)[-1] if "--" in target else target


def holds(found: list[str], arch: str) -> bool:
    """Whether targets ``found`` (``targets()``'s) include code for ``arch`` ("gfx942", "gfx90a:xnack-"):
    the same processor, and no feature set the other way (code built with no xnack setting runs in
    either mode; "gfx90a" asked for is held by "gfx90a:xnack-" too)."""
    want, *features = arch.split(":")
    for t in found:
        name, *have = processor(t).split(":")
        if name == want and not any(f[:-1] == h[:-1] and f != h for f in features for h in have):
            return True
    return False


def mismatch_line(what: str, found: list[str], arch: str) -> str:
    """One line: ``what`` holds code for other GPUs than ``arch``."""
    names = ", ".join(dict.fromkeys(processor(t) for t in found))
    return (f"{what} holds {names} code, not {arch} (the arch asked for): the build made code for another GPU "
            f"(does a build file set its own --offload-arch?)")
