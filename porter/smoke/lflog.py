"""What LLaMA-Factory wrote about a run: its log (attention, parameters, device, the error that ended it, NCCL
lines) and ``trainer_log.jsonl`` (per-step times in ms).  Pure functions over text and parsed JSON.

The lines matched here are LLaMA-Factory 0.9.3's own (``.venv-lf/.../llamafactory``); its logger writes
``[LEVEL|YYYY-MM-DD HH:MM:SS] MODULE:LINE >> MESSAGE``:

- ``model/model_utils/attention.py``, ``print_attn_implementation`` (after the model is loaded, rank 0):
  ``Using FlashAttention-2 for faster training and inference.`` / ``Using torch SDPA for faster training and
  inference.`` / ``Using vanilla attention implementation.``; ``configure_attn_implementation`` warns, before
  that, ``FlashAttention-2 is not installed.`` when ``flash_attn: fa2`` cannot be had (it then leaves the choice
  to transformers: SDPA for Llama), ``torch>=2.1.1 is required for SDPA attention.`` for ``sdpa``, and for
  Gemma 2 ``FlashAttention-2 is not installed, use eager attention.``
- ``model/loader.py``: ``trainable params: 16,384 || all params: 155,968 || trainable%: 10.5047``
- ``hparams/parser.py`` (every rank): ``Process rank: 0, world size: 1, device: cpu, distributed training: False,
  compute dtype: None`` (None: no mixed precision, fp32; else ``torch.bfloat16`` / ``torch.float16``)

``trainer_log.jsonl`` (``train/callbacks.py``, ``LogCallback.on_log``, rank 0) stamps ``elapsed_time`` in whole
seconds (``str(timedelta(seconds=int(...)))``), but with ``include_num_input_tokens_seen`` each entry also has
``total_tokens`` and ``throughput = round(total_tokens / (time.time() - start_time), 2)`` (``start_time``: the
callback's ``on_train_begin``), so ``total_tokens / throughput`` is the time since training began, to well
under a millisecond; consecutive differences are the step times.
"""

from __future__ import annotations

import math
import re

# ---- the log --------------------------------------------------------------------------------------------

ATTENTION_USED = {  # print_attn_implementation
    "Using FlashAttention-2 for faster training and inference.": "fa2",
    "Using torch SDPA for faster training and inference.": "sdpa",
    "Using vanilla attention implementation.": "eager",
}
ATTENTION_FALLBACK = (  # configure_attn_implementation: what was asked for cannot be had
    "FlashAttention-2 is not installed.",
    "FlashAttention-2 is not installed, use eager attention.",
    "torch>=2.1.1 is required for SDPA attention.",
)
ATTENTION_NAMES = {"fa2": "FlashAttention-2", "sdpa": "torch SDPA", "eager": "eager (vanilla) attention"}

_MESSAGE = re.compile(r"\] llamafactory\.[\w.]+:\d+ >> (.*?)\s*$")
_PARAMS = re.compile(r"trainable params: ([\d,]+) \|\| all params: ([\d,]+) \|\| trainable%: ([\d.]+)")
_DEVICE = re.compile(r"Process rank: (\d+), world size: (\d+), device: (\S+), distributed training: (\w+), "
                     r"compute dtype: (\S+)")
_EXCEPTION = re.compile(r"^(?:\[rank\d+\]:\s*)?((?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:Error|Exception|Interrupt)"
                        r"(?::\s.*)?)\s*$")
_LAUNCHER_ERRORS = ("CalledProcessError", "ChildFailedError")  # llamafactory-cli's torchrun and torchrun itself
DTYPES = {"None": "fp32", "torch.float32": "fp32", "torch.bfloat16": "bf16", "torch.float16": "fp16"}


def messages(text: str):
    """The messages of LLaMA-Factory's own log lines (after ``>> ``), in order."""
    for line in text.replace("\r", "\n").splitlines():
        m = _MESSAGE.search(line)
        if m:
            yield m[1]


def parse_log(text: str) -> dict:
    """{attention_used, attention_line, attention_fallback, params_total, params_trainable, ranks: [{rank,
    world_size, device, distributed, compute_dtype}], dtype, error, nccl_lines}; None where the log says nothing."""
    out = {"attention_used": None, "attention_line": None, "attention_fallback": None, "params_total": None,
           "params_trainable": None, "ranks": [], "dtype": None, "error": None, "nccl_lines": []}
    seen_ranks = set()
    for msg in messages(text):
        if msg in ATTENTION_USED:
            out["attention_used"], out["attention_line"] = ATTENTION_USED[msg], msg
        elif msg in ATTENTION_FALLBACK:
            out["attention_fallback"] = msg
        elif (m := _PARAMS.search(msg)):
            out["params_trainable"], out["params_total"] = int(m[1].replace(",", "")), int(m[2].replace(",", ""))
        elif (m := _DEVICE.search(msg)) and int(m[1]) not in seen_ranks:
            seen_ranks.add(int(m[1]))
            out["ranks"].append({"rank": int(m[1]), "world_size": int(m[2]), "device": m[3],
                                 "distributed": m[4] == "True", "compute_dtype": m[5]})
    out["ranks"].sort(key=lambda r: r["rank"])
    if out["ranks"]:
        out["dtype"] = DTYPES.get(out["ranks"][0]["compute_dtype"], out["ranks"][0]["compute_dtype"])
    lines = text.replace("\r", "\n").splitlines()
    out["nccl_lines"] = [ln for ln in lines if "NCCL INFO" in ln or "NCCL WARN" in ln]
    out["error"] = root_error(lines)
    return out


def root_error(lines: list[str]) -> str | None:
    """The exception that ended the training process: the last ``SomeError: ...`` line that is not the
    launcher's own (llamafactory-cli re-raises torchrun's exit as CalledProcessError, torchrun as
    ChildFailedError), with torchrun's ``[rank0]:`` prefix kept."""
    found = None
    for line in lines:
        m = _EXCEPTION.match(line.strip())
        if not m or any(w in m[1].split(":", 1)[0] for w in _LAUNCHER_ERRORS):
            continue
        rank = re.match(r"\[(rank\d+)\]:", line.strip())
        found = (f"{rank[1]}: " if rank else "") + m[1]
    return found


_STAMP = re.compile(r"^\[(?:[A-Z]+)\|(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)\] ")  # LLaMA-Factory's own lines
_MODEL_READY = re.compile(r"trainable params: [\d,]+ \|\| all params")


def phase_walls(text: str) -> tuple[float | None, float | None]:
    """(when LLaMA-Factory's first own log line was written: its imports and argument parsing are
    done; when it logged the model ready: "trainable params: ... || all params"), as epoch seconds of
    this host's clock (the log's local time, whole seconds); None where the log does not say."""
    import time  # noqa: PLC0415

    first = ready = None
    for line in text.replace("\r", "\n").splitlines():
        m = _STAMP.match(line)
        if not m:
            continue
        try:
            t = time.mktime(time.strptime(m[1], "%Y-%m-%d %H:%M:%S"))
        except ValueError:
            continue
        if first is None:
            first = t
        if ready is None and _MODEL_READY.search(line):
            ready = t
            break
    return first, ready


_DONE = ("Training completed.", "***** train metrics *****")  # transformers' Trainer, after the last step
_TEARDOWN_ABORT = "terminate called without an active exception"  # a rank aborting in gloo's teardown


def teardown_abort(text: str) -> bool:
    """Whether the run failed only after training had finished: the Trainer said it was done, a rank
    then aborted leaving the process group (gloo on the CPU: "terminate called without an active
    exception", SIGABRT), and no training process raised an exception.  The built-in launcher tells
    the same teardown crash from a failed run; LLaMA-Factory's torchrun exits 1 for it."""
    lines = text.replace("\r", "\n").splitlines()
    done = min((i for i, ln in enumerate(lines) if any(d in ln for d in _DONE)), default=None)
    if done is None or root_error(lines) is not None:
        return False
    return any(_TEARDOWN_ABORT in ln for ln in lines[done:])


# ---- trainer_log.jsonl ------------------------------------------------------------------------------------

def _num(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def elapsed_s(entry: dict) -> float | None:
    """Seconds since training began when the entry was logged: total_tokens / throughput (None without them)."""
    tokens, tput = entry.get("total_tokens"), entry.get("throughput")
    if _num(tokens) and _num(tput) and tput > 0 and tokens > 0:
        return tokens / tput
    return None


def step_times(entries: list[dict]) -> tuple[list[float], list[float]]:
    """(per-step seconds, per-step tokens) from the training entries (those with a loss) of trainer_log.jsonl;
    ([], []) when an entry lacks total_tokens/throughput (include_num_input_tokens_seen off).  An entry
    covering k steps (logging_steps k) gives k equal steps."""
    times: list[float] = []
    tokens: list[float] = []
    prev_t, prev_s, prev_tok = 0.0, 0, 0
    for e in entries:
        if "loss" not in e:
            continue
        t = elapsed_s(e)
        if t is None:
            return [], []
        n = e["current_steps"] - prev_s
        if n <= 0:
            continue
        times.extend([max(0.0, t - prev_t) / n] * n)
        tokens.extend([(e["total_tokens"] - prev_tok) / n] * n)
        prev_t, prev_s, prev_tok = t, e["current_steps"], e["total_tokens"]
    return times, tokens


def first_step_wall(entries: list[dict], log_mtime: float | None) -> float | None:
    """Wall-clock time at which the first step was logged: the file's last write (its last entry) less the
    time between the first and the last entry (both from total_tokens / throughput)."""
    if log_mtime is None:
        return None
    timed = [elapsed_s(e) for e in entries]
    if not timed or timed[-1] is None:
        return None
    first = next((elapsed_s(e) for e in entries if "loss" in e and elapsed_s(e) is not None), None)
    if first is None:
        return None
    return log_mtime - (timed[-1] - first)
