"""The LLaMA-Factory backend: LoRA SFT of a local model with ``llamafactory-cli train``, read into the smoke report.

Writes the dataset folder (the shipped Alpaca sample + dataset_info.json), a LoRA SFT YAML and optionally a
DeepSpeed ZeRO-3 config; runs llamafactory-cli in its own process group with a time limit (Ctrl-C and the
limit kill the whole group); follows ``trainer_log.jsonl`` for live progress lines; reads it and
``train_results.json`` into the same report as the builtin engine.  Key names: LLaMA-Factory's documented
config and log keys (see shared/reference/porting-facts.md).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Callable

from porter.proc import kill_group
from porter.smoke import data as sdata
from porter.smoke import report as srep
from porter.smoke.hf import check_model_folder
from porter.smoke.options import SmokeError, SmokeOptions, SmokeUsageError, process_start_time
from porter.smoke.torchload import installed_torch_version

DATASET_NAME = "porter_smoke"
DATASET_FILE = "porter_smoke.json"
CLI = "llamafactory-cli"
COARSE_S = 5.0  # below this mean step time, whole-second log stamps say nothing per step
SHORT_RUN = 10  # fewer steps: the verdict does not ask whether the loss fell, only that it stayed bounded
SHORT_RUN_RISE = 1.5  # in a short run, a loss above this times the first one fails (training diverged)


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
    tv = torch_version()
    pin = f"a constraints file with the line torch=={tv}" if tv else "a constraints file pinning your torch version"
    return (f"LLaMA-Factory is not installed ({CLI} is not on PATH): pip install -c constraints.txt "
            f"-c constraints/llamafactory.txt 'hip-porter[llamafactory]' (LLaMA-Factory 0.9.3 and the versions "
            f"tested with it), where constraints.txt is {pin}, so pip does not replace your (ROCm) torch with a "
            f"CUDA build; or bash scripts/setup_llamafactory.sh for an environment of its own (.venv-lf)")


def constraints_text() -> str:
    tv = torch_version()
    return f"torch=={tv}\n" if tv else ""


# ---- writing the inputs -------------------------------------------------------------------

def _yaml_scalar(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if v is None:
        return "null"
    if isinstance(v, (int, float)):
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
    cfg = {
        "train_batch_size": "auto", "train_micro_batch_size_per_gpu": "auto", "gradient_accumulation_steps": "auto",
        "gradient_clipping": "auto", "zero_allow_untested_optimizer": True,
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
    if cpu:
        cfg["use_cpu"] = True
    if deepspeed is not None:
        cfg["deepspeed"] = str(deepspeed)
    return cfg


def write_inputs(workdir: Path, opts: SmokeOptions, cpu: bool | None = None) -> dict:
    """Everything llamafactory-cli needs, under workdir; returns the paths."""
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


def read_logs(output_dir: Path) -> dict:
    output_dir = Path(output_dir)
    results = None
    try:
        results = json.loads((output_dir / "train_results.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        pass
    return {"entries": read_trainer_log(output_dir / "trainer_log.jsonl"), "results": results}


def logs_to_report(logs: dict, opts: SmokeOptions, *, time_to_first_step_s: float | None = None,
                   device_info=None, cpu: bool | None = None) -> dict:
    """trainer_log.jsonl + train_results.json -> the smoke report (verdict filled).  cpu: the run was on the CPU."""
    entries = [e for e in logs["entries"] if "loss" in e]
    results = logs.get("results") or {}
    cpu = opts.device == "cpu" if cpu is None else cpu
    rep = srep.empty_report(engine="llamafactory", model=str(opts.model), steps=opts.steps,
                            batch_size=opts.batch_size, seq_len=opts.seq_len, world_size=max(1, opts.nproc),
                            dtype=opts.dtype or ("fp32" if cpu else "bf16"))
    if device_info is not None:
        rep.update(device=device_info.device, device_name=device_info.name, backend=device_info.backend,
                   arch=device_info.arch, torch=device_info.torch, hip=device_info.hip, cuda=device_info.cuda,
                   device_memory_gib=device_info.total_memory_gib, peak_tflops=device_info.peak_tflops(rep["dtype"]))
    else:  # the training ran in LLaMA-Factory's process: tell the build from torch's version string only
        tv = torch_version()
        backend = "cpu" if cpu else ("rocm" if tv and "rocm" in tv else ("cpu" if tv and "+cpu" in tv else "cuda"))
        rep.update(torch=tv, backend=backend, device="cpu" if backend == "cpu" else "cuda",
                   device_name="as LLaMA-Factory chose (see its log)")
    rep["losses"] = [float(e["loss"]) if isinstance(e["loss"], (int, float)) else float("nan") for e in entries]
    rep["steps_done"] = max((e["current_steps"] for e in logs["entries"]), default=0)
    if entries and entries[-1].get("total_steps"):
        rep["steps"] = int(entries[-1]["total_steps"])
    # per-step times from elapsed_time differences (LLaMA-Factory logs whole seconds)
    times = []
    prev_t, prev_s = 0.0, 0
    for e in logs["entries"]:
        t = parse_elapsed(e.get("elapsed_time"))
        if t is None:
            continue
        n = e["current_steps"] - prev_s
        if n > 0:
            times.extend([(t - prev_t) / n] * n)
        prev_t, prev_s = t, e["current_steps"]
    runtime = results.get("train_runtime")
    mean = None
    if isinstance(runtime, (int, float)) and runtime > 0 and rep["steps_done"]:
        mean = runtime / rep["steps_done"]
    elif times:
        mean = sum(times) / len(times)
    if mean is not None and mean < COARSE_S:
        # elapsed_time is logged in whole seconds: per-step times this short are noise, so no slow-step check
        rep["warnings"].append(f"LLaMA-Factory logs elapsed time in whole seconds; step time is the mean "
                               f"{mean:.4f} s (train_runtime / steps), per-step times not checked")
        times = []
    rep["step_times_s"] = [round(t, 6) for t in times]
    rep["time_to_first_step_s"] = time_to_first_step_s
    srep.fill_throughput(rep)
    if mean is not None:
        rep["step_time_s"] = round(mean, 6)
        rep["tokens_per_s"] = round(rep["batch_size"] * rep["seq_len"] * rep["world_size"] / mean, 2)  # upper bound
    flos = results.get("total_flos")
    if isinstance(flos, (int, float)) and isinstance(runtime, (int, float)) and runtime > 0:
        # Hugging Face's total_flos counts 6 x params x tokens (full fine-tuning); LoRA without
        # gradient checkpointing does ~4 x params x tokens
        rep["achieved_tflops"] = round(flos * 4 / 6 / runtime / 1e12, 6)
        if rep["peak_tflops"]:
            rep["mfu"] = round(rep["achieved_tflops"] / (rep["peak_tflops"] * rep["world_size"]), 6)
    tput = [e["throughput"] for e in logs["entries"] if isinstance(e.get("throughput"), (int, float))]
    if tput:  # tokens/s per device as LLaMA-Factory measures it (include_num_input_tokens_seen)
        rep["tokens_per_s"] = round(sorted(tput)[len(tput) // 2] * rep["world_size"], 2)
    elif isinstance(results.get("train_samples_per_second"), (int, float)):
        rep["tokens_per_s"] = round(results["train_samples_per_second"] * opts.seq_len, 2)
    for key, out in (("vram_allocated", "memory_allocated_gib"), ("vram_reserved", "memory_reserved_gib")):
        vals = [e[key] for e in logs["entries"] if isinstance(e.get(key), (int, float))]
        if vals and not cpu:  # on a CPU these are torch.cuda's zeros (printed as -0.000)
            rep[out] = max(0.0, round(max(vals), 4)) + 0.0  # LLaMA-Factory logs GB; + 0.0 turns -0.0 into 0.0
    if rep["steps_done"] == 0 and not rep["error"]:
        rep["error"] = "LLaMA-Factory logged no training step"
    return judge_short_run(srep.judge(rep))


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


# ---- running it ---------------------------------------------------------------------------

def run(opts: SmokeOptions, *, emit: Callable[[str], None] | None = print, workdir: Path | None = None,
        cli: str | None = None) -> dict:
    t0 = process_start_time()
    check_model_folder(opts.model)
    exe = cli or shutil.which(CLI)
    if not exe:
        raise SmokeError(missing_message())
    cpu = on_cpu(opts)
    workdir = Path(workdir or tempfile.mkdtemp(prefix="porter-llamafactory-"))
    paths = write_inputs(workdir, opts, cpu=cpu)
    env = dict(os.environ, RECORD_VRAM="1", PYTHONUNBUFFERED="1")
    if opts.nproc > 1:
        env.update(FORCE_TORCHRUN="1", NPROC_PER_NODE=str(opts.nproc))
    log_file = workdir / "llamafactory.log"
    error = None
    first_step_at = None
    seen = 0
    last_t = 0.0
    with open(log_file, "w", encoding="utf-8") as logfh:
        try:
            proc = subprocess.Popen([exe, "train", str(paths["yaml"])], env=env, cwd=workdir, stdin=subprocess.DEVNULL,
                                    stdout=logfh, stderr=subprocess.STDOUT, start_new_session=True)
        except OSError as exc:
            raise SmokeError(f"cannot run {exe}: {exc.strerror or exc}") from None
        deadline = time.monotonic() + opts.timeout_s
        try:
            while True:
                code = proc.poll()
                entries = read_trainer_log(paths["output_dir"] / "trainer_log.jsonl")
                for e in entries[seen:]:
                    if first_step_at is None:
                        first_step_at = time.time()
                    t = parse_elapsed(e.get("elapsed_time")) or 0.0
                    if emit and isinstance(e.get("loss"), (int, float)):
                        emit(srep.progress_line(e["current_steps"], e.get("total_steps") or opts.steps, e["loss"],
                                                max(0.0, t - last_t)))
                    last_t = t
                seen = len(entries)
                if code is not None:
                    if code != 0:
                        tail = [ln for ln in log_file.read_text(errors="replace").splitlines() if ln.strip()][-1:]
                        error = f"{CLI} exited with code {code}: {tail[0][:200] if tail else 'no output'} (log: {log_file})"
                    break
                if time.monotonic() > deadline:
                    error = f"{CLI} timed out after {opts.timeout_s:g} s and was stopped (log: {log_file})"
                    kill_group(proc)
                    break
                time.sleep(0.5)
        except KeyboardInterrupt:
            kill_group(proc)
            error = "interrupted"
    logs = read_logs(paths["output_dir"])
    rep = logs_to_report(logs, opts, time_to_first_step_s=round(first_step_at - t0, 3) if first_step_at else None,
                         cpu=cpu)
    if error:
        rep["error"] = error
    rep["warnings"].append(f"inputs and logs in {workdir}")
    return judge_short_run(srep.judge(rep))
