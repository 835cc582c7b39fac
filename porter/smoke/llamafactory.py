"""The LLaMA-Factory backend: LoRA SFT with ``llamafactory-cli train``, read into the smoke report.

Which LLaMA-Factory: porter.smoke.lfenv (beside porter's interpreter, on PATH, the set-up script's .venv-lf).
What it trains: porter's own LoRA SFT config (the shipped Alpaca sample + dataset_info.json, optionally a
DeepSpeed ZeRO-3 config), or with ``--config`` the user's own YAML as it is, with only what a smoke run must
change overridden (porter.smoke.lfconfig); the effective YAML is written beside the report.  Before launching:
the DeepSpeed config it names exists and deepspeed is installed in LLaMA-Factory's interpreter (else one line,
exit 2).  On a CPU each process gets one thread (OMP_NUM_THREADS/MKL_NUM_THREADS, as the built-in loop's
``torch.set_num_threads(1)`` and its ranks' OMP_NUM_THREADS=1), unless the caller set them.  llamafactory-cli
runs in its own process group with a time limit (Ctrl-C and the limit kill the whole group); porter follows
``trainer_log.jsonl`` for live progress lines, then reads it, ``train_results.json`` and the log
(porter.smoke.lflog: attention, parameters, device, per-step times in ms) into the same report as the builtin
engine.  ``--nproc N``: the built-in launcher's all-reduce and transport checks (porter.smoke.dist.probe_allreduce)
and a 1-process LLaMA-Factory run of the same per-device work for the scaling efficiency.
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import subprocess
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Callable

from porter.proc import kill_group, popen, untrack
from porter.smoke import data as sdata
from porter.smoke import lfconfig, lfenv, lflog
from porter.smoke import report as srep
from porter.smoke.hf import check_model_folder
from porter.smoke.options import SmokeError, SmokeOptions, SmokeUsageError, process_start_time
from porter.smoke.torchload import installed_torch_version

DATASET_NAME = "porter_smoke"
DATASET_FILE = "porter_smoke.json"
CLI = lfenv.CLI
SHORT_RUN = 10  # fewer steps: the verdict does not ask whether the loss fell, only that it stayed bounded
SHORT_RUN_RISE = 1.5  # in a short run, a loss above this times the first one fails (training diverged)
THREAD_VARS = ("OMP_NUM_THREADS", "MKL_NUM_THREADS")
ZIP_MISMATCH = "zip() argument 2 is longer than argument 1"


def on_cpu(opts: SmokeOptions) -> bool:
    """Whether LLaMA-Factory will train on the CPU: --device cpu, or auto and torch sees no GPU."""
    if opts.device != "auto":
        return opts.device == "cpu"
    try:
        import torch  # noqa: PLC0415

        return not torch.cuda.is_available()
    except ImportError:  # llamafactory-cli may live in another environment: go by the torch wheel's name
        tv = installed_torch_version()
        return bool(tv and "+cpu" in tv)


def torch_version() -> str | None:
    return installed_torch_version()


def missing_message() -> str:
    return lfenv.missing_message()


def constraints_text() -> str:
    tv = torch_version()
    return f"torch=={tv}\n" if tv else ""


# ---- writing the inputs -------------------------------------------------------------------

def _yaml_scalar(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if v is None:
        return "null"
    if isinstance(v, float):
        r = repr(v)
        # PyYAML (YAML 1.1, what LLaMA-Factory reads with) takes 1e-05 for a string: a float needs a dot
        if "e" in r and "." not in r.split("e")[0]:
            mant, exp = r.split("e")
            r = f"{mant}.0e{exp if exp[0] in '+-' else '+' + exp}"
        return r
    if isinstance(v, int):
        return repr(v)
    s = str(v)
    # plain scalars only for safe words/paths; everything else as a JSON string (valid YAML)
    if re.fullmatch(r"[A-Za-z0-9_./+-]+", s) and s.lower() not in ("true", "false", "null", "yes", "no", "on", "off", "~"):
        try:
            float(s)
        except ValueError:
            return s
    return json.dumps(s)


def dump_yaml(config: dict) -> str:
    """Flat mapping -> YAML (LLaMA-Factory configs are flat key: value lists)."""
    lines = []
    for k, v in config.items():
        if isinstance(v, (list, tuple)):
            v = ",".join(str(x) for x in v)
        lines.append(f"{k}: {_yaml_scalar(v)}")
    return "\n".join(lines) + "\n"


def write_dataset(dataset_dir: Path, records_file: Path = sdata.SAMPLE_FILE) -> Path:
    dataset_dir.mkdir(parents=True, exist_ok=True)
    sdata.load_records(records_file)  # validate before copying
    shutil.copyfile(records_file, dataset_dir / DATASET_FILE)
    info = {DATASET_NAME: {"file_name": DATASET_FILE,
                           "columns": {"prompt": "instruction", "query": "input", "response": "output"}}}
    (dataset_dir / "dataset_info.json").write_text(json.dumps(info, indent=2) + "\n", encoding="utf-8")
    return dataset_dir


def write_deepspeed_z3(path: Path) -> Path:
    """porter's ZeRO-3 config (--deepspeed without a DeepSpeed config of the user's).  It names the optimizer, so
    that DeepSpeed builds it: given the trainer's own AdamW, DeepSpeed drops its empty no-decay parameter group
    (a LoRA adapter has no bias or norm weights) and torch 2.13's LR scheduler then stops the first step with
    "ValueError: zip() argument 2 is longer than argument 1".  torch_adam: torch's AdamW, no FusedAdam op to
    build just in time (a GPU op; DeepSpeed builds its ops lazily)."""
    cfg = {
        "train_batch_size": "auto", "train_micro_batch_size_per_gpu": "auto", "gradient_accumulation_steps": "auto",
        "gradient_clipping": "auto", "zero_allow_untested_optimizer": True,
        "optimizer": {"type": "AdamW", "params": {"lr": "auto", "betas": "auto", "eps": "auto",
                                                  "weight_decay": "auto", "torch_adam": True}},
        "bf16": {"enabled": "auto"}, "fp16": {"enabled": "auto"},
        "zero_optimization": {"stage": 3, "overlap_comm": True, "contiguous_gradients": True,
                              "sub_group_size": 1_000_000_000, "reduce_bucket_size": "auto",
                              "stage3_prefetch_bucket_size": "auto", "stage3_param_persistence_threshold": "auto",
                              "stage3_max_live_parameters": 1_000_000_000, "stage3_max_reuse_distance": 1_000_000_000,
                              "stage3_gather_16bit_weights_on_model_save": True},
    }
    path.write_text(json.dumps(cfg, indent=2) + "\n", encoding="utf-8")
    return path


def sft_config(model_path: str, output_dir: Path, dataset_dir: Path, opts: SmokeOptions,
               deepspeed: Path | None = None, cpu: bool | None = None) -> dict:
    """The LoRA SFT config.  On a CPU: fp32 and use_cpu (transformers refuses bf16 there); a constant
    learning rate of --lr with no warm-up, so that a run of a few steps already moves the loss."""
    cpu = on_cpu(opts) if cpu is None else cpu
    if cpu and opts.dtype == "bf16":
        raise SmokeUsageError("--dtype bf16: LLaMA-Factory (transformers) trains bf16 only on a GPU; "
                              "use --dtype fp32 on a CPU")
    cfg = {
        "model_name_or_path": str(model_path),
        "stage": "sft",
        "do_train": True,
        "finetuning_type": "lora",
        "lora_rank": opts.lora_rank,
        "lora_target": "all",
        "dataset": DATASET_NAME,
        "dataset_dir": str(dataset_dir),
        "template": opts.template,
        "cutoff_len": opts.seq_len,
        "max_samples": 1000,
        "overwrite_cache": True,
        "output_dir": str(output_dir),
        "overwrite_output_dir": True,
        "logging_steps": 1,
        "save_strategy": "no",
        "per_device_train_batch_size": opts.batch_size,
        "gradient_accumulation_steps": 1,
        "learning_rate": opts.lr,
        "max_steps": opts.steps,
        "lr_scheduler_type": "constant",
        "warmup_steps": 0,
        "bf16": not cpu and (opts.dtype or "bf16") == "bf16",
        "include_num_input_tokens_seen": True,
        "report_to": "none",
    }
    if cpu and deepspeed is None:  # under DeepSpeed its CPU accelerator places the run (see lfconfig.plan)
        cfg["use_cpu"] = True
    if opts.require_flash_attn:
        cfg["flash_attn"] = "fa2"
    if deepspeed is not None:
        cfg["deepspeed"] = str(deepspeed)
    return cfg


def write_inputs(workdir: Path, opts: SmokeOptions, cpu: bool | None = None) -> dict:
    """Everything llamafactory-cli needs for porter's own config, under workdir; returns the paths."""
    workdir.mkdir(parents=True, exist_ok=True)
    dataset_dir = write_dataset(workdir / "data")
    ds = write_deepspeed_z3(workdir / "ds_z3_config.json") if opts.deepspeed else None
    out = workdir / "output"
    cfg = sft_config(opts.model, out, dataset_dir, opts, ds, cpu=cpu)
    yaml_path = workdir / "porter_smoke_lora_sft.yaml"
    yaml_path.write_text(dump_yaml(cfg), encoding="utf-8")
    (workdir / "constraints.txt").write_text(constraints_text(), encoding="utf-8")
    return {"yaml": yaml_path, "output_dir": out, "dataset_dir": dataset_dir, "deepspeed": ds, "config": cfg}


# ---- reading the outputs ------------------------------------------------------------------

def parse_elapsed(v) -> float | None:
    """elapsed_time as LLaMA-Factory writes it: seconds, or 'H:MM:SS' / 'D day, H:MM:SS'."""
    if isinstance(v, (int, float)):
        return float(v)
    if not isinstance(v, str):
        return None
    m = re.fullmatch(r"\s*(?:(\d+) days?, )?(\d+):(\d{2}):(\d{2}(?:\.\d+)?)\s*", v)
    if m:
        return int(m[1] or 0) * 86400 + int(m[2]) * 3600 + int(m[3]) * 60 + float(m[4])
    try:
        return float(v)
    except ValueError:
        return None


def read_trainer_log(path: Path) -> list[dict]:
    """The JSON lines of trainer_log.jsonl that carry a step (a torn last line is skipped)."""
    entries = []
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return entries
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        try:
            e = json.loads(line)
        except ValueError:
            continue
        if isinstance(e, dict) and isinstance(e.get("current_steps"), int):
            entries.append(e)
    return entries


def read_logs(output_dir: Path, log_file: Path | None = None) -> dict:
    """{entries, results, log_text, mtime}: trainer_log.jsonl, train_results.json, LLaMA-Factory's output."""
    output_dir = Path(output_dir)
    results = None
    try:
        results = json.loads((output_dir / "train_results.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        pass
    mtime = None
    try:
        mtime = (output_dir / "trainer_log.jsonl").stat().st_mtime
    except OSError:
        pass
    text = ""
    if log_file is not None:
        try:
            text = Path(log_file).read_text(encoding="utf-8", errors="replace")
        except OSError:
            pass
    return {"entries": read_trainer_log(output_dir / "trainer_log.jsonl"), "results": results, "log_text": text,
            "mtime": mtime}


def lf_section(**values) -> dict:
    """The report's "llamafactory" section (porter.smoke.report.LF_KEYS), defaults filled."""
    sec = {"cli": "", "found": "", "python": None, "config": None, "effective_config": "", "overrides": [],
           "cwd": "", "workdir": "", "log": "", "threads": None, "deepspeed": None,
           "attention": {"asked": "auto", "used": None, "line": None, "fallback": None, "required": False, "ok": None},
           "step_time_source": "", "step_time_mean_s": None, "scaling": None, "warmup_steps": None,
           "first_step_breakdown": None}
    sec.update(values)
    return sec


def _num(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def logs_to_report(logs: dict, opts: SmokeOptions, *, time_to_first_step_s: float | None = None,
                   device_info=None, cpu: bool | None = None, lf: dict | None = None,
                   start_time: float | None = None, world_size: int | None = None, config: dict | None = None) -> dict:
    """trainer_log.jsonl + train_results.json + the log -> the smoke report (verdict filled).  cpu: the run was on
    the CPU; lf: the "llamafactory" section so far (attention asked/required); start_time: porter's start (epoch),
    for the time to the first step from trainer_log.jsonl's own clock; config: the config LLaMA-Factory ran (model,
    sequences per step per device, cutoff_len for the report)."""
    entries = [e for e in logs["entries"] if "loss" in e]
    results = logs.get("results") or {}
    parsed = lflog.parse_log(logs.get("log_text") or "")
    cpu = opts.device == "cpu" if cpu is None else cpu
    world = world_size or max(1, opts.nproc)
    lf = lf_section(**(lf or {}))
    model, batch, seq = str(opts.model), opts.batch_size, opts.seq_len
    if config:
        model = str(config.get("model_name_or_path") or model)
        try:
            batch = int(config.get("per_device_train_batch_size", 8)) * int(config.get("gradient_accumulation_steps", 1))
            seq = int(config.get("cutoff_len", 2048))  # LLaMA-Factory's defaults; sequences are cut to it, not padded
        except (TypeError, ValueError):
            pass
    rep = srep.empty_report(engine="llamafactory", model=model, steps=opts.steps,
                            batch_size=batch, seq_len=seq, world_size=world,
                            dtype=parsed["dtype"] or opts.dtype or ("fp32" if cpu else "bf16"))
    tv = torch_version()
    if device_info is not None:
        rep.update(device=device_info.device, device_name=device_info.name, backend=device_info.backend,
                   arch=device_info.arch, torch=device_info.torch, hip=device_info.hip, cuda=device_info.cuda,
                   device_memory_gib=device_info.total_memory_gib, peak_tflops=device_info.peak_tflops(rep["dtype"]))
    else:  # the training ran in LLaMA-Factory's process: its log names the device, torch's version string the build
        logged = parsed["ranks"][0]["device"] if parsed["ranks"] else None
        on_gpu = logged is not None and not logged.startswith("cpu")
        cpu = cpu and not on_gpu
        backend = "cpu" if cpu else ("rocm" if tv and "rocm" in tv else ("cpu" if tv and "+cpu" in tv and not on_gpu
                                                                         else "cuda"))
        rep.update(torch=tv, backend=backend, device="cpu" if backend == "cpu" else "cuda",
                   device_name=f"{logged} (LLaMA-Factory's log)" if logged else "as LLaMA-Factory chose (not in its log)")
    if parsed["ranks"]:
        rep["ranks"] = [{"rank": r["rank"], "device": r["device"]} for r in parsed["ranks"]]
        if world_size is None:
            rep["world_size"] = parsed["ranks"][0]["world_size"]
    rep["params_total"], rep["params_trainable"] = parsed["params_total"], parsed["params_trainable"]
    rep["losses"] = [float(e["loss"]) if isinstance(e["loss"], (int, float)) else float("nan") for e in entries]
    rep["steps_done"] = max((e["current_steps"] for e in logs["entries"]), default=0)
    if entries and entries[-1].get("total_steps"):
        rep["steps"] = int(entries[-1]["total_steps"])
    times, tokens = lflog.step_times(logs["entries"])
    runtime = results.get("train_runtime")
    if _num(runtime) and runtime > 0 and rep["steps_done"]:
        lf["step_time_mean_s"] = round(runtime / rep["steps_done"], 6)
    rep["step_times_s"] = [round(t, 6) for t in times]
    if (lf.get("deepspeed") or {}).get("stage") == 3 and len(times) >= 3:
        # under ZeRO-3 the second step is slow too (measured, CPU, 2 ranks: 711 962 274 392 247 ms and
        # 444 748 177 209 ms; the same run without DeepSpeed: 101 65 74 94 61 ms): two warm-up steps are left out
        lf["warmup_steps"] = max(2, srep.warmup_steps(len(times)))
    rep["llamafactory"] = lf
    if times:
        lf["step_time_source"] = "trainer_log.jsonl: total_tokens / throughput"
    elif entries:
        lf["step_time_source"] = ("trainer_log.jsonl has no total_tokens/throughput (include_num_input_tokens_seen "
                                  "off), and its elapsed_time is in whole seconds")
        rep["warnings"].append("per-step times unknown: " + lf["step_time_source"]
                               + (f"; mean {lf['step_time_mean_s'] * 1000:.1f} ms (train_runtime / steps)"
                                  if lf["step_time_mean_s"] is not None else ""))
    else:
        lf["step_time_source"] = "no step logged"
    srep.fill_throughput(rep)  # step_time_s: the median (warm-up steps left out)
    if times:
        w = lf["warmup_steps"] if lf["warmup_steps"] is not None else srep.warmup_steps(len(times))
        if sum(times[w:]) > 0:  # tokens the model was given (padding included) per second, all ranks together
            rep["tokens_per_s"] = round(sum(tokens[w:]) / sum(times[w:]), 2)
    elif _num(results.get("num_input_tokens_seen")) and _num(runtime) and runtime > 0:
        rep["tokens_per_s"] = round(results["num_input_tokens_seen"] / runtime, 2)
    elif _num(results.get("train_samples_per_second")):
        rep["tokens_per_s"] = round(results["train_samples_per_second"] * rep["seq_len"], 2)
    else:
        rep["tokens_per_s"] = None
    flos = results.get("total_flos")
    rep["achieved_tflops"] = rep["mfu"] = None
    if _num(flos) and _num(runtime) and runtime > 0:
        # Hugging Face's total_flos counts 6 x params x tokens (full fine-tuning); LoRA without
        # gradient checkpointing does ~4 x params x tokens
        rep["achieved_tflops"] = round(flos * 4 / 6 / runtime / 1e12, 6)
        if rep["peak_tflops"]:
            rep["mfu"] = round(rep["achieved_tflops"] / (rep["peak_tflops"] * rep["world_size"]), 6)
    for key, out in (("vram_allocated", "memory_allocated_gib"), ("vram_reserved", "memory_reserved_gib")):
        vals = [e[key] for e in logs["entries"] if isinstance(e.get(key), (int, float))]
        if vals and not cpu:  # on a CPU these are torch.cuda's zeros (printed as -0.000)
            rep[out] = max(0.0, round(max(vals), 4)) + 0.0  # LLaMA-Factory logs GB; + 0.0 turns -0.0 into 0.0
    first = lflog.first_step_wall(logs["entries"], logs.get("mtime"))
    if first is not None and start_time is not None and first >= start_time:
        rep["time_to_first_step_s"] = round(first - start_time, 3)
    else:
        rep["time_to_first_step_s"] = time_to_first_step_s
    lf["first_step_breakdown"] = _breakdown(logs.get("log_text") or "", start_time, rep["time_to_first_step_s"])
    att = dict(lf["attention"])
    att.update(used=parsed["attention_used"], line=parsed["attention_line"], fallback=parsed["attention_fallback"])
    if att["required"]:
        att["ok"] = att["used"] == "fa2"
    lf["attention"] = att
    if att["fallback"] and not att["required"]:
        rep["warnings"].append(f"attention: asked flash_attn {att['asked']}, LLaMA-Factory logged "
                               f"'{att['fallback']}' and ran {att['used'] or 'what transformers chose'}")
    nccl_lines = parsed["nccl_lines"]
    if nccl_lines:
        from porter.smoke import nccl  # noqa: PLC0415

        summary = nccl.parse_transports(nccl_lines)
        if summary["counts"]:
            rep["allreduce"] = {"transports": summary["counts"], "source": "LLaMA-Factory's log (NCCL_DEBUG=INFO)"}
        rep["warnings"] += nccl.transport_warnings(summary, rocm=rep["backend"] == "rocm")
    rep["llamafactory"] = lf
    if rep["steps_done"] == 0 and not rep["error"]:
        rep["error"] = "LLaMA-Factory logged no training step"
    return judge(rep)


def judge(rep: dict) -> dict:
    """The shared verdict (porter.smoke.report.judge), the short-run rule and the attention check."""
    rep = judge_short_run(srep.judge(rep))
    att = (rep.get("llamafactory") or {}).get("attention") or {}
    if att.get("required") and rep["verdict"] != "interrupted":
        why = att.get("why") or "flash_attn: fa2 in the config"
        if att.get("ok"):
            rep["checks"].append({"name": "attention", "ok": True,
                                  "detail": f"FlashAttention-2 ran (asked by {why}; LLaMA-Factory logged '{att['line']}')"})
        else:
            ran = (lflog.ATTENTION_NAMES.get(att.get("used")) if att.get("used") else None)
            detail = (f"attention: FlashAttention-2 asked ({why}) but LLaMA-Factory ran "
                      + (f"{ran} ('{att['line']}')" if ran else "no attention it logged (the run ended before the model was built)")
                      + (f" after '{att['fallback']}'" if att.get("fallback") else ""))
            rep["checks"].append({"name": "attention", "ok": False, "detail": detail})
        failed = [c for c in rep["checks"] if not c["ok"]]
        rep["verdict"] = "fail" if failed else "pass"
        rep["reasons"] = [c["detail"] for c in (failed or rep["checks"])]
    return rep


def judge_short_run(rep: dict) -> dict:
    """Under SHORT_RUN steps the loss trend says nothing: a LoRA adapter starts as a no-op and a few batches'
    losses differ more than a few updates move them (a random tiny model at 5 steps: 6.2380 6.2474 6.1256
    6.1385 6.1405).  So a short run is not asked whether its loss fell; it passes its loss check when every
    loss is finite (checked apart) and none rose above SHORT_RUN_RISE x the first (training blew up)."""
    losses = [x for x in rep["losses"] if isinstance(x, (int, float))]
    if not (2 <= rep["steps_done"] < SHORT_RUN) or rep["nonfinite_step"] is not None or len(losses) < 2:
        return rep
    for c in rep["checks"]:
        if c["name"] in ("loss_fell", "loss_bounded"):
            top = max(range(len(losses)), key=lambda i: losses[i])
            c["name"] = "loss_bounded"
            c["ok"] = losses[top] <= SHORT_RUN_RISE * losses[0]
            c["detail"] = (f"{rep['steps_done']}-step run, too short to judge whether the loss falls (from "
                           f"{SHORT_RUN} steps on: last below first): losses {losses[0]:.4f} -> {losses[-1]:.4f}, "
                           f"highest {losses[top]:.4f} at step {top + 1} "
                           + (f"<= {SHORT_RUN_RISE:g} x the first" if c["ok"]
                              else f"> {SHORT_RUN_RISE:g} x the first: training diverged"))
    failed = [c for c in rep["checks"] if not c["ok"]]
    if rep["verdict"] in ("pass", "fail"):
        rep["verdict"] = "fail" if failed or not rep["checks"] else "pass"
        rep["reasons"] = [c["detail"] for c in (failed or rep["checks"])]
    return rep


# ---- preparing a run ----------------------------------------------------------------------

def _effective(inst: lfenv.Install, opts: SmokeOptions, workdir: Path, cpu: bool) -> dict:
    """The config LLaMA-Factory will read, written under workdir: {cfg, overrides, yaml, text, output_dir, cwd}."""
    workdir.mkdir(parents=True, exist_ok=True)
    out = workdir / "output"
    if not opts.config:
        paths = write_inputs(workdir, opts, cpu=cpu)
        text = lfconfig.header(None, [], str(workdir)) + dump_yaml(paths["config"])
        paths["yaml"].write_text(text, encoding="utf-8")
        return {"cfg": paths["config"], "overrides": [], "yaml": paths["yaml"], "text": text, "output_dir": out,
                "cwd": workdir}
    src = Path(opts.config).expanduser()
    try:
        user = lfenv.load_config(inst, src)
    except (SmokeError, ValueError, OSError) as exc:
        raise SmokeUsageError(f"--config {opts.config}: LLaMA-Factory cannot read it: {str(exc)[:300]}") from None
    ds = None
    if opts.deepspeed and not user.get("deepspeed"):
        ds = write_deepspeed_z3(workdir / "ds_z3_config.json")
    cfg, overrides = lfconfig.plan(user, steps=opts.steps, output_dir=out, cpu=cpu,
                                   model=opts.model if opts.model != "tiny" else None,
                                   require_flash_attn=opts.require_flash_attn, deepspeed=ds)
    cwd = Path.cwd()
    try:
        body = lfenv.dump_config(inst, cfg)
    except (SmokeError, subprocess.TimeoutExpired) as exc:
        raise SmokeError(f"cannot write the effective config: {exc}") from None
    text = lfconfig.header(str(src.resolve()), overrides, str(cwd)) + body
    yaml_path = workdir / f"{src.stem}.effective.yaml"
    yaml_path.write_text(text, encoding="utf-8")
    return {"cfg": cfg, "overrides": overrides, "yaml": yaml_path, "text": text, "output_dir": out, "cwd": cwd}


def _preflight_deepspeed(inst: lfenv.Install, opts: SmokeOptions, eff: dict) -> dict | None:
    """The DeepSpeed config the run uses ({config, stage, version}), checked before launching: the file exists and
    parses, and deepspeed is installed in LLaMA-Factory's interpreter at the version it requires (else one line,
    SmokeUsageError: exit 2)."""
    path, data, problem = lfconfig.deepspeed_config(eff["cfg"], eff["cwd"])
    if path is None and data is None and problem is None:
        return None
    who = "--deepspeed" if opts.deepspeed and not opts.config else f"--config {opts.config}"
    if problem:
        raise SmokeUsageError(f"{who}: {problem}")
    problem, version = lfenv.deepspeed_check(inst)
    if problem:
        raise SmokeUsageError(f"{who} (DeepSpeed {'ZeRO-' + str(lfconfig.zero_stage(data)) if lfconfig.zero_stage(data) else 'config'}): {problem}")
    return {"config": str(path) if path else None, "stage": lfconfig.zero_stage(data), "version": version}


def _env(inst: lfenv.Install, nproc: int, cpu: bool, deepspeed: bool) -> tuple[dict, str | None]:
    env = dict(os.environ, RECORD_VRAM="1", PYTHONUNBUFFERED="1")
    if inst.bin_dir:  # llamafactory-cli starts "torchrun" by name: the one of its own environment
        env["PATH"] = inst.bin_dir + os.pathsep + env.get("PATH", "")
    # LLaMA-Factory launches torchrun itself for FORCE_TORCHRUN or when it sees several GPUs, with NPROC_PER_NODE
    # ranks (default: the GPU count, 0 on a CPU); DeepSpeed runs only under torchrun ("Please use FORCE_TORCHRUN=1")
    env["NPROC_PER_NODE"] = str(nproc)
    if nproc > 1 or deepspeed:
        env["FORCE_TORCHRUN"] = "1"
    threads = None
    if cpu:
        mine = [v for v in THREAD_VARS if v not in os.environ]
        for v in mine:
            env[v] = "1"
        threads = (f"{env['OMP_NUM_THREADS']} per process (OMP_NUM_THREADS"
                   + (", set by porter as for the built-in loop)" if "OMP_NUM_THREADS" in mine else ", as you set it)"))
    elif nproc > 1:
        env.setdefault("NCCL_DEBUG", "INFO")  # the transport check reads NCCL's channel lines from the log
    return env, threads


def _breakdown(log_text: str, start_time: float | None, first_step_s: float | None) -> dict | None:
    """Where the time to the first step went, from the log's clock (whole seconds): imports and
    start-up (porter's launch to LLaMA-Factory's first log line), data and model (to "trainable
    params"), trainer set-up and the first step (the rest)."""
    first, ready = lflog.phase_walls(log_text)
    if start_time is None or first_step_s is None or first is None or ready is None:
        return None
    # the log's stamps are whole seconds, truncated: a phase boundary is known within 1 s
    imports = max(0.0, first - start_time)
    model = max(0.0, ready - first)
    return {"imports_s": round(min(imports, first_step_s), 1), "data_and_model_s": round(model, 1),
            "trainer_and_first_step_s": round(max(0.0, first_step_s - imports - model), 1), "resolution_s": 1.0}


def _error_line(code: int, log_text: str, root: str | None, log_file: Path, deepspeed: bool) -> str:
    if root:
        what = root
    else:
        tail = [ln for ln in log_text.replace("\r", "\n").splitlines() if ln.strip()][-1:]
        what = tail[0] if tail else "no output"
    msg = f"{CLI} exited with code {code}: {what[:300]} (log: {log_file})"
    if deepspeed and ZIP_MISMATCH in what:
        msg += ("; DeepSpeed dropped the trainer's empty parameter group and this torch's LR scheduler refuses the "
                "mismatch: name the optimizer in the DeepSpeed config (\"optimizer\": {\"type\": \"AdamW\", ...}) "
                "so DeepSpeed builds it, as porter's --deepspeed config does")
    return msg


# ---- running it ---------------------------------------------------------------------------

def _train(inst: lfenv.Install, eff: dict, opts: SmokeOptions, *, nproc: int, cpu: bool, deepspeed: dict | None,
           workdir: Path, emit: Callable[[str], None] | None, t0: float, lf: dict) -> dict:
    """One llamafactory-cli train of eff's YAML with nproc processes; its report."""
    env, threads = _env(inst, nproc, cpu, deepspeed is not None)
    log_file = workdir / "llamafactory.log"
    out = eff["output_dir"]
    lf = dict(lf, threads=threads, log=str(log_file), workdir=str(workdir), cwd=str(eff["cwd"]), deepspeed=deepspeed)
    error = None
    first_step_at = None
    seen = 0
    last_t = 0.0
    code = None
    with open(log_file, "w", encoding="utf-8") as logfh:
        try:
            proc = popen([*inst.argv, "train", str(eff["yaml"])], env=env, cwd=eff["cwd"],
                         stdin=subprocess.DEVNULL, stdout=logfh, stderr=subprocess.STDOUT)
        except OSError as exc:
            raise SmokeError(f"cannot run {inst.argv[0]} (found {inst.where}): {exc.strerror or exc}") from None
        deadline = time.monotonic() + opts.timeout_s
        try:
            while True:
                code = proc.poll()
                entries = read_trainer_log(out / "trainer_log.jsonl")
                for e in entries[seen:]:
                    if first_step_at is None:
                        first_step_at = time.time()
                    t = lflog.elapsed_s(e)
                    t = t if t is not None else (parse_elapsed(e.get("elapsed_time")) or 0.0)
                    if emit and isinstance(e.get("loss"), (int, float)):
                        emit(srep.progress_line(e["current_steps"], e.get("total_steps") or opts.steps, e["loss"],
                                                max(0.0, t - last_t)))
                    last_t = t
                seen = len(entries)
                if code is not None:
                    break
                if time.monotonic() > deadline:
                    error = f"{CLI} timed out after {opts.timeout_s:g} s and was stopped (log: {log_file})"
                    kill_group(proc)
                    break
                time.sleep(0.25)
        except KeyboardInterrupt:
            kill_group(proc)
            error = "interrupted"
        finally:
            untrack(proc)
    logs = read_logs(out, log_file)
    rep = logs_to_report(logs, opts, time_to_first_step_s=round(first_step_at - t0, 3) if first_step_at else None,
                         cpu=cpu, lf=lf, start_time=t0, world_size=nproc, config=eff["cfg"])
    if error is None and code not in (None, 0) and rep["steps_done"] >= opts.steps \
            and lflog.teardown_abort(logs["log_text"]):
        rep["warnings"].append(f"{CLI} exited with code {code} after all {opts.steps} steps ran: a rank aborted while "
                               "leaving the process group ('terminate called without an active exception', gloo's "
                               f"teardown on the CPU), after the Trainer finished (log: {log_file})")
    elif error is None and code not in (None, 0):
        error = _error_line(code, logs["log_text"], lflog.root_error(logs["log_text"].replace("\r", "\n").splitlines()),
                            log_file, deepspeed is not None)
    if error:
        rep["error"] = error
    return judge(rep)


def run(opts: SmokeOptions, *, emit: Callable[[str], None] | None = print, workdir: Path | None = None,
        cli: str | None = None) -> dict:
    t0 = process_start_time()
    if opts.model != "tiny":
        check_model_folder(opts.model)
    if opts.config:
        src = Path(opts.config).expanduser()
        if not src.is_file():
            raise SmokeUsageError(f"--config {opts.config}: no such file")
        if src.suffix not in (".yaml", ".yml", ".json"):
            raise SmokeUsageError(f"--config {opts.config}: LLaMA-Factory reads .yaml, .yml or .json configs")
    inst = lfenv.from_cli(cli) if cli else lfenv.find()
    cpu = on_cpu(opts)
    workdir = Path(workdir or tempfile.mkdtemp(prefix="porter-llamafactory-"))
    eff = _effective(inst, opts, workdir, cpu)
    ds = _preflight_deepspeed(inst, opts, eff)
    effective_at = eff["yaml"]
    if opts.json_path:  # the effective YAML beside the report
        beside = Path(opts.json_path).with_suffix(".llamafactory.yaml")
        try:
            beside.write_text(eff["text"], encoding="utf-8")
            effective_at = beside
        except OSError:
            pass
    asked = lfconfig.flash_attn_asked(eff["cfg"])
    required = opts.require_flash_attn or asked == "fa2"
    lf = lf_section(cli=" ".join(inst.argv), found=inst.where, python=inst.python,
                    config=str(Path(opts.config).expanduser().resolve()) if opts.config else None,
                    effective_config=str(effective_at), overrides=eff["overrides"],
                    attention={"asked": asked, "used": None, "line": None, "fallback": None, "required": required,
                               "ok": None, "why": ("--require-flash-attn" if opts.require_flash_attn
                                                   else "flash_attn: fa2 in the config") if required else None})
    if emit:
        emit(f"llamafactory: {' '.join(inst.argv)} ({inst.where})")
        emit(f"config: {lf['config'] or 'porter LoRA SFT config'} -> effective {effective_at}")
        for o in eff["overrides"]:
            emit("override: " + lfconfig.describe(o))
    rep = _train(inst, eff, opts, nproc=opts.nproc, cpu=cpu, deepspeed=ds, workdir=workdir, emit=emit, t0=t0, lf=lf)
    if opts.nproc > 1 and rep.get("error") != "interrupted":
        _multi_process_checks(rep, inst, opts, cpu=cpu, deepspeed=ds, workdir=workdir, emit=emit, lf=lf)
    rep["warnings"].append(f"inputs and logs in {workdir}")
    return judge(rep)


def _multi_process_checks(rep: dict, inst: lfenv.Install, opts: SmokeOptions, *, cpu: bool, deepspeed: dict | None,
                          workdir: Path, emit, lf: dict) -> None:
    """--nproc N: the built-in launcher's all-reduce/transport probe, and a 1-process run for the scaling figure."""
    lfsec = rep["llamafactory"]
    if rep.get("error"):
        lfsec["scaling"] = "the multi-process run failed"
    else:
        from porter.smoke import dist  # noqa: PLC0415

        if emit:
            emit(f"all-reduce: probing {opts.nproc} processes ({'gloo' if cpu else 'NCCL/RCCL'}), as the built-in launcher does")
        try:
            probe = dist.probe_allreduce(replace(opts, device="cpu" if cpu else "cuda"), opts.nproc, gpu=not cpu,
                                         timeout_s=min(opts.timeout_s, 300.0))
        except SmokeError as exc:
            probe = {"error": str(exc), "allreduce": None, "warnings": []}
        if probe.get("error"):
            rep["warnings"].append(f"all-reduce probe failed: {probe['error']}")
        elif probe.get("allreduce"):
            seen = (rep.get("allreduce") or {}).get("transports") or {}
            ar = dict(probe["allreduce"])
            if seen and not ar.get("transports"):
                ar["transports"] = seen
            rep["allreduce"] = ar
        rep["warnings"] += [w for w in probe.get("warnings") or [] if w not in rep["warnings"]]
        if not opts.baseline:
            lfsec["scaling"] = "--no-baseline"
        elif not rep.get("step_time_s"):
            lfsec["scaling"] = "no per-step times from the multi-process run"
        else:
            if emit:
                emit(f"baseline: LLaMA-Factory with 1 process, the same per-device work ({opts.steps} steps)")
            bdir = workdir / "baseline"
            beff = _effective(inst, opts, bdir, cpu)
            base = _train(inst, beff, opts, nproc=1, cpu=cpu, deepspeed=deepspeed, workdir=bdir, emit=None,
                          t0=time.time(), lf=lf)
            if base.get("step_time_s") and not base.get("error"):
                rep["baseline_step_time_s"] = base["step_time_s"]
                rep["scaling_efficiency"] = round(base["step_time_s"] / rep["step_time_s"], 4)
                lfsec["scaling"] = None
            elif base.get("error") == "interrupted":
                rep["error"] = "interrupted"
                lfsec["scaling"] = "interrupted"
            else:
                lfsec["scaling"] = f"the 1-process baseline run failed: {base.get('error') or 'no step time'}"
