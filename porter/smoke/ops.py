"""The model slots a project's ops can replace, each with the reference computation it is checked against.

A slot is a kind of module in the smoke model (``rms_norm``: every RMSNorm; ``mlp_activation``: the
activation inside every MLP).  A reference names what the op computes, the arguments it takes and
how the smoke model uses it; the model is built with that activation for the reference run too, so
both runs train the same network.  No torch at import: the functions get torch passed in.

Parity tolerances (elementwise ``|op - ref| <= atol + rtol * |ref|``, forward output and each input's
gradient) and the loss tolerance, per dtype, are below; a declaration can loosen the loss tolerance.
"""

from __future__ import annotations

from dataclasses import dataclass

# dtype -> (atol, rtol).  fp32 leaves room for fast-math intrinsics (rsqrtf, tanhf) and another
# reduction order; bf16/fp16 for one rounding of the output in the op's own order.
PARITY_TOL = {"fp32": (1e-4, 1e-3), "bf16": (1e-2, 2e-2), "fp16": (1e-3, 5e-3)}
LOSS_TOL = {"fp32": 2e-3, "bf16": 5e-2, "fp16": 5e-2}
FEATURES = {"model_dim": 256, "ffn_dim": 688}   # the tiny model's (porter.smoke.model.TinyConfig)


@dataclass(frozen=True)
class Reference:
    name: str
    args: tuple[str, ...]          # the op's arguments, in the slot's order
    optional: tuple[str, ...]      # may be left out of a declaration's args (the op has its own default)
    tensors: tuple[str, ...]       # which args are tensors (others: floats such as eps)
    grads: tuple[str, ...]         # the args a LoRA run needs gradients for (checked always)
    extra_grads: tuple[str, ...]   # frozen in a LoRA run: checked when the op gives a gradient for them
    model_act: str | None          # mlp_activation: the activation the smoke model is built with
    formula: str


@dataclass(frozen=True)
class Slot:
    name: str
    replaces: str                  # what in the model
    references: dict
    default_reference: str | None


SLOTS: dict[str, Slot] = {
    "rms_norm": Slot(
        "rms_norm", "every RMSNorm (attn_norm and mlp_norm of each layer, the final norm)",
        {"rms_norm": Reference("rms_norm", ("x", "weight", "eps"), ("eps",), ("x", "weight"), ("x",), ("weight",), None,
                               "x * rsqrt(mean(x^2, -1) + eps) * weight, in fp32, output in x's dtype")},
        "rms_norm"),
    "mlp_activation": Slot(
        "mlp_activation", "the activation of every MLP: down(act(gate(x)) * up(x))",
        {"silu": Reference("silu", ("x",), (), ("x",), ("x",), (), "silu", "silu(x)"),
         "swiglu": Reference("swiglu", ("gate", "up"), (), ("gate", "up"), ("gate", "up"), (), "silu", "silu(gate) * up"),
         "gelu_tanh": Reference("gelu_tanh", ("x",), (), ("x",), ("x",), (), "gelu_tanh",
                                "gelu(x), tanh approximation"),
         "bias_gelu_tanh": Reference("bias_gelu_tanh", ("x", "bias"), (), ("x", "bias"), ("x",), ("bias",), "bias_gelu_tanh",
                                     "gelu(x + bias), tanh approximation (bias: a frozen [ffn] vector)")},
        None),
}


def model_activation(ops) -> str:
    """The MLP activation the smoke model is built with for these declared ops."""
    for op in ops:
        if op.slot == "mlp_activation":
            return SLOTS["mlp_activation"].references[op.reference].model_act
    return "silu"


def reference_fn(torch, reference: str):
    """fn(**args) -> tensor: the reference computation (accumulates in fp32, returns the first tensor's dtype)."""
    F = torch.nn.functional

    def rms_norm(x, weight, eps=1e-5):
        xf = x.float()
        return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps) * weight.float()).to(x.dtype)

    def silu(x):
        return F.silu(x.float()).to(x.dtype)

    def swiglu(gate, up):
        return (F.silu(gate.float()) * up.float()).to(gate.dtype)

    def gelu_tanh(x):
        return F.gelu(x.float(), approximate="tanh").to(x.dtype)

    def bias_gelu_tanh(x, bias):
        return F.gelu(x.float() + bias.float(), approximate="tanh").to(x.dtype)

    return {"rms_norm": rms_norm, "silu": silu, "swiglu": swiglu, "gelu_tanh": gelu_tanh,
            "bias_gelu_tanh": bias_gelu_tanh}[reference]


def parity_inputs(torch, reference: str, dtype, device, gen) -> dict:
    """Inputs of the size the smoke model uses (2 x 16 rows), values from gen (a torch.Generator on CPU)."""
    def randn(*shape, scale=1.0, shift=0.0):
        return (torch.randn(*shape, generator=gen) * scale + shift).to(device=device, dtype=dtype)

    d, f = FEATURES["model_dim"], FEATURES["ffn_dim"]
    if reference == "rms_norm":
        return {"x": randn(2, 16, d), "weight": randn(d, scale=0.1, shift=1.0), "eps": 1e-5}
    if reference == "swiglu":
        return {"gate": randn(2, 16, f), "up": randn(2, 16, f)}
    if reference == "bias_gelu_tanh":
        return {"x": randn(2, 16, f), "bias": randn(f, scale=0.1)}
    return {"x": randn(2, 16, f)}
