"""The review app after a build (issue 30, defect 2): the log says which GPU code the program holds,
as `porter build` prints it; compiling for gfx90a and then, from the palette, for gfx942 gives a gfx942
program, not the gfx90a objects left on disk; a program without code for the arch asked for is a
failed build, with the error in the diagnostics and the header."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from textual.widgets import OptionList, RichLog

from porter.build import fatbin
from tui_helpers import SIZE, make_app, open_file, settle, started, sync

ROOT = Path(__file__).resolve().parents[2]


def _log(app) -> str:
    return "\n".join(str(line.text) for line in app.main.query_one("#log", RichLog).lines)


def _last_build(log: str) -> str:
    """The log of the last build job."""
    return log[log.rfind("$ porter build"):]


@sync
async def test_compile_for_gfx90a_then_gfx942_shows_what_the_program_holds(project_dir, monkeypatch, tmp_path,
                                                                            amd_compilers):
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
        program = app.project.output / "warp_reduce"
        for arch in ("gfx90a", "gfx942", "gfx90a"):
            app.compile_for(arch)  # the palette's "Compile for ..."
            await settle(app, pilot)
            log = _last_build(_log(app))
            assert "build: exit code 0" in log, log[-3000:]
            assert f"build ok: {arch}" in log
            assert f"note: warp_reduce holds amdgcn-amd-amdhsa--{arch}" in log  # as porter build prints it
            assert f"build {arch}" in str(app.main.query_one("#summary").render())
            assert fatbin.targets(str(program)) == [f"amdgcn-amd-amdhsa--{arch}"]
        await pilot.press("q")
        await pilot.pause()


@sync
async def test_a_program_without_code_for_the_arch_is_a_failed_build_with_its_error(project_dir):
    app = make_app(project_dir)
    error = ("app holds gfx90a code, not gfx942 (the arch asked for): the build made code for another GPU "
             "(does a build file set its own --offload-arch?)")
    report = {"ok": False, "arch": "gfx942", "toolchain": "clang++-19 (clang 19.1.7)", "system": "make",
              "diagnostics": [{"file": "", "line": 0, "column": 0, "severity": "error", "message": error,
                               "unit": "code objects"}],
              "messages": [], "outputs": ["app"], "code_objects": {"app": ["amdgcn-amd-amdhsa--gfx90a"]}}
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        script = f"import sys; print({json.dumps(report)!r}); sys.exit(1)"
        app.start_job("build", [sys.executable, "-c", script], 30)
        await app._job_worker.wait()
        await pilot.pause()
        log = "".join(_log(app).split())
        assert "".join("build failed: gfx942 with clang++-19 (clang 19.1.7); 1 error".split()) in log
        assert "".join(f"error: {error}".split()) in log
        assert "".join("note: app holds amdgcn-amd-amdhsa--gfx90a".split()) in log
        labels = [str(o.prompt) for o in app.main.query_one("#diagnostics", OptionList).options]
        assert labels == [f"error: {error}"]
        assert "build gfx942 with clang++-19 (clang 19.1.7): failed, 1 error" in str(
            app.main.query_one("#summary").render())


@pytest.mark.parametrize("outputs, expected", [
    (["app"], ["  note: app holds amdgcn-amd-amdhsa--gfx942"]),
    ([], []),  # objects alone: the CLI prints no note for them either
])
def test_the_build_summary_names_the_code_each_program_holds(outputs, expected):
    from porter.tui.jobs import report_summary

    rep = {"toolchain": "t", "ok": True, "arch": "gfx942", "outputs": outputs,
           "code_objects": {"app": ["amdgcn-amd-amdhsa--gfx942"], "k.o": ["amdgcn-amd-amdhsa--gfx942"]}}
    assert report_summary(rep) == ["build ok: gfx942 with t; no diagnostics", *expected]


def test_the_build_summary_says_a_program_holds_no_gpu_code():
    """A program none of whose units was compiled for the device (porter build records [] for it): built, but
    nothing in it is for the arch, and the app says so as porter build does."""
    from porter.tui.jobs import report_summary

    rep = {"toolchain": "t", "ok": True, "arch": "gfx942", "outputs": ["tool", "app"],
           "code_objects": {"tool": [], "app": ["amdgcn-amd-amdhsa--gfx942"]}}
    notes = report_summary(rep)[1:]
    assert len(notes) == 2 and notes[1] == "  note: app holds amdgcn-amd-amdhsa--gfx942", notes
    assert notes[0].startswith("  note: tool holds no GPU code of its own") and "gfx942" in notes[0], notes
