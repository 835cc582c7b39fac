"""The builtin training loop on CPU: loss falls, report schema, NaN and out-of-memory handling."""

import math

import pytest

torch = pytest.importorskip("torch")

from porter.smoke import SmokeOptions, SmokeUsageError, report as srep, run_smoke  # noqa: E402
from porter.smoke import model as smodel  # noqa: E402
from porter.smoke.optim import AdamW  # noqa: E402


@pytest.fixture(scope="module")
def default_run():
    lines = []
    rep = run_smoke(SmokeOptions(device="cpu"), emit=lines.append)
    return rep, lines


def test_default_cpu_run_loss_falls_and_report_fits_schema(default_run):
    rep, lines = default_run
    assert srep.validate(rep) == []
    assert rep["steps_done"] == 20 and len(rep["losses"]) == 20
    assert rep["loss_last"] < rep["loss_first"] - 0.5  # visibly, not by noise
    assert {c["name"]: c["ok"] for c in rep["checks"]}["loss_fell"] is True
    assert (rep["backend"], rep["device"], rep["dtype"], rep["world_size"]) == ("cpu", "cpu", "fp32", 1)
    assert 0 < rep["params_trainable"] < rep["params_total"] < 10_000_000
    assert rep["flops_per_token"] == 4 * rep["matmul_params"]
    assert rep["time_to_first_step_s"] > 0 and rep["step_time_s"] > 0 and rep["tokens_per_s"] > 0
    assert rep["achieved_tflops"] > 0 and rep["peak_tflops"] is None
    assert [srep.parse_progress_line(ln)["step"] for ln in lines] == list(range(1, 21))
    assert torch.get_num_threads() == 1  # CPU runs pin one intra-op thread


def test_injected_nan_fails_naming_the_step(monkeypatch):
    monkeypatch.setenv("PORTER_SMOKE_INJECT_NAN", "3")
    lines = []
    rep = run_smoke(SmokeOptions(device="cpu", steps=4), emit=lines.append)
    assert rep["verdict"] == "fail" and rep["nonfinite_step"] == 3
    assert rep["steps_done"] == 2 and len(lines) == 3 and " loss nan " in lines[-1]
    assert "loss became NaN at step 3" in rep["reasons"]


def test_out_of_memory_is_caught_and_names_the_sizes(monkeypatch):
    monkeypatch.setenv("PORTER_SMOKE_INJECT_OOM", "2")
    rep = run_smoke(SmokeOptions(device="cpu", steps=3, batch_size=2, seq_len=64), emit=None)
    assert rep["verdict"] == "fail" and rep["steps_done"] == 1
    assert "batch 2 x sequence 64" in rep["error"] and "--batch-size" in rep["error"] and "--seq-len" in rep["error"]


def test_bad_options_are_usage_errors():
    with pytest.raises(SmokeUsageError, match="--steps must be at least 1"):
        run_smoke(SmokeOptions(device="cpu", steps=0))
    with pytest.raises(SmokeUsageError, match="exceeds the tiny model"):
        run_smoke(SmokeOptions(device="cpu", seq_len=1024, steps=1), emit=None)


def test_tiny_model_is_llama_shaped_with_zero_initial_lora():
    cfg = smodel.TinyConfig(dim=64, n_layers=2, n_heads=4, n_kv_heads=2, ffn_dim=128, max_seq_len=32)
    torch.manual_seed(0)
    base = smodel.TinyLlama(cfg)
    ids = torch.randint(0, 256, (2, 16))
    before = base(ids)
    assert smodel.apply_lora(base, smodel.LoraConfig(rank=4)) == 2 * 7  # q,k,v,o,gate,up,down per layer
    after = base(ids)
    assert torch.allclose(before, after)  # B starts at zero: LoRA does not change the base model
    attn = base.layers[0].self_attn
    assert attn.k_proj.base.out_features == cfg.n_kv_heads * cfg.dim // cfg.n_heads  # grouped-query attention
    trainable = {n.rsplit(".", 1)[-1] for n, p in base.named_parameters() if p.requires_grad}
    assert trainable == {"lora_A", "lora_B"}
    # causal: changing a later token does not change earlier logits
    ids2 = ids.clone()
    ids2[:, -1] = (ids2[:, -1] + 1) % 256
    assert torch.allclose(base(ids2)[:, :-1], after[:, :-1], atol=1e-5)


def test_adamw_first_step_moves_each_weight_by_lr_against_the_gradient():
    p = torch.nn.Parameter(torch.tensor([1.0, -2.0, 3.0]))
    opt = AdamW([p], lr=0.1, weight_decay=0.0)
    (p * torch.tensor([2.0, -0.5, 0.0])).sum().backward()
    opt.step()
    # bias-corrected Adam: the first update is lr * g/|g| (0 where g == 0)
    assert torch.allclose(p.detach(), torch.tensor([0.9, -1.9, 3.0]), atol=1e-6)
    opt2 = AdamW([torch.nn.Parameter(torch.ones(2))], lr=0.1, weight_decay=0.5)
    q = opt2.params[0]
    q.grad = torch.zeros(2)
    opt2.step()
    assert math.isclose(float(q.detach()[0]), 1.0 * (1 - 0.1 * 0.5), rel_tol=1e-6)  # decoupled weight decay
