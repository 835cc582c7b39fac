"""Compare the extension with PyTorch reference implementations (needs a GPU).

Run by hand after `pip install .`: python check_fused.py (named so pytest does not collect it)."""
import torch
import torch.nn.functional as F

import fused_ops
import fused_train


def check(dtype, atol):
    x = torch.randn(64, 1024, device="cuda", dtype=dtype)
    b = torch.randn(1024, device="cuda", dtype=dtype)
    ref = F.gelu((x + b).float(), approximate="tanh").to(dtype)
    torch.testing.assert_close(fused_ops.bias_gelu(x, b), ref, atol=atol, rtol=atol)

    w = torch.rand(1024, device="cuda", dtype=dtype)
    y, inv_rms = fused_ops.rms_norm(x, w, 1e-6)
    xf = x.float()
    ref_inv = torch.rsqrt(xf.pow(2).mean(-1) + 1e-6)
    torch.testing.assert_close(inv_rms, ref_inv, atol=1e-3, rtol=1e-3)
    torch.testing.assert_close(y, (xf * ref_inv[:, None] * w.float()).to(dtype), atol=atol, rtol=atol)

    # backward: the autograd functions over the backward kernels against autograd through the reference
    g = torch.randn_like(x)
    for fused, ref_fn, args in (
            (fused_train.bias_gelu, lambda a, c: F.gelu(a.float() + c.float(), approximate="tanh").to(dtype), (x, b)),
            (fused_train.rms_norm, lambda a, c: (a.float() * torch.rsqrt(a.float().pow(2).mean(-1, keepdim=True) + 1e-6)
                                                 * c.float()).to(dtype), (x, w))):
        got_in = [t.detach().clone().requires_grad_() for t in args]
        ref_in = [t.detach().clone().requires_grad_() for t in args]
        (fused(*got_in) if fused is fused_train.bias_gelu else fused(*got_in, 1e-6)).backward(g)
        ref_fn(*ref_in).backward(g)
        for a, r in zip(got_in, ref_in):
            # the column sums (grad of bias / weight) add 64 rounded terms: a looser bound in low precision
            tol = atol if a.dim() > 1 else atol * 8
            torch.testing.assert_close(a.grad, r.grad, atol=tol, rtol=tol)
    print(f"{dtype}: ok")


if __name__ == "__main__":
    if not torch.cuda.is_available():
        raise SystemExit("torch.cuda.is_available() is False: no GPU to test on")
    check(torch.float32, 1e-4)
    check(torch.float16, 1e-2)
    check(torch.bfloat16, 5e-2)
