"""porter doctor: with torch, with a faked ROCm GPU, with torch import blocked, and the CLI."""

import json
import os
import subprocess
import sys
from types import SimpleNamespace

import pytest

from porter import doctor
from required_tools import require

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_with_torch_present_reports_build_and_no_gpu():
    torch = pytest.importorskip("torch")
    info = doctor.collect()
    t = info["torch"]
    assert t["installed"] and t["version"] == torch.__version__
    assert t["build"] == ("rocm" if torch.version.hip else "cuda" if torch.version.cuda else "cpu")
    assert t["attention"]["sdpa"] is True
    json.dumps(info)  # the --json form is plain JSON
    text = doctor.format_text(info)
    assert text.splitlines()[-1].startswith("verdict     compile: ")
    assert f"torch       {torch.__version__}" in text
    if not torch.cuda.is_available():
        assert any("porter smoke runs on CPU only" in n for n in info["verdict"]["notes"])


def test_faked_rocm_gpu_is_named_mi300x(monkeypatch):
    torch = pytest.importorskip("torch")
    props = SimpleNamespace(name="AMD Instinct MI300X", gcnArchName="gfx942:sramecc+:xnack-",
                            total_memory=192 * 2**30)
    monkeypatch.setattr(torch.version, "hip", "6.2.41133", raising=False)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    monkeypatch.setattr(torch.cuda, "get_device_properties", lambda i=0: props)
    t = doctor.torch_info()
    assert t["build"] == "rocm" and t["hip"] == "6.2.41133"
    assert t["gpus"] == [{"index": 0, "name": "AMD Instinct MI300X", "arch": "gfx942",
                          "arch_full": "gfx942:sramecc+:xnack-", "memory_gib": 192.0, "mi300x": True}]


def test_torch_import_blocked_says_torch_is_missing(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)  # `import torch` now raises ImportError
    info = doctor.collect()
    assert info["torch"]["installed"] is False
    assert any(b.startswith("torch is not importable") for b in info["verdict"]["smoke"])
    assert "smoke: BLOCKED by torch is not importable" in info["verdict"]["line"]
    assert "torch       MISSING" in doctor.format_text(info)


def test_visible_device_and_rccl_variables_are_reported(monkeypatch):
    monkeypatch.setenv("HIP_VISIBLE_DEVICES", "0,1")
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "1")
    monkeypatch.setenv("NCCL_SOCKET_IFNAME", "eth0")
    monkeypatch.setenv("HSA_FORCE_FINE_GRAIN_PCIE", "1")
    e = doctor.env_info()
    assert e["visible_devices"] == {"HIP_VISIBLE_DEVICES": "0,1", "CUDA_VISIBLE_DEVICES": "1"}
    assert e["comm"]["NCCL_SOCKET_IFNAME"] == "eth0" and e["hsa"]["HSA_FORCE_FINE_GRAIN_PCIE"] == "1"
    monkeypatch.setitem(sys.modules, "torch", None)
    v = doctor.collect()["verdict"]
    assert any("disagree" in n for n in v["notes"])


def test_a_failing_toolchain_detection_is_a_blocker_not_a_crash(monkeypatch):
    import porter.build.toolchain as toolchain

    def broken(arch=None):
        raise OSError("rocm install is broken")

    monkeypatch.setattr(toolchain, "detect_toolchain", broken)
    tc = doctor.toolchain_info()
    assert not tc["found"] and "rocm install is broken" in tc["arch_problem"]
    assert any("rocm install is broken" in b for b in doctor.collect()["verdict"]["compile"])


def _blocked_torch_env(tmp_path):
    fake = tmp_path / "blocked" / "torch"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise ImportError('torch blocked for this test')\n")
    return dict(os.environ, PYTHONPATH=str(fake.parent) + os.pathsep + ROOT)


def test_cli_doctor_json_without_torch(tmp_path):
    env = _blocked_torch_env(tmp_path)
    p = subprocess.run([sys.executable, "-m", "porter", "doctor", "--json"], capture_output=True, text=True,
                       env=env, cwd=ROOT, timeout=120)
    assert p.returncode == 0, p.stderr
    info = json.loads(p.stdout)
    assert info["torch"]["installed"] is False and "torch blocked for this test" in info["torch"]["error"]
    assert "smoke: BLOCKED" in info["verdict"]["line"]


def test_cli_smoke_without_torch_is_one_line(tmp_path):
    env = _blocked_torch_env(tmp_path)
    p = subprocess.run([sys.executable, "-m", "porter", "smoke", "--device", "cpu", "--steps", "1"],
                       capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)
    assert p.returncode == 1
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("porter smoke: error: torch is not installed") and "Traceback" not in p.stderr


def test_doctor_names_each_toolchain_and_the_gfx942_one():
    import shutil

    require(shutil.which("hipcc") and shutil.which("clang++-19"), "needs hipcc and clang-19 (apt-get install hipcc clang-19 lld-19 llvm-19)")
    info = doctor.collect()
    text = doctor.format_text(info)
    lines = [ln for ln in text.splitlines() if ln.startswith("toolchain")]
    assert any(ln.startswith("toolchain   hipcc (clang 15") for ln in lines)
    assert any(ln.startswith("toolchain   clang++-19 (clang 19") for ln in lines)
    if not info["toolchain"]["local_gpus"]:
        assert "builds gfx942 by default" in next(ln for ln in lines if "clang++-19" in ln)
        assert ("real gfx942 code generation by LLVM 19 against ROCm 5.2" in text
                and "not a ROCm 6 toolchain" in text)
        assert info["verdict"]["compile"] == []
