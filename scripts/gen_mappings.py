#!/usr/bin/env python3
"""Regenerate the CUDA -> HIP mapping database (``porter/mapping/data/*.json``).

Two stages, so that the result is reproducible offline:

1. **extract** (``--extract``): read the name sets out of what is installed or
   fetched -- ``torch.utils.hipify.cuda_to_hip_mappings`` (the venv), the HIP
   headers of Debian's ROCm 5.2 packages (/usr/include/hip, hiprand, hipsparse,
   rocrand, rocprim and clang's HIP wrappers), the CUDA 13 toolkit headers
   (/usr/local/cuda-13.0/include), the NVIDIA library wheels from PyPI and the
   rocSPARSE headers from Debian's ``librocsparse-dev`` -- and write them as
   snapshots under ``porter/mapping/sources/snapshots/``.  A source that is
   missing is reported (with how to fetch it) and its committed snapshot is
   kept, so the other sources still refresh.
2. **transform** (always): combine the snapshots with the pairing rules in
   ``porter/mapping/sources/conventions.toml`` into one JSON file per category
   under ``porter/mapping/data/``.  This stage reads only committed files, is
   deterministic (sorted keys, sorted entries) and is what the tests re-run.

Hand-curated entries (``porter/mapping/curated/*.toml``) are not merged here:
the loader lays them over the generated data at load time.

Fetching the optional inputs (generation time only, into /tmp)::

    pip download --no-deps -d /tmp/nv nvidia-cublas-cu12 nvidia-curand-cu12 \
        nvidia-cusparse-cu12 nvidia-cufft-cu12 nvidia-cusolver-cu12 \
        nvidia-nccl-cu12 nvidia-nvtx-cu12 nvidia-cudnn-cu12 cutensor-cu12 \
        nvidia-cusparselt-cu12
    pip download --no-deps --only-binary=:all: --platform manylinux2014_aarch64 -d /tmp/nv nvidia-cudla  # aarch64 only
    pip download --no-deps -d /tmp/nv rocm-bindings-hip rocm-bindings-libraries rocm-bindings-systems
    mkdir -p /tmp/rocdeb && (cd /tmp/rocdeb && apt-get download librocsparse-dev && dpkg-deb -x librocsparse-dev_*.deb x)

(hip-python's ``rocm-bindings-*`` wheels carry Cython declarations of a recent ROCm's HIP, hipBLAS,
hipBLASLt, hipFFT, hipSOLVER, hipSPARSE, hipRAND, hipDNN, RCCL and roctx: the names in them are the
check for libraries whose headers cannot be installed here.)

Usage: ``gen_mappings.py [--extract] [--out DIR] [--sources DIR] [--wheels DIR] [--quiet]``
"""

from __future__ import annotations

import argparse
import collections
import json
import re
import sys
import tomllib
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from porter.mapping import truth  # noqa: E402  (the verification gate: where a HIP name is declared)
MAPPING = REPO / "porter" / "mapping"
SOURCES = MAPPING / "sources"
DATA = MAPPING / "data"
GENERATED_BY = "scripts/gen_mappings.py"

CUDA_INCLUDE = Path("/usr/local/cuda-13.0/include")
HIP_INCLUDE = Path("/usr/include")
WHEELS = Path("/tmp/nv")
ROCSPARSE_INCLUDE = Path("/tmp/rocdeb/x/usr/include")

IDENT = re.compile(r"\b[A-Za-z_][A-Za-z0-9_]*")
IDENT_FULL = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")

# ---------------------------------------------------------------------------
# C header scanning (token level; good enough to list declared names)
# ---------------------------------------------------------------------------

_COMMENT_OR_STRING = re.compile(
    r"//[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'", re.S
)


def strip_c(text: str) -> str:
    """Text with comments and string/char literals blanked out."""
    return _COMMENT_OR_STRING.sub(lambda m: " " if m.group(0)[0] in "/" else '""', text)


_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)", re.M)
_CALL = re.compile(r"\b([A-Za-z_]\w*)\s*\(")
_GUARD = re.compile(
    r"^[ \t]*#[ \t]*(?:ifndef[ \t]+([A-Za-z_]\w*)|if[ \t]+!\s*defined\s*\(?\s*([A-Za-z_]\w*)\s*\)?)", re.M
)
_DEPRECATED = re.compile(r"__CUDA_DEPRECATED|CUDART_DEPRECATED|__DEPRECATED__|\b\w*_DEPRECATED\b|\bDEPRECATED\b")


def header_guard(text: str) -> str | None:
    """The include-guard macro of a header: the first ``#ifndef X``/``#if !defined(X)`` followed by ``#define X``."""
    clean = strip_c(text)
    for m in _GUARD.finditer(clean):
        name = m.group(1) or m.group(2)
        tail = clean[m.end(): m.end() + 400]
        if re.search(r"^[ \t]*#[ \t]*define[ \t]+" + re.escape(name) + r"\b", tail, re.M):
            return name
    return None


def scan_header(text: str) -> dict:
    """Identifiers of a header: all tokens, macro names, call-like names, deprecated function names."""
    clean = strip_c(text)
    tokens = set(IDENT.findall(clean))
    deprecated = set()
    for m in _DEPRECATED.finditer(clean):
        line_start = clean.rfind("\n", 0, m.start()) + 1
        if clean[line_start: m.start()].lstrip().startswith("#"):
            continue  # the macro's own #define / #if
        start = max(clean.rfind(";", 0, m.start()), clean.rfind("{", 0, m.start()), clean.rfind("}", 0, m.start())) + 1
        ends = [i for i in (clean.find(";", m.end()), clean.find("{", m.end()), clean.find("}", m.end())) if i >= 0]
        stmt = clean[start: min(ends) if ends else len(clean)]
        after = stmt[m.end() - start:]
        calls = [c for c in _CALL.findall(after) if c not in _NOT_NAMES and not c.isupper() and "DEPRECATED" not in c]
        if calls:
            deprecated.add(calls[0])
    return {
        "tokens": tokens,
        "macros": set(_DEFINE.findall(clean)),
        "calls": set(_CALL.findall(clean)),
        "deprecated": deprecated,
    }


_NOT_NAMES = {
    "if", "while", "for", "switch", "return", "sizeof", "defined", "decltype", "alignof", "static_assert",
    "__attribute__", "__declspec", "__align__", "noexcept", "operator", "static_cast", "reinterpret_cast",
    "const_cast", "dynamic_cast", "__asm__", "asm", "__builtin_expect", "typeid", "__launch_bounds__",
}

# ---------------------------------------------------------------------------
# extraction of snapshots
# ---------------------------------------------------------------------------


def _files(root: Path, patterns: list[str], exclude: tuple[str, ...] = ()) -> list[Path]:
    out = set()
    for pat in patterns:
        for p in root.glob(pat):
            rel = p.relative_to(root).as_posix()
            if p.is_file() and not any(x in rel for x in exclude):
                out.add(p)
    return sorted(out)


def _snapshot_of(files: dict[str, str], keep=lambda name: True) -> dict:
    """name -> first header (sorted order) that mentions it; plus macros, deprecated names and guards."""
    names: dict[str, str] = {}
    calls: set[str] = set()
    macros: set[str] = set()
    deprecated: dict[str, str] = {}
    guards: dict[str, str] = {}
    for rel in sorted(files):
        text = files[rel]
        info = scan_header(text)
        for tok in sorted(info["tokens"]):
            if keep(tok) and tok not in names:
                names[tok] = rel
        calls |= {c for c in info["calls"] if keep(c)}
        macros |= {m for m in info["macros"] if keep(m)}
        for d in info["deprecated"]:
            # cuda_device_runtime_api.h deprecates the device-side runtime calls only
            if keep(d) and rel != "cuda_device_runtime_api.h":
                deprecated.setdefault(d, rel)
        g = header_guard(text)
        if g:
            guards[rel] = g
    return {
        "files": sorted(files),
        "names": dict(sorted(names.items())),
        "functions": sorted(calls - _NOT_NAMES),
        "macros": sorted(macros),
        "deprecated": dict(sorted(deprecated.items())),
        "guards": dict(sorted(guards.items())),
    }


def _read(paths: list[Path], root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): p.read_text(encoding="utf-8", errors="replace") for p in paths}


HIP_SETS = {
    # set name: (root, globs)
    "hip": (HIP_INCLUDE, ["hip/*.h", "hip/amd_detail/*.h", "hip/amd_detail/*.hpp"]),
    "hiprand": (HIP_INCLUDE, ["hiprand/*.h", "hiprand/*.hpp"]),
    "hipsparse": (HIP_INCLUDE, ["hipsparse/*.h"]),
    "rocrand": (HIP_INCLUDE, ["rocrand/*.h", "rocrand/*.hpp"]),
    "rocprim": (HIP_INCLUDE, ["rocprim/**/*.hpp"]),
}
HIP_EXCLUDE = ("nvidia_detail", "nvcc_detail", "_nvcc.h", "hcc_detail")

CUDA_SETS = {
    "cudart": ["cuda_runtime_api.h", "cuda_runtime.h", "driver_types.h", "vector_types.h", "vector_functions.h",
               "surface_types.h", "texture_types.h", "channel_descriptor.h", "library_types.h",
               "cuda_profiler_api.h", "cuda_device_runtime_api.h", "builtin_types.h", "device_types.h",
               "cuda_texture_types.h", "cuda_surface_types.h", "cuda_occupancy.h"],
    "driver": ["cuda.h", "cudaProfiler.h"],
    "device": ["crt/math_functions.h", "crt/device_functions.h", "crt/device_double_functions.h",
               "device_atomic_functions.h", "sm_20_atomic_functions.h", "sm_32_atomic_functions.h",
               "sm_35_atomic_functions.h", "sm_60_atomic_functions.h", "sm_20_intrinsics.h", "sm_30_intrinsics.h",
               "sm_32_intrinsics.h", "sm_35_intrinsics.h", "sm_61_intrinsics.h", "crt/sm_70_rt.h", "crt/sm_80_rt.h",
               "crt/sm_90_rt.h", "texture_indirect_functions.h", "surface_indirect_functions.h",
               "device_launch_parameters.h", "math_constants.h"],
    "fp16": ["cuda_fp16.h", "cuda_fp16.hpp"],
    "bf16": ["cuda_bf16.h", "cuda_bf16.hpp"],
    "complex": ["cuComplex.h"],
}

WHEEL_SETS = {
    # set name: (wheel name prefix, include dir inside the wheel)
    "cublas": ("nvidia_cublas_cu12", "nvidia/cublas/include/"),
    "curand": ("nvidia_curand_cu12", "nvidia/curand/include/"),
    "cusparse": ("nvidia_cusparse_cu12", "nvidia/cusparse/include/"),
    "cufft": ("nvidia_cufft_cu12", "nvidia/cufft/include/"),
    "cusolver": ("nvidia_cusolver_cu12", "nvidia/cusolver/include/"),
    "nccl": ("nvidia_nccl_cu12", "nvidia/nccl/include/"),
    "nvtx": ("nvidia_nvtx_cu12", "nvidia/nvtx/include/"),
    "cudnn": ("nvidia_cudnn_cu12", "nvidia/cudnn/include/"),
    "cutensor": ("cutensor_cu12", "cutensor/include/"),
    "cusparselt": ("nvidia_cusparselt_cu12", "nvidia/cusparselt/include/"),
    "cudla": ("nvidia_cudla", "nvidia/cu13/include/"),  # cuDLA (Jetson's DLA): no ROCm counterpart
}


# hip-python's Cython declarations (PyPI rocm-bindings-*): the C names of a recent ROCm's libraries
ROCM_BINDINGS = {
    # set name: (wheel name prefix, .pxd files inside the wheel)
    "rocm_hip": ("rocm_bindings_hip", ["rocm/bindings/cyhip.pxd", "rocm/bindings/cyhiprtc.pxd"]),
    "rocm_hipblas": ("rocm_bindings_libraries", ["rocm/bindings/cyhipblas.pxd"]),
    "rocm_hipblaslt": ("rocm_bindings_libraries", ["rocm/bindings/cyhipblaslt.pxd"]),
    "rocm_hipfft": ("rocm_bindings_libraries", ["rocm/bindings/cyhipfft.pxd"]),
    "rocm_hiprand": ("rocm_bindings_libraries", ["rocm/bindings/cyhiprand.pxd"]),
    "rocm_hipsolver": ("rocm_bindings_libraries", ["rocm/bindings/cyhipsolver.pxd"]),
    "rocm_hipsparse": ("rocm_bindings_libraries", ["rocm/bindings/cyhipsparse.pxd"]),
    "rocm_hipdnn": ("rocm_bindings_libraries", ["rocm/bindings/cyhipdnn_backend.pxd"]),
    "rocm_rccl": ("rocm_bindings_systems", ["rocm/bindings/cyrccl.pxd"]),
    "rocm_roctx": ("rocm_bindings_systems", ["rocm/bindings/cyroctx.pxd"]),
}
# ROCm libraries Debian 12 does not package, read from Debian 13 (trixie)'s .deb files (header paths
# and names; the packages are not installed: `apt-get download` needs trixie in the sources, so fetch
# them from http://deb.debian.org/debian/pool/main/... with the paths of trixie's Packages index)
DEBS = Path("/tmp/trixie")
DEB_SETS = {
    # set name: (package, library as the source line names it, include sub-folders, read names too)
    "deb_rocthrust": ("librocthrust-dev", "rocThrust", ["thrust"], True),
    "deb_hipcub": ("libhipcub-dev", "hipCUB", ["hipcub"], True),
    "deb_hipblas": ("libhipblas-dev", "hipBLAS", ["hipblas"], True),
    "deb_hipsolver": ("libhipsolver-dev", "hipSOLVER", ["hipsolver"], True),
    "deb_hipfft": ("libhipfft-dev", "hipFFT", ["hipfft"], True),
    "deb_rocblas": ("librocblas-dev", "rocBLAS", ["rocblas"], True),
    "deb_rocsolver": ("librocsolver-dev", "rocSOLVER", ["rocsolver"], True),
    "deb_rccl": ("librccl-dev", "RCCL", ["rccl"], True),
    "deb_roctx": ("libroctx-dev", "roctracer", ["roctracer"], True),
    "deb_rocm_smi": ("librocm-smi-dev", "ROCm SMI", ["rocm_smi"], True),
    "deb_hip57": ("libamdhip64-dev", "HIP", ["hip"], False),  # a later HIP's header paths (names: hip-header-names.tsv)
}


def extract_debs(snap: Path, debs: Path, write) -> None:
    """deb_*.json: the header paths (and the declared names) of the library packages in ``debs``."""
    import hashlib
    import subprocess
    import tempfile

    for set_name, (package, library, folders, with_names) in DEB_SETS.items():
        found = sorted(debs.glob(f"{package}_*.deb"))
        if not found:
            print(f"  {set_name}: no {package}_*.deb in {debs}; keeping the committed snapshot")
            continue
        deb = found[-1]
        version = deb.name.split("_")[1]
        digest = hashlib.sha256(deb.read_bytes()).hexdigest()[:16]
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run(["dpkg-deb", "-x", str(deb), tmp], check=True)
            root = Path(tmp) / "usr" / "include"
            paths = [p for f in folders for p in sorted((root / f).rglob("*")) if p.is_file()]
            texts = _read(paths, root)
        doc = _snapshot_of(texts, _keep_public) if with_names else {"files": sorted(texts)}
        upstream = version.split("-")[0].split("+")[0]
        doc["source"] = f"{library} {upstream} headers (Debian 13 {package} {version}, sha256 {digest}...)"
        doc["release"] = upstream
        write(set_name, doc)


_PXD_EXTERN = re.compile(r'^cdef extern from "([^"]+)"', re.M)
_PXD_WORDS = {"cdef", "ctypedef", "extern", "from", "struct", "union", "enum", "const", "unsigned", "signed", "int",
              "long", "short", "char", "float", "double", "void", "bint", "cimport", "import", "nogil", "except",
              "size_t", "pass", "cppclass", "packed"}


def pxd_snapshot(texts: dict[str, str]) -> dict:
    """name -> the header of the ``cdef extern from`` block that declares it."""
    names: dict[str, str] = {}
    for rel in sorted(texts):
        text = re.sub(r"#[^\n]*", "", texts[rel])
        blocks = list(_PXD_EXTERN.finditer(text))
        for i, m in enumerate(blocks):
            end = blocks[i + 1].start() if i + 1 < len(blocks) else len(text)
            for tok in IDENT.findall(text[m.end(): end]):
                if tok not in _PXD_WORDS and _keep_public(tok):
                    names.setdefault(tok, m.group(1))
    return {"names": dict(sorted(names.items())), "functions": [], "macros": [], "deprecated": {}, "guards": {}}


def _keep_public(name: str) -> bool:
    # drop the bulk of local variable names: keep names a user could write that look like API names
    return len(name) > 1 and not name.startswith(("_ZN", "__nv_bf16_", "__internal"))


_MEMBER = re.compile(r"(\w+)\s*(?:\[[^\]]*\]\s*)*(?::\s*\d+\s*)?;")


def struct_members(text: str, struct: str) -> list[str]:
    """The member names of ``struct`` (a ``struct X {...}`` or ``typedef struct X {...} X;`` in ``text``)."""
    clean = strip_c(text)
    m = re.search(r"struct\s+(?:__device_builtin__\s+)?" + re.escape(struct) + r"\s*\{", clean)
    if not m:
        return []
    depth, i = 1, m.end()
    while depth and i < len(clean):
        depth += {"{": 1, "}": -1}.get(clean[i], 0)
        i += 1
    body = clean[m.end(): i - 1]
    return sorted(set(_MEMBER.findall(body)) - {"struct", "union"})


# structs whose members differ between CUDA and HIP: (snapshot, header under its root, struct)
STRUCTS = {
    "cuda_cudart": [("driver_types.h", "cudaDeviceProp")],
    "hip_hip": [("hip/hip_runtime_api.h", "hipDeviceProp_t")],
}


def extract_struct_members(snap: Path) -> None:
    """Add the members of the structs in STRUCTS to their (already written) snapshots."""
    roots = {"cuda_cudart": CUDA_INCLUDE, "hip_hip": HIP_INCLUDE}
    for set_name, structs in STRUCTS.items():
        path = snap / f"{set_name}.json"
        if not path.exists():
            continue
        doc = json.loads(path.read_text(encoding="utf-8"))
        members = {}
        for rel, struct in structs:
            header = roots[set_name] / rel
            if header.exists():
                members[struct] = struct_members(header.read_text(errors="replace"), struct)
        if members:
            doc["struct_members"] = members
            path.write_text(json.dumps(doc, indent=0, sort_keys=True) + "\n", encoding="utf-8")
            print(f"  {set_name}: struct members of {', '.join(members)}")


_USE_INSTEAD = re.compile(r'DEPRECATED\("use (\w+) instead"\)\s*(?:#[^\n]*\n\s*)*[^;{(]*?\b(\w+)\s*\(')


def deprecated_replacements(texts: dict[str, str]) -> dict[str, str]:
    """HIP's own ``DEPRECATED("use hipHostMalloc instead") hipError_t hipHostAlloc(...)``: old name -> new name."""
    out = {}
    for rel in sorted(texts):
        for m in _USE_INSTEAD.finditer(texts[rel]):
            new, old = m.group(1), m.group(2)
            if old != new and old not in _NOT_NAMES:
                out.setdefault(old, new)
    return dict(sorted(out.items()))


def extract_replacements(snap: Path) -> None:
    """Add HIP's deprecated-name replacements to the hip_hip snapshot."""
    path = snap / "hip_hip.json"
    root, globs = HIP_SETS["hip"]
    files = _files(root, globs, HIP_EXCLUDE)
    if not path.exists() or not files:
        return
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc["replacements"] = deprecated_replacements(_read(files, root))
    path.write_text(json.dumps(doc, indent=0, sort_keys=True) + "\n", encoding="utf-8")
    print(f"  hip_hip: {len(doc['replacements'])} deprecated names with a replacement")


# ---------------------------------------------------------------------------
# call signatures: how many arguments each function takes (PORT034)
# ---------------------------------------------------------------------------

_SIG_DECL = re.compile(
    r"\b([A-Za-z_]\w*)\s*\(((?:[^()]|\((?:[^()]|\([^()]*\))*\))*)\)\s*(?:const\s*)?(?:__THROW\s*)?"
    r"(?:__attribute__\s*\(\(.*?\)\)\s*)?[;{]", re.S)
_SIG_NOT_FUNCTIONS = _NOT_NAMES | {"alignas", "__declspec", "__pragma"}


def _split_parameters(text: str) -> list[str]:
    """A parameter list's parameters, split at top-level commas, whitespace collapsed; [] for () and (void)."""
    out, depth, cur = [], 0, []
    for ch in text:
        if ch in "(<[{":
            depth += 1
        elif ch in ")>]}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    out.append("".join(cur))
    params = [" ".join(p.split()) for p in out]
    return [] if params in ([""], ["void"]) else params


def signatures(texts: list[str], default: re.Pattern) -> dict[str, list[dict]]:
    """Every function declaration of ``texts``: name -> its overloads, each with the number of
    arguments a call must pass (``required``), may pass (``max``, -1 for a variadic one) and the
    parameters as written (``default`` tells a defaulted one: CUDA's ``__dv(x)``, HIP's
    ``__dparm(x)``, C++'s ``= x``).  Preprocessor lines are skipped, not evaluated: both branches of
    an #if count, which errs towards accepting more argument counts (fewer findings), never fewer."""
    found: dict[str, set[tuple]] = collections.defaultdict(set)
    for text in texts:
        clean = re.sub(r"^[ \t]*#.*(?:\\\n.*)*$", " ", strip_c(text), flags=re.M)
        for m in _SIG_DECL.finditer(clean):
            name, params = m.group(1), _split_parameters(m.group(2))
            if name in _SIG_NOT_FUNCTIONS or any(not p for p in params):
                continue
            variadic = bool(params) and params[-1] == "..."
            fixed = params[:-1] if variadic else params
            required = sum(1 for q in fixed if not default.search(q))
            found[name].add((required, -1 if variadic else len(fixed), tuple(params)))
    return {name: [{"required": r, "max": m, "params": list(ps)} for r, m, ps in sorted(overloads)]
            for name, overloads in sorted(found.items())}


def extract_signatures(snap: Path) -> None:
    """Add the call signatures of HIP's runtime headers and of CUDA's runtime and driver headers to
    their snapshots (hip_hip, cuda_cudart, cuda_driver), with cuda.h's ``#define cuX cuX_v2``."""
    root, globs = HIP_SETS["hip"]
    hip_files = _files(root, globs, HIP_EXCLUDE)
    jobs = [("hip_hip", [p.read_text(errors="replace") for p in hip_files], re.compile(r"__dparm\(|="))]
    if CUDA_INCLUDE.is_dir():
        for set_name, rels in (("cuda_cudart", ["cuda_runtime_api.h", "cuda_runtime.h"]), ("cuda_driver", ["cuda.h"])):
            jobs.append((set_name, [(CUDA_INCLUDE / r).read_text(errors="replace") for r in rels
                                    if (CUDA_INCLUDE / r).exists()], re.compile(r"__dv\(|=")))
    for set_name, texts, default in jobs:
        path = snap / f"{set_name}.json"
        if not path.exists() or not texts:
            print(f"  {set_name}: headers or snapshot missing; signatures not refreshed")
            continue
        doc = json.loads(path.read_text(encoding="utf-8"))
        doc["signatures"] = signatures(texts, default)
        if set_name == "cuda_driver":
            # cuda.h's ``#define cuCtxCreate cuCtxCreate_v4`` and ``#define cuGraphInstantiate cuGraphInstantiateWithFlags``
            doc["versioned"] = dict(sorted(set(re.findall(r"^[ \t]*#define[ \t]+(cu[A-Z]\w*)[ \t]+(cu[A-Z]\w*)[ \t]*$",
                                                          "\n".join(texts), re.M))))
        path.write_text(json.dumps(doc, indent=0, sort_keys=True) + "\n", encoding="utf-8")
        print(f"  {set_name}: {len(doc['signatures'])} function signatures")


def extract_torch() -> dict | None:
    try:
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import torch
            from torch.utils.hipify import cuda_to_hip_mappings as m
    except Exception as exc:  # torch missing or broken
        print(f"  torch: not importable ({exc}); keeping the committed snapshot. Install torch in the venv to refresh it.")
        return None
    tables = {}
    for name in dir(m):
        value = getattr(m, name)
        if name.isupper() and isinstance(value, dict):
            rows = []
            for k, v in value.items():
                if isinstance(v, tuple):  # older torch: (hip, CONV_*, API_*[, HIP_UNSUPPORTED])
                    rows.append([k, v[0], *[str(x) for x in v[1:]]])
                else:
                    rows.append([k, v])
            tables[name] = rows
    return {"source": f"torch.utils.hipify {torch.__version__.split('+')[0]}", "tables": dict(sorted(tables.items()))}


def snapshot_writer(snap: Path):
    """write(name, doc): one snapshot file under ``snap``, said on stdout."""
    snap.mkdir(parents=True, exist_ok=True)

    def write(name: str, doc: dict) -> None:
        (snap / f"{name}.json").write_text(json.dumps(doc, indent=0, sort_keys=True) + "\n", encoding="utf-8")
        print(f"  {name}: refreshed")
    return write


def extract(sources: Path, wheels: Path, debs: Path = DEBS) -> None:
    snap = sources / "snapshots"
    write = snapshot_writer(snap)

    t = extract_torch()
    if t:
        write("torch", t)

    # HIP side
    version = None
    vfile = HIP_INCLUDE / "hip" / "hip_version.h"
    if vfile.exists():
        mm = re.findall(r"#define HIP_VERSION_(MAJOR|MINOR) (\d+)", vfile.read_text())
        version = ".".join(v for _, v in mm)
    for set_name, (root, globs) in HIP_SETS.items():
        files = _files(root, globs, HIP_EXCLUDE)
        if not files:
            print(f"  hip/{set_name}: no headers under {root} ({globs[0]}); keeping the committed snapshot "
                  f"(apt-get install libamdhip64-dev libhiprand-dev libhipsparse-dev librocrand-dev librocprim-dev)")
            continue
        doc = _snapshot_of(_read(files, root), _keep_public)
        doc["source"] = f"HIP {version} headers (Debian)" if version else "HIP headers (Debian)"
        write(f"hip_{set_name}", doc)
    clang = sorted(Path("/usr/lib").glob("llvm-*/lib/clang/*/include/__clang_hip_*.h"))
    if clang:
        root = clang[0].parent
        doc = _snapshot_of(_read(clang, root), _keep_public)
        doc["source"] = f"clang HIP wrapper headers ({root})"
        write("hip_clang", doc)
    else:
        print("  hip/clang: no __clang_hip_*.h found (apt-get install hipcc); keeping the committed snapshot")
    rs = ROCSPARSE_INCLUDE / "rocsparse"
    if rs.is_dir():
        doc = _snapshot_of(_read(_files(ROCSPARSE_INCLUDE, ["rocsparse/*.h"]), ROCSPARSE_INCLUDE), _keep_public)
        doc["source"] = "rocSPARSE 5.3 headers (Debian librocsparse-dev, fetched)"
        write("hip_rocsparse", doc)
    else:
        print(f"  hip/rocsparse: {rs} missing; keeping the committed snapshot. Fetch: mkdir -p /tmp/rocdeb && cd /tmp/rocdeb "
              "&& apt-get download librocsparse-dev && dpkg-deb -x librocsparse-dev_*.deb x")

    # CUDA side
    if CUDA_INCLUDE.is_dir():
        cver = None
        vh = CUDA_INCLUDE / "cuda.h"
        if vh.exists():
            mv = re.search(r"#define CUDA_VERSION (\d+)", vh.read_text(errors="replace"))
            if mv:
                n = int(mv.group(1))
                cver = f"{n // 1000}.{n % 1000 // 10}"
        for set_name, rels in CUDA_SETS.items():
            files = [CUDA_INCLUDE / r for r in rels if (CUDA_INCLUDE / r).exists()]
            doc = _snapshot_of(_read(files, CUDA_INCLUDE), _keep_public)
            doc["source"] = f"CUDA {cver} toolkit headers"
            if set_name == "cudart":
                removed = CUDA_INCLUDE / "generated_cudart_removed_meta.h"
                if removed.exists():
                    text = removed.read_text(errors="replace")
                    part = text.split("removed functions", 1)[-1]
                    doc["removed"] = sorted(set(re.findall(r"\b(cuda[A-Za-z0-9]+?)_v\d+_params\b", part)))
            write(f"cuda_{set_name}", doc)
        # headers: every header path of the toolkit, cub/thrust/cooperative_groups included
        paths = {}
        for p in sorted(CUDA_INCLUDE.rglob("*")):
            if p.is_file() and p.suffix in (".h", ".hpp", ".cuh", "") and "Openacc" not in p.parts and "Openmp" not in p.parts:
                rel = p.relative_to(CUDA_INCLUDE).as_posix()
                for prefix in ("cccl/",):
                    if rel.startswith(prefix):
                        rel = rel[len(prefix):]
                if p.suffix == "" and not rel.startswith("cuda/"):
                    continue
                paths[rel] = header_guard(p.read_text(errors="replace")) if p.suffix else None
        write("cuda_headers", {"source": f"CUDA {cver} toolkit headers", "headers": dict(sorted(paths.items()))})
    else:
        print(f"  cuda: {CUDA_INCLUDE} missing; keeping the committed CUDA snapshots (install the CUDA 13 toolkit to refresh)")

    extract_debs(snap, debs, write)
    extract_struct_members(snap)
    extract_replacements(snap)
    extract_signatures(snap)

    # hip-python bindings (a recent ROCm's names)
    for set_name, (prefix, members) in ROCM_BINDINGS.items():
        found = sorted(wheels.glob(f"{prefix}-*.whl")) + sorted(Path("/tmp/hp").glob(f"{prefix}-*.whl"))
        if not found:
            print(f"  {set_name}: no {prefix}-*.whl in {wheels} or /tmp/hp; keeping the committed snapshot. "
                  f"Fetch: pip download --no-deps -d {wheels} {prefix.replace('_', '-')}")
            continue
        whl = found[-1]
        with zipfile.ZipFile(whl) as z:
            texts = {m: z.read(m).decode("utf-8", "replace") for m in members if m in z.namelist()}
        doc = pxd_snapshot(texts)
        doc["source"] = f"hip-python bindings ({whl.name.split('-')[0].replace('_', '-')} {whl.name.split('-')[1]}, PyPI)"
        write(set_name, doc)

    # NVIDIA library wheels
    for set_name, (prefix, inc) in WHEEL_SETS.items():
        found = sorted(wheels.glob(f"{prefix}-*.whl"))
        if not found:
            print(f"  {set_name}: no {prefix}-*.whl in {wheels}; keeping the committed snapshot. "
                  f"Fetch: pip download --no-deps -d {wheels} {prefix.replace('_', '-')}")
            continue
        whl = found[-1]
        files = {}
        with zipfile.ZipFile(whl) as z:
            for n in z.namelist():
                if n.startswith(inc) and n.endswith((".h", ".hpp")):
                    files[n[len(inc):]] = z.read(n).decode("utf-8", "replace")
        doc = _snapshot_of(files, _keep_public)
        doc["source"] = f"{whl.name.split('-')[0].replace('_', '-')} {whl.name.split('-')[1]} headers (PyPI wheel)"
        write(f"nv_{set_name}", doc)


# ---------------------------------------------------------------------------
# transform
# ---------------------------------------------------------------------------


class Sources:
    """The committed snapshots, read once."""

    def __init__(self, sources: Path):
        self.dir = sources / "snapshots"
        self.docs: dict[str, dict] = {}
        self.missing: list[str] = []
        for p in sorted(self.dir.glob("*.json")):
            self.docs[p.stem] = json.loads(p.read_text(encoding="utf-8"))

    def get(self, name: str) -> dict:
        doc = self.docs.get(name)
        if doc is None:
            if name not in self.missing:
                self.missing.append(name)
            return {"names": {}, "functions": [], "macros": [], "deprecated": {}, "guards": {}, "source": None}
        return doc


def snake(name: str) -> str:
    """CamelCase -> snake_case, keeping acronym runs together (SpMV -> sp_mv)."""
    s = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name)
    s = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", s)
    return s.lower()


def categorize(cuda: str, hip: str | None = None) -> str:
    """Category of a CUDA name from its prefix (or, for names that do not tell, the HIP name's)."""
    cat = _categorize(cuda)
    if cat == "device" and hip and not cuda.startswith("__") and not cuda.startswith("atomic"):
        for prefix, c in (("hipsolver", "cusolver"), ("hiprand", "curand"), ("hipsparse", "cusparse"),
                          ("hipblas", "cublas"), ("hipSurface", "texture"), ("hipLibrary", "runtime"),
                          ("AT_", "pytorch"), ("mtgp32", "curand")):
            if hip.startswith(prefix):
                return c
    return cat


def _categorize(cuda: str) -> str:
    if re.fullmatch(r"cuC(real|imag|add|sub|mul|div|abs|conj|fma)f?", cuda):
        return "complex"
    low = cuda.lower()
    for prefix, cat in _CATEGORY_PREFIXES:
        if cuda.startswith(prefix) or (prefix.islower() and low.startswith(prefix) and prefix in ("cublaslt",)):
            return cat
    if re.search(r"Texture|Surface|^tex[1-3]D|^surf[1-3]D|^texCubemap|^cudaCreateChannelDesc|ChannelFormat|TextureObject|^CUtex|^cuTex|^CU_TR_|^cudaAddressMode|^cudaFilterMode|^cudaReadMode|^CUaddress_mode|^CUfilter_mode|^CU_RES|^cudaRes", cuda):
        return "texture"
    if re.match(r"cudaError|CUDA_ERROR_|CUDA_SUCCESS$|cudaSuccess$|cudaGetError|cudaPeekAtLastError|cudaGetLastError", cuda):
        return "error"
    if cuda.startswith(("cuda", "CUDART", "make_cuda")) or re.match(r"CUDA_[RC]_\d", cuda):
        return "runtime"
    if re.match(r"(cu[A-Z]|CU[a-z_A-Z]|CUDA_)", cuda):
        return "driver"
    return "device"


_CATEGORY_PREFIXES = [
    ("cublasLt", "cublaslt"), ("CUBLASLT", "cublaslt"), ("cublas", "cublas"), ("CUBLAS", "cublas"),
    ("cusparse", "cusparse"), ("CUSPARSE", "cusparse"), ("cusolver", "cusolver"), ("CUSOLVER", "cusolver"),
    ("curand", "curand"), ("CURAND", "curand"), ("cufft", "cufft"), ("CUFFT", "cufft"),
    ("cudnn", "cudnn"), ("CUDNN", "cudnn"), ("nccl", "nccl"), ("NCCL", "nccl"), ("nvtx", "nvtx"), ("NVTX", "nvtx"),
    ("nvrtc", "rtc"), ("NVRTC", "rtc"), ("cuComplex", "complex"), ("cuDoubleComplex", "complex"),
    ("cuFloatComplex", "complex"), ("make_cuComplex", "complex"), ("make_cuDoubleComplex", "complex"),
    ("make_cuFloatComplex", "complex"),
    ("__nv_bfloat", "bf16"), ("nv_bfloat", "bf16"), ("__bfloat", "bf16"), ("__float2bfloat", "bf16"),
    ("__half", "fp16"), ("half", "fp16"), ("__float2half", "fp16"), ("__double2half", "fp16"),
    ("cudaGraphicsGL", "runtime"), ("nvml", "nvml"), ("NVML", "nvml"), ("cuda::", "libcudacxx"),
]


class Builder:
    """Collects entries per (kind, cuda); earlier sources win unless `override`."""

    def __init__(self, src: Sources, conv: dict):
        self.src = src
        self.conv = conv
        self.entries: dict[tuple[str, str], dict] = {}
        self.from_torch: set[tuple[str, str]] = set()
        self.from_hipify: set[str] = set()
        self.replacements: dict[str, str] = dict(src.get("hip_hip").get("replacements", {}))
        self.truth = truth.Truth(src.dir.parent, {**{k: v for k, v in src.docs.items()}})
        self.sources_used: dict[str, set[str]] = collections.defaultdict(set)
        hip_sets = {}
        for name in ("hip", "hiprand", "hipsparse", "rocrand", "rocprim", "clang", "rocsparse"):
            hip_sets[name] = self.src.get(f"hip_{name}")
        for name in ROCM_BINDINGS:
            hip_sets[name] = self.src.get(name)
        self.hip_sets = hip_sets
        self.hip_version = "5.2"
        s = hip_sets["hip"].get("source") or ""
        m = re.search(r"HIP (\d+\.\d+)", s)
        if m:
            self.hip_version = m.group(1)

    # -- helpers ------------------------------------------------------------
    def in_hip(self, name: str, sets=("hip", "clang")) -> str | None:
        """The HIP header (include path) that declares ``name`` in the installed sets, or None."""
        for s in sets:
            where = self.hip_sets[s]["names"].get(name)
            if where:
                return self.include_path(s, where)
        return None

    def in_recent(self, name: str, sets) -> str | None:
        """The header a recent ROCm declares ``name`` in (hip-python's bindings), or None."""
        for s in sets or ():
            where = self.hip_sets[s]["names"].get(name)
            if where:
                return "hip/hip_runtime.h" if where.startswith("hip/") and s == "rocm_hip" else where
        return None

    def recent_source(self, sets) -> str:
        return "; ".join(sorted({self.hip_sets[s].get("source") or s for s in sets}))

    @staticmethod
    def include_path(set_name: str, rel: str) -> str:
        if set_name == "clang" or rel.startswith("hip/amd_detail/") or rel in ("hip/hip_runtime_api.h", "hip/driver_types.h"):
            return "hip/hip_runtime.h"
        if set_name == "hiprand":
            return "hiprand/hiprand_kernel.h" if "kernel" in rel else "hiprand/hiprand.h"
        if set_name == "rocrand":
            return "rocrand/rocrand_kernel.h" if rel not in ("rocrand/rocrand.h", "rocrand/rocrand.hpp") else "rocrand/rocrand.h"
        if set_name == "rocprim":
            return "rocprim/rocprim.hpp"
        if set_name == "rocsparse":
            return "rocsparse/rocsparse.h"
        return rel

    def add(self, kind: str, cuda: str, hip: str | None, *, override: bool = False, **fields) -> None:
        key = (kind, cuda)
        old = self.entries.get(key)
        if old is not None and override and key in self.from_torch:
            self.from_torch.discard(key)  # a convention that replaces torch's pair (e.g. cublasSgemm_v2)
            old = None
        if old is not None:
            # an earlier source named it: keep its pair, complete what it lacks, remember a different answer
            if old.get("hip") != hip and fields.get("source"):
                said = hip if hip and fields.get("status") != "unsupported" else "no counterpart"
                note = f"{fields['source']}: {said}"
                if note not in old.setdefault("others", []):
                    old["others"].append(note)
            if old.get("hip") == hip:
                for key in ("roc", "since_hip"):
                    if fields.get(key) and key not in old:
                        old[key] = fields[key]
            if old["status"] == "supported" and fields.get("status") in ("deprecated", "removed"):
                old["status"] = fields["status"]
            return
        e = {"cuda": cuda, "hip": hip, "kind": kind}
        e.update({k: v for k, v in fields.items() if v is not None and k != "torch"})
        e.setdefault("status", "supported")
        if e["status"] != "unsupported" and not e.get("hip"):
            e["status"] = "unsupported"
        if e.get("hip") is None:
            e.pop("hip")
        self.entries[key] = e
        if fields.get("torch"):
            self.from_torch.add(key)
        self.sources_used[e["category"]].add(e["source"])

    def cuda_status(self, cuda: str, sets=("cuda_cudart", "cuda_driver")) -> str:
        for s in sets:
            doc = self.src.get(s)
            if cuda in doc.get("removed", ()):
                return "removed"
            where = doc.get("deprecated", {}).get(cuda)
            # cuda_device_runtime_api.h deprecates the *device-side* runtime calls (cudaDeviceSynchronize in a kernel)
            if where and where != "cuda_device_runtime_api.h":
                return "deprecated"
        return "supported"

    # -- AMD's HIPIFY tables (first: they win over torch's table) -----------
    def add_hipify(self) -> None:
        """One entry per CUDA name the tables pair with a HIP name (cuDNN: the MIOpen name)."""
        t = self.truth
        self.hipify_none: dict[str, dict] = {}
        self.hipify_yielded: dict[str, tuple[str, str]] = {}
        yield_to = self.conv.get("hipify_yield", {})
        headers = [(re.compile(k), v) for k, v in self.conv.get("hipify_headers", {}).items()]
        family_notes = self.conv.get("hipify_family_notes", {})
        typedef_roc = {r["cuda"]: r["roc"] for r in t.rows
                       if r["cuda"].endswith("_t") and r["roc"] and IDENT_FULL.match(r["roc"])}
        for r in t.rows:
            cuda = r["cuda"]
            if not IDENT_FULL.match(cuda):
                continue  # qualified CUB names: namespaces, handled elsewhere
            miopen = r["family"] == "CUDNN"
            hip = r["roc"] if miopen else r["hip"]
            if cuda in yield_to:
                self.hipify_yielded[cuda] = (hip or "no counterpart", yield_to[cuda])
                continue
            if not hip:
                self.hipify_none.setdefault(cuda, r)
                continue
            roc = None if miopen else (r["roc"] or None)
            if roc and not IDENT_FULL.match(roc):
                # a qualified roc* name (rocrand_device::philox4x32_10_engine) is no drop-in identifier;
                # the tables pair the CUDA typedef of the same struct (curandStatePhilox4_32_10_t) with
                # rocRAND's typedef of that engine (rocrand_state_philox4x32_10): the same type
                roc = typedef_roc.get(cuda + "_t")
            if not IDENT_FULL.match(hip):
                self.hipify_none.setdefault(cuda, r)
                continue
            cat = categorize(cuda, hip)
            status = self.cuda_status(cuda)
            if status == "supported" and r["cuda_removed"]:
                status = "removed"
            elif status == "supported" and r["cuda_deprecated"]:
                status = "deprecated"
            note = None
            exp = r["roc_experimental" if miopen else "hip_experimental"]
            if exp:
                note = f"{hip} is experimental in ROCm {truth.version(exp)}"
            note = family_notes.get(r["family"], note)
            self.add("identifier", cuda, hip, category=cat, status=status, roc=roc, note=note,
                     header=self.in_hip(hip, ("hip", "clang", "hiprand", "hipsparse", "rocrand"))
                     or next((h for pat, h in headers if pat.fullmatch(cuda)), None)
                     or self.default_header(cat), source=t.tables_source)
            self.from_hipify.add(cuda)

    # -- AMD's tables of libraries hip-python does not cover (hipTensor, ...) ----
    def add_library_tables(self) -> None:
        """One entry per CUDA name of ``hipify-library-tables.tsv`` whose family a ``[[library_table]]`` of
        conventions.toml names.  The table pairs; the library's header snapshot declares: a HIP name the
        snapshot lacks is not emitted (the entry is unsupported and says so), nor one whose function takes
        other parameters than CUDA's (``hand_port``) or whose value differs (``differs``): the entry is
        unsupported with the difference.  The versions come later, from
        the gate (truth.declared: the table's "added"/"changed" release of a declared name)."""
        t = self.truth
        libs = {lib["family"]: lib for lib in self.conv.get("library_table", [])}
        source = t.library_tables_source
        for r in t.library_rows:
            lib = libs.get(r["family"])
            cuda, hip = r["cuda"], r["hip"]
            if lib is None or not IDENT_FULL.match(cuda):
                continue
            declared = self.src.get(lib["snapshot"])
            status = "removed" if r["cuda_removed"] else "deprecated" if r["cuda_deprecated"] else "supported"
            hand = lib.get("hand_port", {}).get(cuda)
            differs = lib.get("differs", {}).get(cuda)
            if hand and hip in declared["names"]:
                self.add("identifier", cuda, None, category=lib["category"], status="unsupported", source=source,
                         note=f"{hip} takes other parameters: {hand}", alternative=f"{hip}, by hand")
            elif differs and hip in declared["names"]:
                self.add("identifier", cuda, None, category=lib["category"], status="unsupported", source=source,
                         note=f"AMD's HIPIFY tables pair {cuda} with {hip}, whose value differs: {differs}",
                         alternative=f"{hip} where the code only compares it with {lib['name']}'s own values")
            elif hip and IDENT_FULL.match(hip) and hip in declared["names"]:
                self.add("identifier", cuda, hip, category=lib["category"], status=status, header=lib["header"],
                         source=f"{source} + {declared.get('source')}", note=lib.get("note"))
            elif hip:
                self.add("identifier", cuda, None, category=lib["category"], status="unsupported", source=source,
                         note=f"AMD's HIPIFY tables pair {cuda} with {hip}, which {lib['headers']} do not "
                              f"declare: {lib['undeclared']}",
                         alternative=lib.get("alternative"))
            else:
                self.add("identifier", cuda, None, category=lib["category"], status="unsupported", source=source,
                         note=f"AMD's HIPIFY tables list no {lib['name']} counterpart")

    def _roc_only(self, r: dict) -> str | None:
        """The roc* name of a row the tables pair with no HIP name (cublasInit -> rocblas_initialize): used
        under --roc when a source declares it in every release porter targets (no "since" after the 5.2
        floor, not removed); None otherwise, and for cuDNN (whose roc column is MIOpen's HIP-side name)."""
        roc = r["roc"] if r["family"] != "CUDNN" and IDENT_FULL.match(r["roc"] or "") else None
        found = self.truth.declared(roc) if roc else None
        return roc if found is not None and found.since is None and not found.removed else None

    def add_hipify_unsupported(self) -> None:
        """Names the tables list with no counterpart: unsupported, unless another source has a declared pair."""
        t = self.truth
        for cuda, (said, why) in sorted(self.hipify_yielded.items()):
            e = self.entries.get(("identifier", cuda))
            if e is not None:
                e.setdefault("others", []).append(f"{t.tables_source}: {said} (not used: {why})")
        device_only = re.compile(self.conv.get("hipify_device_unsupported_only", r"\w+"))
        for cuda, r in sorted(self.hipify_none.items()):
            if r["family"] == "CUDA_Device" and not device_only.fullmatch(cuda):
                continue
            key = ("identifier", cuda)
            e = self.entries.get(key)
            if e is not None:
                if e.get("hip") and e["status"] != "unsupported":
                    e.setdefault("others", []).append(f"{t.tables_source}: no counterpart")
                    # the tables' roc* name stands even where they list no HIP name and another source
                    # pairs one (CUSPARSE_FORMAT_BSR): --roc emits it, when declared and no younger than
                    # the HIP name the entry's versions describe (rocblas_ctrsm_64 is 6.2's: left out)
                    roc = r["roc"] if r["family"] != "CUDNN" else ""
                    found = t.declared(roc) if roc and IDENT_FULL.match(roc) and not e.get("roc") else None
                    if found is not None and not truth.later(found.since, e.get("since_hip")):
                        e["roc"] = roc
                elif not e.get("hip") and not e.get("roc") and (roc := self._roc_only(r)):
                    e["roc"] = roc
                    e["note"] = f"{e['note']}; with --roc: {roc}" if e.get("note") else f"with --roc: {roc}"
                continue
            cat = categorize(cuda)
            roc = self._roc_only(r)
            self.add("identifier", cuda, None, category=cat, status="unsupported", source=t.tables_source,
                     roc=roc,
                     note=f"AMD's HIPIFY tables list no {'MIOpen' if r['family'] == 'CUDNN' else 'HIP'} counterpart"
                     + (f"; with --roc: {roc}" if roc else ""))

    # -- the verification gate ------------------------------------------------
    def call_arities(self) -> dict:
        """The argument counts a CUDA call may have that its HIP counterpart does not accept in the
        floor's headers (HIP 5.2): ``cudaStreamWaitEvent(s, e)`` relies on CUDA's default ``flags``,
        HIP 5.2 declares none.  For each such CUDA function: the HIP overloads (required, max,
        declaration), CUDA's defaults by position (what a fix appends) and the conventions'
        per-count alternatives (``cudaEventCreate(&e, flags)`` is ``cudaEventCreateWithFlags``)."""
        hip_sigs = self.src.get("hip_hip").get("signatures", {})
        cuda_sigs = {**self.src.get("cuda_driver").get("signatures", {}), **self.src.get("cuda_cudart").get("signatures", {})}
        versioned = self.src.get("cuda_driver").get("versioned", {})
        alternatives: dict[str, list[dict]] = collections.defaultdict(list)
        for a in self.conv.get("arity_alternative", []):
            alternatives[a["cuda"]].append(a)
        drops = {cuda: d for d in self.conv.get("arity_drop_null", []) for cuda in d["cuda"]}

        def accepted(overloads) -> set[int]:
            return {k for o in overloads for k in range(o["required"], (o["max"] if o["max"] >= 0 else 24) + 1)}

        out = {}
        for (kind, cuda), e in sorted(self.entries.items()):
            if (kind != "identifier" or e["status"] == "unsupported" or e.get("context") or not e.get("hip")
                    or e["category"] not in ("runtime", "driver")):
                continue
            cuda_over = cuda_sigs.get(cuda) or cuda_sigs.get(versioned.get(cuda, ""))
            hip_over = hip_sigs.get(e["hip"])
            if not cuda_over or not hip_over:
                continue
            have = accepted(hip_over)
            missing = sorted(accepted(cuda_over) - have)
            if not missing:
                continue
            defaults = []
            for o in cuda_over:
                if o["max"] >= 0 and o["required"] < o["max"]:
                    values = [_default_value(q) for q in o["params"][o["required"]:o["max"]]]
                    if all(values):
                        defaults.append({"required": o["required"], "values": values})
            fact = {"hip": e["hip"], "hip_accepts": sorted(have), "cuda_only": missing,
                    "cuda_accepts": sorted(accepted(cuda_over)),
                    "hip_overloads": [{"required": o["required"], "max": o["max"], "params": o["params"]} for o in hip_over],
                    "cuda_defaults": defaults}
            for a in alternatives.pop(cuda, []):
                target = self.entries.get(("identifier", a["use"]))
                if target is None or target["status"] == "unsupported":
                    raise GateError(f"[[arity_alternative]] {cuda} -> {a['use']}: {a['use']} has no HIP mapping")
                fact.setdefault("alternatives", []).append({"args": a["args"], "use": a["use"], "why": a["why"]})
            if (d := drops.pop(cuda, None)) is not None:
                fact["drop_if_null"] = self._drop_if_null(cuda, d, cuda_over, missing, have)
            out[cuda] = fact
        if alternatives:
            raise GateError(f"[[arity_alternative]] for {', '.join(sorted(alternatives))}: no argument count of "
                            f"theirs is missing in HIP (or no signature is known); remove the entries")
        if drops:
            raise GateError(f"[[arity_drop_null]] for {', '.join(sorted(drops))}: no argument count of theirs is "
                            f"missing in HIP (or no signature is known); remove them")
        return {"generated_by": GENERATED_BY,
                "source": f"{self.src.get('hip_hip').get('source')} vs {self.src.get('cuda_cudart').get('source')}",
                "floor": self.hip_version, "functions": out}

    def _drop_if_null(self, cuda: str, d: dict, cuda_over: list[dict], missing: list[int], have: set[int]) -> dict:
        """One ``[[arity_drop_null]]`` entry as a fact: the position of CUDA's parameter, checked against
        CUDA's signature (the same position in every overload) and HIP's (each count CUDA has and HIP lacks
        is one HIP accepts without the argument), and every hip* name its texts give declared in the floor's
        headers (a reader is never sent to a function HIP 5.2 lacks)."""
        where = {o["params"].index(d["param"]) if d["param"] in o["params"] else None for o in cuda_over}
        if len(where) != 1 or None in where:
            raise GateError(f"[[arity_drop_null]] {cuda}: `{d['param']}` is not a parameter of CUDA's declaration "
                            f"at one position ({[o['params'] for o in cuda_over]})")
        index = where.pop()
        if any(count <= index or count - 1 not in have for count in missing):
            raise GateError(f"[[arity_drop_null]] {cuda}: HIP accepts {sorted(have)} arguments, not each of "
                            f"{missing} without `{d['param']}`")
        for name in sorted(set(re.findall(r"\bhip[A-Z]\w*", d["why"] + " " + d["otherwise"]))):
            if name not in self.truth.floor:
                raise GateError(f"[[arity_drop_null]] {cuda}: {name} is not declared in HIP {self.hip_version}'s headers")
        return {"index": index, "param": d["param"], "why": d["why"], "otherwise": d["otherwise"]}

    def gate(self) -> list[str]:
        """Every name an entry can emit must be declared somewhere (porter.mapping.truth).

        A pair from torch's table or from a naming convention whose HIP name no source declares
        becomes unsupported (the note says why); any other undeclared name is an error.  The
        versions of the emitted name (since, removed, deprecated) come from the same look-up.
        Returns the errors, one line each (name and source)."""
        t = self.truth
        errors = []
        opt_in = [(re.compile(o["names"]), o) for o in self.conv.get("opt_in", [])]
        for (kind, cuda), e in sorted(self.entries.items()):
            if kind != "identifier" or e["status"] == "unsupported" or not e.get("hip"):
                continue
            hip = e["hip"]
            if e["category"] == "pytorch" and (kind, cuda) in self.from_torch:
                continue  # PyTorch's own names (c10, ATen, magma): its hipify table is what declares their HIP side
            rule = next((o for pat, o in opt_in if pat.fullmatch(hip)), None)
            if rule is not None:
                _make_unsupported(e, note=rule["note"], alternative=rule["alternative"],
                                  source=f"{e['source']}; {rule['source']}")
                continue
            found = t.declared(hip)
            if found is None:
                if (kind, cuda) not in self.from_torch:
                    errors.append(f"{cuda} -> {hip}: {hip} is declared nowhere (source: {e['source']})")
                    continue
                gives = f"{hip} (the name {e['source'].split(' + ')[-1]} gives)"
                if hip in t.library_names:  # a library's own header declares it, but no release is known to
                    e["others"] = e.get("others", []) + [f"{e['source']}: {hip} (not dated by AMD's tables)"]
                    _make_unsupported(e, note=f"{gives} is declared in {t.library_names[hip]}, which AMD's HIPIFY "
                                              f"tables do not date: the first ROCm release with it is not known",
                                      source=f"{e['source']}; rejected by the verification gate")
                    continue
                e["others"] = e.get("others", []) + [f"{e['source']}: {hip} (declared in no HIP header or table)"]
                _make_unsupported(e, note=f"{gives} is declared in no HIP "
                                          f"header of ROCm {truth.FLOOR}..{truth.NEXT}, no recent ROCm name snapshot and "
                                          f"not in AMD's tables",
                                  source=f"{e['source']}; rejected by the verification gate")
                continue
            better = self.replacements.get(hip)
            if better and better in t.floor:
                # HIP's own headers deprecate the name and say what to use (hipHostAlloc -> hipHostMalloc)
                e.setdefault("others", []).append(f"{e['source']}: {hip} (HIP's headers: deprecated, use {better})")
                e["hip"] = hip = better
                found = t.declared(hip)
            if e.get("context") == "member":
                continue  # dated by its struct rule: hip-python's snapshot says only "a recent ROCm"
            e.pop("since_hip", None)
            if found.since:
                e["since_hip"] = found.since
            if found.removed:
                e["removed_hip"] = found.removed
            if found.deprecated:
                e["deprecated_hip"] = found.deprecated
            if e.get("note", "").startswith(f"{hip} is not in the HIP") or "named by convention" in e.get("note", ""):
                e.pop("note")  # the old ">5.2" guess; the versions now say it
            roc = e.get("roc")
            if roc and t.declared(roc) is None:
                e.pop("roc")
        return errors + self.gate_headers()

    def date_roc(self) -> None:
        """The ROCm releases of each entry's roc* name (``since_roc``, ``removed_roc``, ``deprecated_roc``), from
        the same look-up as the HIP names' (porter.mapping.truth): the floor's headers (rocSPARSE 5.3, rocRAND
        and rocPRIM 5.2) beat the tables' date, a name they declare has no "since"; AMD's tables' roc_added,
        roc_removed and roc_deprecated date the others (rocBLAS, rocSOLVER: libraries not installed here)."""
        for (kind, _cuda), e in self.entries.items():
            roc = e.get("roc")
            found = self.truth.declared(roc) if roc and kind == "identifier" else None
            if found is None:
                continue
            for key, value in (("since_roc", found.since), ("removed_roc", found.removed),
                               ("deprecated_roc", found.deprecated)):
                if value:
                    e[key] = value

    def gate_headers(self) -> list[str]:
        """Every header path an entry can emit exists in a source (porter.mapping.truth.Truth.header).

        A path made by a pattern rule (``thrust/(.*)`` kept as it is) or taken from torch's table that no
        source has becomes unsupported, with the sources checked in its note; a fixed path a rule names
        that no source has is an error.  PyTorch's own headers (c10/hip/...) are exempt, as its names are."""
        t = self.truth
        errors = []
        own_torch = re.compile(self.conv["torch_own_headers"])
        patterned = {re.compile(r["match"]): "\\" in r["hip"] for r in self.conv.get("header", [])}
        for (kind, cuda), e in sorted(self.entries.items()):
            if kind != "header" or e["status"] == "unsupported" or not e.get("hip"):
                continue
            hip = e["hip"]
            from_torch = e["source"].startswith("torch.utils.hipify")
            if from_torch and own_torch.fullmatch(hip):
                continue  # PyTorch's own headers: its ROCm build generates them with this very table
            found = t.header(hip)
            if found is None and t.header(cuda) is not None:
                # the library keeps the CUDA path (rocThrust's thrust/system/cuda/detail/core/*.h): keep it too
                e.setdefault("others", []).append(f"{e['source']}: {hip} (no such header in the sources)")
                e["hip"] = hip = cuda
                found = t.header(hip)
            if found is None:
                by_pattern = any(pat.fullmatch(cuda) and is_pattern for pat, is_pattern in patterned.items())
                if by_pattern or from_torch:
                    e["others"] = e.get("others", []) + [f"{e['source']}: {hip} (no such header in the sources)"]
                    _make_unsupported(e, note=f"<{hip}> is in none of the HIP {truth.FLOOR} headers, HIP 5.7.1's, "
                                              f"Debian 13's ROCm library packages or hip-python's declarations",
                                      source=f"{e['source']}; rejected by the header gate")
                else:
                    errors.append(f"header {cuda} -> {hip}: {hip} exists in no source (source: {e['source']})")
                continue
            since = e.get("since_hip")
            if found.since and (since is None or not found.since.startswith(">")):
                e["since_hip"] = found.since  # a dated header beats the rule's ">5.2"; an undated rule gets the date
        return errors

    # -- torch --------------------------------------------------------------
    def add_torch(self) -> None:
        doc = self.src.get("torch")
        source = doc.get("source") or "torch.utils.hipify"
        tables = doc.get("tables", {})
        fixes = self.conv.get("torch_fixes", {})
        skip = set(self.conv.get("torch_skip", []))
        # CAFFE2_SPECIFIC_MAPPINGS is left out: caffe2 file names, and pairs that run HIP -> CUDA (HIP_CHECK -> CUDA_CHECK)
        for tname in ("CUDA_TYPE_NAME_MAP", "CUDA_IDENTIFIER_MAP", "CUDA_SPECIAL_MAP",
                      "C10_MAPPINGS", "PYTORCH_SPECIFIC_MAPPINGS"):
            pytorch = tname in ("C10_MAPPINGS", "PYTORCH_SPECIFIC_MAPPINGS")
            for row in tables.get(tname, []):
                cuda, hip, *tags = row
                cuda, hip = cuda.strip(), hip.strip()
                unsupported = "HIP_UNSUPPORTED" in tags or any(t.endswith("HIP_UNSUPPORTED") for t in tags)
                if cuda in fixes:
                    hip = fixes[cuda]
                if cuda in skip:
                    continue
                note = "tagged HIP_UNSUPPORTED in torch's table" if unsupported else None
                if hip and hip.endswith("__") and not cuda.endswith("__"):
                    # torch's marker for "same idea, different signature": not a rename
                    unsupported = True
                    note = f"torch's table marks this as {hip}: the HIP call has a different signature; port it by hand"
                if not IDENT_FULL.match(cuda):
                    continue  # qualified keys (cub::X, thrust::cuda, std::max): handled as namespaces/curated
                if not IDENT_FULL.match(hip or ""):
                    continue
                cat = categorize(cuda, hip)
                if cat == "nvml":
                    # torch's NVML rows are stand-ins for its own use (nvmlDevice_t -> uint32_t), not a port
                    self.add("identifier", cuda, None, category=cat, status="unsupported", source=source,
                             note="NVML has no drop-in HIP counterpart",
                             alternative="rocm_smi (rsmi_*) or amdsmi: a different API")
                    continue
                if pytorch and cat in ("device", "driver", "runtime"):
                    cat = "pytorch"  # torch-specific names (c10, caffe2, gloo, magma)
                hip_header = self.in_hip(hip, ("hip", "clang", "hiprand", "hipsparse", "rocrand"))
                since = None
                if not hip_header and cat in _VERIFIABLE and not unsupported:
                    since = ">" + self.hip_version
                if not hip_header:
                    hip_header = self.in_recent(hip, list(ROCM_BINDINGS))
                self.add("identifier", cuda, None if unsupported else hip, category=cat, torch=True,
                         status="unsupported" if unsupported else self.cuda_status(cuda),
                         source=source, header=hip_header or self.default_header(cat), since_hip=since,
                         note=note)
        for row in tables.get("CUDA_INCLUDE_MAP", []) + tables.get("PYTORCH_SPECIFIC_MAPPINGS", []) + tables.get("C10_MAPPINGS", []):
            cuda, hip = row[0], row[1]
            cuda = cuda.replace("include ", "").strip('<"')
            hip = hip.replace("include ", "").strip('<">')
            if not re.fullmatch(r"[\w./+-]+\.(h|hpp|cuh|hxx)", cuda):
                continue
            cat = "pytorch" if cuda.startswith(("c10/", "ATen/", "gloo/", "caffe2/", "torch/", "tensorpipe/")) else categorize_header(cuda)
            self.add("header", cuda, hip, category=cat, source=source)

    @staticmethod
    def default_header(cat: str) -> str | None:
        return _DEFAULT_HEADERS.get(cat)

    # -- convention pairing -------------------------------------------------
    def add_conventions(self) -> None:
        for lib in self.conv.get("library", []):
            self.add_library(lib)

    def add_library(self, lib: dict) -> None:
        cat = lib["category"]
        rules = lib.get("rules", [])
        roc_rules = lib.get("roc_rules", [])
        verify = lib.get("verify")  # hip sets that must contain the HIP name, or absent: documented convention
        roc_verify = lib.get("roc_verify")
        deny = set(lib.get("deny", []))
        only = lib.get("only")  # regex the whole CUDA name must match
        skip = lib.get("skip")  # regex of (whole) CUDA names to leave out
        identity = lib.get("identity", False)
        override = lib.get("override", False)
        unmatched = lib.get("unmatched")
        missing = lib.get("missing", "since")  # what to do when a verified HIP name is absent: since | unsupported | drop
        names: dict[str, str] = {}
        set_sources = []
        for s in lib["cuda_sets"]:
            doc = self.src.get(s)
            if doc.get("source"):
                set_sources.append(doc["source"])
            pool = doc["functions"] + doc["macros"] + list(doc["names"]) if lib.get("all_names", True) else doc["functions"]
            for n in pool:
                names.setdefault(n, s)
        cuda_src = "; ".join(sorted(set(set_sources)))
        for cuda in sorted(names):
            if cuda in deny or (only and not re.fullmatch(only, cuda)) or (skip and re.fullmatch(skip, cuda)):
                continue
            if lib.get("only_new") and ("identifier", cuda) in self.entries:
                continue  # named by an earlier source (AMD's library tables): this rule covers the rest
            hip = cuda if identity else _apply(rules, cuda)
            status = self.cuda_status(cuda, [names[cuda]] + ["cuda_cudart", "cuda_driver"])
            if hip is None and unmatched == "unsupported":
                self.add("identifier", cuda, None, category=cat, status="unsupported",
                         source=f"{cuda_src} + {lib['doc_source']}", note=lib.get("note"),
                         alternative=lib.get("alternative"), override=override)
                continue
            if hip is None or not IDENT_FULL.match(hip):
                continue
            header = None
            since = None
            note = None
            recent = lib.get("recent")  # hip-python binding sets of a recent ROCm
            if verify:
                header = self.in_hip(hip, verify)
            if verify or recent:
                if not header and recent and self.in_recent(hip, recent):
                    header = self.in_recent(hip, recent)
                    if verify:  # declared in a recent ROCm, not in the installed HIP
                        since = ">" + self.hip_version
                        note = f"{hip} is not in the HIP {self.hip_version} headers; newer ROCm declares it"
                    source = f"{cuda_src} + {lib.get('recent_source', 'checked in ' + self.recent_source(recent))}"
                elif header:
                    source = f"{cuda_src} + {lib['hip_source']}"
                elif self.truth.declared(hip) is not None:  # a newer ROCm declares it (AMD's tables, HIP's headers)
                    header = lib.get("header") or self.default_header(cat)
                    source = f"{cuda_src} + {self.truth.declared(hip).where}"
                else:
                    if missing == "drop":
                        continue
                    if missing == "unsupported" and lib.get("unsupported_only") and not re.fullmatch(lib["unsupported_only"], cuda):
                        continue  # absent and not an API-looking name: leave it alone
                    where = f"the HIP {self.hip_version} headers" if verify else ""
                    if recent:
                        where = (where + " or " if where else "") + self.recent_source(recent)
                    if missing == "unsupported":
                        self.add("identifier", cuda, None, category=cat, status="unsupported",
                                 source=f"{cuda_src}; {hip} not declared in {where}",
                                 note=lib.get("note") or f"no HIP counterpart: {hip} is not declared in {where}",
                                 alternative=lib.get("alternative"))
                        continue
                    since = ">" + self.hip_version
                    note = f"{hip} is named by convention; not declared in {where}"
                    source = f"{cuda_src} + {lib.get('doc_source', 'name convention')}"
            else:
                source = f"{cuda_src} + {lib['doc_source']}"
            roc = None
            if roc_rules:
                for cand in _roc_candidates(roc_rules, cuda):
                    if not roc_verify or self.in_hip(cand, roc_verify):
                        roc = cand
                        break
            if lib.get("pair_note"):
                note = f"{note}; {lib['pair_note']}" if note else lib["pair_note"]
            self.add("identifier", cuda, hip, category=cat, status=status, source=source,
                     header=header or lib.get("header"), since_hip=since, note=note, roc=roc, override=override)

    # -- struct members (cudaDeviceProp fields hipDeviceProp_t lacks) --------
    def add_members(self) -> None:
        """A member of a CUDA struct that the HIP struct of the installed headers lacks: an entry with
        context "member" (looked at only after ``.`` or ``->``), dated by the struct rule, or unsupported
        when no recent ROCm declares it either."""
        for rule in self.conv.get("struct_members", []):
            cuda = set(self.src.get(rule["cuda_set"]).get("struct_members", {}).get(rule["cuda"], []))
            hip = set(self.src.get(rule["hip_set"]).get("struct_members", {}).get(rule["hip"], []))
            if not cuda or not hip:
                continue
            skip = set(rule.get("skip", []))
            for name in sorted(cuda - hip - skip):
                if ("identifier", name) in self.entries:
                    continue
                recent = self.truth.recent.get(name)
                if recent:
                    self.add("identifier", name, name, category=rule["category"], context="member",
                             since_hip=rule["since"], header="hip/hip_runtime.h",
                             source=f"{rule['cuda']} member; {rule['hip']} of HIP {truth.FLOOR} lacks it; {rule['since_source']}",
                             note=f"a {rule['hip']} member only from ROCm {rule['since']} on")
                else:
                    self.add("identifier", name, None, category=rule["category"], context="member",
                             status="unsupported",
                             source=f"{rule['cuda']} member; no {rule['hip']} member of this name in HIP {truth.FLOOR} "
                                    f"or a recent ROCm (hip-python)",
                             note=f"{rule['hip']} has no {name}", alternative=rule.get("alternative"))

    # -- headers, guards, namespaces ----------------------------------------
    def add_headers(self) -> None:
        doc = self.src.get("cuda_headers")
        hdrs = dict(doc.get("headers", {}))
        for s in _NV_SETS:
            for rel in self.src.get(s).get("files", []):
                hdrs.setdefault(rel, None)
        src = doc.get("source") or "CUDA toolkit headers"
        for rule in self.conv.get("header", []):
            pat = re.compile(rule["match"])
            for path in sorted(hdrs):
                if pat.fullmatch(path):
                    hip = pat.sub(rule["hip"], path) if "\\" in rule["hip"] else rule["hip"]
                    self.add("header", path, hip, category=rule["category"], source=f"{src} + {rule['source']}",
                             status=rule.get("status", "supported"), note=rule.get("note"),
                             alternative=rule.get("alternative"), since_hip=rule.get("since_hip"))

    def add_guards(self) -> None:
        """Include guards of CUDA headers -> the guards of the HIP headers they map to (``defined`` context)."""
        cuda_guards = dict(self.src.get("cuda_headers").get("headers", {}))
        for s in _NV_SETS:
            for rel, g in self.src.get(s).get("guards", {}).items():
                cuda_guards.setdefault(rel, g)
        hip_guards = {}
        for set_name, d in self.hip_sets.items():
            for rel, g in d.get("guards", {}).items():
                hip_guards.setdefault(rel, (g, d.get("source")))
        documented = {k: (v["guard"], v["source"]) for k, v in self.conv.get("hip_guards", {}).items()}
        for (kind, cuda), e in sorted(self.entries.items()):
            # only headers with a like-for-like HIP header: the guard of an unsupported or newer-HIP header
            # would turn "is X available" tests into "is hip_runtime.h included"
            if kind != "header" or e["status"] != "supported" or e.get("since_hip"):
                continue
            g = cuda_guards.get(cuda)
            if not g or not IDENT_FULL.match(g):
                continue
            target = hip_guards.get(e["hip"]) or documented.get(e["hip"])
            if not target:
                continue
            hg, hsrc = target
            self.add("identifier", g, hg, category="preprocessor", context="defined",
                     source=f"include guard of {cuda} -> include guard of {e['hip']} ({hsrc})",
                     note="include guard: renamed only in #ifdef/#ifndef/defined() tests")

    def add_namespaces(self) -> None:
        for ns in self.conv.get("namespace", []):
            self.add("namespace", ns["cuda"], ns.get("hip"), category=ns["category"], source=ns["source"],
                     note=ns.get("note"), alternative=ns.get("alternative"), status=ns.get("status", "supported"))

    # -- output ---------------------------------------------------------------
    def write(self, out: Path) -> dict[str, collections.Counter]:
        out.mkdir(parents=True, exist_ok=True)
        by_cat: dict[str, list[dict]] = collections.defaultdict(list)
        for (kind, cuda), e in sorted(self.entries.items()):
            by_cat[e["category"]].append(e)
        summary = {}
        for old in out.glob("*.json"):
            if old.stem not in by_cat:
                old.unlink()
        for cat in sorted(by_cat):
            entries = by_cat[cat]
            # compact and fast to load: one array per entry, in the loader's field order (``fields``)
            # the source is an index into "sources" (the same long strings recur thousands of times)
            sources = sorted({e["source"] for e in entries})
            index = {src: i for i, src in enumerate(sources)}
            for e in entries:
                if isinstance(e.get("others"), list):
                    e["others"] = "\n".join(dict.fromkeys(e["others"]))
            rows = [[index[e["source"]] if f == "source" else e.get(f, _FIELD_DEFAULTS.get(f)) for f in FIELDS]
                    for e in entries]
            doc = {
                "category": cat,
                "generated_by": GENERATED_BY,
                "sources": sources,
                "fields": list(FIELDS),
                "entries": rows,
            }
            text = json.dumps(doc, indent=None, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
            text = text.replace('"entries":[[', '"entries":[\n[').replace("],[", "],\n[")
            (out / f"{cat}.json").write_text(text + "\n", encoding="utf-8")
            summary[cat] = collections.Counter(e["status"] for e in entries)
        return summary


# the loader's Entry fields, in order (porter.mapping.Entry)
FIELDS = ("cuda", "hip", "kind", "category", "status", "roc", "since_hip", "header", "note", "alternative", "source",
          "context", "removed_hip", "deprecated_hip", "others", "since_roc", "removed_roc", "deprecated_roc")
_FIELD_DEFAULTS = {"kind": "identifier", "status": "supported", "source": "curated"}

_NV_SETS = ("nv_cublas", "nv_curand", "nv_cusparse", "nv_cufft", "nv_cusolver", "nv_nccl", "nv_nvtx", "nv_cudnn",
            "nv_cutensor", "nv_cusparselt", "nv_cudla")

_VERIFIABLE = {"runtime", "driver", "device", "error", "texture", "curand", "cusparse", "complex", "fp16", "bf16"}

_DEFAULT_HEADERS = {
    "runtime": "hip/hip_runtime.h", "driver": "hip/hip_runtime.h", "error": "hip/hip_runtime.h",
    "texture": "hip/hip_runtime.h", "device": "hip/hip_runtime.h",
    "cublas": "hipblas/hipblas.h", "cublaslt": "hipblaslt/hipblaslt.h", "cusparse": "hipsparse/hipsparse.h",
    "cusolver": "hipsolver/hipsolver.h", "curand": "hiprand/hiprand.h", "cufft": "hipfft/hipfft.h",
    "cudnn": "miopen/miopen.h", "nccl": "rccl/rccl.h", "nvtx": "roctracer/roctx.h", "complex": "hip/hip_complex.h",
    "fp16": "hip/hip_fp16.h", "bf16": "hip/hip_bf16.h", "rtc": "hip/hiprtc.h",
}


def categorize_header(path: str) -> str:
    name = path.rsplit("/", 1)[-1]
    for prefix, cat in (("cublasLt", "cublaslt"), ("cublas", "cublas"), ("curand", "curand"), ("cusparse", "cusparse"),
                        ("cufft", "cufft"), ("cusolver", "cusolver"), ("cudnn", "cudnn"), ("nccl", "nccl"),
                        ("nvtx", "nvtx"), ("nvToolsExt", "nvtx"), ("cuComplex", "complex"), ("cuda_fp16", "fp16"),
                        ("cuda_bf16", "bf16"), ("cooperative_groups", "cooperative-groups"), ("nvrtc", "rtc"),
                        ("nvml", "nvml")):
        if name.startswith(prefix) or path.startswith(prefix):
            return cat
    if path.startswith("cub/"):
        return "cub"
    if path.startswith("thrust/"):
        return "thrust"
    if "texture" in name or "surface" in name:
        return "texture"
    return "runtime"


def _apply(rules: list[list[str]], name: str) -> str | None:
    """First matching (regex, replacement) rule applied to ``name``."""
    for pat, rep in rules:
        m = re.fullmatch(pat, name)
        if m:
            return m.expand(rep)
    return None


def _roc_candidates(rules: list[list[str]], name: str) -> list[str]:
    out = []
    for pat, rep, *how in rules:
        m = re.fullmatch(pat, name)
        if not m:
            continue
        cand = m.expand(rep)
        mode = how[0] if how else "keep"
        if mode == "snake":
            prefix, _, rest = cand.partition("|")
            out += [prefix + snake(rest), prefix + rest.lower()]
        elif mode == "lower":
            prefix, _, rest = cand.partition("|")
            out += [prefix + rest.lower()]
        else:
            out.append(cand.replace("|", ""))
    return list(dict.fromkeys(out))


def transform(sources: Path = SOURCES, out: Path = DATA) -> tuple[dict, list[str]]:
    """Snapshots + conventions -> data/*.json.  Returns (summary per category, missing snapshot names)."""
    src = Sources(sources)
    conv = tomllib.loads((sources / "conventions.toml").read_text(encoding="utf-8"))
    b = Builder(src, conv)
    b.add_hipify()
    b.add_library_tables()
    b.add_torch()
    b.add_conventions()
    b.add_members()
    b.add_headers()
    b.add_namespaces()
    b.add_guards()
    b.add_hipify_unsupported()
    errors = b.gate()
    if errors:
        raise GateError(f"{len(errors)} emitted name(s) declared nowhere:\n" + "\n".join(errors))
    b.date_roc()
    arities = b.call_arities()
    summary = b.write(out)
    (out / "calls").mkdir(exist_ok=True)
    (out / "calls" / "arity.json").write_text(json.dumps(arities, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return summary, src.missing


_DEFAULT = re.compile(r"(?:__dv\(\s*(.*?)\s*\)|=\s*(.*?))\s*$")


def _default_value(param: str) -> str | None:
    """The default of one CUDA parameter as written (``unsigned int flags __dv(0)`` -> ``0``), or None."""
    m = _DEFAULT.search(param)
    if not m:
        return None
    value = (m.group(1) if m.group(1) is not None else m.group(2)).strip()
    return value or None


def _make_unsupported(e: dict, **fields) -> None:
    """Turn an entry into "no HIP counterpart": nothing to emit, so no name, version, header or roc* name."""
    for k in ("hip", "since_hip", "header", "roc"):
        e.pop(k, None)
    e.update(status="unsupported", **fields)


class GateError(RuntimeError):
    """The verification gate found names that no source declares."""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--extract", action="store_true", help="refresh the snapshots from installed/fetched headers first")
    ap.add_argument("--extract-signatures", action="store_true",
                    help="refresh only the call signatures in the snapshots (HIP and CUDA runtime/driver headers)")
    ap.add_argument("--extract-debs", action="store_true",
                    help="refresh only the deb_* snapshots from the library .deb files in --debs")
    ap.add_argument("--debs", type=Path, default=DEBS, help=f"folder of Debian 13 library .deb files (default {DEBS})")
    ap.add_argument("--sources", type=Path, default=SOURCES)
    ap.add_argument("--out", type=Path, default=DATA)
    ap.add_argument("--wheels", type=Path, default=WHEELS)
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args(argv)
    if args.extract:
        print("extract:")
        extract(args.sources, args.wheels, args.debs)
    elif args.extract_debs:
        snap = args.sources / "snapshots"
        extract_debs(snap, args.debs, snapshot_writer(snap))
    elif args.extract_signatures:
        extract_signatures(args.sources / "snapshots")
    summary, missing = transform(args.sources, args.out)
    for name in missing:
        print(f"warning: snapshot {name}.json missing under {args.sources / 'snapshots'}: run with --extract "
              "(see the module docstring for how to fetch its headers)", file=sys.stderr)
    if not args.quiet:
        total = collections.Counter()
        print(f"{'category':<20} {'entries':>7}  statuses")
        for cat, c in sorted(summary.items()):
            total.update(c)
            print(f"{cat:<20} {sum(c.values()):>7}  " + ", ".join(f"{k} {v}" for k, v in sorted(c.items())))
        print(f"{'total':<20} {sum(total.values()):>7}  " + ", ".join(f"{k} {v}" for k, v in sorted(total.items())))
        size = sum(p.stat().st_size for p in args.out.glob("*.json"))
        print(f"data: {size / 1e6:.2f} MB in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
