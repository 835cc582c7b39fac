"""In the review app, `c` on a file of a folder of several projects builds that file's project only
(issue 30 defect 3): the real `porter build` job, on the converted samples tree, for gfx942 (clang-19)."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

from textual.widgets import RichLog

from porter.project.convert import convert_tree

ROOT = Path(__file__).resolve().parents[2]
TREE = Path(__file__).parent / "projects" / "samples_tree"
FILE = "Samples/0_Introduction/vectorAdd/vectorAdd.cu"


def test_c_on_a_file_builds_its_project_only(tmp_path, monkeypatch, toolchain942):
    from porter.cli.review import prepare
    from porter.tui.app import PorterApp

    monkeypatch.setenv("PYTHONPATH", str(ROOT))  # the build job runs this checkout's porter
    src, out = tmp_path / "cuda", tmp_path / "hip"
    shutil.copytree(TREE, src)
    convert_tree(src, out)
    project, store, messages = prepare(src, out)
    project.build_arch = "gfx942"
    for fr in project.files:
        project.load_file(fr)
    app = PorterApp(project, store, messages, convert_in_background=False, processes=False)
    app.animation_level = "none"
    app.ask_before_project_code = False  # (as if allowed before: c asks before running the Makefiles)

    async def body():
        async with app.run_test(size=(160, 45)) as pilot:
            while not app.started:
                await pilot.pause(0.01)
            app.open_file(FILE)
            app.file_tree.select_file(FILE)
            await pilot.pause()
            await pilot.press("c")
            await pilot.pause()
            await app._job_worker.wait()
            await pilot.pause()
            log = "\n".join(str(line.text) for line in app.main.query_one("#log", RichLog).lines)
            await pilot.press("q")
            await pilot.pause()
            return log

    log = asyncio.run(body())
    assert "build: exit code 0" in log, log[-3000:]
    assert "build ok: gfx942 with clang++-19" in log
    assert (out / "Samples/0_Introduction/vectorAdd/vectorAdd").is_file()
    # the other projects were not built (laneIdPtx, which fails, would have failed the build)
    assert not (out / "Samples/0_Introduction/matrixScale/matrixScale").exists()
    assert "laneIdPtx" not in log
