"""--backend llamafactory for real: LoRA steps of a tiny model through llamafactory-cli, on this CPU.

The environment is the one `scripts/setup_llamafactory.sh` makes (`.venv-lf`, or PORTER_LLAMAFACTORY_VENV):
porter with its [llamafactory] extra under constraints/llamafactory.txt, beside the same torch as .venv.
`scripts/setup.sh --test` (and so CI) makes it, and CI sets PORTER_REQUIRE_LLAMAFACTORY=1, so a missing or
broken install fails there instead of skipping.  The model is porter.smoke.tinymodel's random tiny Llama,
built by that environment's transformers: nothing is downloaded.
"""

import json
import math
import os
import re
import statistics
import subprocess
import tomllib
from pathlib import Path

import pytest

from porter.smoke import report as srep

ROOT = Path(__file__).resolve().parents[2]
CONSTRAINTS = ROOT / "constraints" / "llamafactory.txt"
VENV = Path(os.environ.get("PORTER_LLAMAFACTORY_VENV") or ROOT / ".venv-lf")


def pins(path: Path) -> dict[str, str]:
    out = {}
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, _, version = line.partition("==")
            out[name.lower().replace("_", "-")] = version
    return out


def test_constraints_file_matches_the_extra_and_leaves_torch_alone():
    got = pins(CONSTRAINTS)
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["llamafactory"]
    assert "llamafactory==0.9.3" in extra and got["llamafactory"] == "0.9.3"
    # the extra's bound on pyarrow admits the tested version (numpy 1.26 is what llamafactory 0.9.3 allows)
    bound = next(r for r in extra if r.startswith("pyarrow<"))
    assert int(got["pyarrow"].split(".")[0]) < int(bound.removeprefix("pyarrow<")) and got["numpy"].startswith("1.")
    # torch and what torch itself pins come from the user's (ROCm) build, never from this file
    assert not {"torch", "torchaudio", "torchvision", "sympy", "networkx", "triton"} & set(got)
    assert all(re.fullmatch(r"[0-9][0-9A-Za-z.+!-]*", v) for v in got.values()), got   # every line an exact pin


@pytest.fixture(scope="module")
def lf_venv():
    cli = VENV / "bin" / "llamafactory-cli"
    if not cli.is_file():
        msg = f"no {cli}: bash scripts/setup_llamafactory.sh makes it (scripts/setup.sh --test runs that)"
        if os.environ.get("PORTER_REQUIRE_LLAMAFACTORY") == "1":
            pytest.fail(msg)
        pytest.skip(msg)
    return VENV


def _py(venv: Path, *args, timeout=300, env=None):
    return subprocess.run([str(venv / "bin" / "python"), *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=timeout, env=dict(os.environ, PYTHONPATH=str(ROOT), **(env or {})))


def test_the_environment_is_the_tested_set(lf_venv):
    p = _py(lf_venv, "-c", "import json, importlib.metadata as m, llamafactory, torch; "
                           "print(json.dumps({d: m.version(d) for d in ('llamafactory', 'numpy', 'pyarrow', "
                           "'transformers', 'peft', 'trl', 'datasets', 'accelerate')} | {'torch': torch.__version__}))")
    assert p.returncode == 0, p.stderr[-2000:]
    have = json.loads(p.stdout.strip().splitlines()[-1])
    want = pins(CONSTRAINTS)
    assert {k: v for k, v in have.items() if k != "torch"} == {k: want[k] for k in have if k != "torch"}
    v = subprocess.run([str(lf_venv / "bin" / "llamafactory-cli"), "version"], capture_output=True, text=True,
                       timeout=120, cwd=ROOT)
    assert v.returncode == 0 and "version 0.9.3" in v.stdout, v.stdout[-1000:] + v.stderr[-1000:]


def test_five_lora_steps_of_a_tiny_model_with_the_command_the_setup_script_prints(lf_venv, tmp_path):
    model = tmp_path / "tiny-llama"
    b = _py(lf_venv, "-c", "import sys, transformers; from porter.smoke import tinymodel; d = tinymodel.build(sys.argv[1]); "
                           "m = transformers.AutoModelForCausalLM.from_pretrained(d); "
                           "print(sum(p.numel() for p in m.parameters()))", str(model), timeout=300)
    assert b.returncode == 0, b.stderr[-2000:]
    base_params = int(b.stdout.split()[-1])
    vocab = json.loads((model / "config.json").read_text())["vocab_size"]
    out = tmp_path / "r.json"
    # exactly what scripts/setup_llamafactory.sh prints ("then: DIR/bin/porter smoke --backend llamafactory --model
    # MODEL_DIR"), with DIR/bin not on PATH: porter finds llamafactory-cli beside its own interpreter
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "PYTHONPATH")}
    env.update(PATH="/usr/bin:/bin", TMPDIR=str(tmp_path))
    p = subprocess.run([str(lf_venv / "bin" / "porter"), "smoke", "--backend", "llamafactory", "--model", str(model),
                        "--steps", "5", "--batch-size", "2", "--seq-len", "64", "--timeout", "400", "--json", str(out)],
                       capture_output=True, text=True, cwd=tmp_path, timeout=480, env=env)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    assert p.stdout.startswith(f"llamafactory: {lf_venv / 'bin' / 'llamafactory-cli'} (beside porter's interpreter")
    rep = json.loads(out.read_text())
    assert rep["engine"] == "llamafactory" and rep["verdict"] == "pass", rep["reasons"]
    assert rep["steps_done"] == 5 and len(rep["losses"]) == 5 and rep["dtype"] == "fp32" and rep["backend"] == "cpu"
    # random weights predict about uniformly over the vocabulary: cross-entropy near ln(vocab)
    assert all(math.isfinite(x) and abs(x - math.log(vocab)) < 0.5 for x in rep["losses"]), (rep["losses"], vocab)
    assert any(r.startswith("5-step run, too short to judge whether the loss falls") for r in rep["reasons"])
    assert "-0.000" not in p.stdout and "reserved" not in p.stdout   # no GPU memory line from a CPU run
    progress = [srep.parse_progress_line(ln) for ln in p.stdout.splitlines()]
    assert [f"{x['step']}/{x['total']}" for x in progress if x] == [f"{i}/5" for i in range(1, 6)]
    # read from LLaMA-Factory's log: parameters (the adapter on top of the model's own), device, attention
    assert rep["params_total"] - rep["params_trainable"] == base_params and rep["params_trainable"] > 0
    assert rep["device"] == "cpu" and rep["device_name"] == "cpu (LLaMA-Factory's log)"
    lfs = rep["llamafactory"]
    assert lfs["attention"]["used"] == "sdpa" and lfs["attention"]["asked"] == "auto"
    # per-step times in ms from trainer_log.jsonl, the median of them; one thread per process on the CPU
    assert len(rep["step_times_s"]) == 5 and all(0 < t < 30 for t in rep["step_times_s"])
    assert rep["step_time_s"] == pytest.approx(statistics.median(rep["step_times_s"][1:]), abs=1e-6)
    assert lfs["step_time_source"] == "trainer_log.jsonl: total_tokens / throughput"
    assert lfs["threads"] == "1 per process (OMP_NUM_THREADS, set by porter as for the built-in loop)"
    assert 0 < rep["time_to_first_step_s"] < 400
    # what porter asked LLaMA-Factory for on a CPU; the effective YAML beside the report
    assert lfs["effective_config"] == str(tmp_path / "r.llamafactory.yaml")
    text = (tmp_path / "r.llamafactory.yaml").read_text()
    cfg = dict(line.split(": ", 1) for line in text.splitlines() if not line.startswith("#"))
    assert (cfg["use_cpu"], cfg["bf16"], cfg["lr_scheduler_type"], cfg["warmup_steps"]) == ("true", "false",
                                                                                             "constant", "0")
