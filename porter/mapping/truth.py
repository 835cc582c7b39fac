"""Where a HIP (or roc*/MIOpen) name is declared, and in which ROCm releases.

This is the verification gate of the mapping database: porter may emit a name only
when one of these sources declares it (``porter/mapping/sources/``, committed with
their provenance; read by ``scripts/gen_mappings.py`` and by the test over the
shipped database, never by porter at run time):

* ``snapshots/hip_*.json`` -- the names in the HIP 5.2 headers installed on Debian 12
  (hip, hiprand, hipsparse, rocrand, rocprim, clang's HIP wrappers; rocSPARSE 5.3).
  These are the floor: a name found there exists in every release porter targets.
* ``hipify-api-tables.tsv`` -- AMD's own CUDA -> HIP / roc* / MIOpen tables (ROCm/HIPIFY's
  documentation, MIT), with the ROCm release that added, deprecated or removed each name.
* ``hip-header-names.tsv`` -- every identifier of HIP's public headers, ROCm 5.6.0 to a
  6.3 development state, with the first and last release that has it.
* ``snapshots/rocm_*.json`` -- hip-python's declarations of a recent ROCm's libraries
  (hipBLAS, hipSOLVER, hipFFT, RCCL, ...), whose headers cannot be installed here.
* ``snapshots/deb_*.json`` -- the header paths (and names) of ROCm libraries Debian 12 does not
  package (rocThrust, hipCUB, hipBLAS, hipSOLVER, hipFFT, rocBLAS, rocSOLVER, RCCL, roctx) and of
  HIP 5.7.1, read from Debian 13's packages (``scripts/gen_mappings.py --extract-debs``).
* ``conventions.toml [hip_guards]`` -- include-guard macros of library headers, each with
  the upstream header it was read from.

Header paths (``#include <hipcub/hipcub.hpp>``) go through the same gate: ``Truth.header``.
"""

from __future__ import annotations

import csv
import json
import re
import tomllib
from dataclasses import dataclass, replace
from pathlib import Path

from porter.mapping import version_key

SOURCES = Path(__file__).with_name("sources")
TABLES = "hipify-api-tables.tsv"
HEADER_NAMES = "hip-header-names.tsv"

FLOOR = "5.2"  # the HIP of Debian's headers: what every target has
# the releases hip-header-names.tsv was read at, in order ("next" = the 6.3 development state)
HEADER_RELEASES = ("5.6.0", "5.6.1", "5.7.0", "5.7.1", "6.0.0", "6.0.2", "6.1.0", "6.1.2", "6.2.0", "6.2.2", "next")
NEXT = "6.3"

# the HIP 5.2 snapshots (Debian) that are the floor, and hip-python's recent-ROCm ones
FLOOR_SETS = ("hip_hip", "hip_clang", "hip_hiprand", "hip_hipsparse", "hip_rocrand", "hip_rocprim", "hip_rocsparse")
# Debian 13's packages of libraries not installed here, and a later HIP's header paths
LIBRARY_SETS = ("deb_rocthrust", "deb_hipcub", "deb_hipblas", "deb_hipsolver", "deb_hipfft", "deb_rocblas",
                "deb_rocsolver", "deb_rccl", "deb_roctx", "deb_rocm_smi")
LATER_HIP_SET = "deb_hip57"
RECENT_SETS = ("rocm_hip", "rocm_hipblas", "rocm_hipblaslt", "rocm_hipfft", "rocm_hiprand", "rocm_hipsolver",
               "rocm_hipsparse", "rocm_hipdnn", "rocm_rccl", "rocm_roctx")
# names of libraries hip-python does not cover, read from the libraries' own public headers (the snapshot
# records repository, path and commit); AMD's tables for them (LIBRARY_TABLES) date the names these declare
# (hipFFT's Debian 13 headers too: AMD's newer cuFFT table dates its multi-GPU names, which the older one left out)
LIBRARY_HEADER_SETS = ("rocm_hiptensor", "rocm_hipsparselt", "deb_hipfft")
LIBRARY_TABLES = "hipify-library-tables.tsv"


def version(text: str | None) -> str | None:
    """A release as porter writes it: "6.1.0" -> "6.1", "5.7.1" stays, "next" -> "6.3", "" -> None."""
    if not text:
        return None
    if text == "next":
        return NEXT
    parts = text.strip().split(".")
    while len(parts) > 2 and parts[-1] == "0":
        parts.pop()
    return ".".join(parts)


def later(a: str | None, b: str | None) -> bool:
    """a is a later release than b (None: the floor)."""
    return version_key(a or FLOOR) > version_key(b or FLOOR)


@dataclass(frozen=True)
class Declared:
    """Where a name was found and the ROCm range it exists in."""

    name: str
    where: str  # which source declares it (a header, the tables, a snapshot)
    since: str | None = None  # first ROCm release with it; None: already in HIP 5.2 (the floor)
    removed: str | None = None  # first ROCm release without it
    deprecated: str | None = None
    experimental: str | None = None


def read_tables(path: Path) -> list[dict[str, str]]:
    """Rows of AMD's HIPIFY tables (the ``#`` lines are provenance)."""
    with path.open(encoding="utf-8", newline="") as f:
        rows = list(csv.reader((line for line in f if not line.startswith("#")), delimiter="\t"))
    head = rows[0]
    return [dict(zip(head, r + [""] * (len(head) - len(r)))) for r in rows[1:]]


def read_header_names(path: Path) -> dict[str, tuple[str, str]]:
    out = {}
    with path.open(encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or line.startswith("name\t"):
                continue
            name, first, last = line.rstrip("\n").split("\t")
            out[name] = (first, last)
    return out


def _removed_after(last: str) -> str | None:
    if last == "next":
        return None
    i = HEADER_RELEASES.index(last)
    return version(HEADER_RELEASES[i + 1])


def provenance(path: Path) -> str:
    with path.open(encoding="utf-8") as f:
        first = f.readline().lstrip("# ").strip()
    m = re.search(r"commit ([0-9a-f]{7})[0-9a-f]* (\d{4}-\d\d-\d\d)", first)
    return f"AMD HIPIFY tables ({m.group(1)}, {m.group(2)})" if m else "AMD HIPIFY tables"


class Truth:
    """Answers "is this name declared, and since which ROCm" from the committed sources."""

    def __init__(self, sources: Path = SOURCES, snapshots: dict[str, dict] | None = None):
        self.sources = sources
        if snapshots is None:
            snapshots = {}
            for p in sorted((sources / "snapshots").glob("*.json")):
                if (p.stem in FLOOR_SETS or p.stem in RECENT_SETS or p.stem in LIBRARY_SETS or p.stem == LATER_HIP_SET
                        or p.stem in LIBRARY_HEADER_SETS):
                    snapshots[p.stem] = json.loads(p.read_text(encoding="utf-8"))
        self.floor: dict[str, str] = {}
        for s in FLOOR_SETS:
            for name, rel in snapshots.get(s, {}).get("names", {}).items():
                self.floor.setdefault(name, f"{rel} (HIP {FLOOR}, Debian)")
        self.clang = frozenset(snapshots.get("hip_clang", {}).get("names", {}))
        self.recent: dict[str, str] = {}
        for s in RECENT_SETS:
            doc = snapshots.get(s, {})
            for name, rel in doc.get("names", {}).items():
                self.recent.setdefault(name, f"{rel} ({doc.get('source', s)})")
        # the names LIBRARY_HEADER_SETS declare: declared for the gate only where AMD's tables date them (a name
        # the tables do not list has no known first release: hipSPARSELt's HIPSPARSELT_COMPUTE_32F)
        self.library_names: dict[str, str] = {}
        for s in LIBRARY_HEADER_SETS:
            doc = snapshots.get(s, {})
            for name, rel in doc.get("names", {}).items():
                self.library_names.setdefault(name, f"{rel} ({doc.get('source', s)})")
        for s in LIBRARY_SETS:  # names of libraries not installed here: their age is not known from these
            doc = snapshots.get(s, {})
            for name, rel in doc.get("names", {}).items():
                self.recent.setdefault(name, f"{rel} ({doc.get('source', s)})")
        # header paths: the floor's files, then Debian 13's library packages, then the headers hip-python's
        # declarations come from
        self.floor_headers: dict[str, str] = {}
        for s in FLOOR_SETS:
            doc = snapshots.get(s, {})
            for rel in doc.get("files", ()):
                self.floor_headers.setdefault(rel, f"HIP {FLOOR} headers (Debian)" if s != "hip_rocsparse"
                                              else doc.get("source", s))
        later_hip = snapshots.get(LATER_HIP_SET, {})
        self.later_hip_headers = {rel: later_hip.get("source", LATER_HIP_SET) for rel in later_hip.get("files", ())}
        self.library_headers: dict[str, str] = {}
        for s in LIBRARY_SETS:
            doc = snapshots.get(s, {})
            for rel in doc.get("files", ()):
                self.library_headers.setdefault(rel, doc.get("source", s))
        for s in RECENT_SETS + LIBRARY_HEADER_SETS:
            doc = snapshots.get(s, {})
            for rel in set(doc.get("names", {}).values()):
                self.library_headers.setdefault(rel, doc.get("source", s))
        conv = tomllib.loads((sources / "conventions.toml").read_text(encoding="utf-8"))
        self.rows = read_tables(sources / TABLES)
        self.tables_source = provenance(sources / TABLES)
        self.table_names: dict[str, Declared] = {}
        # families whose HIP column declares nothing a ROCm porter targets ships (conventions.toml says why)
        hip_column_skip = frozenset(conv.get("tables_hip_column_skip_families", ()))
        for r in self.rows:
            for col in ("hip", "roc"):
                name = r[col]
                if col == "hip" and r["family"] in hip_column_skip:
                    continue
                if name and name not in self.table_names:
                    self.table_names[name] = Declared(
                        name, self.tables_source, since=version(r[f"{col}_added"]),
                        removed=version(r[f"{col}_removed"]), deprecated=version(r[f"{col}_deprecated"]),
                        experimental=version(r[f"{col}_experimental"]))
        # AMD's tables of the libraries of LIBRARY_HEADER_SETS: they date a name (the later of "added" and
        # "changed": a port written for the changed declaration needs that release) but declare nothing
        self.library_rows = read_tables(sources / LIBRARY_TABLES) if (sources / LIBRARY_TABLES).exists() else []
        self.library_tables_source = f"AMD HIPIFY tables ({LIBRARY_TABLES})"
        self.library_dates: dict[str, tuple[str | None, str | None]] = {}
        for r in self.library_rows:
            if r["hip"] and r["hip"] not in self.library_dates:
                added, changed = version(r["hip_added"]), version(r["hip_changed"])
                since = changed if changed and (not added or later(changed, added)) else added
                self.library_dates[r["hip"]] = (since, version(r["hip_removed"]))
        self.header_names = read_header_names(sources / HEADER_NAMES)
        # names of libraries whose headers are not installed here (hipBLAS, MIOpen, ...): their absence from
        # the 5.2 floor says nothing about their age
        self.not_installed = re.compile(conv.get("not_installed_libraries", r"(?!)"))
        self.floor_partial = [(re.compile(r["names"]), r["why"]) for r in conv.get("floor_partial", [])]
        self.documented = {n: (d["since"], d["source"]) for d in conv.get("documented", []) for n in d["names"]}
        # declared before the runtime library exports them: dated by the release a port links with
        self.exported = {n: (d["since"], d["source"]) for d in conv.get("exported", []) for n in d["names"]}
        # a HIP header newer than the floor is as old as a name only it declares (hip-header-names.tsv dates names)
        self.header_witness = {w["header"]: (w["name"], w["source"]) for w in conv.get("header_witness", [])}
        self.documented_headers = {d["header"]: (d.get("since"), d["source"]) for d in conv.get("documented_header", [])}
        self.guards = {v["guard"]: f"include guard of {k} ({v['source']})" for k, v in conv.get("hip_guards", {}).items()}

    def declared(self, name: str) -> Declared | None:
        """Where ``name`` is declared and its ROCm range, or None when no source declares it; a function the
        headers declare before the runtime library exports it (conventions.toml [[exported]]) is dated by the
        export."""
        found = self._declared(name)
        if found is not None and name in self.exported:
            since, source = self.exported[name]
            if found.since is None or later(since, found.since.lstrip(">")):
                found = replace(found, where=f"{found.where}; exported from ROCm {since} ({source})", since=since)
        return found

    def _declared(self, name: str) -> Declared | None:
        table = self.table_names.get(name)
        seen = self.header_names.get(name)
        removed = table.removed if table else None
        if not removed and seen and name not in self.clang:
            # gone from HIP's own headers; a name clang's HIP wrapper headers declare (__expf, __sinf...)
            # moved there in ROCm 6.0 and is still declared
            removed = _removed_after(seen[1])
        deprecated = table.deprecated if table else None
        experimental = table.experimental if table else None
        if name in self.floor and not self.partial(name):  # the headers you have beat a table that says it came later
            return Declared(name, self.floor[name], None, removed, deprecated, experimental)
        runtime = not self.not_installed.match(name)
        if table and table.since:
            since = table.since if later(table.since, FLOOR) else None
            if since is None and runtime:
                # the tables date it at or before 5.2, yet the installed 5.2 headers lack it (or have only some
                # overloads): the first release whose headers have it, else "after 5.2"
                since = version(seen[0]) if seen else ">" + FLOOR
            return Declared(name, table.where, since, removed, deprecated, experimental)
        if seen:
            return Declared(name, f"HIP headers {seen[0]}..{seen[1]}", version(seen[0]), removed)
        if table:  # listed without a version
            return Declared(name, table.where, None, removed, deprecated, experimental)
        if name in self.library_names and name in self.library_dates:
            since, removed_in = self.library_dates[name]
            return Declared(name, f"{self.library_names[name]}; dated by AMD's HIPIFY tables", since, removed_in)
        if name in self.documented:  # a documented release beats a snapshot that cannot date the name
            since, where = self.documented[name]
            return Declared(name, f"{self.recent[name]}; {where}" if name in self.recent else where, since)
        if name in self.recent:
            return Declared(name, self.recent[name], ">" + FLOOR if runtime else None)
        if name in self.guards:
            return Declared(name, self.guards[name])
        return None

    def header(self, path: str) -> Declared | None:
        """Where the header ``path`` (as written in ``#include <path>``) exists, and since which ROCm;
        None when no source has it."""
        if path in self.floor_headers:
            return Declared(path, self.floor_headers[path])
        if path in self.later_hip_headers or path in self.header_witness:
            since = ">" + FLOOR
            where = self.later_hip_headers.get(path, "")
            if path in self.header_witness:
                name, why = self.header_witness[path]
                found = self.declared(name)
                if found is None:
                    return None
                since = found.since or since
                where = f"{where}; " if where else ""
                where += f"dated by {name} ({found.where}; {why})"
            return Declared(path, where, since)
        if path in self.library_headers:  # a library not installed here: its age is not known from it
            return Declared(path, self.library_headers[path])
        if path in self.documented_headers:
            since, where = self.documented_headers[path]
            return Declared(path, where, since)
        return None

    def partial(self, name: str) -> bool:
        """The 5.2 headers declare ``name`` for some argument types only (conventions.toml [[floor_partial]])."""
        return any(pat.fullmatch(name) for pat, _why in self.floor_partial)
