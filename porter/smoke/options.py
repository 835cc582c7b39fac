"""Options of a smoke run (plain data, no torch) and the process-start clock."""

from __future__ import annotations

import json
import os
import time
from dataclasses import asdict, dataclass, fields

ENGINES = ("builtin", "llamafactory")
DEVICES = ("auto", "cpu", "cuda")
DTYPES = ("bf16", "fp32")
# porter.smoke.model.SHAPES's names, kept here so options need no torch (tests/smoke/test_smoke_model_size.py
# checks the two agree)
SIZES = ("tiny", "llama3-8b")


class SmokeError(RuntimeError):
    """A smoke run cannot start or continue; the message is one line for the user."""


class SmokeUsageError(SmokeError):
    """Bad input (an option value, a --model that is not a model folder)."""


@dataclass
class SmokeOptions:
    device: str = "auto"
    steps: int = 20
    nproc: int = 1
    dtype: str | None = None        # None: bf16 where the device supports it, else fp32
    model: str = "tiny"             # "tiny" or a local Hugging Face model folder
    size: str = "tiny"              # the built-in model's shape: tiny | llama3-8b (porter.smoke.model.SHAPES)
    layers: int | None = None       # --size: keep the first N layers of the shape (None: all)
    nnodes: int = 1                 # hosts taking part (torchrun's --nnodes); each runs `porter smoke` itself
    node_rank: int = 0              # this host's place among them (torchrun's --node-rank)
    rdzv_endpoint: str | None = None  # HOST:PORT node 0 listens on for the rendezvous (torchrun's --rdzv-endpoint)
    backend: str = "builtin"        # builtin | llamafactory
    batch_size: int = 4
    seq_len: int = 128
    lr: float = 2e-3
    lora_rank: int = 8
    seed: int = 0
    timeout_s: float = 900.0        # whole run (multi-process launcher, llamafactory subprocess)
    baseline: bool = True           # multi-process: also time a 1-process run of the same per-rank work
    template: str = "default"       # llamafactory chat template
    deepspeed: bool = False         # llamafactory: ZeRO-3 config
    config: str | None = None       # llamafactory: the user's own LLaMA-Factory YAML (or JSON) config, run as it is
    require_flash_attn: bool = False  # llamafactory: FlashAttention-2 must run (a fallback fails the check)
    json_path: str | None = None    # where the report goes (--json): llamafactory writes the effective YAML beside it
    project: str | None = None      # a project folder whose porter.toml [smoke] declares ops to swap in
    build_cache: str | None = None  # --project: where extensions are built (default: porter.smoke.extbuild.default_cache)

    def check(self) -> "SmokeOptions":
        if self.device not in DEVICES:
            raise SmokeUsageError(f"--device must be one of {', '.join(DEVICES)}, not {self.device!r}")
        if self.dtype is not None and self.dtype not in DTYPES:
            raise SmokeUsageError(f"--dtype must be bf16 or fp32, not {self.dtype!r}")
        if self.backend not in ENGINES:
            raise SmokeUsageError(f"--backend must be builtin or llamafactory, not {self.backend!r}")
        for name in ("steps", "nproc", "batch_size", "seq_len", "lora_rank"):
            if getattr(self, name) < 1:
                raise SmokeUsageError(f"--{name.replace('_', '-')} must be at least 1")
        if self.size not in SIZES:
            raise SmokeUsageError(f"--size must be one of {', '.join(SIZES)}, not {self.size!r}")
        if self.layers is not None and self.layers < 1:
            raise SmokeUsageError("--layers must be at least 1")
        if (self.size != "tiny" or self.layers is not None) and (self.model != "tiny" or self.backend != "builtin"):
            raise SmokeUsageError("--size and --layers shape the built-in model: they do not apply to --model PATH "
                                  "or --backend llamafactory")
        if self.nnodes < 1:
            raise SmokeUsageError("--nnodes must be at least 1")
        if not 0 <= self.node_rank < self.nnodes:
            raise SmokeUsageError(f"--node-rank {self.node_rank} is not in 0..{self.nnodes - 1} (--nnodes {self.nnodes})")
        if self.nnodes > 1:
            if self.backend != "builtin" or self.project is not None:
                raise SmokeUsageError("several nodes (--nnodes / NNODES) run the built-in loop only: not "
                                      + ("--project" if self.project is not None else "--backend llamafactory")
                                      + "; run it on one node")
            if rendezvous(self.rdzv_endpoint) is None:
                raise SmokeUsageError(f"--nnodes {self.nnodes} needs --rdzv-endpoint HOST:PORT (or MASTER_ADDR and "
                                      "MASTER_PORT): the address node 0 listens on"
                                      + (f", not {self.rdzv_endpoint!r}" if self.rdzv_endpoint else ""))
        if self.seq_len > 4096:
            raise SmokeUsageError("--seq-len above 4096 is not supported by the smoke test")
        if self.backend == "llamafactory" and self.model == "tiny" and not self.config:
            raise SmokeUsageError("--backend llamafactory needs --model PATH (a local Hugging Face model folder) "
                                  "or --config YOUR_LLAMAFACTORY.yaml")
        if self.backend != "llamafactory":
            for name, given in (("--config", self.config), ("--require-flash-attn", self.require_flash_attn)):
                if given:
                    raise SmokeUsageError(f"{name} is for --backend llamafactory (the built-in loop runs SDPA "
                                          "attention and its own LoRA config)")
        return self

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> "SmokeOptions":
        data = json.loads(text)
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})


def rendezvous(endpoint: str | None) -> tuple[str, int] | None:
    """("host", port) of a HOST:PORT (``[v6addr]:port`` too); None when it is not one."""
    if not endpoint or ":" not in endpoint:
        return None
    host, _, port = endpoint.rpartition(":")
    host = host.strip("[]")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        return None
    return host, int(port)


def process_start_time() -> float:
    """Wall-clock (epoch) start of this process, from /proc; falls back to now."""
    try:
        with open("/proc/self/stat", "rb") as fh:
            stat = fh.read().decode()
        start_ticks = int(stat.rsplit(")", 1)[1].split()[19])
        with open("/proc/uptime") as fh:
            uptime = float(fh.read().split()[0])
        age = uptime - start_ticks / os.sysconf("SC_CLK_TCK")
        return time.time() - max(age, 0.0)
    except (OSError, ValueError, IndexError):
        return time.time()
