"""The review app converts files in worker processes, each file once.

While Textual runs, ``sys.stderr`` has no file descriptor. The first process pool starts
multiprocessing's resource tracker with it, which failed with "bad value(s) in fds_to_keep".
The app then fell back, without a word, to converting in threads of the UI process, and a key
press waited up to 0.4 s while a big file converted. In that thread mode, two converter
threads also took the same file and converted it twice."""

from __future__ import annotations

import shutil
import threading

from tui_helpers import SAMPLE, SIZE, make_app, quit_app, started, sync

import porter.project.file_conversion as file_conversion
import porter.project.file_review as file_review


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
        await quit_app(pilot)


@sync
async def test_without_processes_each_file_is_converted_once(tmp_path, monkeypatch):
    src = tmp_path / "proj"
    shutil.copytree(SAMPLE, src)
    from porter.cli.review import prepare
    from porter.tui.app import PorterApp

    project, store, messages = prepare(src, tmp_path / "out")
    loads: list[str] = []
    lock = threading.Lock()
    real = file_review.FileReview.load

    def counted(self):
        with lock:
            loads.append(self.rel)
        real(self)

    monkeypatch.setattr(file_review.FileReview, "load", counted)
    app = PorterApp(project, store, messages, convert_in_background=True, processes=False)
    app.animation_level = "none"
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        while any(f.status == "converting" for f in project.files):
            await pilot.pause(0.05)
        await quit_app(pilot)
    assert sorted(loads) == sorted(f.rel for f in project.files)


@sync
async def test_a_big_file_on_screen_shows_its_diff_before_its_findings(tmp_path, monkeypatch):
    """The file on screen is translated first and its diff shown; its findings come from a second
    job and join the same diff, without moving the cursor."""
    import porter.tui.conversion as conversion
    from porter.cli.review import prepare
    from porter.tui.app import PorterApp

    src = tmp_path / "proj"
    src.mkdir()
    for name in ("reduce_kernels.cu", "reduce_kernels.h", "warp_utils.cuh"):  # the kernels come first
        shutil.copy(SAMPLE / name, src / name)
    monkeypatch.setattr(conversion, "SPLIT_BYTES", 0)  # every file on screen counts as big
    release = threading.Event()
    real_scan = file_conversion.scan_file

    def held_scan(*args, **kwargs):
        assert release.wait(60)
        return real_scan(*args, **kwargs)

    monkeypatch.setattr(file_conversion, "scan_file", held_scan)
    project, store, messages = prepare(src, tmp_path / "out")
    app = PorterApp(project, store, messages, convert_in_background=True, processes=False)
    app.animation_level = "none"
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        fr = app.current
        assert fr.rel == "reduce_kernels.cu"
        while fr.status != "ready":
            await pilot.pause(0.02)
        await pilot.pause()
        expected = file_conversion.convert_file(fr.rel, fr.path, fr.kind)
        assert expected["findings"], "the sample's kernels have findings"
        # the diff is up, the findings are not
        assert app.diff.file is fr and fr.hip == expected["hip"] and fr.findings_pending
        assert app.findings_list.option_count == 0
        assert "checking findings" in app.main.query_one("#fix-preview").text.plain
        assert " …" in app.file_tree.label_of(fr.rel).plain
        await pilot.press("down", "down", "down")
        row = app.diff.current_row()
        release.set()
        while fr.findings_pending:
            await pilot.pause(0.02)
        await pilot.pause()
        assert [(f.rule, f.start_byte) for f in fr.findings] == [(f.rule, f.start_byte) for f in expected["findings"]]
        assert app.findings_list.option_count == len(fr.findings)
        assert app.diff.finding_lines and app.diff.current_row() == row
        assert " …" not in app.file_tree.label_of(fr.rel).plain
        await quit_app(pilot)


@sync
async def test_in_worker_processes_the_findings_follow_the_diff(tmp_path, monkeypatch):
    import porter.tui.conversion as conversion

    src = tmp_path / "proj"
    src.mkdir()
    for name in ("reduce_kernels.cu", "reduce_kernels.h", "warp_utils.cuh"):
        shutil.copy(SAMPLE / name, src / name)
    monkeypatch.setattr(conversion, "SPLIT_BYTES", 0)
    app = make_app(src, preload=False)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        fr = app.current
        while fr.status != "ready" or fr.findings_pending:
            await pilot.pause(0.05)
        await pilot.pause()
        expected = file_conversion.convert_file(fr.rel, fr.path, fr.kind)
        assert [(f.rule, f.start_byte) for f in fr.findings] == [(f.rule, f.start_byte) for f in expected["findings"]]
        assert expected["findings"] and app.findings_list.option_count == len(fr.findings)
        while any(f.status == "converting" for f in app.project.files):
            await pilot.pause(0.05)
        assert not any(f.findings_pending for f in app.project.files)  # only the file on screen is split
        await quit_app(pilot)
