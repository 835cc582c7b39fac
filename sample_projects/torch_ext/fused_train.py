"""The fused ops with their backward kernels, as autograd functions: what a training run calls.

    import fused_train
    y = fused_train.rms_norm(x, weight, 1e-6)   # gradients for x and weight from fused_ops.rms_norm_backward
    z = fused_train.bias_gelu(x, bias)          # gradients for x and bias from fused_ops.bias_gelu_backward

Inputs must be contiguous tensors of one dtype on the extension's device (the kernels check this).
"""
import torch

import fused_ops


class RMSNorm(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, eps):
        y, inv_rms = fused_ops.rms_norm(x, weight, eps)
        ctx.save_for_backward(x, weight, inv_rms)
        return y

    @staticmethod
    def backward(ctx, grad_y):
        x, weight, inv_rms = ctx.saved_tensors
        grad_x, grad_weight = fused_ops.rms_norm_backward(grad_y.contiguous(), x, weight, inv_rms,
                                                          ctx.needs_input_grad[1])
        return grad_x, grad_weight, None


class BiasGelu(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, bias):
        ctx.save_for_backward(x, bias)
        return fused_ops.bias_gelu(x, bias)

    @staticmethod
    def backward(ctx, grad_out):
        x, bias = ctx.saved_tensors
        grad_x, grad_bias = fused_ops.bias_gelu_backward(grad_out.contiguous(), x, bias, ctx.needs_input_grad[1])
        return grad_x, grad_bias


def rms_norm(x, weight, eps=1e-6):
    """x / sqrt(mean(x^2, -1) + eps) * weight."""
    return RMSNorm.apply(x, weight, eps)


def bias_gelu(x, bias):
    """gelu(x + bias), tanh approximation."""
    return BiasGelu.apply(x, bias)
