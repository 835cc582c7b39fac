"""porter build knows the ROCm the port was converted for and says when the toolchain's HIP is older."""

from porter.build.runner import target_mismatch


def test_a_target_newer_than_the_toolchains_hip_is_a_note_naming_both():
    note = target_mismatch("5.2.21153-89e8e8fe", "6.1")
    assert note and "ROCm 6.1" in note and "HIP is 5.2" in note and "--target-rocm 5.2" in note


def test_the_same_or_an_older_target_says_nothing():
    assert target_mismatch("5.2.21153", "5.2") is None
    assert target_mismatch("6.2.41133", "5.7") is None
    assert target_mismatch("", "6.3") is None  # the toolchain's HIP is unknown: no guess
    assert target_mismatch("5.2.0", None) is None


def test_the_cli_rejects_a_bad_target(tmp_path, capsys):
    from porter.cli.main import main

    assert main(["build", str(tmp_path), "--target-rocm", "newest"]) == 2
    assert "expected a ROCm release" in capsys.readouterr().err
