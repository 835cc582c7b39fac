"""porter smoke --size: the built-in model in Meta-Llama-3-8B's shape (random weights, nothing
downloaded), cut to fewer layers where the machine is small, refused in one line where its weights
cannot fit (issue 31 item 9)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Meta-Llama-3-8B's config.json: hidden 4096, intermediate 14336, 32 heads of 128, 8 KV heads,
# vocabulary 128256, untied embeddings; the model card's count is 8,030,261,248 parameters.
HIDDEN, FFN, KV, VOCAB = 4096, 14336, 8 * 128, 128256
PER_LAYER = 2 * HIDDEN * HIDDEN + 2 * HIDDEN * KV + 3 * HIDDEN * FFN + 2 * HIDDEN  # q,o + k,v + gate,up,down + 2 norms
OUTSIDE = 2 * VOCAB * HIDDEN + HIDDEN  # embeddings, lm_head, final norm


def test_the_llama3_8b_shape_has_the_published_parameter_count():
    pytest.importorskip("torch")
    from porter.smoke import model

    total, trainable = model.params_of(model.shape_config("llama3-8b"))  # meta device: nothing allocated
    assert total == 8_030_261_248 == OUTSIDE + 32 * PER_LAYER and trainable == total
    cut, _ = model.params_of(model.shape_config("llama3-8b", 2))
    assert cut == OUTSIDE + 2 * PER_LAYER


def test_the_sizes_options_accept_are_the_shapes_the_model_builds():
    """--size is checked before torch is imported (options.SIZES), the shape is built from model.SHAPES:
    a shape added to one table only is refused by --size, or accepted and then fails with a KeyError."""
    pytest.importorskip("torch")
    from porter.smoke import model
    from porter.smoke.options import SIZES, SmokeOptions

    assert sorted(SIZES) == sorted(model.SHAPES)
    for size in model.SHAPES:
        SmokeOptions(size=size).check()  # accepted: no SmokeUsageError


def test_one_layer_of_the_8b_shape_trains_on_the_cpu_and_reports_its_size(tmp_path):
    pytest.importorskip("torch")
    out = tmp_path / "rep.json"
    p = subprocess.run([sys.executable, "-m", "porter", "smoke", "--device", "cpu", "--size", "llama3-8b",
                        "--layers", "1", "--steps", "2", "--batch-size", "1", "--seq-len", "16", "--json", str(out)],
                       capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    rep = json.loads(out.read_text())
    assert rep["model"].startswith("llama3-8b shape (1 of its layers")
    assert rep["params_total"] - rep["params_trainable"] == OUTSIDE + PER_LAYER  # the frozen base: the shape's own
    assert rep["host_max_rss_gib"] > (OUTSIDE + PER_LAYER) * 4 / 2**30  # fp32 weights were really held
    assert "llama3-8b shape" in p.stdout


def test_a_shape_that_cannot_fit_is_refused_before_anything_is_built(monkeypatch):
    pytest.importorskip("torch")
    import torch

    from porter.smoke import train
    from porter.smoke.options import SmokeUsageError

    monkeypatch.setattr(train, "_available_memory", lambda dev, t: (20 * 2**30, "available on this host"))
    dev = type("Dev", (), {"backend": "cpu", "device": "cpu", "name": "cpu"})()
    with pytest.raises(SmokeUsageError) as e:
        train._check_memory(8_030_261_248, dev, 1, torch)
    assert "29.9 GiB" in str(e.value) and "20.0 GiB is available on this host" in str(e.value) and "--layers" in str(e.value)
    train._check_memory(OUTSIDE + PER_LAYER, dev, 1, torch)  # one layer fits: no error


def test_size_is_for_the_built_in_model_only():
    p = subprocess.run([sys.executable, "-m", "porter", "smoke", "--size", "llama3-8b", "--backend", "llamafactory",
                        "--model", ROOT], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert p.returncode == 2 and "--size and --layers shape the built-in model" in p.stderr
