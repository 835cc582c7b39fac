import json

from porter.build.toolchain import detect_toolchain, install_hints


def test_missing_compiler_is_reported_not_raised(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv("ROCM_PATH", str(tmp_path / "none"))
    tc = detect_toolchain()
    assert not tc.found
    assert tc.arch == "gfx942" and tc.arch_source == "default"
    assert "porter doctor" in tc.arch_problem()
    hints = install_hints(tc)
    assert any("apt-get install hipcc libamdhip64-dev rocm-device-libs" in h for h in hints)
    assert any("ROCm 6" in h for h in hints)
    json.dumps(tc.as_dict())


def test_explicit_arch_is_kept(toolchain90a):
    assert toolchain90a.arch == "gfx90a" and toolchain90a.arch_source == "option"
    assert toolchain90a.arch_supported is True
    assert toolchain90a.arch_problem() is None
    assert toolchain90a.hip_version and toolchain90a.clang_version
    assert toolchain90a.env()["HIP_PLATFORM"] == "amd"


def test_unknown_arch_is_said_in_one_line_never_changed(need_hipcc):
    tc = detect_toolchain("gfx9999")
    assert tc.arch == "gfx9999"
    assert tc.arch_supported is False
    msg = tc.arch_problem()
    assert "gfx9999" in msg and "\n" not in msg and "--arch" in msg


def test_supported_archs_come_from_the_compiler(toolchain90a):
    # every listed arch is a real target of this clang: spot-check one with -E
    from porter.build.toolchain import arch_known

    assert "gfx90a" in toolchain90a.supported_archs
    assert arch_known(toolchain90a, "gfx90a") is True
    assert arch_known(toolchain90a, "gfx9999") is False
    if "gfx942" not in toolchain90a.supported_archs:  # Debian's ROCm 5.2
        assert arch_known(toolchain90a, "gfx942") is False
