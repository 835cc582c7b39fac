"""``run_build(dir, options, on_line=, cancel=) -> BuildReport``: build a
converted tree with hipcc or a plain clang++-NN (toolchain.py picks the one
that knows the arch), through its Makefile, its CMake project, or unit by
unit (``-c`` in parallel, then a link when there is a ``main``).  A Makefile
built with a plain clang gets ``HIPCC=`` a hipcc-like script (hipdriver.py).

Every tool runs time-limited in its own process group; ``cancel`` (a
threading.Event) or Ctrl-C stops them all.  Per-file builds are incremental
(cache.py) and write DIR/compile_commands.json.

Build state is per arch: per-file objects and programs under
DIR/.porter/build/ARCH/, a CMake build folder per arch, and a Make build for
another arch than the one its objects on disk were made for rebuilds them all
(``make -B``), as does one with other ``--flag`` extra flags (those reach
hipcc in HIPCC_COMPILE_FLAGS_APPEND, the clang front in its JSON file, CMake
in a file it reads after ``project()``).  A build is never ok for an arch its
code objects do not hold (the offload bundles are read back, fatbin.py).  A folder that is still CUDA
source (not porter convert's output) is refused before anything is written
(tree_kind.py).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path

from porter import proc
from porter.build import cmakelists, diskspace, link_places, unit_languages
from porter.build.cache import Cache, read_depfile, sha256_bytes
from porter.build.diagnostics import UNDEFINED, Diagnostic, SourceMap, classify, follow_failed_steps, parse
from porter.build.report import BuildReport, ProjectResult, UnitResult
from porter.build.subprojects import SubProject, find_subprojects, project_of
from porter.build.toolchain import KINDS, Toolchain, detect_toolchain, find_plain_clangs, valid_arch_name
from porter.build.tree_kind import MAKEFILES, SKIP_DIRS, UNIT_SUFFIXES, _still_cuda, cuda_source
from porter.findings.build_modes import BUILD_FILES, asks_for_relocatable

STATE_DIR = os.path.join(".porter", "build")
# header include -> the library to link (per-file builds)
LINK_LIBS = {"hipblas": "-lhipblas", "hipblaslt": "-lhipblaslt", "hiprand": "-lhiprand", "rocrand": "-lrocrand",
             "hipfft": "-lhipfft", "hipsparse": "-lhipsparse", "hipsolver": "-lhipsolver", "rocblas": "-lrocblas",
             "rocsparse": "-lrocsparse", "rccl": "-lrccl", "roctracer/roctx": "-lroctx64", "rocsolver": "-lrocsolver"}
_INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([\w./+-]+)[>"]', re.M)
_MAIN = re.compile(rb"\bint\s+main\s*\(")


class BuildError(Exception):
    """The build cannot start (bad folder, bad arch name): one line."""


@dataclass(frozen=True)
class BuildOptions:
    arch: str | None = None  # None: the toolchain's choice (local GPU, else gfx942)
    jobs: int = 0  # 0: all cores
    per_file: bool = False  # ignore Makefile/CMake
    system: str = "auto"  # auto | make | cmake | per-file
    timeout: float = 600.0  # seconds for one compile / link / make step
    std: str = "c++17"  # per-file: hipcc defaults to c++11
    opt: str = "-O2"
    extra_flags: tuple[str, ...] = ()
    link: bool = True
    toolchain: str = "auto"  # auto | hipcc | clang (toolchain.KINDS)
    target_rocm: str | None = None  # the ROCm the port was converted for (--target-rocm); None: not said
    # where target_rocm comes from, for the note (e.g. "recorded by porter convert --target-rocm 5.2"); "": no note
    target_from: str = ""
    # a folder of several projects: build only the one holding this path (a folder or a file in it,
    # relative to the build folder); None: all of them (porter/build/subprojects.py)
    project: str | None = None


# ---------------------------------------------------------------- toolchain (cached)

def _toolchain(root: Path, arch: str | None, kind: str = "auto", notes: list[str] | None = None) -> Toolchain:
    """The toolchain for ``arch`` (remembered in the state folder's toolchain.json).  A remembered
    device-library folder of porter's is checked before a build uses it: a damaged file in it (a generated
    library whose bytes are not the ones porter wrote, a link replaced by another file) is made again by
    detecting afresh (devicelibs.prepare), with a note in ``notes``."""
    import shutil

    from porter.build import devicelibs

    stamps = []
    # (make too: whether it can keep parallel compiles' messages apart is part of what is remembered)
    for tool in [shutil.which("hipcc") or shutil.which("amdclang++"), *find_plain_clangs(), shutil.which("make")]:
        try:
            stamps.append([tool, os.stat(tool).st_mtime_ns if tool else 0])
        except OSError:
            stamps.append([tool, 0])
    key = json.dumps([stamps, os.environ.get("PATH"), os.environ.get("ROCM_PATH"),
                      os.environ.get("HIP_PATH"), os.environ.get("PORTER_CACHE_DIR"), arch, kind])
    path = root / STATE_DIR / "toolchain.json"
    entries: dict = {}
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
        entries = data.get("entries", {}) if isinstance(data, dict) else {}
        entries = entries if isinstance(entries, dict) else {}
        if key in entries:
            d = dict(entries[key])
            d.pop("found", None)
            d.pop("name", None)
            tc = Toolchain(**d)
            if not tc.device_lib_path or os.path.isdir(tc.device_lib_path):  # a cleared cache: detect again
                damage = devicelibs.check_folder(tc.device_lib_path)
                if not damage:
                    return tc
                if notes is not None:
                    notes.append(f"device library {damage}: made again")
    except (OSError, ValueError, KeyError, TypeError):
        entries = {}
    tc = detect_toolchain(arch, kind)
    if tc.found and not tc.problems:
        entries.pop(key, None)
        entries = dict(list(entries.items())[-7:])  # the last few archs and kinds
        entries[key] = tc.as_dict()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            _write_text(path, json.dumps({"entries": entries}))
        except OSError:
            pass  # only a memo: detected again next time
    return tc


# ---------------------------------------------------------------- helpers

def _jobs(options: BuildOptions) -> int:
    return max(1, options.jobs or os.cpu_count() or 1)


def _env(tc: Toolchain, arch: str) -> dict[str, str]:
    env = tc.env()
    env["HCC_AMDGPU_TARGET"] = arch  # hipcc's default target for commands without --offload-arch
    env.setdefault("LC_ALL", "C")  # English compiler messages
    return env


def _units(root: Path) -> list[str]:
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.startswith("."))
        for name in sorted(filenames):
            if name.endswith(UNIT_SUFFIXES):
                out.append(os.path.relpath(os.path.join(dirpath, name), root).replace(os.sep, "/"))
    return out


def _build_file_flags(root: Path) -> tuple[list[str], list[str]]:
    """-D/-I flags and -l flags from the tree's (migrated) Makefile / CMakeLists
    (what a per-file build needs to compile like the project does); -fgpu-rdc
    in both when the project asks for separable compilation."""
    defines: list[str] = []
    libs: list[str] = []
    incs: list[str] = []
    rdc = False
    for name in BUILD_FILES:
        p = root / name
        if not p.is_file():
            continue
        if name == cmakelists.NAME:
            text = cmakelists.text(root) or ""
            more_defines, more_incs = cmakelists.compile_flags(root, text)
            defines += more_defines
            incs += more_incs
        else:
            text = re.sub(r"#[^\n]*", "", p.read_text(errors="replace"))
            defines += re.findall(r"(?<![\w$-])-D[A-Za-z_]\w*(?:=[^\s$()]+)?", text)
            libs += [lib for lib in re.findall(r"(?<![\w-])-l[\w+.-]+", text)]
            for w in re.findall(r"(?<![\w-])-I\s*([^\s$()]+)", text):
                if not os.path.isabs(w) and (root / w).is_dir():
                    incs.append("-I" + w)
        rdc = rdc or asks_for_relocatable(text)
    if rdc:
        defines.append("-fgpu-rdc")
        libs.insert(0, "-fgpu-rdc")
    return list(dict.fromkeys(incs + defines)), list(dict.fromkeys(libs))


def arch_dir(arch: str) -> str:
    """The folder name of one arch's build state (``gfx90a:xnack-`` -> ``gfx90a_xnack-``)."""
    return arch.replace(":", "_")


def _rel(path: str, root: Path) -> str:
    try:
        return os.path.relpath(path, root).replace(os.sep, "/")
    except ValueError:
        return path


def write_failed(report: BuildReport, line: str) -> None:
    """The build could not write a file: the report is not ok, says so in one line (the first such line),
    which is also one of its errors."""
    if not report.write_error:
        report.write_error = line
        report.diagnostics.append(Diagnostic("", 0, 0, "error", line, unit="write"))
    report.ok = False


def _save(run: "_Runner", report: BuildReport, cache: Cache) -> bool:
    """Write porter's build state (cache.json); False, and one line in the report, when it cannot."""
    try:
        cache.save()
        return True
    except OSError as exc:
        write_failed(report, diskspace.line_for_error(exc, str(cache.path), str(run.root)))
        return False


def _write_text(path: Path, text: str, mode: int | None = None) -> None:
    """Write ``path`` whole or not at all (a temporary name, renamed; removed when the write fails)."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(text)
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except OSError as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if exc.filename is None or os.fspath(exc.filename) == os.fspath(tmp):
            exc.filename = str(path)
        raise


class _Runner:
    def __init__(self, root: Path, options: BuildOptions, tc: Toolchain, arch: str, on_line, cancel,
                 state: Path | None = None):
        self.root = root
        self.options = options
        self.tc = tc
        self.arch = arch
        self.on_line = on_line
        self.cancel = cancel
        self.env = _env(tc, arch)
        self.state = state or root / STATE_DIR  # (a sub-project's: under the top folder's, _build_projects)
        self.state.mkdir(parents=True, exist_ok=True)
        self.smap = SourceMap.load(root)
        self.lock = threading.Lock()

    def emit(self, line: str) -> None:
        if self.on_line is not None:
            with self.lock:
                try:
                    self.on_line(line)
                except Exception:  # noqa: BLE001
                    pass

    def diags(self, text: str, unit: str, cwd: Path | None = None) -> list[Diagnostic]:
        from porter.build.devicelibs import damaged_library_note

        ds = parse(text, cwd=str(cwd or self.root), root=str(self.root), unit=unit)
        self.explain_missing_runtime(ds, Path(cwd or self.root))
        link_places.locate_internal_variables(ds, Path(cwd or self.root), self.root)
        link_places.locate_inline_asm(ds, Path(cwd or self.root), self.root)
        link_places.locate_undefined_kernels(ds, Path(cwd or self.root), self.root)
        _locate_unknown_options(ds, self.root)
        self.smap.apply(ds)
        follow_failed_steps(ds)
        for d in ds:  # clang cannot read a device library: which file, and what to do
            note = damaged_library_note(d.message) if d.severity == "error" else ""
            if note:
                d.notes.append(Diagnostic("", 0, 0, "note", note, unit=unit))
        return ds

    def explain_missing_runtime(self, ds: list[Diagnostic], cwd: Path) -> None:
        """A link error on a HIP function this toolchain's runtime library does not export (its headers
        declare it): say so, at the first call of it in the source the linker names."""
        from porter.build.runtime_exports import missing_note, runtime_library

        library = None
        for d in ds:
            m = UNDEFINED.search(d.message) if d.severity == "error" and not d.line else None
            if not m:
                continue
            symbol = m.group("sym").strip()
            if library is None:
                library = runtime_library(self.tc.rocm_path, self.tc.hip_lib_dir)
            note = missing_note(symbol, library, self.tc.hip_version)
            if note:
                d.hint = note
                at = link_places.call_site(d.message, symbol, cwd, self.root)
                if at:
                    d.file, d.line, d.column = at

    def failed_step(self, r: proc.Result, what: str) -> Diagnostic | None:
        if r.error:
            return Diagnostic("", 0, 0, "error", f"{what}: {r.error}")
        if r.timed_out:
            return Diagnostic("", 0, 0, "error", f"{what}: timed out after {self.options.timeout:g} s and was stopped")
        return None


_MAKE_REASON = re.compile(r"(?:\S*/)?g?make(?:\[\d+\])?: (?:\S+:\d+: )?\*\*\* (?!\[)")


def _unexplained_failure(r: proc.Result, ds: list[Diagnostic], what: str,
                         makefile: Path | None = None) -> Diagnostic | None:
    """A step that failed and printed no error porter reads (a message another compile broke, a recipe
    that is not a compiler): an error with the last lines it printed, so a failed build always says
    something about why (for make's "No rule to make target", which files the rule that would make it
    lacks)."""
    if r.ok or r.cancelled or any(d.severity == "error" for d in ds):
        return None
    lines = [ln.strip() for ln in r.stdout.splitlines() if ln.strip()]
    # make's own reason ("*** No rule to make target 'kernels.cu'", "*** missing separator") is why it stopped:
    # not the command lines it echoed for the targets it could make; else what the failing command printed says
    # more than make's bookkeeping after it ("*** [...] Error 2", "Target 'main' not remade")
    said = [ln for ln in lines if _MAKE_REASON.match(ln)] or \
        [ln for ln in lines if not re.match(r"g?make(?:\[\d+\])?: ", ln)] or lines
    d = Diagnostic("", 0, 0, "error", f"{what} failed (exit {r.returncode}): " + " | ".join(said[-3:])[:400],
                   unit=what)
    classify(d)  # (e.g. a file the Makefile names outside the converted folder)
    if makefile is not None and not d.hint:
        d.hint = _unmade_hint(r.stdout, makefile)
    return d


_NO_RULE = re.compile(r"No rule to make target '([^']+)'")


def _unmade_hint(output: str, makefile: Path) -> str:
    """For make's "No rule to make target 'main.o'": the pattern rule that would make it and the
    prerequisites of its that are not there (an outside one: where the port was written)."""
    from porter.buildfiles.make_rules import unmade

    rules: dict = {}  # (line, rule, missing) -> the targets make could not make with it
    for target in dict.fromkeys(_NO_RULE.findall(output)):
        for u in unmade(makefile, target):
            rules.setdefault((u.line, u.rule, u.missing), []).append(target)
    said = []
    for (line, rule, missing), targets in rules.items():
        said.append(f"{makefile.name}:{line} `{rule}` makes {', '.join(targets)} only when its prerequisites exist, "
                    f"and {', '.join(missing)} {'is' if len(missing) == 1 else 'are'} not there")
        outside = next((m for m in missing if m.startswith("../")), None)
        if outside:  # what known_errors.toml says of make's message for a ../ file
            probe = Diagnostic("", 0, 0, "error", f"No rule to make target '{outside}'")
            classify(probe)
            if probe.hint:
                said.append(probe.hint)
    return "; ".join(dict.fromkeys(said))[:600]


_UNKNOWN_OPTION = re.compile(r"^unknown argument:? '(?P<opt>-[^'\s]+)'")


def _locate_unknown_options(ds: list[Diagnostic], root: Path) -> None:
    """The compiler driver's "unknown argument: '-fatbin'" names no place: put it at the line of the project's
    build file that passes the option (where the user edits it, and where a finding of the build file is)."""
    texts: dict[str, list[str]] = {}
    for d in ds:
        m = _UNKNOWN_OPTION.match(d.message) if d.severity == "error" and not d.file else None
        if not m:
            continue
        option = re.compile(r"(?<![\w-])" + re.escape(m.group("opt")) + r"(?![\w-])")
        for name in (*MAKEFILES, "CMakeLists.txt"):
            if name not in texts:
                try:
                    texts[name] = (root / name).read_text(encoding="utf-8", errors="replace").splitlines()
                except OSError:
                    texts[name] = []
            at = _first_use(texts[name], option)
            if at:
                d.file, (d.line, d.column) = name, at
                break


def _first_use(lines: list[str], option: re.Pattern) -> tuple[int, int] | None:
    """(line, column) of the first place a build file's ``lines`` pass ``option``, comments left out."""
    for n, line in enumerate(lines, 1):
        found = None if line.lstrip().startswith("#") else option.search(line)
        if found:
            return n, found.start() + 1
    return None


# ---------------------------------------------------------------- per file

# Names a shell, a compiler driver or make reads as they are: letters, digits and _ . + / - (not leading).
# Any other name reaches no compiler command line as it is (Debian's hipcc runs its clang through `sh -c`,
# quoting the -o value in double quotes; clang reads an argument starting with @ as a response file).
_PLAIN_NAME = re.compile(r"[A-Za-z0-9_.+][A-Za-z0-9_.+/-]*")
_NAME_MAX = 255


def plain_name(rel: str) -> bool:
    """Whether ``rel`` can go on a compiler command line as it is (in any driver, through any shell),
    with ``.o`` / ``.d`` added to each part still a legal file name."""
    return (_PLAIN_NAME.fullmatch(rel) is not None and "/-" not in rel
            and all(len(part.encode()) + 2 <= _NAME_MAX for part in rel.split("/")))


def _object_stem(rel: str) -> str:
    """Where a unit's object and depfile go under the arch's obj/ folder, without the suffix: the unit's own
    path when it is plain, else its letters and a hash of its name (one level, short, shell-inert)."""
    if plain_name(rel):
        return rel
    tail = re.sub(r"[^A-Za-z0-9_.+-]", "_", rel).lstrip("-.")[-80:]
    return f"_named/{tail}.{sha256_bytes(rel.encode())[:12]}"


def _arg_path(path: str, root: Path) -> str:
    """``path`` as a command-line argument relative to ``root`` (the compilers run there): the project's
    own location (which may hold any character) never reaches a command line."""
    return os.path.relpath(path, root)


def unit_argument(run: _Runner, rel: str) -> tuple[str | None, str]:
    """(what names the unit on the compile command line, why it cannot be compiled safely or "").

    A plain name goes as it is; through a plain clang (no shell) any other name goes with a ``./`` prefix;
    through a driver that may use a shell (hipcc) such a unit is compiled through a one-line file under
    porter's build folder that includes it by its absolute path (includes beside it still resolve)."""
    if plain_name(rel):
        return rel, ""
    if run.tc.compiler_kind == "clang":
        return "./" + rel, ""
    target = str(run.root / rel)
    if any(c in target for c in '"\n\r'):
        return None, (f"{rel!r}: a name with a quote or a line break cannot be compiled safely through "
                      f"{os.path.basename(run.tc.compiler)} (it hands names to a shell); rename it")
    stub = run.state / arch_dir(run.arch) / "names" / (sha256_bytes(rel.encode())[:16] + os.path.splitext(rel)[1])
    text = f'#include "{target}"\n'
    try:
        if not stub.is_file() or stub.read_text(encoding="utf-8", errors="replace") != text:
            stub.parent.mkdir(parents=True, exist_ok=True)
            _write_text(stub, text)
    except OSError as exc:
        return None, f"{rel!r}: cannot write {stub}: {exc.strerror or exc}"
    return _arg_path(str(stub), run.root), ""


def _compile_argv(run: _Runner, rel: str, obj: str, dep: str, defines: list[str], source: str | None = None,
                  host: str | None = None) -> list[str]:
    """``host``: "c++" or "c" for a unit the project's build compiles for the host only (unit_languages)."""
    o = run.options
    if host:
        argv = run.tc.host_compile_prefix(host)
        defines = [d for d in defines if d != "-fgpu-rdc"]
    else:
        argv = run.tc.compile_prefix(run.arch)
    if not rel.endswith(".c"):
        argv.append(f"-std={o.std}")
    argv += [o.opt, *defines, "-I.", *(f"-I{d}" for d in ("include", "src") if (run.root / d).is_dir()),
             *o.extra_flags, "-MD", "-MF", _arg_path(dep, run.root), "-c", source or rel,
             "-o", _arg_path(obj, run.root)]
    return argv


def _build_per_file(run: _Runner, report: BuildReport) -> None:
    root = run.root
    units = _units(root)
    if not units:
        report.messages.append("no translation units (.cu, .cpp, .cc, .cxx, .c, .hip) found")
        report.ok = False
        return
    cache = Cache(run.state / "cache.json")
    defines, make_libs = _build_file_flags(root)
    host = unit_languages.host_languages(root, units)
    # objects per arch: switching arch compiles into another folder, switching back finds its objects
    objdir = run.state / arch_dir(run.arch) / "obj"
    plans = []
    refused: dict[str, str] = {}
    for rel in units:
        stem = _object_stem(rel)
        obj = str(objdir / (stem + ".o"))
        dep = str(objdir / (stem + ".d"))
        source, why = unit_argument(run, rel)
        if why:
            refused[rel] = why
        argv = _compile_argv(run, rel, obj, dep, defines, source, host.get(rel))
        plans.append((rel, obj, dep, argv))
    commands = [{"directory": str(root), "arguments": argv, "file": rel, "output": obj}
                for rel, obj, dep, argv in plans]
    _put_compile_commands(root, json.dumps(commands, indent=1) + "\n", report)

    results: dict[str, UnitResult] = {}
    keys: dict[str, str] = {}

    def one(plan) -> tuple[UnitResult, list[Diagnostic], str]:
        """(the unit's result, its diagnostics, one line when it could not be written for lack of space)"""
        rel, obj, dep, argv = plan
        if run.cancel.is_set():
            return UnitResult(rel, "cancelled", 0.0, _rel(obj, root)), [], ""
        if rel in refused:
            return (UnitResult(rel, "failed", 0.0, _rel(obj, root)),
                    [Diagnostic(rel, 0, 0, "error", refused[rel], unit=rel)], "")
        uid = f"{run.arch}/{rel}"  # one cache entry per arch and unit
        key = cache.unit_key(argv, str(root / rel))
        keys[rel] = key or ""
        if key and cache.up_to_date(uid, key, obj):
            return UnitResult(rel, "cached", 0.0, _rel(obj, root)), list(_cached_warnings(cache, uid)), ""
        try:
            os.makedirs(os.path.dirname(obj), exist_ok=True)
        except OSError as exc:
            cache.forget(uid)
            line = diskspace.line_for_error(exc, os.path.dirname(obj), str(root))
            return UnitResult(rel, "failed", 0.0, _rel(obj, root)), [Diagnostic(rel, 0, 0, "error", line, unit=rel)], line
        run.emit(f"[compile] {rel}")
        r = proc.stream(argv, timeout=run.options.timeout, cwd=root, env=run.env, cancel=run.cancel,
                        on_line=run.emit)
        ds = run.diags(r.stdout, rel)
        step = run.failed_step(r, f"{os.path.basename(run.tc.compiler)} {rel}")
        if step:
            step.unit = rel
            ds.append(step)
        if r.cancelled:
            return UnitResult(rel, "cancelled", r.duration_s, _rel(obj, root)), ds, ""
        if r.timed_out:
            return UnitResult(rel, "timeout", r.duration_s, _rel(obj, root)), ds, ""
        if r.ok:
            deps = [d for d in read_depfile(dep, str(root)) if d != str(root / rel)]
            cache.record(uid, key or "", deps, warnings=[d.as_dict() for d in ds if d.severity == "warning"])
            return UnitResult(rel, "compiled", r.duration_s, _rel(obj, root)), ds, ""
        cache.forget(uid)
        if not any(d.severity == "error" for d in ds):
            ds.append(Diagnostic(rel, 0, 0, "error", f"{os.path.basename(run.tc.compiler)} failed (exit {r.returncode}): "
                                 f"{_why_failed(r.stdout)[:300]}", unit=rel))
        # (its object, or the depfile beside it: the compiler does not always say which)
        full = diskspace.write_failure_line(obj, str(root), "", True) if diskspace.says_no_space(r.stdout) else ""
        return UnitResult(rel, "failed", r.duration_s, _rel(obj, root)), ds, full

    pool = ThreadPoolExecutor(max_workers=min(_jobs(run.options), len(plans)))
    try:
        futures = [pool.submit(one, p) for p in plans]
        full = []
        for f in futures:
            u, ds, no_space = f.result()
            results[u.file] = u
            report.diagnostics.extend(ds)
            if no_space:
                full.append(no_space)
    except KeyboardInterrupt:
        run.cancel.set()
        pool.shutdown(wait=True, cancel_futures=True)
        try:
            cache.save()
        except OSError:
            pass
        raise
    finally:
        pool.shutdown(wait=True)
    report.units.extend(results[rel] for rel, *_ in plans)
    if full:
        write_failed(report, full[0])
    saved = _save(run, report, cache)
    if run.cancel.is_set():
        report.cancelled = True
        report.ok = False
        return
    if any(u.status != "compiled" and u.status != "cached" for u in report.units) or not saved:
        report.ok = False
        return
    report.ok = True
    if run.options.link:
        # (no unit with device code: no relocatable device code to link; hipcc 5.2's device link of none fails,
        # "target emulation unknown: -m or at least one .o file required")
        device = any(rel not in host for rel, *_ in plans)
        _link(run, report, plans, keys, cache, make_libs if device else [f for f in make_libs if f != "-fgpu-rdc"])


def _cached_warnings(cache: Cache, uid: str):
    rel = uid.split("/", 1)[1] if "/" in uid else uid
    for w in cache.units.get(uid, {}).get("warnings", []):
        d = Diagnostic(w["file"], w["line"], w["column"], w["severity"], w["message"], unit=rel)
        d.source_file, d.source_line = w.get("source_file"), w.get("source_line")
        d.rule, d.hint = w.get("rule", ""), w.get("hint", "")
        yield d


def _link(run: _Runner, report: BuildReport, plans, keys, cache: Cache, make_libs: list[str]) -> None:
    root = run.root
    mains, others = [], []
    libs: list[str] = []
    for rel, obj, dep, argv in plans:
        data = (root / rel).read_bytes()
        (mains if _MAIN.search(data) else others).append((rel, obj))
        for inc in _INCLUDE.findall(data.decode("utf-8", "replace")):
            for key, flag in LINK_LIBS.items():
                if inc.startswith(key + "/") or inc == key + ".h":
                    libs.append(flag)
    for flag in make_libs:
        if (flag.startswith("-l") and flag != "-lcudart") or flag == "-fgpu-rdc":
            libs.append(flag)
    libs = list(dict.fromkeys(libs))
    if not mains:
        report.messages.append("no main(): compiled the units, nothing to link")
        return
    bindir = run.state / arch_dir(run.arch) / "bin"
    try:
        bindir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        write_failed(report, diskspace.line_for_error(exc, str(bindir), str(root)))
        return
    for rel, obj in mains:
        name = (cmakelists.executable_name(root) or root.name) if len(mains) == 1 else Path(rel).stem  # (CMake's own name)
        if not plain_name(name):  # the program's name reaches the link command line: shell-inert letters only
            name = re.sub(r"[^A-Za-z0-9_.+-]", "_", name).lstrip("-.")[:200] or "program"
        out = str(bindir / name)
        objs = [_arg_path(o, root) for o in [obj] + [o for _, o in others]]
        argv = [*run.tc.link_prefix(run.arch), *objs, "-o", _arg_path(out, root), *libs, *run.tc.link_libs()]
        key = sha256_bytes(json.dumps([argv, [keys.get(r, "") for r, _ in [(rel, obj), *others]]]).encode())
        link_id = f"link:{run.arch}/{name}"
        if cache.units.get(link_id, {}).get("key") == key and os.path.exists(out):
            report.units.append(UnitResult(name, "cached", 0.0, _rel(out, root), kind="link"))
            report.outputs.append(_rel(out, root))
            _record_code_objects(report, root, [out])
            continue
        run.emit(f"[link] {name}")
        r = proc.stream(argv, timeout=run.options.timeout, cwd=root, env=run.env, cancel=run.cancel,
                        on_line=run.emit)
        if not r.ok and "-fgpu-rdc" in argv and _only_hip_header_duplicates(r.stdout):
            head = len(run.tc.link_prefix(run.arch))
            argv = [*argv[:head], *DEVICE_LINK_KEEP_ONE, *argv[head:]]
            report.messages.append(f"link {name}: {HIP_HEADER_DUPLICATES_NOTE}")
            run.emit(f"[link] {name} (again, the device linker keeping one copy of HIP's header functions)")
            r = proc.stream(argv, timeout=run.options.timeout, cwd=root, env=run.env, cancel=run.cancel,
                            on_line=run.emit)
        ds = run.diags(r.stdout, f"link {name}")
        step = run.failed_step(r, f"link {name}")
        if step:
            ds.append(step)
        if r.ok:
            cache.record(link_id, key, [])
            report.units.append(UnitResult(name, "linked", r.duration_s, _rel(out, root), kind="link"))
            report.outputs.append(_rel(out, root))
            _record_code_objects(report, root, [out])
        else:
            cache.forget(link_id)
            if not any(d.severity == "error" for d in ds):
                why = _why_failed(r.stdout, "")
                ds.append(Diagnostic("", 0, 0, "error", f"link {name} failed (exit {r.returncode})"
                                     + (f": {why[:300]}" if why else ""), unit=f"link {name}"))
            if diskspace.says_no_space(r.stdout):
                write_failed(report, diskspace.write_failure_line(out, str(root), "", True))
            report.units.append(UnitResult(name, "cancelled" if r.cancelled else "timeout" if r.timed_out else "failed",
                                           r.duration_s, _rel(out, root), kind="link"))
            report.ok = False
            if r.cancelled:
                report.cancelled = True
        report.diagnostics.extend(ds)
    _save(run, report, cache)  # (a program linked stays reported: it is on disk, only porter's record of it is not)


# HIP 5.2's cooperative-groups header (amd_detail/hip_cooperative_groups_helper.h) defines
# cooperative_groups::internal::coalesced_group::masked_bit_count neither static nor inline: every unit that
# includes it holds a copy, and a -fgpu-rdc device link (lld) rejects the second.  Newer HIP headers declare it
# static (__CG_STATIC_QUALIFIER__).  The copies are the same header code, so the device linker may keep one.
DEVICE_LINK_KEEP_ONE = ("-Xoffload-linker", "--allow-multiple-definition")
HIP_HEADER_DUPLICATES_NOTE = (
    "the installed HIP's cooperative-groups header defines a function in every unit that includes it, which a "
    "-fgpu-rdc device link rejects (newer HIP headers declare it static); linked again with -Xoffload-linker "
    "--allow-multiple-definition, the copies being the same header code")
_DUPLICATE = re.compile(r"duplicate symbol: (\S+)")


def _only_hip_header_duplicates(output: str) -> bool:
    """The link failed on duplicate symbols and every one is a function of HIP's own cooperative-groups header
    (never a project's own symbol defined twice: that stays an error)."""
    found = _DUPLICATE.findall(output)
    return bool(found) and all(s.startswith("cooperative_groups::internal::") for s in found)


def _why_failed(output: str, default: str = "no output") -> str:
    """The line that says why a tool failed: the first error line it printed (clang's own, e.g. "fatal error:
    cannot open file '…/ocml.bc': …"), not its closing count ("1 error generated"); else its last line."""
    lines = [ln.strip() for ln in output.splitlines() if ln.strip()]
    for ln in lines:
        if re.search(r"(^|: )(fatal error|error):", ln) and not re.search(r"\d+ errors? generated", ln) \
                and "linker command failed" not in ln:
            return ln
    lines = [ln for ln in lines if "linker command failed" not in ln and not re.search(r"\d+ errors? generated", ln)] \
        or lines
    return lines[-1] if lines else default


def _record_code_objects(report: BuildReport, root: Path, paths: list[str]) -> None:
    """The GPU targets each output's fat binary holds (what was really built); [] for a program read whole that
    holds none (an object with none is left out: a host unit)."""
    from porter.build import fatbin

    for p in paths:
        try:
            found = fatbin.targets(p)
        except fatbin.FatbinError:
            continue
        rel = _rel(p, root)
        if found or rel in report.outputs:
            report.code_objects[rel] = found


def check_code_objects(report: BuildReport) -> None:
    """A build is never ok for an arch its code objects do not hold: one error line per program that
    lacks it, one for all the objects that do."""
    from porter.build import fatbin

    programs, objects = [], []
    for path, found in report.code_objects.items():
        if found and not fatbin.holds(found, report.arch):
            (programs if path in report.outputs else objects).append((path, found))
    for path, found in programs:
        report.diagnostics.append(Diagnostic("", 0, 0, "error", fatbin.mismatch_line(path, found, report.arch),
                                             unit="code objects"))
    if objects:
        first, found = objects[0]
        more = f" and {len(objects) - 1} other object{'s' if len(objects) > 2 else ''}" if len(objects) > 1 else ""
        report.diagnostics.append(Diagnostic("", 0, 0, "error", fatbin.mismatch_line(first + more, found, report.arch),
                                             unit="code objects"))
    if programs or objects:
        report.ok = False


# ---------------------------------------------------------------- make

def _make_env(run: _Runner) -> dict[str, str]:
    """The environment make runs in.  With hipcc, ``--flag``'s extra flags ride in HIPCC_COMPILE_FLAGS_APPEND,
    which hipcc (5.2's hipcc.pl) adds to every command that compiles a source, not to a link of objects.
    hipcc pastes that value into the one command line it runs through /bin/sh, so each flag is quoted
    for sh (one word each: spaces, quotes and ``$`` reach the compiler as they are); a value the user's
    environment already holds comes first.  (A plain clang's flags are in the front's JSON file instead.)"""
    flags = run.options.extra_flags
    if not flags or run.tc.compiler_kind == "clang":
        return run.env
    env = dict(run.env)
    given = env.get("HIPCC_COMPILE_FLAGS_APPEND", "").strip()
    env["HIPCC_COMPILE_FLAGS_APPEND"] = " ".join([*([given] if given else []), *(shlex.quote(f) for f in flags)])
    return env


def _output_sync(tc: Toolchain) -> list[str]:
    """make's flag that writes each recipe's output whole (GNU make 4+; see toolchain.make_has_output_sync):
    without it two compilers' messages interleave mid-line and the build's diagnostics lose them."""
    return ["--output-sync=target"] if tc.make_output_sync else []


def _cmake_generator(bdir: Path) -> str:
    """The generator a configured CMake build folder uses (its CMakeCache.txt), or ""."""
    try:
        text = (bdir / "CMakeCache.txt").read_text(errors="replace")
    except OSError:
        return ""
    m = re.search(r"^CMAKE_GENERATOR:INTERNAL=(.*)$", text, re.M)
    return m.group(1).strip() if m else ""


def _make_vars(run: _Runner) -> list[str]:
    """make's command-line variables: the arch, and for a plain clang a
    hipcc-like script as $(HIPCC) (command-line variables beat ?= and :=)."""
    out = [f"HIP_ARCH={run.arch}"]
    if run.tc.compiler_kind == "clang":
        out.append(f"HIPCC={_driver_script(run)}")
    return out


def _driver_script(run: _Runner) -> str:
    import sys

    from porter.build import hipdriver

    cfg = {"clang": run.tc.compiler, "flags": run.tc.hip_flags(), "link": run.tc.link_libs(),
           "compile_flags": list(run.options.extra_flags)}  # --flag: for the commands that compile a source
    conf = run.state / "hipcc.json"
    script = run.state / "hipcc"
    text = json.dumps(cfg, indent=1) + "\n"
    body = (f"#!/bin/sh\n# porter: hipcc-like front for {run.tc.name} (porter/build/hipdriver.py)\n"
            f"exec {shlex.quote(sys.executable)} -SE {shlex.quote(hipdriver.__file__)} {shlex.quote(str(conf))} \"$@\"\n")
    if not conf.is_file() or conf.read_text() != text:
        _write_text(conf, text)
    if not script.is_file() or script.read_text() != body:
        _write_text(script, body, 0o755)
    return str(script)


def _make_commands(run: _Runner, makefile: str, cache: Cache) -> list[dict]:
    """Compile commands from a dry run (``make -n -B``), cached by Makefile content."""
    key = sha256_bytes(json.dumps([cache.file_hash(str(run.root / makefile)), _make_vars(run)]).encode())
    memo = cache.extra.get("make_commands")
    if isinstance(memo, dict) and memo.get("key") == key and "links" in memo:
        return memo["commands"]
    r = proc.run([run.tc.make or "make", "-n", "-B", *_make_vars(run)], timeout=60, cwd=run.root, env=run.env)
    commands, links, implicit = [], [], []
    for line in r.stdout.splitlines():
        try:
            words = shlex.split(line)
        except ValueError:
            continue
        if "-c" not in words:
            if words and "-o" in words[:-1] and any(w.endswith(".o") for w in words):  # a link: its program
                links.append(words[words.index("-o") + 1])
            continue
        srcs = [w for w in words if w.endswith(UNIT_SUFFIXES) and (run.root / w).is_file()]
        if not srcs:
            continue
        out = words[words.index("-o") + 1] if "-o" in words[:-1] else ""
        if not out:  # `hipcc -c a.cu`: a.o in the folder make runs in
            implicit += [os.path.splitext(os.path.basename(src))[0] + ".o" for src in srcs]
        commands.append({"directory": str(run.root), "arguments": words, "file": srcs[0], "output": out})
    cache.extra["make_commands"] = {"key": key, "commands": commands, "links": links, "implicit": implicit}
    cache.dirty = True
    return commands


def _make_outputs(run: _Runner, cache: Cache, commands: list[dict]) -> list[str]:
    """What the Makefile builds (objects and programs, from its dry run), relative to the folder."""
    memo = cache.extra.get("make_commands") or {}
    outs = [c["output"] for c in commands if c["output"]] + list(memo.get("implicit", [])) + list(memo.get("links", []))
    return list(dict.fromkeys(o for o in outs if o))


def _remove_outputs(run: _Runner, outputs: list[str]) -> None:
    """Delete the Makefile's objects and programs (before a rebuild for another arch: a compile that
    fails then leaves no object of the old arch behind for the next build to count as up to date).
    Only files under the folder that are not sources or build files."""
    keep = (*UNIT_SUFFIXES, ".h", ".hpp", ".cuh", ".hh", ".inl", ".mk", ".cmake", ".txt")
    for rel in outputs:
        p = (run.root / rel)
        try:
            if not p.resolve().is_relative_to(run.root) or rel.endswith(keep) or p.name in MAKEFILES \
                    or not p.is_file():
                continue
            p.unlink()
        except OSError:
            continue


_WHY_NOT_BUILT = re.compile(r"(?i)\bwarning\b|\bwaiv|\bnot found\b|\bskipp|\bmissing\b|\bnot supported\b")


def _built_nothing(r: proc.Result, outputs: list[str], root: Path) -> Diagnostic | None:
    """An error when make succeeded and none of the files its Makefile builds (its dry run's objects and
    programs) is there: its recipes did not compile (NVIDIA's samples waive themselves that way, their
    commands turned into ``@echo`` when a dependency such as libcuda.so is not found), so the build is not
    reported as one.  The lines where make said why come with it."""
    if not r.ok or not outputs or any((root / o).exists() for o in outputs):
        return None
    said = [ln.strip() for ln in r.stdout.splitlines() if _WHY_NOT_BUILT.search(ln)][:2]
    shown = ", ".join(outputs[:3]) + (", ..." if len(outputs) > 3 else "")
    return Diagnostic("", 0, 0, "error", f"make succeeded but none of the {len(outputs)} files the Makefile builds "
                      f"({shown}) is there: its recipes compiled nothing"
                      + (f"; make said: {' | '.join(said)[:300]}" if said else ""), unit="make")


def _build_make(run: _Runner, report: BuildReport, makefile: str) -> None:
    cache = Cache(run.state / "cache.json")
    commands = _make_commands(run, makefile, cache)
    outputs = _make_outputs(run, cache, commands)
    # make knows times, not archs: objects built for another arch count as up to date. porter records the arch
    # of the last make build; for another one it rebuilds everything (make -B), unless the Makefile already
    # puts each arch's outputs apart (every output path names the arch)
    apart = bool(outputs) and all(run.arch in o or arch_dir(run.arch) in o for o in outputs)
    recorded = cache.extra.get("make_arch")
    arch_rebuild = not apart and recorded != run.arch
    # nor the flags: --flag's extra flags of the build that made this arch's objects (none recorded: none,
    # as no build before porter recorded them passed any to make), and another set rebuilds all as well
    flags = list(run.options.extra_flags)
    by_arch = cache.extra.get("make_flags")
    by_arch = by_arch if isinstance(by_arch, dict) else {}
    flags_rebuild = not arch_rebuild and by_arch.get(run.arch, []) != flags
    rebuild = arch_rebuild or flags_rebuild
    if rebuild:
        existing = [o for o in outputs if (run.root / o).is_file()]
        if existing and arch_rebuild:
            was = f"built for {recorded}" if recorded else "of an unknown arch (no porter build recorded it)"
            report.messages.append(f"the Makefile's objects on disk are {was}: rebuilding all of them for "
                                   f"{run.arch} (make -B)")
        elif existing:
            report.messages.append("the Makefile's objects on disk were built with other extra flags (--flag): "
                                   "rebuilding all of them (make -B)")
        _remove_outputs(run, existing)
        cache.extra.pop("make_arch", None)  # until this build has run
        # (a cancelled build leaves objects of either set: unknown, so the next build rebuilds them too)
        cache.extra["make_flags"] = {**({} if arch_rebuild else by_arch), run.arch: None}
        cache.dirty = True
    if not _save(run, report, cache):
        return
    _put_compile_commands(run.root, json.dumps(commands, indent=1) + "\n", report)
    before = {}
    for c in commands:
        p = run.root / c["output"] if c["output"] else None
        before[c["file"]] = p.stat().st_mtime_ns if p and p.exists() else None
    argv = [run.tc.make or "make", "-k", f"-j{_jobs(run.options)}", *_output_sync(run.tc), *(["-B"] if rebuild else []),
            *_make_vars(run)]
    run.emit("[make] " + " ".join(argv))
    r = proc.stream(argv, timeout=run.options.timeout, cwd=run.root, env=_make_env(run), cancel=run.cancel,
                    on_line=run.emit)
    if not r.cancelled:  # what is on disk now was built for this arch, with these flags (or is gone)
        if not apart:
            cache.extra["make_arch"] = run.arch
        known = cache.extra.get("make_flags")
        cache.extra["make_flags"] = {**(known if isinstance(known, dict) else {}), run.arch: flags}
        cache.dirty = True
        _save(run, report, cache)
    ds = run.diags(r.stdout, "make")
    step = run.failed_step(r, "make")
    if step:
        ds.append(step)
    report.diagnostics.extend(ds)
    for c in commands:
        p = run.root / c["output"] if c["output"] else None
        now = p.stat().st_mtime_ns if p and p.exists() else None
        failed = any(d.unit == "make" and d.severity == "error" and d.file == c["file"] for d in ds)
        status = ("failed" if failed or now is None else "up-to-date" if now == before[c["file"]] else "compiled")
        report.units.append(UnitResult(c["file"], status, None, c["output"]))
    programs = [p for p in cache.extra["make_commands"].get("links", []) if (run.root / p).is_file()]
    if r.ok:
        report.outputs.extend(programs)
    _record_code_objects(report, run.root, [str(run.root / p) for p in
                                            [c["output"] for c in commands if c["output"]] + programs
                                            if (run.root / p).is_file()])
    report.units.append(UnitResult("make", "cancelled" if r.cancelled else "timeout" if r.timed_out
                                   else "compiled" if r.ok else "failed", r.duration_s, kind="step"))
    report.cancelled = r.cancelled
    report.ok = r.ok and not report.write_error
    nothing = _built_nothing(r, outputs, run.root)
    if nothing:
        report.diagnostics.append(nothing)
        report.ok = False
    unexplained = _unexplained_failure(r, ds, "make", run.root / makefile)
    if unexplained:
        report.diagnostics.append(unexplained)
    if not r.ok and diskspace.says_no_space(r.stdout):  # make does not say which file: the folder it built in
        write_failed(report, diskspace.write_failure_line(str(run.root), str(run.root), "", True))


# ---------------------------------------------------------------- cmake

def _enables_hip(root: Path) -> bool:
    """Whether the top CMakeLists.txt enables CMake's HIP language (porter convert's migration does)."""
    try:
        text = re.sub(r"#[^\n]*", "", (root / "CMakeLists.txt").read_text(errors="replace"))
    except OSError:
        return False
    return re.search(r"(?is)\b(project|enable_language)\s*\([^)]*\bHIP\b", text) is not None


def hip_language_problem(root: Path, rocm_path: str) -> str:
    """Why CMake's HIP language cannot configure here, or "".  CMake (3.21+) looks for
    ROCM_ROOT/lib/cmake/hip-lang/hip-lang-config.cmake; Debian 12 ships that package
    under lib/x86_64-linux-gnu/cmake/hip-lang, where CMake does not look (measured:
    "The ROCm root directory: /usr does not contain the HIP runtime CMake package")."""
    if not _enables_hip(root):
        return ""
    for r in {rocm_path or "/usr", "/opt/rocm"}:
        if os.path.isfile(os.path.join(r, "lib", "cmake", "hip-lang", "hip-lang-config.cmake")):
            return ""
    return (f"CMake's HIP language needs ROCm's hip-lang package at {rocm_path or '/usr'}/lib/cmake/hip-lang/ "
            "(Debian 12 puts it under lib/x86_64-linux-gnu/cmake/, where CMake does not look)")


CMAKE_FLAGS_FILE = "porter-flags.cmake"  # in a CMake build folder: --flag's extra flags (cmake_flags_file)


def cmake_flags_file(flags: list[str] | tuple[str, ...], lang: str) -> str:
    """A CMake file (CMAKE_PROJECT_INCLUDE, read after ``project()``) adding ``--flag``'s extra flags to
    every ``lang`` compile of the project, once (at the top project(), so every folder's targets get them).
    Each flag is a CMake bracket argument (no variable is expanded in it) inside
    ``$<$<COMPILE_LANGUAGE:lang>:...>``, with ``;`` (a list separator), ``,`` and ``>`` escaped: CMake then
    quotes it for the build tool and its shell, and the compiler gets it as one argument, as given."""
    lines = ["# porter build --flag: extra flags for the project's compiles (written by porter/build/runner.py)",
             "get_property(_porter_flags_added GLOBAL PROPERTY PORTER_EXTRA_FLAGS_ADDED)",
             "if(NOT _porter_flags_added)",
             "  set_property(GLOBAL PROPERTY PORTER_EXTRA_FLAGS_ADDED 1)"]
    for flag in flags:
        text = flag.replace(";", "\\;").replace(">", "$<ANGLE-R>").replace(",", "$<COMMA>")
        text = f"$<$<COMPILE_LANGUAGE:{lang}>:{text}>"
        eq = "="
        while f"]{eq}]" in text:
            eq += "="
        lines.append(f"  add_compile_options([{eq}[{text}]{eq}])")
    lines.append("endif()")
    return "\n".join(lines) + "\n"


def cmake_configure_argv(run: _Runner, bdir: Path, configured_flags: list[str] | tuple[str, ...] = ()) -> list[str]:
    """``cmake -S -B`` with the arch, a plain clang as the HIP compiler, and ``--flag``'s extra flags: a file
    of porter's (cmake_flags_file, in the build folder) read after ``project()``, adding them to the compiles
    of the language the project compiles its GPU code with: HIP when it enables HIP (a migrated
    CMakeLists does), else CXX (a HIP project whose C++ compiler is hipcc).  Also named when the folder was
    configured with other extra flags (``configured_flags``), so that flags taken away go too."""
    argv = [run.tc.cmake, "-S", str(run.root), "-B", str(bdir), f"-DCMAKE_HIP_ARCHITECTURES={run.arch}",
            "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON", "-DCMAKE_BUILD_TYPE=Release"]
    if run.tc.compiler_kind == "clang":
        argv += [f"-DCMAKE_HIP_COMPILER={run.tc.compiler}", f"-DCMAKE_HIP_FLAGS={' '.join(run.tc.hip_flags())}"]
    if run.options.extra_flags or configured_flags:
        argv.append(f"-DCMAKE_PROJECT_INCLUDE={bdir / CMAKE_FLAGS_FILE}")
    return argv


def _build_cmake(run: _Runner, report: BuildReport) -> bool:
    """Configure + build with CMake; False when configuring fails (the caller falls back)."""
    why = hip_language_problem(run.root, run.tc.rocm_path)
    if why:
        report.messages.append(why)
        return False
    bdir = run.state / "cmake" / arch_dir(run.arch)  # a build folder per arch (CMake keeps the arch it was configured for)
    cache = Cache(run.state / "cache.json")
    lists = sorted(str(p) for p in run.root.rglob("CMakeLists.txt") if ".porter" not in p.parts)
    flags = list(run.options.extra_flags)
    key = sha256_bytes(json.dumps([[cache.file_hash(p) for p in lists], run.arch, run.tc.compiler,
                                   run.tc.device_lib_path, flags]).encode())
    failed_before = cache.extra.get("cmake_failed")
    if isinstance(failed_before, dict) and failed_before.get("key") == key:
        report.messages.append(f"CMake configure failed before with this CMakeLists.txt: {failed_before['why']}")
        return False
    stamp = bdir / "porter-toolchain.txt"  # the compiler this folder was configured with
    try:
        configured_with = stamp.read_text()
    except OSError:
        configured_with = None
    if configured_with is not None and configured_with != run.tc.compiler:
        import shutil

        shutil.rmtree(bdir, ignore_errors=True)
    # --flag's extra flags, as the folder was configured with them (CMake keeps them in its cache, and
    # recompiles what they change once configured again with others)
    flags_stamp = bdir / "porter-flags.json"
    try:
        configured_flags = json.loads(flags_stamp.read_text())
    except (OSError, ValueError):
        configured_flags = []  # (a folder configured before porter recorded them: none were passed)
    if not (bdir / "CMakeCache.txt").is_file() or configured_flags != flags:
        argv = cmake_configure_argv(run, bdir, configured_flags)
        if any(a.startswith("-DCMAKE_PROJECT_INCLUDE=") for a in argv):
            bdir.mkdir(parents=True, exist_ok=True)
            _write_text(bdir / CMAKE_FLAGS_FILE, cmake_flags_file(flags, "HIP" if _enables_hip(run.root) else "CXX"))
        run.emit("[cmake] configure")
        r = proc.stream(argv, timeout=run.options.timeout, cwd=run.root, env=run.env, cancel=run.cancel,
                        on_line=run.emit)
        if not r.ok:
            if r.cancelled:
                report.cancelled = True
                return True
            lines = [ln.strip() for ln in r.stdout.splitlines() if ln.strip()]
            at = next((i for i, ln in enumerate(lines) if "CMake Error" in ln or "error" in ln.lower()), None)
            why = " ".join(lines[at:at + 4]) if at is not None else (lines[-1] if lines else "no output")
            why = why[:400]
            cache.extra["cmake_failed"] = {"key": key, "why": why}
            cache.dirty = True
            if not _save(run, report, cache):
                return True
            import shutil

            shutil.rmtree(bdir, ignore_errors=True)
            report.messages.append(f"CMake configure failed: {why}")
            return False
        try:
            stamp.write_text(run.tc.compiler)
            _write_text(flags_stamp, json.dumps(flags))
        except OSError:
            pass
    argv = [run.tc.cmake, "--build", str(bdir), "-j", str(_jobs(run.options))]
    sync = _output_sync(run.tc)
    if sync and _cmake_generator(bdir) == "Unix Makefiles":  # (Ninja holds each command's output itself)
        argv += ["--", *sync]
    run.emit("[cmake] build")
    r = proc.stream(argv, timeout=run.options.timeout, cwd=run.root, env=run.env, cancel=run.cancel, on_line=run.emit)
    ds = run.diags(r.stdout, "cmake", cwd=bdir)
    step = run.failed_step(r, "cmake --build") or _unexplained_failure(r, ds, "cmake --build")
    if step:
        ds.append(step)
    report.diagnostics.extend(ds)
    report.units.append(UnitResult("cmake --build", "cancelled" if r.cancelled else "timeout" if r.timed_out
                                   else "compiled" if r.ok else "failed", r.duration_s, kind="step"))
    report.ok, report.cancelled = r.ok, r.cancelled
    if not r.ok and diskspace.says_no_space(r.stdout):
        write_failed(report, diskspace.write_failure_line(str(bdir), str(run.root), "", True))
    if r.ok:
        report.outputs.extend(_rel(str(p), run.root) for p in _programs(bdir))
    _record_code_objects(report, run.root, [*_cmake_objects(bdir), *(str(run.root / o) for o in report.outputs)])
    cc = bdir / "compile_commands.json"
    if cc.is_file():
        _put_compile_commands(run.root, cc.read_text(errors="replace"), report)
    return True


def _put_compile_commands(root: Path, text: str, report) -> None:
    """ROOT/compile_commands.json for editors and clangd, written only when its text changes; a folder
    that cannot take it is a message in the report, not a failed build."""
    dest = root / "compile_commands.json"
    try:
        if not dest.is_file() or dest.read_text(errors="replace") != text:
            _write_text(dest, text)
        report.compile_commands = "compile_commands.json"
    except OSError as exc:
        report.messages.append(f"cannot write compile_commands.json: {exc.strerror or exc}")


def _programs(bdir: Path) -> list[Path]:
    """The executables a CMake build made (ELF files with the x bit, outside CMakeFiles/)."""
    out = []
    for dirpath, dirnames, filenames in os.walk(bdir):
        dirnames[:] = sorted(d for d in dirnames if d != "CMakeFiles" and not d.startswith("."))
        for name in sorted(filenames):
            p = Path(dirpath) / name
            try:
                if os.access(p, os.X_OK) and p.is_file():
                    with open(p, "rb") as fh:
                        if fh.read(4) == b"\x7fELF":
                            out.append(p)
            except OSError:
                continue
    return out


def _cmake_objects(bdir: Path) -> list[str]:
    """The objects of a CMake build (its compile_commands.json's outputs)."""
    try:
        commands = json.loads((bdir / "compile_commands.json").read_text(errors="replace"))
    except (OSError, ValueError):
        return []
    out = []
    for c in commands if isinstance(commands, list) else []:
        if isinstance(c, dict) and c.get("output"):
            p = Path(c.get("directory") or bdir) / c["output"]
            if p.is_file():
                out.append(str(p))
    return out


# ---------------------------------------------------------------- a folder of several projects

def _project_rel(root: Path, project: str) -> str:
    """``--project PATH`` as a path relative to ``root`` ("" for the root itself): PATH relative to the
    build folder, or to the current folder, or absolute, inside the build folder and existing."""
    given = Path(project)
    for cand in ([given] if given.is_absolute() else [root / given, Path.cwd() / given]):
        try:
            full = cand.resolve()
            rel = full.relative_to(root)
        except (OSError, ValueError):
            continue
        if full.exists():
            return "" if rel == Path(".") else rel.as_posix()
    raise BuildError(f"--project {project}: no such file or folder in {root}")


def select_projects(root: Path, options: BuildOptions, notes: list[str] | None = None) -> list[SubProject]:
    """The sub-projects to build: all of a folder of several, or the one holding ``options.project``
    (all, with a note, when that path is in none of them: a header shared from Common/); [] when
    ``root`` is one project.  BuildError (before anything is written) for a --project path not in the folder."""
    rel = _project_rel(root, options.project) if options.project is not None else None
    subs = find_subprojects(root)
    if not subs or not rel:
        return subs
    sub = project_of(subs, rel)
    if sub is not None:
        return [sub]
    if notes is not None:
        notes.append(f"{rel} is in none of the {len(subs)} projects of this folder: building all of them")
    return subs


def _rebase_path(path: str, root: Path, sub: str) -> str:
    """A path a sub-project's build reported (relative to its folder, or absolute) -> relative to the
    top folder when inside it, else absolute."""
    if not path:
        return path
    full = os.path.normpath(path if os.path.isabs(path) else os.path.join(root, sub, path))
    rel = _rel(full, root)
    return full if rel.startswith("..") else rel


def _rebase(rep: BuildReport, root: Path, sub: str, smap: SourceMap) -> None:
    """A sub-project's report in the top folder's terms: paths relative to it, diagnostics mapped back to
    the reviewed CUDA lines through the top folder's manifest (a shared Common/ header's too)."""
    diags = [x for d in rep.diagnostics for x in (d, *d.notes)]
    for d in diags:
        d.file = _rebase_path(d.file, root, sub)
        d.included_from = [(_rebase_path(f, root, sub), n) for f, n in d.included_from]
        if d.cause:
            where, _, line = d.cause.rpartition(":")
            d.cause = f"{_rebase_path(where, root, sub)}:{line}"
    smap.apply(rep.diagnostics)
    for u in rep.units:
        u.file = _rebase_path(u.file, root, sub) if u.kind == "compile" else f"{sub}: {u.file}"
        u.output = _rebase_path(u.output, root, sub)
    rep.outputs = [_rebase_path(o, root, sub) for o in rep.outputs]
    rep.code_objects = {_rebase_path(k, root, sub): v for k, v in rep.code_objects.items()}


def _build_projects(root: Path, subs: list[SubProject], options: BuildOptions, tc: Toolchain, on_line,
                    cancel: threading.Event, report: BuildReport) -> None:
    """Build each project of a folder of several in its own folder, with its own build file and flags;
    the report holds each one's result, and is ok only when every one built."""
    smap = SourceMap.load(root)
    report.system = "projects"
    said: list[tuple[str, str]] = []  # (project, message) of each project's notes
    for sub in subs:
        sub_root = root / sub.rel
        rep = BuildReport(False, report.arch, tc.compiler, "none", str(sub_root), toolchain=report.toolchain)
        if cancel.is_set():
            report.projects.append(ProjectResult(sub.rel, "none", False, cancelled=True))
            continue
        start = time.monotonic()
        # its build state (objects, caches, the hipcc front) under the top folder's .porter/build/
        run = _Runner(sub_root, options, tc, report.arch, on_line, cancel,
                      state=root / STATE_DIR / "projects" / sub.rel)
        run.emit(f"[project] {sub.rel}")
        rep.system = choose_system(sub_root, options, tc, rep.messages)
        _build_system(run, rep)
        if not rep.cancelled:
            check_code_objects(rep)
        if rep.errors and not rep.cancelled:
            rep.ok = False
        _rebase(rep, root, sub.rel, smap)
        report.projects.append(ProjectResult(
            sub.rel, rep.system, rep.ok, rep.cancelled, len(rep.errors),
            sum(1 for d in rep.diagnostics if d.severity == "warning"), time.monotonic() - start,
            list(rep.outputs), list(rep.messages)))
        report.units.extend(rep.units)
        report.diagnostics.extend(rep.diagnostics)
        report.outputs.extend(rep.outputs)
        report.code_objects.update(rep.code_objects)
        said.extend((sub.rel, m) for m in rep.messages)
        report.cancelled = report.cancelled or rep.cancelled
        report.write_error = report.write_error or rep.write_error  # (its line is among the diagnostics)
    report.messages.extend(project_notes(said))
    report.ok = bool(report.projects) and all(p.ok for p in report.projects)


def project_notes(said: list[tuple[str, str]], named: int = 3) -> list[str]:
    """The notes of several projects, each said once: ``PROJECT: note`` where one project has it, else the note
    with how many projects have it and the first ``named`` of them (a samples tree's 70 CMake projects all
    falling back to per-file builds is one line, not 70; each project's own notes stay in its result)."""
    who: dict[str, list[str]] = {}
    for rel, message in said:
        who.setdefault(message, []).append(rel)
    out = []
    for message, rels in who.items():
        if len(rels) == 1:
            out.append(f"{rels[0]}: {message}")
        else:
            more = f" and {len(rels) - named} more" if len(rels) > named else ""
            out.append(f"{message} ({len(rels)} projects: {', '.join(rels[:named])}{more})")
    return out


def _build_system(run: _Runner, report: BuildReport) -> None:
    """Build ``run.root`` with ``report.system`` (make, cmake, else per file); CMake that cannot
    configure falls back to per file."""
    if report.system == "make" and not run.tc.make:
        raise BuildError("make is not installed (apt-get install make)")
    if report.system == "cmake" and not run.tc.cmake:
        raise BuildError("cmake is not installed (apt-get install cmake)")
    if report.system == "make":
        makefile = next(m for m in MAKEFILES if (run.root / m).is_file())
        _build_make(run, report, makefile)
    elif report.system == "cmake":
        if not _build_cmake(run, report):
            report.system = "per-file"
            report.messages.append("building per file instead, with the definitions, include folders and "
                                   "libraries of CMakeLists.txt (porter build --per-file)")
            _build_per_file(run, report)
    else:
        _build_per_file(run, report)


# ---------------------------------------------------------------- entry point

def choose_system(root: Path, options: BuildOptions, tc: Toolchain, notes: list[str] | None = None) -> str:
    """How to build ``root``: "projects" for a folder of several (each then gets its own choice), else
    the Makefile, else CMake, else per file (--per-file / --system say which for each project)."""
    if find_subprojects(root):
        return "projects"
    if options.per_file or options.system == "per-file":
        return "per-file"
    if options.system in ("make", "cmake"):
        return options.system
    notes = notes if notes is not None else []
    makefile = next((root / m for m in MAKEFILES if (root / m).is_file()), None)
    if tc.make and makefile is not None:
        if not _still_cuda(makefile):
            return "make"
        notes.append(f"{makefile.name} still calls nvcc (not migrated: porter convert migrates it); not used")
    lists = root / "CMakeLists.txt"
    if tc.cmake and lists.is_file():
        if not _still_cuda(lists):
            return "cmake"
        notes.append("CMakeLists.txt still enables CUDA (not migrated: porter convert migrates it); not used")
    return "per-file"


def target_mismatch(hip_version: str, target: str | None) -> str | None:
    """A note when the port was converted for a newer ROCm than the toolchain's HIP headers: APIs added in
    between are emitted by the conversion and will not compile here."""
    from porter.mapping import version_key

    have = version_key(hip_version or "")[:2]
    if len(have) < 2 or not target or version_key(target)[:2] <= have:
        return None
    have_text, want = "%d.%d" % have, "%d.%d" % version_key(target)[:2]
    return (f"the port targets ROCm {want} but this toolchain's HIP is {have_text}: APIs added after {have_text} will "
            f"not compile here (convert with --target-rocm {have_text} to have porter report them as PORT032)")


def run_build(directory: str | os.PathLike, options: BuildOptions = BuildOptions(), on_line=None,
              cancel: threading.Event | None = None, toolchain: Toolchain | None = None) -> BuildReport:
    """Build ``directory``.  Raises BuildError only for unusable input (no such
    folder, a CUDA source tree, malformed arch); everything else is in the report."""
    start = time.monotonic()
    root = Path(directory)
    if not root.is_dir():
        raise BuildError(f"{directory}: no such folder")
    root = root.resolve()
    why = cuda_source(root)  # before anything is written: the CUDA source tree is never written
    if why:
        shown = os.fspath(directory)
        raise BuildError(f"{shown} is CUDA source ({why}): convert it first "
                         f"(porter convert {shown} -o {shown.rstrip('/') or shown}-hip)")
    if options.arch is not None and not valid_arch_name(options.arch):
        raise BuildError(f"--arch {options.arch!r} is not an AMD GPU target (e.g. gfx942, gfx90a)")
    if options.toolchain not in KINDS:
        raise BuildError(f"--toolchain {options.toolchain!r}: one of {', '.join(KINDS)}")
    project_notes: list[str] = []
    projects = select_projects(root, options, project_notes)  # a bad --project: refused before any write
    cancel = cancel or threading.Event()
    tc = toolchain or _toolchain(root, options.arch, options.toolchain, project_notes)
    if options.arch and tc.arch != options.arch:
        tc = replace(tc, arch=options.arch)
    arch = tc.arch
    report = BuildReport(False, arch, tc.compiler, "none", str(root), toolchain=tc.name if tc.found else "")
    problem = tc.arch_problem()
    if problem:
        report.diagnostics.append(Diagnostic("", 0, 0, "error", problem))
        report.duration_s = time.monotonic() - start
        return report
    try:
        run = _Runner(root, options, tc, arch, on_line, cancel)
    except OSError as exc:  # its state folder cannot be made (a read-only or full disk, a file in the way)
        write_failed(report, diskspace.line_for_error(exc, str(root / STATE_DIR), str(root)))
        report.duration_s = time.monotonic() - start
        return report
    if tc.reason:
        report.messages.append(f"toolchain: {tc.reason}")
    run.emit(f"[toolchain] {tc.reason or tc.name} for {arch}")
    report.messages.extend(project_notes)
    report.target_rocm = options.target_rocm
    mismatch = target_mismatch(tc.hip_version, options.target_rocm)
    if mismatch:
        report.messages.append(mismatch)
    elif options.target_rocm and options.target_from:
        report.messages.append(f"the port targets ROCm {options.target_rocm} ({options.target_from})")
    report.system = choose_system(root, options, tc, report.messages)
    try:
        if report.system == "projects":  # a folder of several: each built on its own (subprojects.py)
            _build_projects(root, projects, options, tc, on_line, cancel, report)
        else:
            _build_system(run, report)
    except OSError as exc:  # a write porter does not expect to fail (the hipcc front, a folder): one line
        write_failed(report, diskspace.line_for_error(exc, str(root / STATE_DIR), str(root)))
    if not report.cancelled and report.system != "projects":  # (each project checked its own)
        check_code_objects(report)
    if (report.errors or report.write_error) and not report.cancelled:
        report.ok = False
    report.duration_s = time.monotonic() - start
    return report
