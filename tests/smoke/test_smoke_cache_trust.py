"""The smoke test imports the extension it builds, so the build cache is code porter runs: a cache
folder another user can write (a shared /tmp folder, a folder of someone else's) is refused in one
line, before anything is copied into it, built in it or loaded from it."""

from __future__ import annotations

import os
import types

import pytest

from porter.smoke import extbuild
from porter.smoke.options import SmokeError
from porter.smoke.setupread import ExtensionSpec

SPEC = ExtensionSpec(name="ops", kind="cpp", sources=("ops.cpp",))
TORCH = types.SimpleNamespace(__version__="0", version=types.SimpleNamespace(hip=None))


def _project(tmp_path):
    root = tmp_path / "proj"
    root.mkdir()
    (root / "ops.cpp").write_text("int f() { return 1; }\n")
    return root


@pytest.mark.parametrize("mode, owner", [(0o777, None), (0o770, None), (0o755, 65534)])
def test_a_cache_another_user_can_write_is_refused_before_use(tmp_path, mode, owner):
    if owner is not None and (not hasattr(os, "getuid") or os.getuid() != 0):
        pytest.skip("chown to another uid needs root")
    cache = tmp_path / "shared"
    cache.mkdir()
    planted = cache / "ops-planted"
    planted.mkdir()
    (planted / "built.ok").write_text("")
    os.chmod(cache, mode)
    if owner is not None:
        os.chown(cache, owner, owner)
    before = sorted(p.name for p in cache.iterdir())
    try:
        with pytest.raises(SmokeError) as err:
            extbuild.build(SPEC, _project(tmp_path), torch=TORCH, cache=cache)
        assert "not safe" in str(err.value) and str(cache) in str(err.value) and "\n" not in str(err.value)
        assert sorted(p.name for p in cache.iterdir()) == before  # nothing written there
    finally:
        if owner is not None:
            os.chown(cache, os.getuid(), os.getgid())


def test_a_cache_folder_behind_a_symbolic_link_is_refused(tmp_path):
    real = tmp_path / "elsewhere"
    real.mkdir(mode=0o700)
    link = tmp_path / "cache"
    link.symlink_to(real)
    with pytest.raises(SmokeError, match="symbolic link"):
        extbuild.build(SPEC, _project(tmp_path), torch=TORCH, cache=link)
