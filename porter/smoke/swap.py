"""Swap a project's ops into the smoke model: each RMSNorm / MLP activation becomes a wrapper that calls the op.

A forward-only op is used only where no gradient flows through the module (its inputs and weights
need none: in a LoRA run, the first layer's attn_norm, which sees the frozen embeddings); elsewhere the
wrapper runs the model's own module.  ``Usage`` records which module names ran the op and which ran the
reference, for the report.  An op declared with a backward whose output carries no gradient where one is
needed stops the run (it would train silently wrong).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import torch
from torch import nn

from porter.smoke import model as smodel
from porter.smoke.options import SmokeError
from porter.smoke.parity import call_op


@dataclass
class Usage:
    port: Counter = field(default_factory=Counter)       # (slot, module name) -> forward calls through the op
    reference: Counter = field(default_factory=Counter)  # (slot, module name) -> calls that ran the model's module
    eval_port: Counter = field(default_factory=Counter)  # the same, in the no-gradient batch after training
    evaluating: bool = False

    def start_eval(self) -> None:
        self.evaluating = True


class PortedModule(nn.Module):
    def __init__(self, original: nn.Module, fn, decl, path: str, usage: Usage):
        super().__init__()
        self.original = original
        self._fn, self._decl, self._path, self._usage = fn, decl, path, usage

    def _values(self, inputs) -> dict:
        d, o = self._decl, self.original
        if d.slot == "rms_norm":
            (x,) = inputs
            return {"x": x, "weight": o.weight, "eps": o.eps}
        gate, up = inputs
        if d.reference == "swiglu":
            return {"gate": gate, "up": up}
        if d.reference == "bias_gelu_tanh":
            return {"x": gate, "bias": o.bias}
        return {"x": gate}

    def forward(self, *inputs):
        values = self._values(inputs)
        needs_grad = torch.is_grad_enabled() and any(torch.is_tensor(v) and v.requires_grad for v in values.values())
        if self._decl.forward_only and needs_grad:
            if not self._usage.evaluating:
                self._usage.reference[(self._decl.slot, self._path)] += 1
            return self.original(*inputs)
        out = call_op(torch, self._fn, self._decl, values)
        if needs_grad and not out.requires_grad:
            raise SmokeError(f"{self._decl.call} at {self._path}: its output carries no gradient where training needs "
                             "one; declare forward_only = true or give the op a backward")
        (self._usage.eval_port if self._usage.evaluating else self._usage.port)[(self._decl.slot, self._path)] += 1
        if self._decl.slot == "mlp_activation" and self._decl.reference != "swiglu":
            return out * inputs[1]
        return out


def targets(net: nn.Module, slot: str) -> list[tuple[nn.Module, str, str]]:
    """(parent, attribute, dotted path) of every module the slot replaces."""
    want = smodel.RMSNorm if slot == "rms_norm" else smodel.GatedActivation
    out = []
    for pname, parent in net.named_modules():
        for cname, child in parent.named_children():
            if isinstance(child, want):
                out.append((parent, cname, f"{pname}.{cname}" if pname else cname))
    return out


def patcher(ops: list[tuple[object, object]], usage: Usage):
    """patch_model(net) for porter.smoke.train.run: ops is [(OpDecl, callable)]."""
    def patch(net: nn.Module) -> None:
        for decl, fn in ops:
            found = targets(net, decl.slot)
            if not found:
                raise SmokeError(f"the smoke model has no module for slot {decl.slot}")
            for parent, attr, path in found:
                setattr(parent, attr, PortedModule(getattr(parent, attr), fn, decl, path, usage))
    return patch
