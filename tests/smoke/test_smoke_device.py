"""Device detection: one code path for CPU, NVIDIA and ROCm (ROCm faked on the CPU torch)."""

from types import SimpleNamespace

import pytest

torch = pytest.importorskip("torch")

from porter.smoke.device import DeviceError, detect, lookup_peak  # noqa: E402


def _fake_gpu(monkeypatch, *, hip, props, bf16=True):
    monkeypatch.setattr(torch.version, "hip", hip, raising=False)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    monkeypatch.setattr(torch.cuda, "get_device_properties", lambda i=0: props)
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda *a, **k: bf16)


def test_faked_rocm_torch_is_rocm_gfx942_with_mi300x_peak(monkeypatch):
    props = SimpleNamespace(name="", gcnArchName="gfx942:sramecc+:xnack-", total_memory=192 * 2**30, major=9, minor=4)
    _fake_gpu(monkeypatch, hip="6.2.41133-dd7f95766", props=props)
    dev = detect("auto", torch=torch)
    assert (dev.device, dev.backend, dev.arch) == ("cuda:0", "rocm", "gfx942")
    assert dev.hip == "6.2.41133-dd7f95766" and dev.cuda is None
    assert dev.peak_tflops("bf16") == 1307.4 and dev.peak_label == "AMD Instinct MI300X"
    assert dev.total_memory_gib == 192.0


def test_mi300a_is_told_apart_by_name(monkeypatch):
    props = SimpleNamespace(name="AMD Instinct MI300A", gcnArchName="gfx942:sramecc+:xnack+", total_memory=128 * 2**30)
    _fake_gpu(monkeypatch, hip="6.2", props=props)
    dev = detect("cuda", torch=torch)
    assert dev.peak_label == "AMD Instinct MI300A" and dev.peak_tflops("bf16") != 1307.4


def test_faked_nvidia_h100_is_cuda_sm90(monkeypatch):
    props = SimpleNamespace(name="NVIDIA H100 80GB HBM3", total_memory=80 * 2**30, major=9, minor=0)
    _fake_gpu(monkeypatch, hip=None, props=props)
    monkeypatch.setattr(torch.version, "cuda", "12.4")
    dev = detect("auto", torch=torch)
    assert (dev.backend, dev.arch, dev.cuda) == ("cuda", "sm_90", "12.4")
    assert dev.peak_tflops("bf16") == 989.0


def test_cpu_and_missing_gpu(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    dev = detect("auto", torch=torch)
    assert (dev.device, dev.backend, dev.arch, dev.peak_tflops("bf16")) == ("cpu", "cpu", None, None)
    with pytest.raises(DeviceError, match="--device cuda: no GPU is visible"):
        detect("cuda", torch=torch)


def test_unknown_gpu_has_no_peak():
    assert lookup_peak("gfx1100", "AMD Radeon RX 7900 XTX") is None
    assert lookup_peak(None, "NVIDIA H200")["bf16"] == 989.0
