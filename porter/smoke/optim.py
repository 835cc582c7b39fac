"""AdamW for the adapters, written out so that a smoke run does not import torch._dynamo.

``torch.optim.Optimizer.add_param_group`` imports torch._dynamo on first use, which costs
about 3.5 s on a small CPU: more than the whole tiny training run.  This is the same
update (Loshchilov & Hutter's decoupled weight decay, bias-corrected moments).
"""

from __future__ import annotations

import math


class AdamW:
    def __init__(self, params, lr: float = 1e-3, betas=(0.9, 0.999), eps: float = 1e-8, weight_decay: float = 0.0):
        self.params = [p for p in params if p.requires_grad]
        self.lr, self.betas, self.eps, self.weight_decay = lr, betas, eps, weight_decay
        self.t = 0
        self.exp_avg = [None] * len(self.params)
        self.exp_avg_sq = [None] * len(self.params)

    def zero_grad(self, set_to_none: bool = True):
        for p in self.params:
            if set_to_none:
                p.grad = None
            elif p.grad is not None:
                p.grad.zero_()

    def step(self):
        import torch  # noqa: PLC0415 - already imported by the caller

        self.t += 1
        b1, b2 = self.betas
        c1 = 1 - b1 ** self.t
        c2 = 1 - b2 ** self.t
        step_size = self.lr / c1
        with torch.no_grad():
            for i, p in enumerate(self.params):
                g = p.grad
                if g is None:
                    continue
                if self.exp_avg[i] is None:
                    self.exp_avg[i] = torch.zeros_like(p, memory_format=torch.preserve_format)
                    self.exp_avg_sq[i] = torch.zeros_like(p, memory_format=torch.preserve_format)
                m, v = self.exp_avg[i], self.exp_avg_sq[i]
                if self.weight_decay:
                    p.mul_(1 - self.lr * self.weight_decay)
                m.lerp_(g, 1 - b1)
                v.mul_(b2).addcmul_(g, g, value=1 - b2)
                denom = (v.sqrt() / math.sqrt(c2)).add_(self.eps)
                p.addcdiv_(m, denom, value=-step_size)
