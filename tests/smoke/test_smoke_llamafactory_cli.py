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
import subprocess
import tomllib
from pathlib import Path

import pytest

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


def test_five_lora_steps_of_a_tiny_model_through_llamafactory_cli(lf_venv, tmp_path):
    model = tmp_path / "tiny-llama"
    b = _py(lf_venv, "-m", "porter.smoke.tinymodel", str(model), timeout=300)
    assert b.returncode == 0, b.stderr[-2000:]
    vocab = json.loads((model / "config.json").read_text())["vocab_size"]
    out = tmp_path / "r.json"
    # the user's command, in that environment: its porter finds its llamafactory-cli on PATH
    env = {"PATH": f"{lf_venv / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}", "TMPDIR": str(tmp_path)}
    p = _py(lf_venv, "-m", "porter", "smoke", "--backend", "llamafactory", "--model", str(model), "--steps", "5",
            "--batch-size", "2", "--seq-len", "64", "--timeout", "400", "--json", str(out), timeout=480, env=env)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    rep = json.loads(out.read_text())
    assert rep["engine"] == "llamafactory" and rep["verdict"] == "pass", rep["reasons"]
    assert rep["steps_done"] == 5 and len(rep["losses"]) == 5 and rep["dtype"] == "fp32" and rep["backend"] == "cpu"
    # random weights predict about uniformly over the vocabulary: cross-entropy near ln(vocab)
    assert all(math.isfinite(x) and abs(x - math.log(vocab)) < 0.5 for x in rep["losses"]), (rep["losses"], vocab)
    assert any(r.startswith("5-step run, too short to judge whether the loss falls") for r in rep["reasons"])
    assert "-0.000" not in p.stdout and "reserved" not in p.stdout   # no GPU memory line from a CPU run
    assert [ln.split()[1] for ln in p.stdout.splitlines() if ln.startswith("step ")] == [f"{i}/5" for i in range(1, 6)]
    # what porter asked LLaMA-Factory for on a CPU
    (yaml,) = tmp_path.glob("porter-llamafactory-*/porter_smoke_lora_sft.yaml")
    cfg = dict(line.split(": ", 1) for line in yaml.read_text().splitlines())
    assert (cfg["use_cpu"], cfg["bf16"], cfg["lr_scheduler_type"], cfg["warmup_steps"]) == ("true", "false",
                                                                                             "constant", "0")
