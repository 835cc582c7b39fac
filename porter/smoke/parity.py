"""Per-op parity: a project's op against the reference computation on the same inputs, forward and backward.

For each dtype: the op's output and the reference's (porter.smoke.ops.reference_fn) on the same
random inputs of the smoke model's sizes; then, unless the op is declared forward-only, the
gradients both give for the same upstream gradient.  Figures: max abs error, max rel error (over
elements whose reference magnitude is above atol), and ok = every element within
``atol + rtol * |ref|`` (porter.smoke.ops.PARITY_TOL).  Also the op adapter the training run uses
(``call_op``): the declaration's argument order, tuple output, dtype of the first tensor.
"""

from __future__ import annotations

from porter.smoke import ops as sops
from porter.smoke.options import SmokeError


class OpCallError(SmokeError):
    """The op cannot be called the way the declaration says (one line)."""


def call_op(torch, fn, decl, values: dict):
    """fn called with the declared argument order; tensors in the first tensor's dtype, contiguous."""
    ref = sops.SLOTS[decl.slot].references[decl.reference]
    first = next(values[a] for a in ref.tensors if a in values)
    args = []
    for a in decl.args:
        v = values[a]
        if a in ref.tensors:
            v = v.to(first.dtype).contiguous()
        args.append(v)
    out = fn(*args)
    if decl.output is not None:
        if not isinstance(out, (tuple, list)):
            raise OpCallError(f"{decl.call} returns one {type(out).__name__}, but the declaration sets output = {decl.output}")
        if decl.output >= len(out):
            raise OpCallError(f"{decl.call} returns {len(out)} values; output = {decl.output} is out of range")
        out = out[decl.output]
    elif isinstance(out, (tuple, list)):
        raise OpCallError(f"{decl.call} returns a {type(out).__name__} of {len(out)}: set output = N "
                          "(the element that is the result) in its declaration")
    if not torch.is_tensor(out):
        raise OpCallError(f"{decl.call} returns {type(out).__name__}, not a tensor")
    if tuple(out.shape) != tuple(first.shape):
        raise OpCallError(f"{decl.call} returns shape {tuple(out.shape)} for an input of shape {tuple(first.shape)}")
    return out


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text.splitlines()[0] if text else ''}"[:300]


def compare(torch, got, want, atol: float, rtol: float) -> dict:
    g, w = got.detach().float(), want.detach().float()
    diff = (g - w).abs()
    finite = bool(torch.isfinite(g).all())
    max_abs = float(diff.max()) if diff.numel() else 0.0
    big = w.abs() > atol
    max_rel = float((diff[big] / w.abs()[big]).max()) if bool(big.any()) else 0.0
    ok = finite and bool((diff <= atol + rtol * w.abs()).all())
    return {"max_abs": max_abs if finite else float("nan"), "max_rel": max_rel if finite else float("nan"), "ok": ok}


def check(torch, fn, decl, device, dtypes: tuple[str, ...], seed: int = 1234) -> list[dict]:
    """One entry per dtype: {dtype, atol, rtol, forward, backward, error}; forward/backward: compare()'s dict."""
    ref = sops.SLOTS[decl.slot].references[decl.reference]
    ref_fn = sops.reference_fn(torch, decl.reference)
    tdt = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}
    out = []
    own = {dt: (a, r) for dt, a, r in decl.tolerance}
    for name in dtypes:
        atol, rtol = own.get(name, sops.PARITY_TOL[name])
        entry = {"dtype": name, "atol": atol, "rtol": rtol, "forward": None, "backward": None, "error": None}
        out.append(entry)
        gen = torch.Generator().manual_seed(seed)
        base = sops.parity_inputs(torch, decl.reference, tdt[name], device, gen)
        wants_grad = set(ref.grads) | set(ref.extra_grads) if not decl.forward_only else set()

        def fresh():
            return {k: (v.detach().clone().requires_grad_(k in wants_grad) if torch.is_tensor(v) else v)
                    for k, v in base.items()}

        ins_ref, ins_op = fresh(), fresh()
        want = ref_fn(**ins_ref)
        try:
            got = call_op(torch, fn, decl, ins_op)
        except Exception as exc:  # noqa: BLE001 - the op's own error, reported per dtype
            entry["error"] = f"forward: {exc}" if isinstance(exc, OpCallError) else f"forward: {_first_line(exc)}"
            continue
        entry["forward"] = compare(torch, got, want, atol, rtol)
        if decl.forward_only:
            continue
        if not got.requires_grad:
            entry["error"] = ("backward: the op's output carries no gradient (it has no backward): give it one, "
                              "or declare forward_only = true")
            continue
        upstream = torch.randn(tuple(want.shape), generator=gen).to(device=device, dtype=want.dtype)
        want.backward(upstream)
        try:
            got.backward(upstream.to(got.dtype))
        except Exception as exc:  # noqa: BLE001
            entry["error"] = f"backward: {_first_line(exc)}"
            continue
        grads, worst = {}, None
        for arg in (*ref.grads, *ref.extra_grads):
            g_op, g_ref = ins_op[arg].grad, ins_ref[arg].grad
            if g_op is None:
                if arg in ref.grads:
                    entry["error"] = f"backward: no gradient for {arg}"
                continue
            grads[arg] = compare(torch, g_op, g_ref, atol, rtol)
        if grads:
            worst = {"max_abs": max(v["max_abs"] for v in grads.values()),
                     "max_rel": max(v["max_rel"] for v in grads.values()),
                     "ok": all(v["ok"] for v in grads.values()), "grads": grads}
        entry["backward"] = worst
    return out


def entry_ok(e: dict) -> bool:
    return e["error"] is None and bool(e["forward"] and e["forward"]["ok"]) and \
        (e["backward"] is None or bool(e["backward"]["ok"]))


def describe_failure(decl, entries: list[dict]) -> str | None:
    """One line naming the op and its worst failing dtype/direction; None when parity holds."""
    for e in entries:
        head = f"{decl.slot} ({decl.call}) {e['dtype']}"
        if e["error"]:
            return f"{head}: {e['error']}"
        for way in ("forward", "backward"):
            r = e[way]
            if r is not None and not r["ok"]:
                extra = ""
                if way == "backward":
                    bad = [k for k, v in r["grads"].items() if not v["ok"]]
                    extra = f" (gradient of {', '.join(bad)})"
                return (f"{head}: {way}{extra} differs from the reference: max abs {r['max_abs']:.3g}, max rel "
                        f"{r['max_rel']:.3g} (tolerance atol {e['atol']:g} + rtol {e['rtol']:g} x |ref|)")
    return None
