"""The review app converts files in worker processes, each file once.

While Textual runs, ``sys.stderr`` has no file descriptor. The first process pool starts
multiprocessing's resource tracker with it, which failed with "bad value(s) in fds_to_keep".
The app then fell back, without a word, to converting in threads of the UI process, and a key
press waited up to 0.4 s while a big file converted. In that thread mode, two converter
threads also took the same file and converted it twice."""

from __future__ import annotations

import shutil
import threading

from tui_helpers import SAMPLE, SIZE, make_app, started, sync

import porter.project.review as review


@sync
async def test_the_running_app_converts_in_worker_processes(tmp_path):
    src = tmp_path / "proj"
    shutil.copytree(SAMPLE, src)
    app = make_app(src, preload=False)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        pool = app.converter.pool()
        assert pool is not None  # not the thread fallback
        assert pool.submit(sum, [1, 2, 3]).result(timeout=60) == 6
        while any(f.status == "converting" for f in app.project.files):
            await pilot.pause(0.05)
        assert all(f.status == "ready" for f in app.project.files)
        await pilot.press("q")
        if app.is_running:
            await pilot.press("y")


@sync
async def test_without_processes_each_file_is_converted_once(tmp_path, monkeypatch):
    src = tmp_path / "proj"
    shutil.copytree(SAMPLE, src)
    from porter.cli.review import prepare
    from porter.tui.app import PorterApp

    project, store, messages = prepare(src, tmp_path / "out")
    loads: list[str] = []
    lock = threading.Lock()
    real = review.FileReview.load

    def counted(self):
        with lock:
            loads.append(self.rel)
        real(self)

    monkeypatch.setattr(review.FileReview, "load", counted)
    app = PorterApp(project, store, messages, convert_in_background=True, processes=False)
    app.animation_level = "none"
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        while any(f.status == "converting" for f in project.files):
            await pilot.pause(0.05)
        await pilot.press("q")
        if app.is_running:
            await pilot.press("y")
    assert sorted(loads) == sorted(f.rel for f in project.files)
