"""``porter doctor``: what this machine has for compiling HIP and for the smoke test, and what blocks either.

``collect() -> dict`` gathers the facts (never raises; torch is imported lazily and may be missing),
``verdict(info) -> dict`` names blockers and notes, ``format_text(info) -> str`` is the one-screen view.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import platform
import shutil
import sys
import warnings
from pathlib import Path

from porter import proc

VISIBLE_VARS = ("HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL")
COMM_PREFIXES = ("NCCL_", "RCCL_")
HSA_VARS = ("HSA_FORCE_FINE_GRAIN_PCIE", "HSA_XNACK", "HSA_OVERRIDE_GFX_VERSION", "HIP_PLATFORM", "ROCM_PATH")
MI300_ARCH = "gfx942"
TIMEOUT_S = 10


def _os_info() -> dict:
    pretty = None
    try:
        for line in Path("/etc/os-release").read_text().splitlines():
            if line.startswith("PRETTY_NAME="):
                pretty = line.split("=", 1)[1].strip().strip('"')
    except OSError:
        pass
    return {"system": platform.system(), "release": platform.release(), "machine": platform.machine(),
            "distribution": pretty}


def _python_info() -> dict:
    return {"version": platform.python_version(), "executable": sys.executable}


def torch_info() -> dict:
    """torch's build and GPUs; {"installed": False, "error": ...} when it cannot be imported."""
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=".*NumPy.*")
            torch = importlib.import_module("torch")
    except Exception as exc:  # noqa: BLE001 - ImportError, or a broken install raising anything
        return {"installed": False, "error": f"{type(exc).__name__}: {exc}"[:300], "gpus": []}
    hip = getattr(torch.version, "hip", None) or None
    cuda = getattr(torch.version, "cuda", None) or None
    info = {"installed": True, "version": torch.__version__, "build": "rocm" if hip else ("cuda" if cuda else "cpu"),
            "hip": hip, "cuda": cuda, "gpus": [], "gpu_error": None}
    try:
        n = torch.cuda.device_count() if torch.cuda.is_available() else 0
        for i in range(n):
            p = torch.cuda.get_device_properties(i)
            gcn = getattr(p, "gcnArchName", None)
            arch = str(gcn).split(":")[0] if hip and gcn else (f"sm_{p.major}{p.minor}" if hasattr(p, "major") else None)
            name = str(getattr(p, "name", "") or "")
            info["gpus"].append({"index": i, "name": name, "arch": arch, "arch_full": str(gcn) if gcn else arch,
                                 "memory_gib": round(getattr(p, "total_memory", 0) / 2**30, 2),
                                 "mi300x": arch == MI300_ARCH and "MI300A" not in name and "MI325X" not in name})
    except Exception as exc:  # noqa: BLE001 - a driver problem is a finding, not a crash
        info["gpu_error"] = f"{type(exc).__name__}: {exc}"[:300]
    info["attention"] = _attention(torch)
    from porter.doctor.topology import rccl_version  # noqa: PLC0415

    info["rccl"] = rccl_version(torch) if hip or cuda else None
    return info


def _attention(torch) -> dict:
    f = getattr(torch.nn.functional, "scaled_dot_product_attention", None)
    out = {"sdpa": f is not None, "flash_attn_package": importlib.util.find_spec("flash_attn") is not None}
    b = getattr(torch.backends, "cuda", None)
    for key, fn in (("flash_sdp_enabled", "flash_sdp_enabled"), ("mem_efficient_sdp_enabled", "mem_efficient_sdp_enabled"),
                    ("flash_attention_available", "is_flash_attention_available")):
        try:
            out[key] = bool(getattr(b, fn)()) if b is not None and hasattr(b, fn) else None
        except Exception:  # noqa: BLE001
            out[key] = None
    return out


def toolchain_info() -> dict:
    """The HIP compiler as porter.build.toolchain sees it; a failing detection is
    reported as what blocks a compile, not a crash."""
    from porter.build.toolchain import detect_toolchain  # noqa: PLC0415

    try:
        tc = detect_toolchain()
    except Exception as exc:  # noqa: BLE001 - a broken ROCm install must not stop doctor
        return {"compiler": None, "found": False, "hip_version": "", "supported_archs": [], "arch": MI300_ARCH,
                "arch_supported": None, "arch_problem": f"HIP toolchain detection failed: {type(exc).__name__}: {exc}",
                "source": "porter.build.toolchain"}
    d = tc.as_dict()
    d["arch_problem"] = tc.arch_problem()
    d["source"] = "porter.build.toolchain"
    return d


def _query(argv: list[str]) -> str | None:
    """A tool's stdout (None: missing, failed or past TIMEOUT_S), read through porter.proc."""
    return proc.output(argv, timeout=TIMEOUT_S)


def rocm_info() -> dict:
    version = None
    for f in ("/opt/rocm/.info/version", "/opt/rocm/.info/version-dev"):
        try:
            version = Path(f).read_text().strip()
            break
        except OSError:
            continue
    tools = {name: shutil.which(name) for name in ("amd-smi", "rocm-smi", "rocminfo", "nvidia-smi")}
    smi_version = None
    if tools["amd-smi"]:
        smi_version = (_query([tools["amd-smi"], "version"]) or "").strip().splitlines()[:1]
        smi_version = smi_version[0] if smi_version else None
    return {"rocm_version": version, "tools": tools, "amd_smi_version": smi_version}


def env_info() -> dict:
    env = os.environ
    return {"visible_devices": {k: env[k] for k in VISIBLE_VARS if k in env},
            "comm": {k: v for k, v in sorted(env.items()) if k.startswith(COMM_PREFIXES)},
            "hsa": {k: env[k] for k in HSA_VARS if k in env}}


def topology_info(env=None) -> dict:
    """The GPU links (amd-smi / rocm-smi) and the RCCL settings that keep traffic off xGMI."""
    from porter.doctor.topology import comm_problems, read_links  # noqa: PLC0415

    info = read_links(_query)
    info["comm_problems"] = comm_problems(dict(os.environ if env is None else env))
    return info


def collect() -> dict:
    info = {"os": _os_info(), "python": _python_info(), "torch": torch_info(), "toolchain": toolchain_info(),
            "rocm": rocm_info(), "env": env_info(), "topology": topology_info()}
    info["verdict"] = verdict(info)
    return info


def verdict(info: dict) -> dict:
    """{"compile": [blockers], "smoke": [blockers], "notes": [...], "line": one line}."""
    compile_b, smoke_b, notes = [], [], []
    tc = info["toolchain"]
    if not tc.get("found"):
        compile_b.append(tc.get("arch_problem") or "no HIP compiler (hipcc) found")
    elif tc.get("arch_problem"):
        compile_b.append(tc["arch_problem"])
    t = info["torch"]
    if not t.get("installed"):
        smoke_b.append("torch is not importable (" + (t.get("error") or "missing") + "); install a ROCm build of torch")
    else:
        if t.get("gpu_error"):
            smoke_b.append(f"torch cannot query the GPUs: {t['gpu_error']}")
        if not t["gpus"]:
            notes.append(f"no GPU visible to torch {t['version']} ({t['build']} build): porter smoke runs on CPU only")
        elif not any(g["mi300x"] for g in t["gpus"]):
            notes.append("no MI300X (gfx942) among the GPUs: " + ", ".join(f"{g['name'] or '?'} {g['arch']}" for g in t["gpus"]))
        if t["build"] == "cuda" and info["toolchain"].get("local_gpus"):
            smoke_b.append("an AMD GPU is present but torch is a CUDA build: install the ROCm wheel of torch")
    vis = info["env"]["visible_devices"]
    if "CUDA_VISIBLE_DEVICES" in vis and "HIP_VISIBLE_DEVICES" in vis and vis["CUDA_VISIBLE_DEVICES"] != vis["HIP_VISIBLE_DEVICES"]:
        notes.append("CUDA_VISIBLE_DEVICES and HIP_VISIBLE_DEVICES disagree; ROCm honours both, so the GPUs seen are their intersection")
    if vis.get("HIP_VISIBLE_DEVICES") == "" or vis.get("CUDA_VISIBLE_DEVICES") == "":
        notes.append("a *_VISIBLE_DEVICES variable is empty: no GPU is visible")
    parts = [("compile", compile_b), ("smoke", smoke_b)]
    line = "; ".join(f"{name}: " + ("BLOCKED by " + " / ".join(b) if b else "ok") for name, b in parts)
    multi = _multi_gpu(info.get("topology") or {})
    if multi is not None:
        line += f"; multi-GPU: {multi}"
    return {"compile": compile_b, "smoke": smoke_b, "notes": notes, "line": line,
            "multi_gpu": (info.get("topology") or {}).get("comm_problems", []) + _not_xgmi_lines(info.get("topology") or {})}


def _not_xgmi_lines(topo: dict) -> list[str]:
    bad = topo.get("not_xgmi") or []
    if not bad:
        return []
    pairs = ", ".join(f"GPU{a}-GPU{b} {t}" for a, b, t in bad)
    return [f"{len(bad)} GPU pair(s) not linked by xGMI ({topo['source']}): {pairs}; RCCL traffic between them "
            "does not use Infinity Fabric"]


def _multi_gpu(topo: dict) -> str | None:
    """The verdict on GPU-to-GPU traffic: None when nothing is known (no tool, no setting)."""
    problems = topo.get("comm_problems", []) + _not_xgmi_lines(topo)
    if problems:
        return "DEGRADED by " + " / ".join(p.split(":")[0] for p in problems)
    if topo.get("source"):
        gpus = {g for a, b, _ in topo["links"] for g in (a, b)}
        return f"ok (all pairs of the {len(gpus)} GPUs on xGMI, RCCL settings leave peer-to-peer on)"
    return None


def _archs_text(archs: list[str]) -> str:
    gfx9 = [a for a in archs if a.startswith("gfx9")]
    if not archs:
        return "knows no arch here"
    return f"knows {', '.join(gfx9)}" + (f" (+{len(archs) - len(gfx9)} more)" if len(archs) > len(gfx9) else "")


def toolchain_lines(tc: dict) -> list[str]:
    """One line per toolchain found (the one a build uses first), what each
    builds, and what is missing."""
    if not tc.get("found"):
        return [f"toolchain   none found ({tc.get('arch_problem') or 'no HIP compiler'})"]
    used = {"kind": tc.get("compiler_kind"), "compiler": tc.get("compiler"), "name": tc.get("name") or tc.get("compiler"),
            "supported_archs": tc.get("supported_archs") or [], "device_lib_path": tc.get("device_lib_path", ""),
            "problems": tc.get("problems") or []}
    out = []
    for t in [used, *(tc.get("others") or [])]:
        here = t is used and tc.get("arch_supported")
        line = f"toolchain   {t['name']} at {t['compiler']}; {_archs_text(t['supported_archs'])}"
        if here:
            line += f"; builds {tc.get('arch')} by default"
        out.append(line)
        if t["kind"] == "clang":
            out.append(f"            device libraries {t['device_lib_path'] or 'missing'}")
        for p in t["problems"]:
            out.append(f"            missing: {p}")
    if tc.get("reason"):
        out.append(f"chosen      {tc['reason']}")
    if tc.get("compiler_kind") == "clang" and tc.get("arch_supported"):
        ver = (tc.get("clang_version") or "").split(".")[0]
        out.append(f"note        {tc.get('arch')}: real {tc.get('arch')} code generation by LLVM {ver} against ROCm "
                   f"{tc.get('hip_version') or '?'} headers and device libraries (porter made the missing ISA-version "
                   "library), not a ROCm 6 toolchain")
    return out


def format_text(info: dict) -> str:
    o, p, t, tc, r, e = (info[k] for k in ("os", "python", "torch", "toolchain", "rocm", "env"))
    lines = [f"OS          {o['distribution'] or o['system']} ({o['system']} {o['release']}, {o['machine']})",
             f"Python      {p['version']} ({p['executable']})"]
    if t["installed"]:
        ver = f"{t['version']}, {t['build']} build" + (f", HIP {t['hip']}" if t["hip"] else "") + \
              (f", CUDA {t['cuda']}" if t["cuda"] else "")
        lines.append(f"torch       {ver}")
        for g in t["gpus"]:
            lines.append(f"GPU {g['index']:<7} {g['name'] or '?'}  {g['arch_full']}  {g['memory_gib']:.1f} GiB"
                         + ("  (MI300X)" if g["mi300x"] else ""))
        if not t["gpus"]:
            lines.append("GPUs        none visible to torch" + (f" ({t['gpu_error']})" if t.get("gpu_error") else ""))
        a = t.get("attention") or {}
        lines.append(f"attention   SDPA {'yes' if a.get('sdpa') else 'no'}, flash SDP enabled {a.get('flash_sdp_enabled')}, "
                     f"flash kernels built {a.get('flash_attention_available')}, flash_attn package "
                     f"{'yes' if a.get('flash_attn_package') else 'no'}")
    else:
        lines.append(f"torch       MISSING: {t['error']}")
    lines.append(f"ROCm        {r['rocm_version'] or 'no /opt/rocm'}; HIP (hipcc) {tc.get('hip_version') or '?'}"
                 + (f"; torch HIP {t['hip']}" if t.get("hip") else ""))
    lines += toolchain_lines(tc)
    lines.append("smi         " + ", ".join(f"{k} {'yes' if v else 'no'}" for k, v in r["tools"].items())
                 + (f" ({r['amd_smi_version']})" if r.get("amd_smi_version") else ""))
    lines.append("visible     " + (", ".join(f"{k}={v}" for k, v in e["visible_devices"].items()) or "no *_VISIBLE_DEVICES set"))
    comm = {**e["comm"], **e["hsa"]}
    lines.append("comm/HSA    " + (", ".join(f"{k}={v}" for k, v in comm.items()) or "no NCCL_/RCCL_/HSA_ variables set"))
    topo = info.get("topology") or {}
    if topo.get("source"):
        gpus = {g for a, b, _ in topo["links"] for g in (a, b)}
        lines.append(f"topology    {topo['source']}: {len(gpus)} GPUs, "
                     + (f"{len(topo['not_xgmi'])} pair(s) not on xGMI" if topo["not_xgmi"] else "every pair on xGMI"))
    else:
        lines.append("topology    unknown (neither amd-smi nor rocm-smi answered)")
    if t.get("installed"):
        lines.append(f"RCCL        {t.get('rccl') or 'none in this torch build'}")
    for n in info["verdict"].get("multi_gpu", []):
        lines.append(f"multi-GPU   {n}")
    for n in info["verdict"]["notes"]:
        lines.append(f"note        {n}")
    lines.append(f"verdict     {info['verdict']['line']}")
    return "\n".join(lines)
