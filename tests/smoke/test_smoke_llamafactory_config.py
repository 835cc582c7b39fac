"""`porter smoke --backend llamafactory` as a user runs it, against a stand-in llamafactory-cli that reads the YAML it
is given and writes what LLaMA-Factory 0.9.3 writes (its real log lines, trainer_log.jsonl with total_tokens and
throughput, train_results.json): the user's --config and what is overridden, the effective YAML beside the report,
the DeepSpeed and attention checks, threads per process, --nproc's all-reduce probe and scaling figure.  Exit codes,
printed lines and report fields; the real LLaMA-Factory runs are in test_smoke_llamafactory_real.py."""

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

yaml = pytest.importorskip("yaml")

ROOT = Path(__file__).resolve().parents[2]

FAKE = r'''#!{python}
# stand-in for llamafactory-cli train CONFIG: LLaMA-Factory 0.9.3's log lines and files
import json, os, sys, yaml
assert sys.argv[1] == "train", sys.argv
cfg = yaml.safe_load(open(sys.argv[2]))
rec = os.environ.get("FAKE_LF_RECORD")
nproc = int(os.environ.get("NPROC_PER_NODE", "1"))
if rec:
    with open(rec, "a") as fh:
        fh.write(json.dumps({{"cwd": os.getcwd(), "config": cfg, "env": {{k: os.environ.get(k) for k in (
            "OMP_NUM_THREADS", "MKL_NUM_THREADS", "NPROC_PER_NODE", "FORCE_TORCHRUN")}},
            "path0": os.environ["PATH"].split(os.pathsep)[0]}}) + "\n")
def log(level, module, line, msg):
    print(f"[{{level}}|2026-12-05 08:09:43] llamafactory.{{module}}:{{line}} >> {{msg}}", flush=True)
dev = "cpu:0" if nproc > 1 else "cpu"
for r in range(nproc):
    log("INFO", "hparams.parser", 406, f"Process rank: {{r}}, world size: {{nproc}}, device: {{dev}}, "
        f"distributed training: {{nproc > 1}}, compute dtype: None")
if cfg.get("flash_attn") == "fa2" and not os.environ.get("FAKE_LF_HAS_FA2"):
    log("WARNING", "model.model_utils.attention", 148, "FlashAttention-2 is not installed.")
if cfg.get("flash_attn") == "fa2" and os.environ.get("FAKE_LF_HAS_FA2"):
    log("INFO", "model.model_utils.attention", 143, "Using FlashAttention-2 for faster training and inference.")
else:
    log("INFO", "model.model_utils.attention", 143, "Using torch SDPA for faster training and inference.")
log("INFO", "model.loader", 143, "trainable params: 16,384 || all params: 155,968 || trainable%: 10.5047")
out = cfg["output_dir"]
os.makedirs(out, exist_ok=True)
steps = int(cfg["max_steps"])
slow = 1.25 if nproc > 1 else 1.0          # an N-rank step is 1.25x the 1-rank step: scaling efficiency 0.8
step_s = [0.400] + [0.050 + 0.001 * (i % 3) for i in range(1, steps)]
t = tok = 0.0
with open(os.path.join(out, "trainer_log.jsonl"), "w") as fh:
    for i in range(1, steps + 1):
        t += step_s[i - 1] * slow
        tok += 128 * nproc
        fh.write(json.dumps({{"current_steps": i, "total_steps": steps, "loss": 6.2 - 0.01 * i, "lr": 0.002,
                              "elapsed_time": "0:00:00", "throughput": round(tok / t, 2),
                              "total_tokens": int(tok)}}) + "\n")
json.dump({{"train_runtime": round(t, 4), "num_input_tokens_seen": int(tok), "total_flos": 1.0e9}},
          open(os.path.join(out, "train_results.json"), "w"))
'''


@pytest.fixture()
def fake_lf(tmp_path):
    """A folder with a stand-in llamafactory-cli (run by this interpreter, which has PyYAML), first on PATH."""
    bin_dir = tmp_path / "lf-bin"
    bin_dir.mkdir()
    cli = bin_dir / "llamafactory-cli"
    cli.write_text(FAKE.format(python=sys.executable))
    cli.chmod(0o755)
    return bin_dir


@pytest.fixture()
def project(tmp_path):
    """The user's folder: their LLaMA-Factory YAML with relative paths, as they run llamafactory-cli from it."""
    proj = tmp_path / "proj"
    (proj / "data").mkdir(parents=True)
    model = tmp_path / "model"
    model.mkdir()
    (model / "config.json").write_text(json.dumps({"model_type": "llama"}))
    cfg = {"model_name_or_path": str(model), "stage": "sft", "do_train": True, "finetuning_type": "lora",
           "lora_rank": 16, "lora_target": "all", "dataset": "alpaca_mini", "dataset_dir": "data",
           "template": "llama3", "cutoff_len": 1024, "output_dir": "saves/llama3-8b/lora/sft", "logging_steps": 10,
           "save_steps": 500, "plot_loss": True, "report_to": "wandb", "per_device_train_batch_size": 2,
           "gradient_accumulation_steps": 4, "learning_rate": 1.0e-4, "num_train_epochs": 3.0,
           "lr_scheduler_type": "cosine", "warmup_ratio": 0.1, "max_steps": 3000}
    (proj / "user.yaml").write_text("### model\n" + yaml.safe_dump(cfg, sort_keys=False))
    return proj


def porter(*args, cwd, path_dirs=(), env=None, timeout=180):
    e = {k: v for k, v in os.environ.items() if k not in ("OMP_NUM_THREADS", "MKL_NUM_THREADS")}
    e.update(PATH=os.pathsep.join([*map(str, path_dirs), "/usr/bin", "/bin"]), PYTHONPATH=str(ROOT), **(env or {}))
    return subprocess.run([sys.executable, "-m", "porter", "smoke", "--backend", "llamafactory", *args],
                          capture_output=True, text=True, cwd=cwd, env=e, timeout=timeout)


def records(path: Path) -> list[dict]:
    return [json.loads(ln) for ln in path.read_text().splitlines()] if path.exists() else []


def test_the_users_config_runs_as_it_is_with_every_override_listed(tmp_path, fake_lf, project):
    rec = tmp_path / "rec.jsonl"
    out = tmp_path / "reports"
    out.mkdir()
    p = porter("--config", "user.yaml", "--steps", "6", "--device", "cpu", "--json", str(out / "r.json"),
               cwd=project, path_dirs=[fake_lf], env={"FAKE_LF_RECORD": str(rec), "TMPDIR": str(tmp_path)})
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    rep = json.loads((out / "r.json").read_text())
    lfs = rep["llamafactory"]
    over = {o["key"]: (o["old"], o["new"]) for o in lfs["overrides"]}
    assert list(over) == ["max_steps", "output_dir", "logging_steps", "report_to", "save_strategy",
                          "include_num_input_tokens_seen", "use_cpu"]
    assert over["max_steps"] == (3000, 6) and over["logging_steps"] == (10, 1) and over["report_to"] == ("wandb", "none")
    assert over["output_dir"][0] == "saves/llama3-8b/lora/sft"
    # on the terminal, before the run, and in the report text
    for o in lfs["overrides"]:
        old = "(unset)" if o["old"] is None else ("true" if o["old"] is True else str(o["old"]))
        new = "true" if o["new"] is True else str(o["new"])
        assert f"override: {o['key']}: {old} -> {new} (" in p.stdout
        assert f"override    {o['key']}: {old} -> {new} (" in p.stdout
    # the effective YAML beside the report: the user's config but for the overrides
    eff_path = out / "r.llamafactory.yaml"
    assert lfs["effective_config"] == str(eff_path) and f"-> effective {eff_path}" in p.stdout
    eff = yaml.safe_load(eff_path.read_text())
    user = yaml.safe_load((project / "user.yaml").read_text())
    assert {k: v for k, v in eff.items() if k not in over} == {k: v for k, v in user.items() if k not in over}
    assert eff_path.read_text().startswith(f"# porter smoke: the LLaMA-Factory config this run used\n"
                                           f"# from: {project / 'user.yaml'}\n")
    assert "#   report_to: wandb -> none (no experiment tracker)" in eff_path.read_text()
    # LLaMA-Factory read exactly that, from the user's folder (relative dataset_dir), one thread per process
    (run,) = records(rec)
    assert run["config"] == eff and run["cwd"] == str(project) and run["path0"] == str(fake_lf)
    assert run["env"] == {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "NPROC_PER_NODE": "1",
                          "FORCE_TORCHRUN": None}
    assert lfs["threads"] == "1 per process (OMP_NUM_THREADS, set by porter as for the built-in loop)"
    assert not (project / "saves").exists()                           # nothing written into the user's folder
    # what the report says of the run: the config's model and batch, the log's params and device, ms step times
    assert rep["model"] == user["model_name_or_path"] and (rep["batch_size"], rep["seq_len"]) == (8, 1024)
    assert (rep["params_total"], rep["params_trainable"], rep["device"]) == (155_968, 16_384, "cpu")
    assert rep["step_times_s"] == pytest.approx([0.4, 0.051, 0.052, 0.05, 0.051, 0.052], abs=1e-4)
    assert rep["step_time_s"] == pytest.approx(0.051, abs=1e-4)         # the median after the warm-up step
    assert lfs["attention"]["used"] == "sdpa" and lfs["attention"]["required"] is False
    assert lfs["config"] == str(project / "user.yaml") and rep["verdict"] == "pass"
    assert "step times  ms 400.0 51.0 52.0 50.0 51.0 52.0; median 51.0 ms" in p.stdout


def test_threads_the_caller_set_are_kept(tmp_path, fake_lf, project):
    rec = tmp_path / "rec.jsonl"
    p = porter("--config", "user.yaml", "--steps", "3", "--device", "cpu", cwd=project, path_dirs=[fake_lf],
               env={"FAKE_LF_RECORD": str(rec), "TMPDIR": str(tmp_path), "OMP_NUM_THREADS": "3"})
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    assert records(rec)[0]["env"]["OMP_NUM_THREADS"] == "3"
    assert "threads 3 per process (OMP_NUM_THREADS, as you set it)" in p.stdout


def test_options_that_would_override_the_config_are_refused(tmp_path, fake_lf, project):
    p = porter("--config", "user.yaml", "--batch-size", "4", "--lr", "1e-3", cwd=project, path_dirs=[fake_lf])
    assert p.returncode == 2 and p.stdout == ""
    (line,) = p.stderr.strip().splitlines()
    assert line == ("porter: error: smoke: --config user.yaml: --batch-size, --lr would override your config; set it in "
                    "the config (porter overrides only max_steps, output_dir, logging, report_to and saving)")
    p = porter("--config", "nope.yaml", cwd=project, path_dirs=[fake_lf])
    assert p.returncode == 2 and p.stderr.strip() == "porter: error: smoke: --config nope.yaml: no such file"


@pytest.mark.skipif(importlib.util.find_spec("deepspeed") is not None, reason="this interpreter has deepspeed")
def test_deepspeed_without_deepspeed_stops_before_launching(tmp_path, fake_lf, project):
    # the stand-in's interpreter (this one) has no deepspeed: one line, exit 2, what to install and where
    rec = tmp_path / "rec.jsonl"
    p = porter("--config", "user.yaml", "--deepspeed", "--device", "cpu", cwd=project, path_dirs=[fake_lf],
               env={"FAKE_LF_RECORD": str(rec), "TMPDIR": str(tmp_path)})
    assert p.returncode == 2, p.stdout + p.stderr
    (line,) = p.stderr.strip().splitlines()
    assert line.startswith(f"porter: error: smoke: --config user.yaml (DeepSpeed ZeRO-3): deepspeed is not installed "
                           f"in LLaMA-Factory's environment ({sys.executable}); install it there: {sys.executable} -m "
                           f"pip install -c constraints.txt 'deepspeed>=0.10.0,<=0.16.9'"), line
    assert records(rec) == []                                            # never launched
    # the config's own DeepSpeed JSON: the same check, and a missing file is named
    text = (project / "user.yaml").read_text() + "deepspeed: examples/deepspeed/ds_z3_config.json\n"
    (project / "ds.yaml").write_text(text)
    p = porter("--config", "ds.yaml", "--device", "cpu", cwd=project, path_dirs=[fake_lf],
               env={"TMPDIR": str(tmp_path)})
    assert p.returncode == 2
    assert p.stderr.strip() == ("porter: error: smoke: --config ds.yaml: deepspeed: examples/deepspeed/ds_z3_config.json: "
                                f"no such file (relative paths resolve from {project})")
    (project / "examples" / "deepspeed").mkdir(parents=True)
    (project / "examples" / "deepspeed" / "ds_z3_config.json").write_text('{"zero_optimization": {"stage": 3}}')
    p = porter("--config", "ds.yaml", "--device", "cpu", cwd=project, path_dirs=[fake_lf],
               env={"TMPDIR": str(tmp_path)})
    assert p.returncode == 2 and "deepspeed is not installed in LLaMA-Factory's environment" in p.stderr
    assert len(p.stderr.strip().splitlines()) == 1


def test_a_flash_attention_fallback_fails_when_the_config_asks_for_fa2(tmp_path, fake_lf, project):
    (project / "fa2.yaml").write_text((project / "user.yaml").read_text() + "flash_attn: fa2\n")
    out = tmp_path / "r.json"
    p = porter("--config", "fa2.yaml", "--steps", "3", "--device", "cpu", "--json", str(out), cwd=project,
               path_dirs=[fake_lf], env={"TMPDIR": str(tmp_path)})
    assert p.returncode == 1, p.stdout[-2000:] + p.stderr[-2000:]
    verdict = p.stdout.strip().splitlines()[-1]
    assert verdict == ("verdict     FAIL: attention: FlashAttention-2 asked (flash_attn: fa2 in the config) but "
                       "LLaMA-Factory ran torch SDPA ('Using torch SDPA for faster training and inference.') after "
                       "'FlashAttention-2 is not installed.'")
    att = json.loads(out.read_text())["llamafactory"]["attention"]
    assert (att["asked"], att["used"], att["fallback"], att["required"], att["ok"]) == (
        "fa2", "sdpa", "FlashAttention-2 is not installed.", True, False)


def test_require_flash_attn_passes_when_it_ran(tmp_path, fake_lf, project):
    out = tmp_path / "r.json"
    p = porter("--config", "user.yaml", "--steps", "3", "--device", "cpu", "--require-flash-attn", "--json", str(out),
               cwd=project, path_dirs=[fake_lf], env={"TMPDIR": str(tmp_path), "FAKE_LF_HAS_FA2": "1"})
    assert p.returncode == 0, p.stdout[-2000:]
    rep = json.loads(out.read_text())
    assert {"key": "flash_attn", "old": None, "new": "fa2", "why": "--require-flash-attn"} in rep["llamafactory"]["overrides"]
    assert any(c["name"] == "attention" and c["ok"] and c["detail"].startswith("FlashAttention-2 ran") for c in rep["checks"])


def test_nproc_runs_the_allreduce_probe_and_a_baseline_for_the_scaling_figure(tmp_path, fake_lf, project):
    pytest.importorskip("torch")
    rec = tmp_path / "rec.jsonl"
    out = tmp_path / "r.json"
    p = porter("--config", "user.yaml", "--steps", "6", "--device", "cpu", "--nproc", "2", "--json", str(out),
               cwd=project, path_dirs=[fake_lf], env={"FAKE_LF_RECORD": str(rec), "TMPDIR": str(tmp_path)})
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    rep = json.loads(out.read_text())
    runs = records(rec)
    assert [(r["env"]["NPROC_PER_NODE"], r["env"]["FORCE_TORCHRUN"]) for r in runs] == [("2", "1"), ("1", None)]
    assert runs[0]["config"]["output_dir"] != runs[1]["config"]["output_dir"]   # the baseline has its own scratch
    ar = rep["allreduce"]                                              # the built-in launcher's probe, gloo here
    assert ar["size_mib"] == 4 and ar["busbw_gbps"] > 0
    assert rep["scaling_efficiency"] == pytest.approx(0.8, abs=0.01)
    assert rep["ranks"] == [{"rank": 0, "device": "cpu:0"}, {"rank": 1, "device": "cpu:0"}] and rep["world_size"] == 2
    assert "all-reduce: probing 2 processes (gloo), as the built-in launcher does" in p.stdout
    assert "scaling     efficiency 80.0% vs 1 process" in p.stdout and "all-reduce  " in p.stdout
    p = porter("--config", "user.yaml", "--steps", "3", "--device", "cpu", "--nproc", "2", "--no-baseline",
               cwd=project, path_dirs=[fake_lf], env={"TMPDIR": str(tmp_path)})
    assert p.returncode == 0 and "scaling     not measured: --no-baseline" in p.stdout
