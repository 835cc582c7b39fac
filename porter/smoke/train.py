"""The smoke-test training loop: LoRA adapters, AdamW, N steps, one progress line per step.

One code path for CPU, NVIDIA and ROCm.  Returns a report dict (see porter.smoke.report);
errors that a user can act on (out of memory, NaN, Ctrl-C) end up in the report, not as tracebacks.

Test hooks (environment): PORTER_SMOKE_INJECT_NAN=STEP makes the loss NaN at that step (1-based);
PORTER_SMOKE_INJECT_OOM=STEP raises an out-of-memory error there; PORTER_SMOKE_KILL_RANK=R[:STEP]
kills rank R of a multi-process run with SIGKILL after that step (default 2).
"""

from __future__ import annotations

import math
import os
import resource
import signal
import time
from typing import Callable

from porter.smoke import data as sdata
from porter.smoke import report as srep
from porter.smoke.device import DeviceInfo, detect
from porter.smoke.optim import AdamW
from porter.smoke.options import SmokeError, SmokeOptions, SmokeUsageError, process_start_time
from porter.smoke.torchload import import_torch, out_of_memory_types

Emit = Callable[[str], None]


def _env_step(name: str) -> int | None:
    v = os.environ.get(name, "").strip()
    return int(v) if v.isdigit() else None


def _kill_hook(rank: int) -> int | None:
    v = os.environ.get("PORTER_SMOKE_KILL_RANK", "").strip()
    if not v:
        return None
    r, _, s = v.partition(":")
    if r.isdigit() and int(r) == rank:
        return int(s) if s.isdigit() else 2
    return None


def resolve_dtype(opts: SmokeOptions, dev: DeviceInfo) -> str:
    if opts.dtype:
        if opts.dtype == "bf16" and dev.backend != "cpu" and not dev.bf16_supported:
            raise SmokeError(f"--dtype bf16: {dev.name} does not support bfloat16; use --dtype fp32")
        return opts.dtype
    return "bf16" if dev.backend != "cpu" and dev.bf16_supported else "fp32"


def _max_rss_gib() -> float:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20, 4)  # KiB on Linux


def _shape(opts: SmokeOptions, smodel):
    full = smodel.SHAPES[opts.size]
    if opts.layers is not None and opts.layers > full.n_layers:
        raise SmokeUsageError(f"--layers {opts.layers}: the {opts.size} shape has {full.n_layers} layers")
    return smodel.shape_config(opts.size, opts.layers)


def _shape_name(opts: SmokeOptions, cfg) -> str:
    full = cfg if opts.layers is None else None
    layers = f"{cfg.n_layers} layers" if full is not None else f"{cfg.n_layers} of its layers"
    return f"{opts.size} shape ({layers}, random weights)"


def _available_memory(dev, torch) -> tuple[float | None, str]:
    """(bytes free for the model, where): the GPU's free memory, or the host's MemAvailable."""
    if dev.backend != "cpu":
        try:
            return float(torch.cuda.mem_get_info(torch.device(dev.device))[0]), f"free on {dev.name}"
        except Exception:  # noqa: BLE001 - a driver that cannot say: no check
            return None, ""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return float(line.split()[1]) * 1024, "available on this host"
    except OSError:
        pass
    return None, ""


def _check_memory(params: int, dev, copies: int, torch) -> None:
    """Refuse, before anything is allocated, a shape whose fp32 weights (one copy per CPU rank)
    do not fit in the memory the device has free."""
    need = params * 4 * copies
    free, where = _available_memory(dev, torch)
    if free is not None and need > 0.9 * free:
        raise SmokeUsageError(f"the model's fp32 weights need {need / 2**30:.1f} GiB ({params / 1e9:.2f} B parameters"
                              + (f" x {copies} ranks" if copies > 1 else "") + f"), {free / 2**30:.1f} GiB is {where}: "
                              "keep fewer layers with --layers N")


def run(opts: SmokeOptions, *, rank: int = 0, world_size: int = 1, local_rank: int = 0,
        emit: Emit | None = print, start_time: float | None = None, distributed: bool = False,
        collect_smi: bool = True, tiny_config=None, patch_model: Callable | None = None,
        before_eval: Callable | None = None) -> dict:
    """Train for opts.steps steps and return this rank's report (verdict filled).

    tiny_config: the built-in model's TinyConfig (default TinyConfig()); patch_model(net): called on the
    built model before it moves to the device (porter.smoke.portrun swaps a project's ops in there).
    before_eval: when given, it is called after the last step, then one more batch (the one after the
    training data) goes through the trained model without gradients, and rep["eval_loss"] is its loss."""
    start_time = process_start_time() if start_time is None else start_time
    torch = import_torch()
    dev = detect(opts.device, index=local_rank, torch=torch)
    if dev.backend == "cpu":
        torch.set_num_threads(1)
    dtype = resolve_dtype(opts, dev)
    rep = srep.empty_report(
        engine="builtin" if opts.model == "tiny" else "hf", model=opts.model, device=dev.device,
        device_name=dev.name, backend=dev.backend, arch=dev.arch, torch=dev.torch, hip=dev.hip, cuda=dev.cuda,
        dtype=dtype, steps=opts.steps, batch_size=opts.batch_size, seq_len=opts.seq_len, world_size=world_size,
        peak_tflops=dev.peak_tflops(dtype), device_memory_gib=dev.total_memory_gib)
    if dev.backend == "cpu" and dtype == "bf16":
        rep["warnings"].append("bf16 autocast on a CPU without bf16 matrix units is emulated and slow; "
                               "the CPU figures say nothing about a GPU")
    if dev.peak_label:
        rep["device_name"] = dev.name if dev.peak_label.lower() in dev.name.lower() else f"{dev.name} ({dev.peak_label})"
    device = torch.device(dev.device)
    if dev.backend != "cpu":
        torch.cuda.set_device(device)
        torch.cuda.reset_peak_memory_stats(device)

    # ---- model and data
    torch.manual_seed(opts.seed)
    if opts.model == "tiny":
        from porter.smoke import model as smodel  # noqa: PLC0415
        from porter.smoke.tokenizer import ByteTokenizer  # noqa: PLC0415

        cfg = tiny_config or _shape(opts, smodel)
        if opts.seq_len > cfg.max_seq_len:
            raise SmokeUsageError(f"--seq-len {opts.seq_len} exceeds the {opts.size} model's {cfg.max_seq_len}")
        lora = smodel.LoraConfig(rank=opts.lora_rank)
        if opts.size != "tiny" or opts.layers is not None:
            rep["model"] = _shape_name(opts, cfg)
            _check_memory(smodel.params_of(cfg, lora)[0], dev, world_size if dev.backend == "cpu" else 1, torch)
        net = smodel.build_tiny(opts.seed, cfg=cfg, lora=lora)
        if patch_model is not None:
            patch_model(net)
        tok = ByteTokenizer()
        encode, eos = tok.encode, tok.eos_id
        total, trainable = smodel.count_params(net)
        mm = smodel.matmul_params(net)
        forward = net
    else:
        from porter.smoke import hf  # noqa: PLC0415

        loaded = hf.load(opts.model, torch, lora_rank=opts.lora_rank, seed=opts.seed)
        net, encode, eos = loaded.model, loaded.encode, loaded.eos_id
        rep["model"] = opts.model
        total = sum(p.numel() for p in net.parameters())
        trainable = sum(p.numel() for p in net.parameters() if p.requires_grad)
        mm = sum(m.weight.numel() for m in net.modules() if isinstance(m, torch.nn.Linear))

        def forward(ids, _net=net):
            return _net(input_ids=ids).logits
    rep.update(params_total=int(total), params_trainable=int(trainable), matmul_params=int(mm),
               flops_per_token=4 * int(mm))  # LoRA without gradient checkpointing: ~4 x matmul params
    wins = sdata.windows(sdata.token_stream(sdata.load_records(), encode, eos), opts.seq_len)
    oom_types = out_of_memory_types(torch)
    try:
        net.to(device)
    except oom_types:
        raise SmokeError(f"GPU out of memory while loading the model ({total / 1e9:.2f} B parameters in fp32) onto "
                         f"{dev.name}: use a smaller --model, or free the GPU") from None
    model = net
    if distributed and world_size > 1:
        from torch.nn.parallel import DistributedDataParallel as DDP  # noqa: PLC0415

        model = DDP(net, device_ids=[local_rank] if dev.backend != "cpu" else None)
        if opts.model != "tiny":
            def forward(ids, _m=model):
                return _m(input_ids=ids).logits
        else:
            forward = model
    params = [p for p in net.parameters() if p.requires_grad]
    opt = AdamW(params, lr=opts.lr, weight_decay=0.0)
    use_autocast = dtype == "bf16"
    ac_device = "cuda" if dev.backend != "cpu" else "cpu"
    nan_step, oom_step, kill_step = _env_step("PORTER_SMOKE_INJECT_NAN"), _env_step("PORTER_SMOKE_INJECT_OOM"), \
        (_kill_hook(rank) if distributed else None)
    sync = (lambda: torch.cuda.synchronize(device)) if dev.backend != "cpu" else (lambda: None)
    dist = None
    if distributed and world_size > 1:
        import torch.distributed as dist  # noqa: PLC0415

    losses, times = rep["losses"], rep["step_times_s"]
    try:
        for step in range(1, opts.steps + 1):
            idx = sdata.batch_indices(step - 1, opts.batch_size, rank, world_size, len(wins))
            t0 = time.perf_counter()
            if oom_step == step:
                raise oom_types[0]("injected out-of-memory (PORTER_SMOKE_INJECT_OOM)")
            batch = torch.tensor([wins[i] for i in idx], dtype=torch.long, device=device)
            with torch.autocast(ac_device, dtype=torch.bfloat16, enabled=use_autocast):
                logits = forward(batch[:, :-1])
            loss = torch.nn.functional.cross_entropy(logits.float().reshape(-1, logits.shape[-1]), batch[:, 1:].reshape(-1))
            if nan_step == step:
                loss = loss * float("nan")
            value = float(loss.detach())
            bad = not math.isfinite(value)
            if dist is not None:  # every rank stops at the same step, or the others would hang in DDP's all-reduce
                flag = torch.tensor([1.0 if bad else 0.0], device=device)
                dist.all_reduce(flag, op=dist.ReduceOp.MAX)
                bad = bad or flag.item() > 0
            if bad:
                losses.append(value)
                times.append(time.perf_counter() - t0)
                rep["nonfinite_step"] = step
                if emit:
                    emit(srep.progress_line(step, opts.steps, value, times[-1]))
                break
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            sync()
            dt = time.perf_counter() - t0
            losses.append(round(value, 6))
            times.append(round(dt, 6))
            rep["steps_done"] = step
            if step == 1:
                rep["time_to_first_step_s"] = round(time.time() - start_time, 3)
            if emit:
                emit(srep.progress_line(step, opts.steps, value, dt))
            if kill_step == step:
                os.kill(os.getpid(), signal.SIGKILL)
    except oom_types:
        rep["error"] = (f"GPU out of memory at step {len(losses) + 1} with batch {opts.batch_size} x sequence "
                        f"{opts.seq_len}: lower --batch-size or --seq-len" if dev.backend != "cpu" else
                        f"out of memory at step {len(losses) + 1} with batch {opts.batch_size} x sequence "
                        f"{opts.seq_len}: lower --batch-size or --seq-len")
        if dev.backend != "cpu":
            torch.cuda.empty_cache()
    except KeyboardInterrupt:
        rep["error"] = "interrupted"
    except RuntimeError as exc:  # e.g. a peer rank vanished mid all-reduce; keep the steps done so far
        text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        rep["error"] = f"{type(exc).__name__} at step {len(losses) + 1}: {text}"[:300]

    if before_eval is not None and rep["error"] is None and rep["nonfinite_step"] is None and rep["steps_done"]:
        before_eval()
        idx = sdata.batch_indices(opts.steps, opts.batch_size, rank, world_size, len(wins))
        batch = torch.tensor([wins[i] for i in idx], dtype=torch.long, device=device)
        try:
            with torch.no_grad(), torch.autocast(ac_device, dtype=torch.bfloat16, enabled=use_autocast):
                logits = forward(batch[:, :-1])
                rep["eval_loss"] = round(float(torch.nn.functional.cross_entropy(
                    logits.float().reshape(-1, logits.shape[-1]), batch[:, 1:].reshape(-1))), 6)
        except KeyboardInterrupt:
            rep["error"] = "interrupted"
        except RuntimeError as exc:  # an op that fails only without gradients: the report says so
            text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
            rep["error"] = f"{type(exc).__name__} in the no-gradient batch after training: {text}"[:300]
    if dev.backend != "cpu":
        rep["memory_allocated_gib"] = round(torch.cuda.max_memory_allocated(device) / 2**30, 4)
        rep["memory_reserved_gib"] = round(torch.cuda.max_memory_reserved(device) / 2**30, 4)
        if collect_smi and rank == 0:
            from porter.smoke import smi  # noqa: PLC0415

            rep["smi"] = smi.query(local_rank)
    rep["host_max_rss_gib"] = _max_rss_gib()
    return srep.finish(rep)
