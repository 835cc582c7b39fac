"""Find the HIP toolchain and the arch to build for.

Two kinds: ``hipcc`` (ROCm's driver, or ``amdclang++``) and a plain
``clang++-NN`` that compiles ``-x hip`` against ROCm's HIP headers and device
libraries (``--rocm-path``, ``--rocm-device-lib-path``).  Each knows a set of
archs; ``detect_toolchain(arch=None, kind="auto") -> Toolchain`` picks the
first that knows the target (``arch``, else the local GPU, else gfx942),
hipcc before a plain clang, and says why in ``reason``.  Nothing here changes
the arch it was asked for: when no toolchain knows it, ``arch_supported`` is
False and ``arch_problem()`` says in one line what each one can build.

Measured on Debian 12: clang-19 (LLVM 19.1.7, Debian main) generates gfx942
code against ROCm 5.2's headers and device libraries once the device-library
folder has ``oclc_isa_version_942.bc`` (porter makes it: devicelibs.py).  That
is LLVM 19's gfx942 code generation with ROCm 5.2 headers and libraries, not
a ROCm 6 toolchain.

Measured on Debian 12 (ROCm 5.2, clang 15): ``hipcc`` is a perl script that
picks the NVIDIA platform when it finds nvcc unless HIP_PLATFORM=amd is set;
``clang --target=amdgcn-amd-amdhsa -nogpulib -print-supported-cpus`` lists
gfx90a and gfx940 but not gfx942; hipcc adds ``-x hip`` to every source file
it compiles (.cu and .cpp alike) and defaults to ``-std=c++11``.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
from dataclasses import asdict, dataclass, field
from pathlib import Path

from porter import proc
from porter.build import devicelibs

DEFAULT_ARCH = "gfx942"  # AMD Instinct MI300X
PROBE_TIMEOUT = 20.0
# archs tried one by one with `--offload-arch=X -E` when the compiler cannot list them
PROBE_ARCHS = ("gfx908", "gfx90a", "gfx940", "gfx941", "gfx942", "gfx950", "gfx1030", "gfx1100")
# header of each optional library -> the Debian package / ROCm component providing it
LIBRARY_HEADERS = {
    "hipblas": ("hipblas/hipblas.h", "hipblas.h"),
    "hiprand": ("hiprand/hiprand.h",),
    "rocrand": ("rocrand/rocrand.h",),
    "hipfft": ("hipfft/hipfft.h", "hipfft.h"),
    "hipsparse": ("hipsparse/hipsparse.h", "hipsparse.h"),
    "hipsolver": ("hipsolver/hipsolver.h", "hipsolver.h"),
    "hipcub": ("hipcub/hipcub.hpp",),
    "rocprim": ("rocprim/rocprim.hpp",),
    "rocthrust": ("thrust/system/hip/config.h",),
}
# plain clang++-NN tried, newest first (LLVM 17 is the first with gfx942)
PLAIN_CLANG_VERSIONS = tuple(range(22, 16, -1))
KINDS = ("auto", "hipcc", "clang")
_ARCH_RE = re.compile(r"^gfx[0-9a-f]{3,5}(:[a-z-]+[+-])*$")


@dataclass(slots=True)
class Toolchain:
    compiler: str | None = None  # absolute path of hipcc (or amdclang++)
    compiler_kind: str = ""  # "hipcc" | "amdclang++" | "clang" (a plain clang++-NN, -x hip) | ""
    clang: str | None = None  # the clang the compiler drives
    hip_version: str = ""
    clang_version: str = ""
    rocm_path: str = ""
    platform: str = "amd"
    supported_archs: list[str] = field(default_factory=list)  # empty: unknown
    arch: str = DEFAULT_ARCH
    arch_source: str = "default"  # "option" | "rocminfo" | "amdgpu-arch" | "torch" | "default"
    arch_supported: bool | None = None  # None: could not tell
    local_gpus: list[str] = field(default_factory=list)
    cmake: str | None = None
    make: str | None = None
    make_output_sync: bool = False  # GNU make 4+: --output-sync keeps parallel compilers' messages whole
    libraries: dict[str, bool] = field(default_factory=dict)
    include_dirs: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    device_lib_path: str = ""  # plain clang: --rocm-device-lib-path
    hip_lib_dir: str = ""  # plain clang: where libamdhip64.so is (-L)
    reason: str = ""  # why this toolchain was picked, one line
    others: list[dict] = field(default_factory=list)  # the other toolchains found: summary()

    @property
    def found(self) -> bool:
        return self.compiler is not None

    def env(self, base: dict[str, str] | None = None) -> dict[str, str]:
        """The environment to run the compiler in: HIP_PLATFORM=amd always
        (Debian's hipcc otherwise picks nvcc when it is installed)."""
        env = dict(os.environ if base is None else base)
        env["HIP_PLATFORM"] = "amd"
        if env.get("HIP_COMPILER") == "nvcc":
            del env["HIP_COMPILER"]
        if self.rocm_path and "ROCM_PATH" not in env and self.rocm_path != "/usr":
            env["ROCM_PATH"] = self.rocm_path
        return env

    @property
    def name(self) -> str:
        """How the log names it: "hipcc (clang 15.0.6)", "clang++-19 (clang 19.1.7)"."""
        base = os.path.basename(self.compiler) if self.compiler else "none"
        return f"{base} (clang {self.clang_version or '?'})"

    def summary(self) -> dict:
        return {"kind": self.compiler_kind, "compiler": self.compiler, "name": self.name,
                "clang_version": self.clang_version, "supported_archs": list(self.supported_archs),
                "device_lib_path": self.device_lib_path, "problems": list(self.problems)}

    def hip_flags(self) -> list[str]:
        """What a plain clang needs beside ``--offload-arch`` (nothing for hipcc)."""
        if self.compiler_kind != "clang":
            return []
        flags = [f"--rocm-path={self.rocm_path}"] if self.rocm_path else []
        if self.device_lib_path:
            flags.append(f"--rocm-device-lib-path={self.device_lib_path}")
        return flags

    def compile_prefix(self, arch: str) -> list[str]:
        """argv up to the flags of one compile: ``hipcc --offload-arch=A`` or
        ``clang++-19 -x hip --offload-arch=A --rocm-path=.. --rocm-device-lib-path=..``."""
        head = [self.compiler, "-x", "hip"] if self.compiler_kind == "clang" else [self.compiler]
        return [*head, f"--offload-arch={arch}", *self.hip_flags()]

    def host_compile_prefix(self, language: str) -> list[str]:
        """argv up to the flags of a unit compiled for the host only, as C++ or C (``language``: "c++" or
        "c") with HIP's headers for the host, as CMake's C++ / C compiler with hip::host compiles it."""
        flags = [self.compiler, "-x", language, "-D__HIP_PLATFORM_AMD__=1"]
        if self.rocm_path and self.rocm_path != "/usr":
            flags.append(f"-isystem{os.path.join(self.rocm_path, 'include')}")
        return flags

    def link_prefix(self, arch: str) -> list[str]:
        head = [self.compiler, "--hip-link"] if self.compiler_kind == "clang" else [self.compiler]
        return [*head, f"--offload-arch={arch}", *self.hip_flags()]

    def link_libs(self) -> list[str]:
        """hipcc adds the HIP runtime itself; a plain clang is told."""
        if self.compiler_kind != "clang":
            return []
        return ([f"-L{self.hip_lib_dir}"] if self.hip_lib_dir else []) + ["-lamdhip64"]

    def arch_problem(self) -> str | None:
        """One line when the compiler cannot build for ``arch``; else None."""
        if not self.found:
            return ("no HIP compiler found (hipcc, amdclang++ or clang++-17 or newer with ROCm's HIP headers): "
                    "run `porter doctor` for the install command")
        if self.arch_supported is False:
            def knows(t) -> str:
                archs = t["supported_archs"]
                return ", ".join(a for a in archs if a.startswith("gfx9")) or ", ".join(archs) or "nothing"
            extra = "; ".join(p for p in self.problems if "device librar" in p)
            plain_here = self.compiler_kind == "clang" or any(o["kind"] == "clang" for o in self.others)
            if self.others:
                parts = [f"{self.name} knows {knows(self.summary())}"] + [f"{o['name']} knows {knows(o)}"
                                                                           for o in self.others]
                head = f"no toolchain here builds --offload-arch={self.arch} ({'; '.join(parts)})"
            else:
                head = f"{self.name} does not know --offload-arch={self.arch}; it knows {knows(self.summary())}"
            if plain_here or self.compiler_kind == "clang":
                todo = "pick one with --arch, or install a newer LLVM or ROCm 6"
            elif find_plain_clangs():
                todo = "pick one with --arch, or build with --toolchain clang"
            else:
                todo = "pick one with --arch, or install clang-19 lld-19 (Debian 12, for gfx942) or ROCm 6"
            return head + (f" [{extra}]" if extra else "") + f": {todo} for {self.arch}"
        return None

    def as_dict(self) -> dict:
        d = asdict(self)
        d["found"] = self.found
        d["name"] = self.name
        return d


def _which(name: str, extra_dirs: list[str]) -> str | None:
    for d in extra_dirs:
        p = Path(d) / name
        if p.is_file() and os.access(p, os.X_OK):
            return str(p)
    return shutil.which(name)


def _rocm_dirs() -> list[str]:
    dirs = []
    for root in (os.environ.get("ROCM_PATH"), os.environ.get("HIP_PATH"), "/opt/rocm"):
        if root:
            dirs += [os.path.join(root, "bin"), os.path.join(root, "llvm", "bin")]
    return dirs


def _run(argv: list[str], env: dict[str, str]) -> proc.Result:
    return proc.run(argv, timeout=PROBE_TIMEOUT, env=env)


def _find_compiler(tc: Toolchain, env: dict[str, str]) -> None:
    extra = _rocm_dirs()
    hipcc = _which("hipcc", extra)
    if hipcc:
        tc.compiler, tc.compiler_kind = hipcc, "hipcc"
    else:
        amd = _which("amdclang++", extra)
        if amd:
            tc.compiler, tc.compiler_kind, tc.clang = amd, "amdclang++", amd
    if tc.compiler is None:
        tc.problems.append("hipcc not found on PATH, under $ROCM_PATH/bin or /opt/rocm/bin")
        return
    comp_dir = Path(tc.compiler).resolve().parent
    tc.rocm_path = os.environ.get("ROCM_PATH") or str(comp_dir.parent if comp_dir.name != "bin" else comp_dir.parent)
    if comp_dir.parent.name == "llvm":  # /opt/rocm/llvm/bin/amdclang++
        tc.rocm_path = str(comp_dir.parent.parent)


def _versions(tc: Toolchain, env: dict[str, str]) -> None:
    if tc.compiler_kind == "hipcc":
        hipconfig = _which("hipconfig", [str(Path(tc.compiler).parent)])
        if hipconfig:
            r = _run([hipconfig, "--version"], env)
            if r.ok:
                tc.hip_version = r.stdout.strip().splitlines()[-1].strip() if r.stdout.strip() else ""
            r = _run([hipconfig, "--rocmpath"], env)
            if r.ok and r.stdout.strip() and not os.environ.get("ROCM_PATH"):
                tc.rocm_path = r.stdout.strip().splitlines()[-1]
        # HIPCC_VERBOSE=1 shows the clang command line hipcc runs
        venv = dict(env, HIPCC_VERBOSE="1")
        r = _run([tc.compiler, "--version"], venv)
        text = r.stdout + "\n" + r.stderr
        m = re.search(r"hipcc-cmd:\s*(\S+)", text)
        if m:
            tc.clang = m.group(1).strip('"')
        if not tc.hip_version:
            m = re.search(r"HIP version:\s*(\S+)", text)
            tc.hip_version = m.group(1) if m else ""
        m = re.search(r"clang version\s+(\S+)", text)
        tc.clang_version = m.group(1) if m else ""
        if r.returncode is None or (r.returncode != 0 and not tc.clang_version):
            tc.problems.append(f"`{tc.compiler} --version` failed: {(r.error or r.stderr.strip() or 'no output')[:200]}")
    else:
        r = _run([tc.compiler, "--version"], env)
        m = re.search(r"clang version\s+(\S+)", r.stdout)
        tc.clang_version = m.group(1) if m else ""
        hv = Path(tc.rocm_path) / ".info" / "version"
        if hv.is_file():
            tc.hip_version = hv.read_text(errors="replace").strip()


def _supported_archs(tc: Toolchain, env: dict[str, str]) -> list[str]:
    if not tc.clang and tc.rocm_path:
        cand = Path(tc.rocm_path) / "llvm" / "bin" / "clang++"
        tc.clang = str(cand) if cand.is_file() else None
    if tc.clang:
        r = _run([tc.clang, "--target=amdgcn-amd-amdhsa", "-nogpulib", "-print-supported-cpus"], env)
        archs = sorted(set(re.findall(r"^\s*(gfx[0-9a-f]+)\s*$", r.stdout + "\n" + r.stderr, re.M)), key=lambda a: (len(a), a))
        if archs:
            return archs
    return []


def arch_known(tc: Toolchain, arch: str, env: dict[str, str] | None = None) -> bool | None:
    """Ask the compiler itself: preprocess an empty HIP file for ``arch``."""
    if not tc.compiler:
        return None
    r = proc.run([tc.compiler, f"--offload-arch={arch}", "-x", "hip", "-E", os.devnull, "-o", os.devnull],
                 timeout=PROBE_TIMEOUT, env=tc.env(env))
    if r.returncode is None or r.timed_out:
        return None
    return r.returncode == 0


def _local_gpus(env: dict[str, str]) -> tuple[list[str], str]:
    for tool in ("rocminfo", "amdgpu-arch"):
        path = _which(tool, _rocm_dirs())
        if not path:
            continue
        r = _run([path], env)
        if r.ok:
            found = re.findall(r"\b(gfx[0-9a-f]{3,5})\b", r.stdout)
            if found:
                return list(dict.fromkeys(found)), tool
    # a ROCm build of torch knows the GPU; only import it when it is a ROCm build
    try:
        spec = importlib.util.find_spec("torch")
    except (ImportError, ValueError):
        spec = None
    if spec and spec.submodule_search_locations:
        vfile = Path(list(spec.submodule_search_locations)[0]) / "version.py"
        try:
            is_rocm = re.search(r"^hip\s*(:[^=]*)?=\s*['\"]", vfile.read_text(errors="replace"), re.M) is not None
        except OSError:
            is_rocm = False
        if is_rocm:
            try:
                import torch  # noqa: PLC0415  (lazy: heavy, optional)

                if torch.cuda.is_available():
                    names = [torch.cuda.get_device_properties(i).gcnArchName.split(":")[0]
                             for i in range(torch.cuda.device_count())]
                    if names:
                        return list(dict.fromkeys(names)), "torch"
            except Exception:  # noqa: BLE001 - a broken torch must not break detection
                pass
    return [], ""


def _libraries(tc: Toolchain) -> None:
    roots = []
    for r in (tc.rocm_path, "/opt/rocm", "/usr"):
        if r and os.path.join(r, "include") not in roots:
            roots.append(os.path.join(r, "include"))
    tc.include_dirs = [r for r in roots if os.path.isdir(r)]
    for lib, headers in LIBRARY_HEADERS.items():
        tc.libraries[lib] = any(os.path.isfile(os.path.join(d, h)) for d in tc.include_dirs for h in headers)


def valid_arch_name(arch: str) -> bool:
    return bool(_ARCH_RE.match(arch))


def find_plain_clangs() -> list[str]:
    """``clang++-NN`` on PATH (NN from 22 down to 17), one per real binary, newest first."""
    out, seen = [], set()
    for v in PLAIN_CLANG_VERSIONS:
        p = shutil.which(f"clang++-{v}")
        if p and os.path.realpath(p) not in seen:
            seen.add(os.path.realpath(p))
            out.append(p)
    return out


def _hip_root() -> str:
    """Where ROCm's HIP headers are (include/hip/hip_runtime.h): $ROCM_PATH, /opt/rocm, /usr."""
    for root in (os.environ.get("ROCM_PATH"), os.environ.get("HIP_PATH"), "/opt/rocm", "/usr"):
        if root and os.path.isfile(os.path.join(root, "include", "hip", "hip_runtime.h")):
            return root
    return ""


def _hip_header_version(root: str) -> str:
    try:
        text = Path(root, "include", "hip", "hip_version.h").read_text(errors="replace")
    except OSError:
        return ""
    parts = [re.search(rf"#define HIP_VERSION_{k}\s+(\d+)", text) for k in ("MAJOR", "MINOR", "PATCH")]
    return ".".join(m.group(1) for m in parts if m)


def hip_lib_dir(root: str) -> str:
    """The folder holding the HIP runtime library (libamdhip64.so) of the ROCm at ``root``, "" when none."""
    for d in (os.path.join(root, "lib"), os.path.join(root, "lib64"), "/usr/lib/x86_64-linux-gnu",
              "/usr/lib/aarch64-linux-gnu", "/opt/rocm/lib"):
        if os.path.isfile(os.path.join(d, "libamdhip64.so")):
            return d
    return ""


def _detect_plain(clang: str, env: dict[str, str]) -> Toolchain:
    """A plain clang++-NN over ROCm's HIP headers and device libraries: its
    archs are those its backend generates *and* that have (or can be given)
    an ISA-version device library."""
    tc = Toolchain(compiler=clang, compiler_kind="clang", clang=clang)
    r = _run([clang, "--version"], env)
    m = re.search(r"clang version\s+(\S+)", r.stdout)
    tc.clang_version = m.group(1) if m else ""
    if not r.ok:
        tc.problems.append(f"`{clang} --version` failed: {(r.error or r.stderr.strip() or 'no output')[:200]}")
    tc.rocm_path = _hip_root()
    if not tc.rocm_path:
        tc.problems.append("no HIP headers (include/hip/hip_runtime.h): apt-get install libamdhip64-dev")
    else:
        tc.hip_version = _hip_header_version(tc.rocm_path)
        tc.hip_lib_dir = hip_lib_dir(tc.rocm_path)
    backend = _supported_archs(tc, env)
    src = devicelibs.find_bitcode_dir(tc.rocm_path)
    if src is None:
        tc.problems.append("no ROCm device libraries (amdgcn/bitcode/ocml.bc): apt-get install rocm-device-libs")
        tc.supported_archs = []
        return tc
    tc.device_lib_path = src
    libs = set(devicelibs.isa_archs(src)) | set(devicelibs.ISA_VERSIONS)
    tc.supported_archs = [a for a in backend if a in libs] if tc.rocm_path else []
    return tc


def _detect_hipcc(env: dict[str, str]) -> Toolchain:
    tc = Toolchain()
    _find_compiler(tc, env)
    if tc.found:
        _versions(tc, env)
        tc.supported_archs = _supported_archs(tc, env)
    return tc


def _knows(tc: Toolchain, arch: str, env: dict[str, str]) -> bool | None:
    if not tc.found:
        return None
    if tc.supported_archs:
        return arch.split(":")[0] in tc.supported_archs
    if tc.compiler_kind == "clang":
        return False
    return arch_known(tc, arch, env)


def _ready_device_libs(tc: Toolchain) -> None:
    """A plain clang building an arch whose ISA-version library ROCm did not
    ship: point it at porter's folder (made now if need be)."""
    if tc.compiler_kind != "clang" or not tc.device_lib_path:
        return
    base = tc.arch.split(":")[0]
    if base in devicelibs.isa_archs(tc.device_lib_path):
        return
    got = devicelibs.prepare(tc.device_lib_path, tc.compiler)
    if got.folder and base in got.archs:
        tc.device_lib_path = got.folder
    else:
        tc.arch_supported = False
        tc.problems.append(f"no device library for {base}: " + (got.problem or "porter could not make it"))


def detect_toolchain(arch: str | None = None, kind: str = "auto") -> Toolchain:
    """What HIP toolchain this machine has and which arch to build for.

    ``arch``: the user's ``--arch``; otherwise the local GPU, otherwise gfx942.
    ``kind``: "auto" (the first toolchain that knows the arch: hipcc, then a
    plain clang++-NN), "hipcc" or "clang".  Never raises for a missing or
    broken toolchain: see ``.problems``."""
    if kind not in KINDS:
        raise ValueError(f"toolchain kind {kind!r}: one of {', '.join(KINDS)}")
    env = Toolchain().env()
    cands: list[Toolchain] = []
    if kind in ("auto", "hipcc"):
        h = _detect_hipcc(env)
        if h.found or kind == "hipcc":
            cands.append(h)
    if kind in ("auto", "clang"):
        cands += [_detect_plain(c, env) for c in find_plain_clangs()]
    if not cands:
        cands.append(Toolchain(problems=["no plain clang++-17 or newer on PATH (apt-get install clang-19 lld-19)"]
                               if kind == "clang" else []))
        if kind == "auto":
            cands[0].problems.append("hipcc not found on PATH, under $ROCM_PATH/bin or /opt/rocm/bin")
    local_gpus, source = _local_gpus(env)
    if arch:
        target, arch_source = arch, "option"
    elif local_gpus:
        target, arch_source = local_gpus[0], source
    else:
        target, arch_source = DEFAULT_ARCH, "default"
    known = [_knows(t, target, env) for t in cands]
    pick = next((i for i, k in enumerate(known) if k), None)
    if pick is None:
        pick = next((i for i, t in enumerate(cands) if t.found), 0)
    tc = cands[pick]
    tc.arch, tc.arch_source, tc.local_gpus, tc.arch_supported = target, arch_source, local_gpus, known[pick]
    tc.others = [t.summary() for i, t in enumerate(cands) if i != pick and t.found]
    why = {"option": "asked for with --arch", "default": "the default (MI300X)"}.get(arch_source, f"the local GPU ({arch_source})")
    if tc.found and tc.arch_supported:
        skipped = [t.name for t in cands[:pick] if t.found]
        tc.reason = (f"{tc.name} for {target} ({why})"
                     + (f"; {', '.join(skipped)} does not know {target}" if skipped else ""))
    tc.cmake = shutil.which("cmake")
    tc.make = shutil.which("make")
    tc.make_output_sync = bool(tc.make) and make_has_output_sync(tc.make, env)
    if tc.found and tc.arch_supported:
        _ready_device_libs(tc)
    _libraries(tc)
    return tc


def make_has_output_sync(make: str, env: dict[str, str]) -> bool:
    """Whether ``make`` is GNU make 4.0 or newer, which has ``--output-sync`` (``-O``).  Compilers write a
    message in many small writes (clang: the file, the line, "error: " and the text each on their own), so
    two compiles of a parallel make interleave mid-line in the one pipe porter reads, and a message comes
    out broken; --output-sync=target holds each recipe's output until it ends and writes it whole."""
    r = _run([make, "--version"], env)
    m = re.match(r"GNU Make (\d+)\.", r.stdout or "") if r.ok else None
    return bool(m) and int(m.group(1)) >= 4


def install_hints(tc: Toolchain | None = None) -> list[str]:
    """How to install what is missing, for ``porter doctor``: one line each."""
    hints: list[str] = []
    if tc is None or not tc.found:
        hints.append("Debian 12 / Ubuntu: sudo apt-get install hipcc libamdhip64-dev rocm-device-libs "
                     "(ROCm 5.2-5.7 from the distribution; knows gfx90a/gfx940, not gfx942)")
        hints.append("gfx942 on Debian 12 without ROCm 6: also sudo apt-get install clang-19 lld-19 llvm-19 "
                     "(LLVM 19 generates gfx942 code over those headers and device libraries)")
        hints.append("ROCm 6 or newer (MI300X, gfx942): install AMD's repository package, then "
                     "sudo apt-get install rocm-hip-sdk (see rocm.docs.amd.com, 'Quick start installation')")
    elif tc.arch_supported is False:
        plain = tc.compiler_kind == "clang" or any(o.get("kind") == "clang" for o in tc.others)
        if not plain and tc.arch.split(":")[0] == "gfx942":
            hints.append("gfx942 offline on Debian 12: sudo apt-get install clang-19 lld-19 llvm-19 (porter then builds "
                         "with clang++-19 against the installed ROCm headers and device libraries)")
        hints.append(f"{tc.arch} needs a newer compiler: install ROCm 6 or newer (sudo apt-get install rocm-hip-sdk "
                     "from AMD's repository), or build for an arch this one knows with --arch")
    if tc is None or not tc.cmake:
        hints.append("cmake: sudo apt-get install cmake")
    if tc is None or not tc.make:
        hints.append("make: sudo apt-get install make")
    if tc is not None and tc.found:
        apt = {"hiprand": "libhiprand-dev", "rocrand": "librocrand-dev", "hipsparse": "libhipsparse-dev",
               "rocprim": "librocprim-dev"}
        rocm = {"hipblas": "hipblas-dev", "hipfft": "hipfft-dev", "hipsolver": "hipsolver-dev", "hipcub": "hipcub-dev",
                "rocthrust": "rocthrust-dev"}
        for lib, ok in tc.libraries.items():
            if ok:
                continue
            if lib in apt:
                hints.append(f"{lib}: sudo apt-get install {apt[lib]}")
            else:
                hints.append(f"{lib}: from ROCm (sudo apt-get install {rocm[lib]} with AMD's repository); "
                             "not packaged for Debian 12")
    return hints
