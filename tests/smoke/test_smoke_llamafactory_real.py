"""Real LLaMA-Factory runs on this CPU (the environment scripts/setup_llamafactory.sh makes, .venv-lf or
PORTER_LLAMAFACTORY_VENV; CI sets PORTER_REQUIRE_LLAMAFACTORY=1, so there they run or fail): the user's own YAML
through `porter smoke --config` from porter's own interpreter, --require-flash-attn without flash-attn, and
ZeRO-3 over two processes with the all-reduce probe and the scaling baseline.  The model is
porter.smoke.tinymodel's random tiny Llama (no download); runs are a few steps."""

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
VENV = Path(os.environ.get("PORTER_LLAMAFACTORY_VENV") or ROOT / ".venv-lf")
REQUIRED = os.environ.get("PORTER_REQUIRE_LLAMAFACTORY") == "1"

USER_YAML = """\
### model
model_name_or_path: {model}
trust_remote_code: true

### method
stage: sft
do_train: true
finetuning_type: lora
lora_rank: 4
lora_target: all

### dataset
dataset: alpaca_mini
dataset_dir: data
template: default
cutoff_len: 64
max_samples: 100
overwrite_cache: true
preprocessing_num_workers: 1

### output
output_dir: saves/tiny/lora/sft
logging_steps: 10
save_steps: 500
plot_loss: true
overwrite_output_dir: true
report_to: wandb

### train
per_device_train_batch_size: 2
gradient_accumulation_steps: 1
learning_rate: 1.0e-4
num_train_epochs: 3.0
lr_scheduler_type: cosine
warmup_ratio: 0.1
bf16: true
ddp_timeout: 180000000
"""


@pytest.fixture(scope="module")
def lf_venv():
    cli = VENV / "bin" / "llamafactory-cli"
    if not cli.is_file():
        msg = f"no {cli}: bash scripts/setup_llamafactory.sh makes it (scripts/setup.sh --test runs that)"
        if REQUIRED:
            pytest.fail(msg)
        pytest.skip(msg)
    return VENV


@pytest.fixture(scope="module")
def tiny_model(lf_venv, tmp_path_factory):
    d = tmp_path_factory.mktemp("lf-real") / "tiny-llama"
    p = subprocess.run([str(lf_venv / "bin" / "python"), "-m", "porter.smoke.tinymodel", str(d)], capture_output=True,
                       text=True, timeout=300, cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert p.returncode == 0, p.stderr[-2000:]
    return d


@pytest.fixture()
def project(tiny_model, tmp_path):
    """A user's folder: their YAML (LLaMA-Factory's example layout, bf16 and wandb as on their GPU box), their
    dataset under data/ (the Alpaca sample), relative paths."""
    proj = tmp_path / "proj"
    (proj / "data").mkdir(parents=True)
    (proj / "data" / "alpaca_mini.json").write_text((ROOT / "porter" / "smoke" / "data" / "alpaca_sample.json").read_text())
    (proj / "data" / "dataset_info.json").write_text(json.dumps({"alpaca_mini": {"file_name": "alpaca_mini.json"}}))
    (proj / "user.yaml").write_text(USER_YAML.format(model=tiny_model))
    return proj


def porter(*args, cwd, timeout=600, python=sys.executable):
    """porter from its own interpreter (.venv), LLaMA-Factory's environment not on PATH."""
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_NUM_THREADS", "MKL_NUM_THREADS")}
    env.update(PATH="/usr/bin:/bin", PYTHONPATH=str(ROOT), TMPDIR=str(cwd))
    return subprocess.run([python, "-m", "porter", "smoke", "--backend", "llamafactory", *args], capture_output=True,
                          text=True, cwd=cwd, env=env, timeout=timeout)


def test_the_users_own_yaml_on_the_cpu(lf_venv, project, tmp_path):
    out = tmp_path / "report.json"
    p = porter("--config", "user.yaml", "--steps", "5", "--device", "cpu", "--timeout", "500", "--json", str(out),
               cwd=project)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    # porter's own interpreter has no llamafactory-cli beside it, PATH has none: the set-up script's environment
    where = "in $PORTER_LLAMAFACTORY_VENV" if os.environ.get("PORTER_LLAMAFACTORY_VENV") else f"in {ROOT / '.venv-lf'}"
    assert f"({where}" in p.stdout.splitlines()[0], p.stdout.splitlines()[0]
    rep = json.loads(out.read_text())
    lfs = rep["llamafactory"]
    assert [o["key"] for o in lfs["overrides"]] == ["max_steps", "output_dir", "logging_steps", "report_to",
                                                    "save_strategy", "include_num_input_tokens_seen", "use_cpu"]
    assert "override    report_to: wandb -> none (no experiment tracker)" in p.stdout
    assert (tmp_path / "report.llamafactory.yaml").is_file() and not (project / "saves").exists()
    assert rep["verdict"] == "pass" and rep["steps_done"] == 5, rep["reasons"]
    assert rep["dtype"] == "bf16"                                     # the config's bf16, on the CPU with use_cpu
    assert (rep["params_trainable"], rep["device"], lfs["attention"]["used"]) == (8_192, "cpu", "sdpa")
    assert len(rep["step_times_s"]) == 5 and rep["step_time_s"] > 0
    assert lfs["threads"].startswith("1 per process")


def test_require_flash_attn_without_flash_attn_fails_in_one_line(lf_venv, tiny_model, tmp_path):
    if subprocess.run([str(lf_venv / "bin" / "python"), "-c", "import flash_attn"], capture_output=True).returncode == 0:
        pytest.skip("flash-attn is installed in LLaMA-Factory's environment")
    p = subprocess.run([str(lf_venv / "bin" / "porter"), "smoke", "--backend", "llamafactory", "--model", str(tiny_model),
                        "--steps", "2", "--batch-size", "2", "--seq-len", "64", "--require-flash-attn"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=600,
                       env=dict(os.environ, PATH="/usr/bin:/bin", TMPDIR=str(tmp_path)))
    assert p.returncode == 1, p.stdout[-3000:] + p.stderr[-3000:]
    assert p.stdout.strip().splitlines()[-1] == (
        "verdict     FAIL: attention: FlashAttention-2 asked (--require-flash-attn) but LLaMA-Factory ran torch SDPA "
        "('Using torch SDPA for faster training and inference.') after 'FlashAttention-2 is not installed.'")


def test_zero3_over_two_processes_with_the_allreduce_probe_and_scaling(lf_venv, project, tmp_path):
    has_ds = subprocess.run([str(lf_venv / "bin" / "python"), "-c", "import importlib.util as u; "
                             "raise SystemExit(u.find_spec('deepspeed') is None)"]).returncode == 0
    if not has_ds:
        msg = f"deepspeed is not installed in {lf_venv} (scripts/setup_llamafactory.sh installs it where pip can)"
        if REQUIRED:
            pytest.fail(msg)
        pytest.skip(msg)
    if importlib.util.find_spec("torch") is None:
        pytest.skip("the all-reduce probe runs in porter's interpreter, which has no torch here")
    out = tmp_path / "ds.json"
    p = porter("--config", "user.yaml", "--deepspeed", "--nproc", "2", "--steps", "5", "--device", "cpu",
               "--timeout", "500", "--json", str(out), cwd=project, timeout=900)
    assert p.returncode == 0, p.stdout[-4000:] + p.stderr[-3000:]
    rep = json.loads(out.read_text())
    lfs = rep["llamafactory"]
    over = {o["key"]: (o["old"], o["new"]) for o in lfs["overrides"]}
    # porter's ZeRO-3 config (the YAML names none); on the CPU under DeepSpeed: no use_cpu, so no bf16
    assert over["deepspeed"][1].endswith("ds_z3_config.json") and over["bf16"] == (True, False)
    assert "use_cpu" not in over
    assert lfs["deepspeed"]["stage"] == 3 and lfs["deepspeed"]["version"]
    assert lfs["warmup_steps"] == 2 and "after 2 warm-up steps (ZeRO-3)" in p.stdout  # its second step is slow too
    assert rep["world_size"] == 2 and [r["rank"] for r in rep["ranks"]] == [0, 1]
    assert rep["allreduce"]["busbw_gbps"] > 0 and rep["scaling_efficiency"] > 0
    assert rep["verdict"] == "pass", rep["reasons"]
    assert "scaling     efficiency " in p.stdout and "deepspeed   " in p.stdout
