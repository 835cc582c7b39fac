"""The shipped Alpaca-format sample data and the packed training batches made from it.

Records are ``{"instruction", "input", "output"}``.  Every record is rendered with
the Alpaca prompt, tokenised, joined with EOS into one stream and cut into
windows of ``seq_len + 1`` tokens (packing: no padding, so every token counts).
Rank ``r`` of ``W`` takes windows ``r, r+W, r+2W, ...``: the per-rank work is the
same whatever the world size.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable, Iterable

DATA_DIR = Path(__file__).parent / "data"
SAMPLE_FILE = DATA_DIR / "alpaca_sample.json"
KEYS = ("instruction", "input", "output")


class DataError(ValueError):
    pass


def load_records(path: Path | str = SAMPLE_FILE) -> list[dict[str, str]]:
    """Load and check an Alpaca-format JSON list."""
    path = Path(path)
    try:
        records = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise DataError(f"cannot read Alpaca data {path}: {exc}") from None
    if not isinstance(records, list) or not records:
        raise DataError(f"{path}: expected a non-empty JSON list of records")
    for n, rec in enumerate(records):
        if not isinstance(rec, dict) or not all(isinstance(rec.get(k), str) for k in KEYS):
            raise DataError(f"{path}: record {n} needs string fields {', '.join(KEYS)}")
    return records


def render(rec: dict[str, str]) -> str:
    """The Alpaca prompt followed by the response."""
    if rec["input"]:
        prompt = f"### Instruction:\n{rec['instruction']}\n\n### Input:\n{rec['input']}\n\n### Response:\n"
    else:
        prompt = f"### Instruction:\n{rec['instruction']}\n\n### Response:\n"
    return prompt + rec["output"]


def token_stream(records: Iterable[dict[str, str]], encode: Callable[[str], list[int]], eos_id: int) -> list[int]:
    out: list[int] = []
    for rec in records:
        out.extend(encode(render(rec)))
        out.append(eos_id)
    return out


def windows(stream: list[int], seq_len: int) -> list[list[int]]:
    """Non-overlapping windows of seq_len + 1 tokens (inputs and shifted targets)."""
    w = seq_len + 1
    n = len(stream) // w
    if n == 0:
        raise DataError(f"sample data has {len(stream)} tokens, fewer than one sequence of {w}")
    return [stream[i * w:(i + 1) * w] for i in range(n)]


def batch_indices(step: int, batch_size: int, rank: int, world_size: int, n_windows: int) -> list[int]:
    """Window indices for (step, rank): disjoint across ranks, cycling over the data."""
    base = step * batch_size * world_size
    return [(base + b * world_size + rank) % n_windows for b in range(batch_size)]
