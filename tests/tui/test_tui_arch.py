"""The compile key builds for the target arch: chosen with `porter PATH --arch`
or the palette, kept in the session, shown in the header; and on this machine
(Debian 12, hipcc 5.2 + clang-19) ]/f through the findings, A/tab through
the files, w, c compiles the port for gfx942 with no flag."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from textual.widgets import RichLog

from porter.build import fatbin
from tui_helpers import SIZE, make_app, notes, open_file, settle, sync

ROOT = Path(__file__).resolve().parents[2]


@sync
async def test_palette_arch_is_passed_to_the_build_and_kept_in_the_session(project_dir, monkeypatch):
    app = make_app(project_dir)
    runs = []
    monkeypatch.setattr(app, "start_job", lambda title, argv, timeout: runs.append(argv))
    async with app.run_test(size=SIZE) as pilot:
        await open_file(app, pilot, "main.cu")
        app.project.output.mkdir(parents=True, exist_ok=True)
        (app.project.output / "Makefile").write_text("all:\n")  # a written port (an empty folder is not built)
        titles = [c.title for c in app.get_system_commands(app.main)]
        assert "Compile for gfx942 (MI300X)" in titles and "Compile for gfx90a (MI250X / MI210)" in titles
        await pilot.press("c")
        assert "--arch" not in runs[-1]  # the default: porter build picks (local GPU, else gfx942)
        app.compile_for("gfx90a")
        await pilot.pause(0.3)
        assert runs[-1][-2:] == ["--arch", "gfx90a"]
        assert "build gfx90a" in str(app.main.query_one("#summary").render())
        assert any("compiling for gfx90a" in n for n in notes(app))
        await pilot.press("c")
        assert runs[-1][-2:] == ["--arch", "gfx90a"]  # kept
        await pilot.press("q")
        await pilot.pause()
    again = make_app(project_dir)
    assert again.project.build_arch == "gfx90a"


def test_review_rejects_a_bad_arch_in_one_line(project_dir):
    r = subprocess.run([sys.executable, "-m", "porter", str(project_dir), "--arch", "sm_80"], capture_output=True,
                       text=True, timeout=60, cwd=ROOT)
    assert r.returncode != 0
    err = r.stderr.strip().splitlines()
    assert len(err) == 1 and "sm_80" in err[0] and "gfx942" in err[0]


@sync
async def test_review_write_and_compile_builds_gfx942_with_no_flag(project_dir, monkeypatch, tmp_path, amd_compilers):
    from porter.build.toolchain import detect_toolchain

    if detect_toolchain().local_gpus:
        pytest.skip("a local GPU decides the default arch here")
    monkeypatch.setenv("PYTHONPATH", str(ROOT))  # the build job runs this checkout's porter
    monkeypatch.setenv("PORTER_CACHE_DIR", str(tmp_path / "cache"))
    app = make_app(project_dir)
    async with app.run_test(size=SIZE) as pilot:
        await open_file(app, pilot, app.project.files[0].rel)
        for _ in range(len(app.project.files)):
            fr = app.current
            for _ in range(len(fr.findings) if fr.status == "ready" else 0):
                await pilot.press("right_square_bracket", "f")  # each finding's fix, where it has one
            await pilot.press("A", "tab")
        await pilot.press("w")
        await settle(app, pilot)
        await pilot.press("c")
        await settle(app, pilot)
        log = "\n".join(str(line.text) for line in app.main.query_one("#log", RichLog).lines)
        assert "build: exit code 0" in log, log[-2000:]
        assert "build ok: gfx942 with clang++-19" in log  # the JSON report, summarised
        assert "build gfx942 with clang++-19" in str(app.main.query_one("#summary").render())
        await pilot.press("q")
        await pilot.pause()
    program = app.project.output / "warp_reduce"
    assert fatbin.targets(str(program)) == ["amdgcn-amd-amdhsa--gfx942"]
    r = subprocess.run(["llvm-readobj-19", "--sections", str(program)], capture_output=True, text=True, timeout=60)
    assert ".hip_fatbin" in r.stdout
