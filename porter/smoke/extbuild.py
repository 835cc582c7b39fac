"""Build a project's PyTorch extension for the smoke test, against the installed torch, in a cache.

The project's sources (C/C++/CUDA/HIP files and headers) are copied into
``CACHE/<module>-<hash>/src`` (the hash covers their content, the flags, torch and Python), so the
user's tree is never written to (torch's ROCm build hipifies in place) and an unchanged project
rebuilds nothing; ``torch.utils.cpp_extension.load`` builds it there with ninja, in a subprocess that
is time-limited and cancellable (porter.proc).  A compiler error becomes one line pointing at the
project's file and line (porter.build.diagnostics parses the compiler output).

Which extensions can build here: a ``CppExtension`` always (host compiler); a ``CUDAExtension`` needs
a GPU build of torch and a visible GPU, and HIP sources (a port) need a ROCm torch.  ``unavailable``
says why not, in words for the report.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

from porter.cachedir import private_dir
from porter.smoke.options import SmokeError
from porter.smoke.setupread import ExtensionSpec

COPY_SUFFIXES = {".c", ".cc", ".cpp", ".cxx", ".cu", ".cuh", ".h", ".hh", ".hpp", ".hxx", ".inl", ".inc", ".ipp", ".tpp",
                 ".hip"}
GPU_SUFFIXES = {".cu", ".hip"}
SKIP_DIRS = {"build", "dist", "__pycache__", "node_modules"}
MAX_FILE = 4 * 2**20
MAX_FILES = 5000
_HIP_MARK = re.compile(rb'#\s*include\s*[<"](?:hip/|ATen/hip/|c10/hip/)|\bhipLaunchKernelGGL\b|\bhip(?:Stream|Error)_t\b')

# the child: load() builds with ninja into build_directory and imports the module to check it loads
_CHILD = r"""
import json, sys, warnings
warnings.filterwarnings("ignore")
spec = json.loads(sys.argv[1])
from torch.utils.cpp_extension import load
m = load(name=spec["name"], sources=spec["sources"], extra_cflags=spec["extra_cflags"],
         extra_cuda_cflags=spec["extra_cuda_cflags"], extra_ldflags=spec["extra_ldflags"],
         extra_include_paths=spec["extra_include_paths"], build_directory=spec["build_directory"],
         with_cuda=spec["with_cuda"], verbose=True)
print("PORTER_EXT_SO=" + m.__file__, flush=True)
"""


class ExtBuildError(SmokeError):
    """The extension did not build; the message is one line (file:line: error: message)."""

    def __init__(self, message: str, log: str | None = None):
        super().__init__(message)
        self.log = log


@dataclass
class Built:
    spec: ExtensionSpec
    so_path: str
    build_dir: str
    seconds: float
    cached: bool          # nothing was compiled (an unchanged project)
    log: str


def default_cache() -> Path:
    env = os.environ.get("PORTER_SMOKE_BUILD_CACHE")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "porter" / "smoke-ext"


def is_gpu(spec: ExtensionSpec) -> bool:
    return spec.kind == "cuda" or any(Path(s).suffix in GPU_SUFFIXES for s in spec.sources)


def project_files(root: Path) -> list[Path]:
    """The files copied into the build (sources and headers; no build outputs, no hidden folders)."""
    out: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in SKIP_DIRS
                             and not d.endswith(".egg-info"))
        for f in sorted(filenames):
            p = Path(dirpath) / f
            if p.suffix in COPY_SUFFIXES and p.is_file() and not p.is_symlink() and p.stat().st_size <= MAX_FILE:
                out.append(p)
                if len(out) > MAX_FILES:
                    raise SmokeError(f"{root}: more than {MAX_FILES} source files to copy for the extension build")
    return out


def language(spec: ExtensionSpec, root: Path) -> str | None:
    """"hip" when the GPU sources (or the project's headers) are HIP, "cuda" for CUDA, None for a CPU extension."""
    if not is_gpu(spec):
        return None
    for p in [root / s for s in spec.sources] + [f for f in project_files(root) if f.suffix in {".h", ".hpp", ".cuh"}]:
        try:
            if _HIP_MARK.search(p.read_bytes()):
                return "hip"
        except OSError:
            continue
    return "cuda"


def torch_build(torch) -> str:
    """"ROCm 6.2", "CUDA 12.4" or "CPU-only"."""
    hip, cuda = getattr(torch.version, "hip", None), getattr(torch.version, "cuda", None)
    return f"ROCm {hip}" if hip else (f"CUDA {cuda}" if cuda else "CPU-only")


def unavailable(spec: ExtensionSpec, lang: str | None, torch, gpu_visible: bool) -> str | None:
    """Why this extension cannot be built and run here (None: it can)."""
    if lang is None:
        return None
    word = "HIP" if lang == "hip" else "CUDA"
    subject = "the HIP port" if lang == "hip" else "the CUDA extension"
    build = torch_build(torch)
    what = f"{spec.name} is a CUDAExtension with {word} sources"
    if build == "CPU-only":
        also = "" if lang == "hip" else "; its HIP port (porter convert) needs a ROCm GPU"
        return (f"{subject} needs a GPU: torch {torch.__version__} is a CPU-only build, which builds only "
                f"CppExtension parts ({what}{also})")
    if lang == "hip" and not build.startswith("ROCm"):
        return f"the HIP port needs a ROCm build of torch; torch {torch.__version__} is built for {build} ({what})"
    if not gpu_visible:
        return f"{subject} needs a GPU, and torch {torch.__version__} ({build}) sees none here (or --device cpu)"
    return None


_ARCH_RULES = ("flag.gencode", "flag.arch", "flag.code")


def hip_flags(flags: tuple[str, ...]) -> tuple[tuple[str, ...], list[str]]:
    """nvcc flags of a CUDAExtension -> hipcc flags for a ROCm torch build, through porter's nvcc->hipcc flag
    table (porter/buildfiles/flags.toml); NVIDIA targets go (torch picks the AMD arch).  Returns the flags and
    one note per change.  A flag and its value may be one item ("-gencode=...") or two ("-gencode", "...")."""
    from porter.buildfiles.rewrite import Context, Edit, apply_edits, collect_edits  # noqa: PLC0415
    from porter.buildfiles.rules import RuleSet, load_rules  # noqa: PLC0415

    table = load_rules("make")
    rules = RuleSet("flags", tuple(r for r in table.rules if r.id.startswith("flag.")), (), {"arch_ref": "{arch}"})
    text = " ".join(flags)
    edits, notes = [], []
    for e in collect_edits(text, rules, Context("flags", "gfx", [])):
        old = text[e.start:e.end].strip()
        if e.rule in _ARCH_RULES:
            edits.append(Edit(e.start, e.end, "", e.rule, e.why))
            notes.append(f"{old} dropped (an NVIDIA target; torch builds for its own AMD arch list)")
        else:
            edits.append(e)
            notes.append(f"{old} -> {e.text.strip() or '(nothing)'} ({e.why})")
    return tuple(apply_edits(text, edits).split()), notes


def _key(spec: ExtensionSpec, files: list[tuple[str, bytes]], torch_version: str) -> str:
    h = hashlib.sha256()
    h.update(json.dumps([spec.name, spec.kind, spec.sources, spec.extra_cflags, spec.extra_cuda_cflags,
                         spec.extra_ldflags, spec.extra_include_paths, torch_version, sys.version]).encode())
    for rel, data in files:
        h.update(rel.encode() + b"\0" + hashlib.sha256(data).digest())
    return h.hexdigest()[:16]


def prepare(spec: ExtensionSpec, root: Path, cache: Path, torch_version: str) -> Path:
    """Copy the project's sources into the cache folder for this content; returns the folder."""
    files = [(p.relative_to(root).as_posix(), p.read_bytes()) for p in project_files(root)]
    rels = {r for r, _ in files}
    for s in spec.sources:
        if s not in rels:
            raise SmokeError(f"{spec.origin or spec.name}: source {s} is not a C/C++/CUDA/HIP file under {root}")
    folder = cache / f"{spec.module_name}-{_key(spec, files, torch_version)}"
    src = folder / "src"
    for rel, data in files:
        dest = src / rel
        if dest.is_file() and dest.read_bytes() == data:
            continue  # untouched: ninja sees the old time stamp and rebuilds nothing
        dest.parent.mkdir(parents=True, exist_ok=True)
        tmp = dest.with_name(dest.name + ".porter-tmp")
        tmp.write_bytes(data)
        shutil.copystat(root / rel, tmp)
        os.replace(tmp, dest)
    (folder / "build").mkdir(parents=True, exist_ok=True)
    return folder


def first_error(output: str, src: Path, build: Path, root: Path | None = None) -> str | None:
    """The first compiler/linker error as 'file:line:col: error: message', the file in the project (under root)."""
    from porter.build import diagnostics  # noqa: PLC0415

    diags = diagnostics.parse(output, cwd=str(build), root=str(src))
    errors = [d for d in diags if d.severity == "error"]
    if not errors:
        return None
    d = errors[0]
    d.file = str(root / d.file) if root is not None and d.file and not os.path.isabs(d.file) else d.file
    if d.line:
        return f"{d.file}:{d.line}:{d.column}: error: {d.message}" if d.column else f"{d.file}:{d.line}: error: {d.message}"
    return f"error: {d.message}"


def for_torch(spec: ExtensionSpec, root: Path, torch) -> ExtensionSpec:
    """The spec as this torch builds it: on ROCm, a HIP extension's nvcc flags become hipcc flags."""
    if not (getattr(torch.version, "hip", None) and is_gpu(spec) and spec.extra_cuda_cflags):
        return spec
    flags, notes = hip_flags(spec.extra_cuda_cflags)
    if not notes:
        return spec
    import dataclasses  # noqa: PLC0415

    return dataclasses.replace(spec, extra_cuda_cflags=flags, notes=spec.notes + tuple(notes))


def build(spec: ExtensionSpec, root: str | Path, *, torch, cache: str | Path | None = None, timeout_s: float = 900.0,
          cancel: threading.Event | None = None, emit=None) -> Built:
    """Build spec from root's sources; ExtBuildError (one line) when it does not.  Built.spec is the spec
    as built (for_torch: ROCm flags)."""
    from porter import proc  # noqa: PLC0415

    root = Path(root)
    spec = for_torch(spec, root, torch)
    cache = Path(cache) if cache else default_cache()
    why = private_dir(cache)
    if why:  # the built module is imported, so it runs: a folder another user can write is refused
        raise SmokeError(f"the extension build cache is not safe to use: {why} (choose another with --build-cache)")
    try:
        folder = prepare(spec, root, cache, torch.__version__)
    except OSError as exc:
        raise SmokeError(f"cannot prepare the extension build in {cache}: {exc.strerror or exc}") from None
    src, bdir = folder / "src", folder / "build"
    so = bdir / f"{spec.module_name}.so"
    if so.is_file() and (folder / "built.ok").is_file():
        # the folder's name is the hash of these sources, flags, torch and Python: nothing to do
        return Built(spec=spec, so_path=str(so), build_dir=str(folder), seconds=0.0, cached=True,
                     log=str(folder / "build.log"))
    before = so.stat().st_mtime_ns if so.is_file() else None
    child = {"name": spec.module_name, "sources": [str(src / s) for s in spec.sources],
             "extra_cflags": list(spec.extra_cflags), "extra_cuda_cflags": list(spec.extra_cuda_cflags),
             "extra_ldflags": list(spec.extra_ldflags),
             "extra_include_paths": [str(src / p) for p in spec.extra_include_paths] + [str(src)],
             "build_directory": str(bdir), "with_cuda": is_gpu(spec)}
    if emit:
        emit(f"building extension {spec.name} ({'CUDAExtension' if spec.kind == 'cuda' else 'CppExtension'}, "
             f"{len(spec.sources)} source{'s' if len(spec.sources) != 1 else ''}) in {folder}")
    env = dict(os.environ)
    env.setdefault("MAX_JOBS", str(max(1, (os.cpu_count() or 1))))
    env["LC_ALL"] = "C"  # plain ASCII quotes in the compiler's messages
    res = proc.run([sys.executable, "-c", _CHILD, json.dumps(child)], timeout=timeout_s, cwd=str(bdir), env=env,
                   cancel=cancel)
    log_path = folder / "build.log"
    text = res.stdout + ("\n" if res.stdout and res.stderr else "") + res.stderr
    try:
        log_path.write_text(text, encoding="utf-8")
    except OSError:
        pass
    if res.error:
        raise ExtBuildError(f"cannot build extension {spec.name}: {res.error}", str(log_path))
    if res.cancelled:
        raise KeyboardInterrupt
    if res.timed_out:
        raise ExtBuildError(f"building extension {spec.name} took longer than {timeout_s:g} s (log: {log_path})",
                            str(log_path))
    m = re.search(r"^PORTER_EXT_SO=(.+)$", res.stdout, re.M)
    if res.returncode != 0 or not m:
        err = first_error(text, src, bdir, root)
        if err is None:
            lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
            tail = next((ln for ln in reversed(lines) if "Error" in ln or "error" in ln), lines[-1] if lines else "")
            err = tail[:300] or f"exit status {res.returncode}"
        raise ExtBuildError(f"building extension {spec.name} failed: {err} (log: {log_path})", str(log_path))
    so_path = m.group(1).strip()
    after = Path(so_path).stat().st_mtime_ns if Path(so_path).is_file() else None
    if Path(so_path) == so:
        (folder / "built.ok").write_text(so_path + "\n")
    return Built(spec=spec, so_path=so_path, build_dir=str(folder), seconds=round(res.duration_s, 3),
                 cached=before is not None and before == after, log=str(log_path))


def import_built(built: Built):
    """Import the built module (torch must be imported first) and register it under its setup.py name."""
    import importlib.util  # noqa: PLC0415

    name = built.spec.module_name
    if built.spec.name in sys.modules and getattr(sys.modules[built.spec.name], "__file__", None) == built.so_path:
        return sys.modules[built.spec.name]
    spec = importlib.util.spec_from_file_location(name, built.so_path)
    if spec is None or spec.loader is None:
        raise SmokeError(f"cannot import the built extension {built.so_path}")
    try:
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
    except ImportError as exc:
        raise SmokeError(f"the built extension {built.spec.name} does not import: {str(exc).splitlines()[0]}") from None
    sys.modules[built.spec.name] = mod
    if name != built.spec.name:
        sys.modules.setdefault(name, mod)
    return mod
