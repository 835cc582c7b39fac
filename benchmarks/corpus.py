"""Benchmark inputs of a chosen size, built from the sample projects (real CUDA, not a repeated line).

* ``single_file(path, lines)``: one amalgamated source (as an amalgamation or a generated kernel
  library is): copies of every sample source, each project's headers before its sources, and in
  each copy the names the sources define (functions, kernels, macros, types, include guards)
  given a per-copy suffix, so that a big file has as many distinct names as a big code base,
  not the same few hundred repeated.
* ``tree(root, lines)``: a project tree of about that many lines: copies of the whole sample
  projects (sources, headers, build files, READMEs) spread over deep folders
  (``libs/lN/modM/copyK/<project>/...``), each copy's names suffixed the same way; each
  project's sources include its own headers first, as the samples do.

``root``: where the projects come from (default: porter's ``sample_projects``); each folder under it
is a project (a folder of loose files is one project), so that a user's own CUDA files can be the
input (``bench_growth.py --from DIR``).  ``tree`` also takes several such folders
(``bench_convert.py --from DIR [DIR ...]``): each copy then holds every folder's projects under a
name of its own (the folder's name, with as many parent names as it takes to tell the folders apart).

Line counts are of source files (what porter convert reports); sizes are met with whole files,
so the count is at or a little above the one asked for.
"""

from __future__ import annotations

import functools
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_projects"
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from porter.project.files import classify, discover  # noqa: E402

_HEADER_SUFFIXES = (".h", ".cuh", ".hpp", ".hh", ".hxx", ".inl", ".inc")
# a name a line defines: #define NAME, struct/class/enum/union/namespace NAME, or NAME( on a line that
# starts in column 0 with a declaration (a function or kernel definition)
_DEFINES = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)"
                      rb"|\b(?:struct|class|enum|union|namespace)[ \t]+([A-Za-z_]\w*)"
                      rb"|^(?![ \t#/}])[^\n(;=]*?\b([A-Za-z_]\w*)[ \t]*\(", re.M)
_KEEP = frozenset(b"""if for while switch return sizeof main operator static_cast reinterpret_cast const_cast
    dynamic_cast decltype alignof noexcept static_assert defined __attribute__ __launch_bounds__ template
    typename using extern inline void int float double char bool unsigned signed long short auto const""".split())


@functools.cache
def _api_names() -> frozenset[bytes]:
    """CUDA names porter knows: never renamed (a copy must keep calling the same API)."""
    from porter.mapping import load_database

    db = load_database()
    return frozenset(n.encode() for n in (*db.identifiers, *db.namespaces))


@functools.cache
def _projects(root: Path = SAMPLES) -> list[tuple[str, list[tuple[str, bytes, str]]]]:
    """(project, [(path in the project, bytes, kind)]) of every project under ``root``, sorted: its
    folders, and ``root`` itself when it holds source files of its own."""
    out = []
    loose = [(f.rel, f.path.read_bytes(), f.kind) for f in discover(root) if "/" not in f.rel]
    candidates = [(".", loose)] if loose else []
    for project in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")):
        candidates.append((project.name, [(f.rel, f.path.read_bytes(), f.kind) for f in discover(project)]))
    for name, files in candidates:
        if not any(kind == "source" for _r, _d, kind in files):
            continue
        # headers first, then sources, then the rest (what an amalgamation puts first)
        files.sort(key=lambda f: (f[2] != "source", not f[0].endswith(_HEADER_SUFFIXES), f[0]))
        out.append((name, files))
    return out


@functools.cache
def _defined(data: bytes) -> frozenset[bytes]:
    names = {g for m in _DEFINES.finditer(data) for g in m.groups() if g}
    return frozenset(n for n in names if n not in _KEEP and n not in _api_names() and not n.startswith(b"__"))


def _suffixer(names: frozenset[bytes]):
    if not names:
        return lambda data, k: data
    pattern = re.compile(rb"(?<![\w$])(" + b"|".join(map(re.escape, sorted(names, key=len, reverse=True))) + rb")(?!\w)")
    return lambda data, k: pattern.sub(lambda m: m.group(1) + b"_c%d" % k, data)


@functools.cache
def _project_suffixer(project: str, root: Path = SAMPLES):
    files = dict(_projects(root))[project]
    names = frozenset().union(*(_defined(d) for _, d, kind in files if kind == "source"))
    return _suffixer(names)


def source_lines(data: bytes) -> int:
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def single_file(path: Path, lines: int, root: Path = SAMPLES) -> int:
    """Write one source of at least ``lines`` lines to ``path``; returns its line count."""
    total, copy, parts = 0, 0, []
    if not _projects(root):
        raise SystemExit(f"{root}: no CUDA source files")
    while total < lines:
        for project, files in _projects(root):
            rename = _project_suffixer(project, root)
            for rel, data, kind in files:
                if kind != "source" or total >= lines:
                    continue
                text = rename(data, copy)
                head = b"// ---- %s/%s (copy %d)\n" % (project.encode(), rel.encode(), copy)
                text = head + (text if text.endswith(b"\n") else text + b"\n")
                parts.append(text)
                total += source_lines(text)
        copy += 1
    path.write_bytes(b"".join(parts))
    return total


def source_labels(sources: list[Path]) -> list[str]:
    """A folder name per source folder, unique among them: its own name, or as many of its last path
    parts, joined with '-', as it takes to tell it from the others (``a/cuda``, ``b/cuda`` -> ``a-cuda``,
    ``b-cuda``); numbered where that is not enough."""
    parts = [Path(s).resolve().parts[1:] or ("root",) for s in sources]

    def label(i: int) -> str:
        for n in range(1, len(parts[i]) + 1):
            if all(other[-n:] != parts[i][-n:] for j, other in enumerate(parts) if j != i):
                return "-".join(parts[i][-n:])
        return "-".join(parts[i])

    labels = [label(i) for i in range(len(parts))]
    if len(set(labels)) < len(labels):  # the same folder twice, or names that join alike
        labels = [f"{i:02d}-{name}" for i, name in enumerate(labels)]
    return labels


def tree(root: Path, lines: int, source: Path | list[Path] = SAMPLES) -> tuple[int, int]:
    """Write a project tree of at least ``lines`` source lines under ``root``; returns (lines, files).

    ``source``: one folder of projects (its projects go straight under each copy's folder) or a list
    of them (each under its label, ``source_labels``)."""
    sources = [Path(source)] if isinstance(source, (str, Path)) else [Path(s) for s in source]
    labels = source_labels(sources) if len(sources) > 1 else [""]
    projects = []  # (source folder, where in a copy, project, files)
    for src, label in zip(sources, labels):
        found = _projects(src)
        if not found:
            raise SystemExit(f"{src}: no CUDA source files")
        projects += [(src, Path(label) / project, project, files) for project, files in found]
    total = files_written = copy = 0
    made: set[Path] = set()
    while total < lines:
        for src, place, project, files in projects:
            if total >= lines:
                break
            rename = _project_suffixer(project, src)
            base = root / "libs" / f"l{copy % 7}" / f"mod{copy % 31:02d}" / f"copy{copy:05d}" / place
            for rel, data, kind in files:
                target = base / rel
                if target.parent not in made:
                    target.parent.mkdir(parents=True, exist_ok=True)
                    made.add(target.parent)
                text = rename(data, copy) if kind in ("source", "build") else data
                target.write_bytes(text)
                files_written += 1
                if classify(target) == "source":
                    total += source_lines(text)
        copy += 1
    return total, files_written


if __name__ == "__main__":  # python benchmarks/corpus.py single|tree PATH LINES [FROM_DIR]
    kind, where, n = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3])
    src = Path(sys.argv[4]).resolve() if len(sys.argv) > 4 else SAMPLES
    print(single_file(where, n, src) if kind == "single" else tree(where, n, src))
