"""Counts are live: what the header, the file list and the diagnostics say about
errors follows the last build, and a new job clears the previous one's."""

from __future__ import annotations

import json
import sys

from textual.widgets import OptionList

from tui_helpers import SIZE, make_app, open_file, sync


def _py_lines(lines, rc=0):
    return [sys.executable, "-c", "".join(f"print({line!r})\n" for line in lines) + f"raise SystemExit({rc})"]


def _header(app) -> str:
    return str(app.main.query_one("#summary").render())


def _diag_title(app) -> str:
    return str(app.main.query_one("#diag-title").render())


async def _run(app, pilot, argv):
    app.start_job("build", argv, 30)
    await app._job_worker.wait()
    await pilot.pause()


@sync
async def test_error_counts_fall_after_a_passing_build(project_dir, with_findings):
    app = make_app(project_dir)
    out = app.project.output
    errors = [f"{out / 'main.cu'}:{20 + k}:5: error: thing {k}" for k in range(5)]
    errors += [f"{out / 'reduce_kernels.cu'}:{9 + k}:2: error: bad {k}" for k in range(2)]
    async with app.run_test(size=SIZE) as pilot:
        await open_file(app, pilot, "main.cu")
        findings = app.project.counts()["errors"]
        await _run(app, pilot, _py_lines(errors, rc=1))
        header = _header(app)
        assert "build default arch: failed, 7 errors" in header
        assert f"{findings} error finding" in header  # the findings' count is told apart from the build's
        assert _diag_title(app) == "7 errors"
        assert "✖5" in str(app.file_tree.label_of("main.cu"))
        assert "✖2" in str(app.file_tree.label_of("reduce_kernels.cu"))

        await _run(app, pilot, _py_lines(["all good"], rc=0))
        header = _header(app)
        assert "build default arch: ok" in header and "7 errors" not in header and "failed" not in header
        assert _diag_title(app) == "no diagnostics"
        assert app.main.query_one("#diagnostics", OptionList).option_count == 0
        assert "✖" not in str(app.file_tree.label_of("main.cu"))
        assert "✖" not in str(app.file_tree.label_of("reduce_kernels.cu"))


@sync
async def test_a_new_job_clears_the_previous_jobs_counts_while_it_runs(project_dir):
    app = make_app(project_dir)
    out = app.project.output
    async with app.run_test(size=SIZE) as pilot:
        await open_file(app, pilot, "main.cu")
        await _run(app, pilot, _py_lines([f"{out / 'main.cu'}:20:5: error: no such thing"], rc=1))
        assert "✖1" in str(app.file_tree.label_of("main.cu")) and "failed, 1 error" in _header(app)
        app.start_job("build", [sys.executable, "-c", "import time; print('slow', flush=True); time.sleep(30)"], 60)
        for _ in range(100):
            await pilot.pause(0.05)
            if "running" in _header(app):
                break
        assert "build default arch: running" in _header(app) and "1 error" not in _header(app)
        assert _diag_title(app) == "no diagnostics" and "✖" not in str(app.file_tree.label_of("main.cu"))
        app._job_worker.cancel()


@sync
async def test_the_build_reports_verdict_and_errors_go_to_the_header(project_dir):
    app = make_app(project_dir)
    out = app.project.output
    report = {"ok": False, "arch": "gfx942", "toolchain": "clang++-19", "messages": [],
              "diagnostics": [{"file": str(out / "main.cu"), "line": 20, "column": 5, "severity": "error",
                               "message": "no such thing"}]}
    async with app.run_test(size=SIZE) as pilot:
        await open_file(app, pilot, "main.cu")
        await _run(app, pilot, _py_lines([json.dumps(report)], rc=1))
        assert "build gfx942 with clang++-19: failed, 1 error" in _header(app)
        report.update(ok=True, diagnostics=[])
        await _run(app, pilot, _py_lines([json.dumps(report)], rc=0))
        assert "build gfx942 with clang++-19: ok" in _header(app) and "error " not in _header(app).split("build")[-1]
