"""The user's own LLaMA-Factory config in a smoke run: taken as it is, with only what a smoke run must change
overridden, each override named with its old value and why (the report and the terminal list them, and the
effective YAML says them in its header).  Pure functions over the parsed config (lfenv reads and writes the YAML).

Keys are LLaMA-Factory 0.9.3's / transformers' TrainingArguments' (``max_steps``, ``output_dir``,
``logging_steps``, ``report_to``, ``save_strategy``, ``include_num_input_tokens_seen``, ``use_cpu``, ``fp16``,
``pure_bf16``, ``flash_attn``, ``deepspeed``, ``model_name_or_path``).  Relative paths in the config (dataset_dir,
deepspeed, ...) resolve from the folder porter is run in, as they do for ``llamafactory-cli train``.
"""

from __future__ import annotations

import json
from pathlib import Path

UNSET = "(unset)"


def _same(old, new) -> bool:
    if isinstance(new, bool) or isinstance(old, bool):
        return old is new or (isinstance(old, str) and old.lower() == str(new).lower())
    if isinstance(new, str) and isinstance(old, str):
        return old.strip().lower() == new.strip().lower()
    return old == new


def _truthy(v) -> bool:
    return v not in (None, False, 0, "", "false", "False", "no")


def plan(user: dict, *, steps: int, output_dir: Path, cpu: bool, model: str | None = None,
         require_flash_attn: bool = False, deepspeed: Path | None = None) -> tuple[dict, list[dict]]:
    """(effective config, overrides [{key, old, new, why}]): the user's config with what a smoke run must set."""
    musts: list[tuple[str, object, str]] = [
        ("max_steps", steps, "--steps: a smoke run is a few steps"),
        ("output_dir", str(output_dir), "a scratch folder: nothing is written into yours"),
        ("logging_steps", 1, "a log entry for every step"),
        ("report_to", "none", "no experiment tracker"),
        ("save_strategy", "no", "no checkpoints"),
        ("include_num_input_tokens_seen", True, "per-step times in ms: trainer_log.jsonl total_tokens / throughput"),
    ]
    if model is not None:
        musts.append(("model_name_or_path", str(model), "--model"))
    if cpu and not (user.get("deepspeed") or deepspeed is not None):
        musts.append(("use_cpu", True, "a CPU run: transformers trains on the CPU only when asked"))
        for key in ("fp16", "pure_bf16"):
            if _truthy(user.get(key)):
                musts.append((key, False, f"a CPU run: {key} needs a GPU"))
    elif cpu:
        # DeepSpeed on a CPU: use_cpu would make accelerate start the process group itself, and DeepSpeed, finding
        # its own communication uninitialised, would count one rank ("train_batch_size is not equal to
        # micro_batch_per_gpu * gradient_acc_step * world_size 4 != 2 * 1 * 1"); without use_cpu transformers allows
        # no bf16/fp16 on a machine without a GPU
        for key in ("bf16", "fp16", "pure_bf16"):
            if _truthy(user.get(key)):
                musts.append((key, False, f"a CPU run under DeepSpeed: {key} needs a GPU"))
    if require_flash_attn and not _same(user.get("flash_attn"), "fa2"):
        musts.append(("flash_attn", "fa2", "--require-flash-attn"))
    if deepspeed is not None and not user.get("deepspeed"):
        musts.append(("deepspeed", str(deepspeed), "--deepspeed: porter's ZeRO-3 config"))
    eff = dict(user)
    overrides = []
    for key, new, why in musts:
        old = user.get(key)
        if key in user and _same(old, new):
            continue
        eff[key] = new
        overrides.append({"key": key, "old": old if key in user else None, "new": new, "why": why})
    return eff, overrides


def _show(v) -> str:
    if v is None:
        return UNSET
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def describe(o: dict) -> str:
    """``max_steps: 3000 -> 20 (--steps: a smoke run is a few steps)``"""
    return f"{o['key']}: {_show(o['old'])} -> {_show(o['new'])} ({o['why']})"


def header(source: str | None, overrides: list[dict], cwd: str) -> str:
    lines = ["# porter smoke: the LLaMA-Factory config this run used",
             f"# from: {source}" if source else "# porter's own LoRA SFT config (no --config)",
             f"# relative paths resolve from: {cwd}"]
    if source:
        lines.append("# overridden (everything else is the config as written):" if overrides
                     else "# nothing overridden")
        lines += [f"#   {describe(o)}" for o in overrides]
    return "\n".join(lines) + "\n"


def flash_attn_asked(cfg: dict) -> str:
    """flash_attn as LLaMA-Factory reads it (default auto)."""
    v = cfg.get("flash_attn")
    return str(v).strip().lower() if v not in (None, "") else "auto"


def deepspeed_config(cfg: dict, cwd: Path) -> tuple[Path | None, dict | None, str | None]:
    """(the DeepSpeed JSON the config names, its contents, a one-line problem): None, None, None when it names none.
    A JSON string inline (transformers accepts one) gives (None, dict, None)."""
    v = cfg.get("deepspeed")
    if v in (None, "", False):
        return None, None, None
    if isinstance(v, dict):
        return None, v, None
    s = str(v).strip()
    if s.startswith("{"):
        try:
            return None, json.loads(s), None
        except ValueError as exc:
            return None, None, f"deepspeed: inline JSON does not parse: {exc}"
    p = Path(s).expanduser()
    p = p if p.is_absolute() else cwd / p
    if not p.is_file():
        return p, None, f"deepspeed: {s}: no such file (relative paths resolve from {cwd})"
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        return p, None, f"deepspeed: {p}: not a DeepSpeed JSON config ({exc})"
    if not isinstance(data, dict):
        return p, None, f"deepspeed: {p}: not a DeepSpeed JSON config (not an object)"
    return p, data, None


def zero_stage(ds: dict | None) -> int | None:
    try:
        stage = (ds or {}).get("zero_optimization", {}).get("stage")
    except AttributeError:
        return None
    return stage if isinstance(stage, int) else None
