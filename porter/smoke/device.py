"""Which device a smoke run uses, and what it is: one code path for CPU, NVIDIA and ROCm.

PyTorch on ROCm reuses the ``cuda`` device name; ``torch.version.hip`` tells the two
apart, and ``get_device_properties(i).gcnArchName`` (e.g. ``gfx942:sramecc+:xnack-``)
gives the AMD arch.  torch is passed in (or imported lazily), never imported at module load.
"""

from __future__ import annotations

import tomllib
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path

from porter.smoke.options import SmokeError

PEAKS_FILE = Path(__file__).parent / "data" / "peak_tflops.toml"


class DeviceError(SmokeError):
    """The requested device cannot be used (one line for the user)."""


@dataclass
class DeviceInfo:
    device: str            # torch device string: "cpu" or "cuda:0"
    backend: str           # "cpu" | "cuda" | "rocm"
    arch: str | None       # "gfx942", "sm_90", or None on CPU
    name: str              # marketing name or "cpu"
    torch: str
    hip: str | None
    cuda: str | None
    total_memory_gib: float | None
    bf16_supported: bool
    peak_tflops_bf16: float | None
    peak_tflops_fp32: float | None
    peak_label: str | None

    def as_dict(self) -> dict:
        return asdict(self)

    def peak_tflops(self, dtype: str) -> float | None:
        return self.peak_tflops_bf16 if dtype == "bf16" else self.peak_tflops_fp32


@lru_cache(maxsize=1)
def load_peaks(path: Path | str = PEAKS_FILE) -> tuple[dict, ...]:
    with open(path, "rb") as fh:
        return tuple(tomllib.load(fh).get("gpu", []))


def lookup_peak(arch: str | None, name: str | None) -> dict | None:
    """The first peak-table entry whose arch and name constraints match."""
    lname = (name or "").lower()
    for entry in load_peaks():
        if "arch" in entry and entry["arch"] != arch:
            continue
        names = entry.get("names")
        if names and not any(n.lower() in lname for n in names):
            continue
        if "arch" not in entry and not names:
            continue
        return entry
    return None


def arch_of(torch, index: int = 0) -> str | None:
    props = torch.cuda.get_device_properties(index)
    gcn = getattr(props, "gcnArchName", None)
    if getattr(torch.version, "hip", None) and gcn:
        return str(gcn).split(":")[0]
    major, minor = getattr(props, "major", None), getattr(props, "minor", None)
    if major is None:
        return None
    return f"sm_{major}{minor}"


def detect(requested: str = "auto", *, index: int = 0, torch=None) -> DeviceInfo:
    """Resolve ``--device auto|cpu|cuda`` into a DeviceInfo; DeviceError when cuda is asked for and absent."""
    if torch is None:
        import torch  # noqa: PLC0415
    if requested not in ("auto", "cpu", "cuda"):
        raise DeviceError(f"unknown device {requested!r}: use auto, cpu or cuda")
    hip = getattr(torch.version, "hip", None) or None
    cuda_v = getattr(torch.version, "cuda", None) or None
    have_gpu = bool(torch.cuda.is_available()) and torch.cuda.device_count() > index
    if requested == "cuda" and not have_gpu:
        build = "ROCm " + hip if hip else ("CUDA " + cuda_v if cuda_v else "CPU-only")
        raise DeviceError(
            f"--device cuda: no GPU is visible to torch {torch.__version__} ({build} build); "
            "check the driver, HIP_VISIBLE_DEVICES/CUDA_VISIBLE_DEVICES, or use --device cpu"
        )
    if requested == "cpu" or not have_gpu:
        return DeviceInfo("cpu", "cpu", None, "cpu", torch.__version__, hip, cuda_v, None, True, None, None, None)
    props = torch.cuda.get_device_properties(index)
    arch = arch_of(torch, index)
    name = str(getattr(props, "name", "") or arch or "gpu")
    backend = "rocm" if hip else "cuda"
    try:
        bf16 = bool(torch.cuda.is_bf16_supported())
    except Exception:  # noqa: BLE001 - fakes and old builds
        bf16 = False
    peak = lookup_peak(arch, name)
    mem = getattr(props, "total_memory", None)
    return DeviceInfo(
        device=f"cuda:{index}", backend=backend, arch=arch, name=name, torch=torch.__version__,
        hip=hip, cuda=None if hip else cuda_v,
        total_memory_gib=round(mem / 2**30, 3) if mem else None, bf16_supported=bf16,
        peak_tflops_bf16=peak.get("bf16") if peak else None,
        peak_tflops_fp32=peak.get("fp32") if peak else None,
        peak_label=peak.get("label") if peak else None,
    )
