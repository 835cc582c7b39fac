"""porter smoke from the command line: one-line errors, exit codes, no torch for --help, Ctrl-C."""

import json
import os
import signal
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def porter(*args, timeout=120, **kw):
    return subprocess.run([sys.executable, "-m", "porter", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=timeout, **kw)


def test_help_does_not_import_torch():
    code = ("import sys\nfrom porter.cli.main import main\n"
            "for argv in (['--help'], ['smoke', '--help'], ['doctor', '--help']):\n"
            "    try:\n        main(argv)\n    except SystemExit:\n        pass\n"
            "print('TORCH' if 'torch' in sys.modules else 'NO-TORCH')")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert p.stdout.strip().endswith("NO-TORCH")
    assert "--nproc" in p.stdout and "--backend" in p.stdout


def test_cuda_without_gpu_is_one_line_and_fails():
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    p = porter("smoke", "--device", "cuda", "--steps", "1")
    assert p.returncode != 0
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and "--device cuda: no GPU is visible" in lines[0]
    assert p.stdout == ""


def test_model_that_is_not_a_model_folder(tmp_path):
    (tmp_path / "notes.txt").write_text("hello")
    p = porter("smoke", "--model", str(tmp_path), "--json", str(tmp_path / "r.json"))
    assert p.returncode == 2
    assert p.stderr.strip() == f"porter: error: smoke: --model {tmp_path}: not a model folder (no config.json)"
    rep = json.loads((tmp_path / "r.json").read_text())  # a caller reading --json still gets a report
    assert rep["verdict"] == "fail" and "not a model folder" in rep["error"]


def test_hf_model_without_transformers_says_what_to_install(tmp_path):
    # the machine may have them (CI installs them for test_smoke_hf.py): hide them from this process
    hide = tmp_path / "hide"
    hide.mkdir()
    (hide / "sitecustomize.py").write_text(
        "import sys\n"
        "class _Hide:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('transformers', 'peft'):\n"
        "            raise ModuleNotFoundError(f'No module named {name!r}', name=name)\n"
        "sys.meta_path.insert(0, _Hide())\n")
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "config.json").write_text(json.dumps({"model_type": "llama"}))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(hide), os.environ.get("PYTHONPATH")])))
    p = porter("smoke", "--model", str(tmp_path / "m"), env=env)
    assert p.returncode == 1
    (line,) = p.stderr.strip().splitlines()
    assert "needs the optional packages transformers and peft" in line and "pip install transformers peft" in line


def test_ctrl_c_stops_and_keeps_a_partial_report(tmp_path):
    pytest.importorskip("torch")
    out = tmp_path / "partial.json"
    proc = subprocess.Popen([sys.executable, "-m", "porter", "smoke", "--device", "cpu", "--steps", "500",
                             "--batch-size", "1", "--seq-len", "32", "--json", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        for line in proc.stdout:
            if line.startswith("step 2/500 "):
                proc.send_signal(signal.SIGINT)
                break
        rest, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    assert "verdict     INTERRUPTED" in rest and "Traceback" not in err
    rep = json.loads(out.read_text())
    assert rep["verdict"] == "interrupted" and 2 <= rep["steps_done"] < 500
    assert len(rep["losses"]) == rep["steps_done"]


def test_json_into_a_missing_folder_is_refused_and_creates_nothing(tmp_path):
    target = tmp_path / "no" / "such" / "dir" / "x.json"
    p = porter("smoke", "--steps", "1", "--json", str(target))
    assert p.returncode == 2
    assert p.stderr == f"porter: error: smoke: --json {target}: the folder {target.parent} does not exist\n"
    assert not (tmp_path / "no").exists()


@pytest.mark.parametrize("lr", ["nan", "inf", "-1e-3", "0", "fast"])
def test_a_learning_rate_that_trains_nothing_is_refused(lr):
    p = porter("smoke", "--steps", "1", "--lr", lr)
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr.startswith("porter: error: argument --lr: ") and p.stderr.count("\n") == 1
