"""The smoke-test report: schema, verdict, progress lines, text rendering and atomic JSON output.

Pure functions over plain dicts (no torch), so the review UI and tests can use them.
"""

from __future__ import annotations

import json
import math
import os
import re
import statistics
from pathlib import Path

SCHEMA_VERSION = 1
SLOW_FACTOR = 3.0          # a step slower than this times the median fails the verdict ...
SLOW_MARGIN_S = 0.25       # ... and slower than the median by this much: a 20 ms step taking 110 ms on a loaded
                           # host is the scheduler, not a stall of the GPU stack (a flaky verdict in CI otherwise)
MEMORY_LIMIT_FRACTION = 0.95

NUM = (int, float)
OPT_NUM = (int, float, type(None))
OPT_STR = (str, type(None))

# key -> accepted types.  Every report has every key (None where it does not apply).
SCHEMA: dict[str, tuple[type, ...]] = {
    "schema_version": (int,),
    "engine": (str,),                 # builtin | hf | llamafactory
    "model": (str,),
    "device": (str,),
    "device_name": (str,),
    "backend": (str,),                # cpu | cuda | rocm
    "arch": OPT_STR,
    "torch": OPT_STR,
    "hip": OPT_STR,
    "cuda": OPT_STR,
    "dtype": (str,),
    "params_total": (int, type(None)),
    "params_trainable": (int, type(None)),
    "matmul_params": (int, type(None)),
    "flops_per_token": OPT_NUM,
    "steps": (int,),
    "steps_done": (int,),
    "batch_size": (int,),
    "seq_len": (int,),
    "world_size": (int,),
    "time_to_first_step_s": OPT_NUM,
    "step_time_s": OPT_NUM,
    "tokens_per_s": OPT_NUM,
    "achieved_tflops": OPT_NUM,
    "peak_tflops": OPT_NUM,
    "mfu": OPT_NUM,
    "memory_allocated_gib": OPT_NUM,
    "memory_reserved_gib": OPT_NUM,
    "device_memory_gib": OPT_NUM,
    "host_max_rss_gib": OPT_NUM,
    "smi": (dict, type(None)),        # what amd-smi / rocm-smi reports, kept apart from torch's figures
    "eval_loss": OPT_NUM,             # --project: one batch after training, no gradients (forward-only ops run there)
    "loss_first": OPT_NUM,
    "loss_last": OPT_NUM,
    "losses": (list,),
    "step_times_s": (list,),
    "nonfinite_step": (int, type(None)),
    "baseline_step_time_s": OPT_NUM,
    "scaling_efficiency": OPT_NUM,
    "allreduce": (dict, type(None)),
    "ranks": (list,),
    "nodes": (list, type(None)),      # several nodes: [{node_rank, address, ranks, steps_done, step_time_s}], every node's
    "failed_rank": (int, type(None)),
    "error": OPT_STR,
    "warnings": (list,),
    "checks": (list,),
    "port": (dict, type(None)),       # --project: the project's ops in the loop (PORT_KEYS); None otherwise
    "llamafactory": (dict, type(None)),  # --backend llamafactory: what ran and how it was read (LF_KEYS); None otherwise
    "verdict": (str,),                # pass | fail | interrupted | not_exercised
    "reasons": (list,),
}

# the "port" section of a --project report (porter.smoke.portrun)
PORT_KEYS: dict[str, tuple[type, ...]] = {
    "project": (str,),
    "declaration": (str,),            # the porter.toml read
    "torch_build": (str,),            # "CPU-only", "CUDA 12.4", "ROCm 6.2"
    "exercised": (bool,),             # some declared op ran in the training loop
    "not_exercised": (list,),         # why (parts of) the port did not run here
    "extensions": (list,),            # {name, kind, language, origin, sources, built, cached, build_s, build_dir, log, skipped, notes}
    "ops": (list,),                   # {slot, call, reference, formula, replaces, forward_only, exercised, skipped,
                                      #  parity: [{dtype, atol, rtol, forward, backward, error}], parity_ok, problem,
                                      #  used_in, reference_in}; forward: {max_abs, max_rel, ok}; backward (None for a
                                      #  forward-only op): the worst {max_abs, max_rel, ok} and grads: {arg: the same}
    "model_activation": (str,),
    "loss_reference": (list,),
    "loss_port": (list,),
    "max_abs_dloss": OPT_NUM,
    "dloss_step": (int, type(None)),
    "loss_tolerance": OPT_NUM,
    "loss_ok": (bool, type(None)),
    "eval_loss_reference": OPT_NUM,   # the no-gradient batch after training: every op runs there, forward-only too
    "eval_loss_port": OPT_NUM,
    "eval_ok": (bool, type(None)),
    "build_error": OPT_STR,
}
# the "llamafactory" section of a --backend llamafactory report (porter.smoke.llamafactory)
LF_KEYS: dict[str, tuple[type, ...]] = {
    "cli": (str,),                    # the llamafactory-cli run (or "python -m llamafactory.cli")
    "found": (str,),                  # where it was found: beside porter's interpreter, on PATH, in .venv-lf, ...
    "python": OPT_STR,                # its interpreter
    "config": OPT_STR,                # --config: the user's config as given; None: porter's own LoRA SFT config
    "effective_config": (str,),       # the YAML LLaMA-Factory read (beside the --json report when there is one)
    "overrides": (list,),             # [{key, old, new, why}]: every value of the user's config the run changed
    "cwd": (str,),                    # where it ran (relative paths in the config resolve there)
    "workdir": (str,),                # inputs, log and output of the run
    "log": (str,),
    "threads": OPT_STR,               # CPU threads per process, and who set them
    "deepspeed": (dict, type(None)),  # {config, stage, version}
    "attention": (dict,),             # {asked, used, line, fallback, required, ok}
    "step_time_source": (str,),       # where the per-step times came from (or why there are none)
    "step_time_mean_s": OPT_NUM,      # train_runtime / steps (a mean, kept apart from the median)
    "first_step_breakdown": (dict, type(None)),  # {imports_s, data_and_model_s, trainer_and_first_step_s, resolution_s}
    "scaling": OPT_STR,               # --nproc > 1: why the scaling efficiency was not measured (None when it was)
    "warmup_steps": (int, type(None)),  # steps left out of the median and the steady-step check (None: the usual 1-2)
}
VERDICTS = ("pass", "fail", "interrupted", "not_exercised")
EXIT_CODES = {"pass": 0, "fail": 1, "interrupted": 130, "not_exercised": 3}


def empty_report(**values) -> dict:
    rep = {k: None for k in SCHEMA}
    rep.update(schema_version=SCHEMA_VERSION, engine="builtin", model="tiny", device="cpu", device_name="cpu",
               backend="cpu", dtype="fp32", steps=0,
               steps_done=0, batch_size=0, seq_len=0, world_size=1, losses=[], step_times_s=[], ranks=[],
               warnings=[], checks=[], verdict="fail", reasons=[])
    rep.update(values)
    return rep


def validate(report: dict) -> list[str]:
    """Problems with a report's keys and value types (empty when it fits the schema)."""
    problems = [f"missing key {k}" for k in SCHEMA if k not in report]
    for k, types in SCHEMA.items():
        if k in report and not isinstance(report[k], types):
            problems.append(f"{k}: {type(report[k]).__name__} is not {'/'.join(t.__name__ for t in types)}")
        if k in report and isinstance(report[k], bool) and bool not in types:
            problems.append(f"{k}: bool is not a number")
    port = report.get("port")
    if isinstance(port, dict):
        problems += [f"port: missing key {k}" for k in PORT_KEYS if k not in port]
        for k, types in PORT_KEYS.items():
            if k in port and not isinstance(port[k], types):
                problems.append(f"port.{k}: {type(port[k]).__name__} is not {'/'.join(t.__name__ for t in types)}")
    lf = report.get("llamafactory")
    if isinstance(lf, dict):
        problems += [f"llamafactory: missing key {k}" for k in LF_KEYS if k not in lf]
        for k, types in LF_KEYS.items():
            if k in lf and not isinstance(lf[k], types):
                problems.append(f"llamafactory.{k}: {type(lf[k]).__name__} is not "
                                f"{'/'.join(t.__name__ for t in types)}")
    if report.get("verdict") not in VERDICTS:
        problems.append(f"verdict: {report.get('verdict')!r} is not one of {', '.join(VERDICTS)}")
    return problems


# ---- progress lines -------------------------------------------------------------------------

_PROGRESS = re.compile(r"^step (\d+)/(\d+) loss (\S+) step_time ([0-9.]+)s\b")


def progress_line(step: int, total: int, loss: float, step_time: float) -> str:
    """``step 3/20 loss 5.4123 step_time 0.041s`` (steps count from 1)."""
    loss_s = f"{loss:.4f}" if math.isfinite(loss) else ("nan" if math.isnan(loss) else ("inf" if loss > 0 else "-inf"))
    return f"step {step}/{total} loss {loss_s} step_time {step_time:.3f}s"


def parse_progress_line(line: str) -> dict | None:
    """The inverse of progress_line: {step, total, loss, step_time_s}, or None for other lines."""
    m = _PROGRESS.match(line.strip())
    if not m:
        return None
    return {"step": int(m[1]), "total": int(m[2]), "loss": float(m[3]), "step_time_s": float(m[4])}


# ---- statistics and verdict ------------------------------------------------------------------

def warmup_steps(n: int) -> int:
    """Steps left out of the median: the first one or two (allocator, kernel selection, caches)."""
    if n <= 1:
        return 0
    return 1 if n < 10 else 2


def median_step_time(step_times: list[float], warmup: int | None = None) -> float | None:
    """The median after the warm-up steps (warmup_steps(n) unless given)."""
    if not step_times:
        return None
    w = warmup_steps(len(step_times)) if warmup is None else min(warmup, len(step_times) - 1)
    return statistics.median(step_times[w:])


def report_warmup(rep: dict) -> int | None:
    """The warm-up steps a report asks for (a LLaMA-Factory run under DeepSpeed ZeRO-3 warms up over two), or None."""
    w = (rep.get("llamafactory") or {}).get("warmup_steps")
    return w if isinstance(w, int) and not isinstance(w, bool) else None


def fill_throughput(rep: dict) -> dict:
    """step_time_s, tokens_per_s, achieved_tflops and mfu from the per-step figures already in rep."""
    med = median_step_time(rep["step_times_s"], report_warmup(rep))
    rep["step_time_s"] = round(med, 6) if med else None
    if med:
        tokens = rep["batch_size"] * rep["seq_len"] * rep["world_size"]
        rep["tokens_per_s"] = round(tokens / med, 2)
        if rep.get("flops_per_token"):
            rep["achieved_tflops"] = round(rep["flops_per_token"] * rep["tokens_per_s"] / 1e12, 6)
            if rep.get("peak_tflops"):
                rep["mfu"] = round(rep["achieved_tflops"] / (rep["peak_tflops"] * rep["world_size"]), 6)
    rep["loss_first"] = rep["losses"][0] if rep["losses"] else None
    rep["loss_last"] = rep["losses"][-1] if rep["losses"] else None
    if rep["nonfinite_step"] is None:
        for i, x in enumerate(rep["losses"]):
            if not (isinstance(x, NUM) and math.isfinite(x)):
                rep["nonfinite_step"] = i + 1
                break
    return rep


def judge(rep: dict) -> dict:
    """Fill checks, verdict and reasons.  Each check: {name, ok, detail}."""
    checks: list[dict] = []

    def check(name: str, ok: bool, detail: str):
        checks.append({"name": name, "ok": bool(ok), "detail": detail})

    interrupted = rep.get("error") == "interrupted"
    port = rep.get("port")
    if port and port.get("build_error"):  # nothing trained: the one line that says where the build broke
        rep["checks"] = [{"name": "port_build", "ok": False, "detail": port["build_error"]}]
        rep["verdict"], rep["reasons"] = "fail", [port["build_error"]]
        return rep
    if rep.get("error") and not interrupted:
        check("ran", False, rep["error"])
    if rep["steps_done"] == 0:
        check("steps", False, "no training step completed")
    if rep["nonfinite_step"] is not None:
        bad = rep["losses"][rep["nonfinite_step"] - 1] if len(rep["losses"]) >= rep["nonfinite_step"] else float("nan")
        check("finite_loss", False, f"loss became {_fmt_loss(bad)} at step {rep['nonfinite_step']}")
    elif rep["steps_done"]:
        check("finite_loss", True, "no NaN/Inf loss")
    lf, ll = rep["loss_first"], rep["loss_last"]
    if rep["nonfinite_step"] is None and rep["steps_done"] >= 2 and lf is not None and ll is not None:
        check("loss_fell", ll < lf, f"loss {'fell' if ll < lf else 'did not fall'}: {lf:.4f} -> {ll:.4f}")
    elif rep["nonfinite_step"] is None and rep["steps_done"] == 1:
        check("loss_fell", False, "only one step: cannot tell whether the loss falls")
    times = rep["step_times_s"]
    med = median_step_time(times, report_warmup(rep))
    if med and len(times) >= 3:
        w = warmup_steps(len(times)) if report_warmup(rep) is None else min(report_warmup(rep), len(times) - 1)
        slow = [i + 1 for i, t in enumerate(times) if i >= w and t > SLOW_FACTOR * med and t - med > SLOW_MARGIN_S]
        check("steady_steps", not slow,
              f"steps {', '.join(map(str, slow))} slower than {SLOW_FACTOR:g}x the median {med:.4f}s" if slow
              else f"no step slower than {SLOW_FACTOR:g}x the median {med:.4f}s")
    used, total = rep.get("memory_reserved_gib"), rep.get("device_memory_gib")
    if used is not None and total:
        ok = used <= MEMORY_LIMIT_FRACTION * total
        check("memory", ok, f"peak reserved {used:.2f} GiB of {total:.2f} GiB on the device")
    for w in rep.get("warnings") or []:
        if isinstance(w, str) and w.startswith("fabric-fallback"):
            check("fabric", False, w)
    if port:
        _port_checks(port, check)
    failed = [c for c in checks if not c["ok"]]
    unexercised = [c for c in failed if c["name"] == "port_exercised"]
    rep["checks"] = checks
    if interrupted:
        rep["verdict"] = "interrupted"
        rep["reasons"] = [f"interrupted after {rep['steps_done']} of {rep['steps']} steps (partial report)"] + [c["detail"] for c in failed]
    elif unexercised and len(unexercised) == len(failed):
        # everything that ran passed, but (part of) the port did not run here: never a pass
        rep["verdict"] = "not_exercised"
        port_ok = [c["detail"] for c in checks if c["ok"] and c["name"].startswith("port_")]
        plain = [c["detail"] for c in checks if c["ok"] and c["name"] == "loss_fell"]
        rep["reasons"] = [c["detail"] for c in unexercised] + port_ok + (
            [f"the plain smoke test passed ({plain[0]})"] if plain and not port_ok else [])
    else:
        rep["verdict"] = "fail" if failed or not checks else "pass"
        rep["reasons"] = [c["detail"] for c in (failed or checks)]
    return rep


def _port_checks(port: dict, check) -> None:
    for op in port.get("ops") or []:
        if op.get("skipped"):
            continue
        if op.get("parity_ok") is False:
            check("port_parity", False, f"parity: {op.get('problem') or op['slot'] + ' differs from the reference'}")
        elif op.get("parity_ok"):
            dts = ", ".join(e["dtype"] for e in op.get("parity") or [])
            way = "forward" if op.get("forward_only") else "forward and backward"
            check("port_parity", True, f"{op['slot']} ({op['call']}) matches the reference, {way}, {dts}")
    if port.get("loss_ok") is not None:
        d, tol = port.get("max_abs_dloss"), port.get("loss_tolerance")
        n = len(port.get("loss_port") or [])
        check("port_loss", bool(port["loss_ok"]),
              f"loss with the port vs the reference: max |delta| {_fmt_sci(d)} over {n} steps"
              + (f" (at step {port['dloss_step']})" if not port["loss_ok"] and port.get("dloss_step") else "")
              + f" {'<=' if port['loss_ok'] else '>'} tolerance {tol:g}")
    er, ep = port.get("eval_loss_reference"), port.get("eval_loss_port")
    if port.get("eval_ok") is not None and er is not None and ep is not None:
        check("port_eval", bool(port["eval_ok"]), f"no-gradient batch after training: loss {ep:.4f} with the port, "
              f"{er:.4f} with the reference (|delta| {_fmt_sci(abs(ep - er))} "
              f"{'<=' if port['eval_ok'] else '>'} tolerance {port['loss_tolerance']:g})")
    for reason in port.get("not_exercised") or []:
        check("port_exercised", False, f"port not exercised: {reason}")


def _fmt_sci(x) -> str:
    if x is None:
        return "n/a"
    try:
        return "NaN" if math.isnan(x) else f"{x:.3g}"
    except TypeError:
        return str(x)


def _fmt_loss(x) -> str:
    try:
        return "NaN" if math.isnan(x) else ("Inf" if math.isinf(x) else f"{x:.4f}")
    except TypeError:
        return str(x)


def finish(rep: dict) -> dict:
    fill_throughput(rep)
    return judge(rep)


# ---- output --------------------------------------------------------------------------------

def to_json_safe(rep: dict) -> dict:
    """NaN/Inf are not JSON: write them as the strings "nan"/"inf"/"-inf" in the lists, None as scalars."""
    def fix(v, in_list=False):
        if isinstance(v, float) and not math.isfinite(v):
            return ("nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")) if in_list else None
        if isinstance(v, list):
            return [fix(x, True) for x in v]
        if isinstance(v, dict):
            return {k: fix(x) for k, x in v.items()}
        return v
    return {k: fix(v) for k, v in rep.items()}


def from_json_safe(rep: dict) -> dict:
    """Undo to_json_safe for the loss list ("nan"/"inf" strings back to floats)."""
    rep = dict(rep)
    rep["losses"] = [float(x) if isinstance(x, str) else x for x in rep.get("losses") or []]
    return rep


def write_json(rep: dict, path: str | os.PathLike) -> Path:
    """Write the report atomically (complete or untouched, see porter.project.atomic)."""
    from porter.project.atomic import atomic_write_text

    path = Path(path)
    atomic_write_text(path, json.dumps(to_json_safe(rep), indent=2, sort_keys=False) + "\n")
    return path


def _g(v, fmt="{:.4g}", unit="") -> str:
    if v is None:
        return "n/a"
    return fmt.format(v) + unit


def format_text(rep: dict) -> str:
    """The human report: a few aligned lines, verdict last."""
    dev = rep["device_name"] if rep["device"] == "cpu" else f"{rep['device']} {rep['device_name']}"
    versions = f"torch {rep['torch'] or '?'}" + (f", HIP {rep['hip']}" if rep["hip"] else "") + (f", CUDA {rep['cuda']}" if rep["cuda"] else "")
    lines = [
        f"device      {dev} ({rep['backend']}{', ' + rep['arch'] if rep['arch'] else ''}); {versions}",
        f"model       {rep['model']} [{rep['engine']}], {rep['dtype']}, params {_g(rep['params_total'], '{:,}')} "
        f"(trainable {_g(rep['params_trainable'], '{:,}')}), batch {rep['batch_size']} x seq {rep['seq_len']}, "
        f"world {rep['world_size']}",
        f"steps       {rep['steps_done']}/{rep['steps']}, first step after {_g(rep['time_to_first_step_s'], '{:.2f}', ' s')} "
        f"from launch, median step {_g(rep['step_time_s'], '{:.4f}', ' s')}",
        f"throughput  {_g(rep['tokens_per_s'], '{:,.0f}', ' tokens/s')}, {_g(rep['achieved_tflops'], '{:.4g}', ' TFLOP/s')}"
        + (f" of {rep['peak_tflops']:g} peak ({rep['mfu'] * 100:.1f}%)" if rep["peak_tflops"] and rep["mfu"] is not None else ""),
        f"loss        {_g(rep['loss_first'], '{:.4f}')} -> {_g(rep['loss_last'], '{:.4f}')}",
    ]
    if rep["memory_allocated_gib"] is not None or rep["memory_reserved_gib"] is not None:
        lines.append(f"memory      torch allocated {_g(rep['memory_allocated_gib'], '{:.3f}', ' GiB')}, reserved "
                     f"{_g(rep['memory_reserved_gib'], '{:.3f}', ' GiB')} of {_g(rep['device_memory_gib'], '{:.1f}', ' GiB')}")
    elif rep["host_max_rss_gib"] is not None:
        lines.append(f"memory      host peak RSS {rep['host_max_rss_gib']:.3f} GiB")
    if rep["smi"]:
        lines.append(f"smi         {rep['smi'].get('tool', '?')}: " + ", ".join(
            f"{k} {v}" for k, v in rep["smi"].items() if k != "tool" and not isinstance(v, (dict, list)))[:200])
    lf = rep.get("llamafactory")
    if lf:
        lines += _lf_lines(rep, lf)
    if lf and rep["world_size"] > 1 and rep["scaling_efficiency"] is None:
        lines.append(f"scaling     not measured: {lf.get('scaling') or 'no baseline step time'}")
    elif rep["world_size"] > 1 or rep["scaling_efficiency"] is not None:
        lines.append(f"scaling     efficiency {_g(rep['scaling_efficiency'], '{:.1%}')} vs 1 process "
                     f"(baseline step {_g(rep['baseline_step_time_s'], '{:.4f}', ' s')})")
    for n in rep.get("nodes") or []:
        ranks = n.get("ranks") or []
        lines.append(f"node {n.get('node_rank')}      {n.get('address') or '?'} ({n.get('host') or '?'}): ranks "
                     + ", ".join(str(r) for r in ranks) + f"; {_g(n.get('steps_done'), '{}')} steps, median step "
                     + _g(n.get("step_time_s"), "{:.4f}", " s"))
    if rep["allreduce"]:
        ar = rep["allreduce"]
        lines.append(f"all-reduce  {_g(ar.get('busbw_gbps'), '{:.3g}', ' GB/s')} bus bandwidth over {ar.get('size_mib', '?')} MiB"
                     + (f"; transports {ar['transports']}" if ar.get("transports") else ""))
    for w in rep["warnings"]:
        lines.append(f"warning     {w}")
    if rep.get("port"):
        lines += _port_lines(rep["port"])
    word = "PORT NOT EXERCISED" if rep["verdict"] == "not_exercised" else rep["verdict"].upper()
    lines.append(f"verdict     {word}: " + "; ".join(rep["reasons"]))
    return "\n".join(lines)


def _ms(times: list, n: int = 12) -> str:
    shown = " ".join(f"{t * 1000:.1f}" for t in times[:n] if isinstance(t, NUM))
    return shown + (f" ... ({len(times) - n} more)" if len(times) > n else "")


def _lf_lines(rep: dict, lf: dict) -> list[str]:
    """LLaMA-Factory: what ran, from which config with which overrides, attention, per-step times."""
    lines = [f"llamafactory {lf['cli']} ({lf['found']})" + (f"; threads {lf['threads']}" if lf.get("threads") else "")]
    lines.append(f"config      {lf['config'] or 'porter LoRA SFT config'} -> effective {lf['effective_config']}"
                 + (f" (run in {lf['cwd']})" if lf.get("config") else ""))
    for o in lf.get("overrides") or []:
        old = "(unset)" if o["old"] is None else _plain(o["old"])
        lines.append(f"override    {o['key']}: {old} -> {_plain(o['new'])} ({o['why']})")
    ds = lf.get("deepspeed")
    if ds:
        lines.append(f"deepspeed   {ds.get('config') or 'inline'}, ZeRO stage {ds.get('stage') if ds.get('stage') is not None else '?'}"
                     + (f", deepspeed {ds['version']}" if ds.get("version") else ""))
    att = lf.get("attention") or {}
    used = att.get("used")
    text = f"attention   {used or 'not in the log'}" + (f" ({att['line']})" if att.get("line") else "")
    text += f"; asked flash_attn: {att.get('asked') or 'auto'}"
    if att.get("fallback"):
        text += f"; fell back: LLaMA-Factory logged '{att['fallback']}'"
    if att.get("required"):
        text += "; FlashAttention-2 required" + ("" if att.get("ok") else ": NOT RUN")
    lines.append(text)
    if rep["step_times_s"]:
        med = rep["step_time_s"]
        w = lf.get("warmup_steps")
        lines.append(f"step times  ms {_ms(rep['step_times_s'])}"
                     + (f"; median {med * 1000:.1f} ms" if med is not None else "")
                     + (f" after {w} warm-up steps (ZeRO-3)" if w is not None else "") + f" ({lf['step_time_source']})")
    else:
        mean = lf.get("step_time_mean_s")
        lines.append(f"step times  none per step ({lf['step_time_source']})"
                     + (f"; mean {mean * 1000:.1f} ms (train_runtime / steps)" if mean is not None else ""))
    b = lf.get("first_step_breakdown")
    if b:
        lines.append(f"first step  {_g(rep['time_to_first_step_s'], '{:.1f}', ' s')}: imports and start-up "
                     f"{b['imports_s']:.1f} s, data and model {b['data_and_model_s']:.1f} s, trainer set-up and first step "
                     f"{b['trainer_and_first_step_s']:.1f} s (the log's clock: within 1 s)")
    if len(rep.get("ranks") or []) > 1:
        lines.append("ranks       " + ", ".join(f"{r.get('rank')}: {r.get('device')}" for r in rep["ranks"]))
    return lines


def _plain(v) -> str:
    return ("true" if v else "false") if isinstance(v, bool) else str(v)


def _port_lines(port: dict) -> list[str]:
    lines = [f"project     {port['project']} ({port['declaration'].rsplit('/', 1)[-1]} [smoke]); torch {port['torch_build']}"]
    for e in port.get("extensions") or []:
        state = ("not built: " + e["skipped"]) if e.get("skipped") else (
            ("up to date" if e.get("cached") else f"built in {e['build_s']:.1f} s") if e.get("built") else "not built")
        kind = "CUDAExtension" if e["kind"] == "cuda" else "CppExtension"
        lines.append(f"extension   {e['name']} ({kind}, {e['language']} sources, {e['origin']}): {state}")
        lines += [f"            {n}" for n in e.get("notes") or []]
    for op in port.get("ops") or []:
        head = f"op          {op['slot']} <- {op['call']}" + (" [forward-only]" if op.get("forward_only") else "")
        if op.get("skipped"):
            lines.append(f"{head}: not run here")
            continue
        if not op.get("parity"):
            lines.append(f"{head}: {op.get('problem') or 'not run'}")
            continue
        parts = []
        for e in op.get("parity") or []:
            if e.get("error"):
                parts.append(f"{e['dtype']} {e['error']}")
                continue
            f, b = e.get("forward"), e.get("backward")
            t = f"{e['dtype']} fwd abs {_fmt_sci(f['max_abs'])} rel {_fmt_sci(f['max_rel'])}"
            if b:
                t += (f", bwd ({', '.join(b.get('grads') or {})}) abs {_fmt_sci(b['max_abs'])} "
                      f"rel {_fmt_sci(b['max_rel'])}")
            parts.append(t + ("" if f["ok"] and (not b or b["ok"]) else " FAIL"))
        lines.append(f"{head}: " + "; ".join(parts))
        if op.get("used_in") or op.get("reference_in"):
            where = f"            training ran it in {_count(op['used_in'], 'module')}"
            where += f" ({_names(op['used_in'])})" if op["used_in"] else ""
            if op.get("reference_in"):
                where += (f"; the model's own module in {len(op['reference_in'])} other"
                          f"{'s' if len(op['reference_in']) != 1 else ''} (a gradient flows there)")
            if op.get("eval_used_in"):
                where += f"; the no-gradient batch after training in {_count(op['eval_used_in'], 'module')}"
            lines.append(where)
    if port.get("loss_port"):
        lr, lp = port["loss_reference"], port["loss_port"]
        lines.append(f"loss ref    {' '.join(f'{x:.4f}' for x in lr[:8])}{' ...' if len(lr) > 8 else ''}")
        lines.append(f"loss port   {' '.join(f'{x:.4f}' for x in lp[:8])}{' ...' if len(lp) > 8 else ''}")
        lines.append(f"delta loss  max |delta| {_fmt_sci(port['max_abs_dloss'])} (step {port['dloss_step']}), "
                     f"tolerance {port['loss_tolerance']:g}")
        if port.get("eval_loss_port") is not None and port.get("eval_loss_reference") is not None:
            lines.append(f"eval loss   port {port['eval_loss_port']:.4f}, reference {port['eval_loss_reference']:.4f} "
                         "(one batch after training, no gradients: every declared op runs)")
    return lines


def _count(items: list, word: str) -> str:
    return f"{len(items)} {word}{'s' if len(items) != 1 else ''}"


def _names(paths: list[str], n: int = 3) -> str:
    return ", ".join(paths[:n]) + (f", ... {len(paths) - n} more" if len(paths) > n else "")
