"""A small LLaMA-architecture causal LM built from a config in code, and LoRA adapters.

RMSNorm, rotary position embeddings, SwiGLU MLP, grouped-query attention through
``torch.nn.functional.scaled_dot_product_attention``.  No download: the weights
are randomly initialised from a fixed seed and frozen; only LoRA adapters train.
Import this module only after torch is known to be importable.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import torch
import torch.nn.functional as F
from torch import nn


@dataclass(frozen=True)
class TinyConfig:
    vocab_size: int = 259
    dim: int = 256
    n_layers: int = 4
    n_heads: int = 8
    n_kv_heads: int = 2
    ffn_dim: int = 688
    max_seq_len: int = 512
    rope_theta: float = 10000.0
    norm_eps: float = 1e-5
    mlp_act: str = "silu"           # silu (SwiGLU) | gelu_tanh (GeGLU) | bias_gelu_tanh (GeGLU with a frozen bias)

    def as_dict(self) -> dict:
        return asdict(self)


# Model shapes --size chooses, built in code with random weights (nothing is downloaded).
# llama3-8b: Meta-Llama-3-8B's config.json (hidden 4096, 32 layers, 32 heads, 8 KV heads,
# intermediate 14336, vocabulary 128256, rope theta 500000, 8192 positions; 8,030,261,248
# parameters, untied embeddings).  --layers keeps the first N layers of the shape.
SHAPES = {
    "tiny": TinyConfig(),
    "llama3-8b": TinyConfig(vocab_size=128256, dim=4096, n_layers=32, n_heads=32, n_kv_heads=8, ffn_dim=14336,
                            max_seq_len=8192, rope_theta=500000.0),
}


def shape_config(size: str, layers: int | None = None) -> TinyConfig:
    """The TinyConfig of a --size, cut to ``layers`` layers (None: all of them)."""
    from dataclasses import replace  # noqa: PLC0415

    cfg = SHAPES[size]
    return cfg if layers is None else replace(cfg, n_layers=layers)


def params_of(cfg: TinyConfig, lora: "LoraConfig | None" = None) -> tuple[int, int]:
    """(total, trainable) parameters of the model a config builds, counted on PyTorch's meta
    device (no memory is allocated)."""
    with torch.device("meta"):
        model = TinyLlama(cfg)
        if lora is not None:
            apply_lora(model, lora)
    return count_params(model)


@dataclass(frozen=True)
class LoraConfig:
    rank: int = 8
    alpha: float = 16.0
    targets: tuple[str, ...] = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        xf = x.float()
        xf = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + self.eps)
        return xf.type_as(x) * self.weight


def rope_tables(head_dim: int, seq_len: int, theta: float, device=None):
    inv = 1.0 / (theta ** (torch.arange(0, head_dim, 2, device=device, dtype=torch.float32) / head_dim))
    t = torch.arange(seq_len, device=device, dtype=torch.float32)
    freqs = torch.outer(t, inv)  # (T, hd/2)
    return freqs.cos(), freqs.sin()


def apply_rope(x, cos, sin):
    # x: (B, H, T, hd); rotate pairs (first half, second half)
    h = x.shape[-1] // 2
    x1, x2 = x[..., :h], x[..., h:]
    cos = cos[: x.shape[-2]].to(x.dtype)
    sin = sin[: x.shape[-2]].to(x.dtype)
    return torch.cat((x1 * cos - x2 * sin, x1 * sin + x2 * cos), dim=-1)


class Attention(nn.Module):
    def __init__(self, cfg: TinyConfig):
        super().__init__()
        self.n_heads, self.n_kv = cfg.n_heads, cfg.n_kv_heads
        self.head_dim = cfg.dim // cfg.n_heads
        self.q_proj = nn.Linear(cfg.dim, cfg.n_heads * self.head_dim, bias=False)
        self.k_proj = nn.Linear(cfg.dim, cfg.n_kv_heads * self.head_dim, bias=False)
        self.v_proj = nn.Linear(cfg.dim, cfg.n_kv_heads * self.head_dim, bias=False)
        self.o_proj = nn.Linear(cfg.n_heads * self.head_dim, cfg.dim, bias=False)

    def forward(self, x, cos, sin):
        b, t, _ = x.shape
        q = self.q_proj(x).view(b, t, self.n_heads, self.head_dim).transpose(1, 2)
        k = self.k_proj(x).view(b, t, self.n_kv, self.head_dim).transpose(1, 2)
        v = self.v_proj(x).view(b, t, self.n_kv, self.head_dim).transpose(1, 2)
        q, k = apply_rope(q, cos, sin), apply_rope(k, cos, sin)
        rep = self.n_heads // self.n_kv
        if rep > 1:  # grouped-query attention: share each K/V head across `rep` query heads
            k = k.repeat_interleave(rep, dim=1)
            v = v.repeat_interleave(rep, dim=1)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.o_proj(y.transpose(1, 2).reshape(b, t, -1))


MLP_ACTS = ("silu", "gelu_tanh", "bias_gelu_tanh")


class GatedActivation(nn.Module):
    """act(gate) * up: the part of the MLP a project's activation op replaces (porter.smoke.ops)."""

    def __init__(self, kind: str, ffn_dim: int):
        super().__init__()
        if kind not in MLP_ACTS:
            raise ValueError(f"unknown MLP activation {kind!r}")
        self.kind = kind
        if kind == "bias_gelu_tanh":
            self.bias = nn.Parameter(torch.zeros(ffn_dim))

    def forward(self, gate, up):
        if self.kind == "silu":
            return F.silu(gate) * up
        if self.kind == "gelu_tanh":
            return F.gelu(gate, approximate="tanh") * up
        return F.gelu(gate + self.bias.to(gate.dtype), approximate="tanh") * up


class MLP(nn.Module):
    def __init__(self, cfg: TinyConfig):
        super().__init__()
        self.gate_proj = nn.Linear(cfg.dim, cfg.ffn_dim, bias=False)
        self.up_proj = nn.Linear(cfg.dim, cfg.ffn_dim, bias=False)
        self.down_proj = nn.Linear(cfg.ffn_dim, cfg.dim, bias=False)
        self.act = GatedActivation(cfg.mlp_act, cfg.ffn_dim)

    def forward(self, x):
        return self.down_proj(self.act(self.gate_proj(x), self.up_proj(x)))


class Block(nn.Module):
    def __init__(self, cfg: TinyConfig):
        super().__init__()
        self.attn_norm = RMSNorm(cfg.dim, cfg.norm_eps)
        self.self_attn = Attention(cfg)
        self.mlp_norm = RMSNorm(cfg.dim, cfg.norm_eps)
        self.mlp = MLP(cfg)

    def forward(self, x, cos, sin):
        x = x + self.self_attn(self.attn_norm(x), cos, sin)
        return x + self.mlp(self.mlp_norm(x))


class TinyLlama(nn.Module):
    def __init__(self, cfg: TinyConfig):
        super().__init__()
        self.cfg = cfg
        self.embed_tokens = nn.Embedding(cfg.vocab_size, cfg.dim)
        self.layers = nn.ModuleList(Block(cfg) for _ in range(cfg.n_layers))
        self.norm = RMSNorm(cfg.dim, cfg.norm_eps)
        self.lm_head = nn.Linear(cfg.dim, cfg.vocab_size, bias=False)
        cos, sin = rope_tables(cfg.dim // cfg.n_heads, cfg.max_seq_len, cfg.rope_theta)
        self.register_buffer("rope_cos", cos, persistent=False)
        self.register_buffer("rope_sin", sin, persistent=False)
        self._init()

    def _init(self):
        std = 0.02
        for name, p in self.named_parameters():
            if name.endswith("norm.weight") or ".attn_norm." in name or ".mlp_norm." in name:
                continue
            if name.endswith(".act.bias"):
                nn.init.normal_(p, mean=0.0, std=0.1)
                continue
            nn.init.normal_(p, mean=0.0, std=std)
        for layer in self.layers:  # scaled residual projections (GPT-2 style)
            nn.init.normal_(layer.self_attn.o_proj.weight, std=std / math.sqrt(2 * self.cfg.n_layers))
            nn.init.normal_(layer.mlp.down_proj.weight, std=std / math.sqrt(2 * self.cfg.n_layers))

    def forward(self, ids):
        if ids.shape[1] > self.cfg.max_seq_len:
            raise ValueError(f"sequence length {ids.shape[1]} exceeds max_seq_len {self.cfg.max_seq_len}")
        x = self.embed_tokens(ids)
        for layer in self.layers:
            x = layer(x, self.rope_cos, self.rope_sin)
        return self.lm_head(self.norm(x))


class LoRALinear(nn.Module):
    """y = W x + (alpha / r) * B A x, with W frozen, A Kaiming-initialised and B zero."""

    def __init__(self, base: nn.Linear, rank: int, alpha: float):
        super().__init__()
        self.base = base
        self.base.weight.requires_grad_(False)
        self.scale = alpha / rank
        self.lora_A = nn.Parameter(torch.empty(rank, base.in_features))
        self.lora_B = nn.Parameter(torch.zeros(base.out_features, rank))
        nn.init.kaiming_uniform_(self.lora_A, a=math.sqrt(5))

    def forward(self, x):
        return self.base(x) + (x @ self.lora_A.t().to(x.dtype)) @ self.lora_B.t().to(x.dtype) * self.scale


def apply_lora(model: nn.Module, cfg: LoraConfig = LoraConfig()) -> int:
    """Freeze every parameter, then wrap the target Linear layers. Returns the number wrapped."""
    for p in model.parameters():
        p.requires_grad_(False)
    wrapped = 0
    for parent in list(model.modules()):
        for name, child in list(parent.named_children()):
            if name in cfg.targets and isinstance(child, nn.Linear):
                setattr(parent, name, LoRALinear(child, cfg.rank, cfg.alpha))
                wrapped += 1
    return wrapped


def count_params(model: nn.Module) -> tuple[int, int]:
    total = sum(p.numel() for p in model.parameters())
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    return total, trainable


def matmul_params(model: nn.Module) -> int:
    """Parameters that take part in a matrix multiply per token (Linear weights and LoRA factors)."""
    n = 0
    for m in model.modules():
        if isinstance(m, nn.Linear):
            n += m.weight.numel()
        elif isinstance(m, LoRALinear):
            n += m.lora_A.numel() + m.lora_B.numel()
    return n


def build_tiny(seed: int = 0, cfg: TinyConfig = TinyConfig(), lora: LoraConfig = LoraConfig()) -> TinyLlama:
    g = torch.random.fork_rng(devices=[])
    with g:
        torch.manual_seed(seed)
        model = TinyLlama(cfg)
        apply_lora(model, lora)
    return model
