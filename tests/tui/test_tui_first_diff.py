"""The first diff of `porter PATH` (issue 34: < 1 s from the shell on a 1,000-file tree).

The worker process and the conversion of the file the app shows first are started before Textual
is imported and while it draws; when that conversion is done by the time the main screen is up,
the first screen draws that file's diff. Before, the file was asked for only once the screen was
up: the first screen said "converting FILE …" and the diff came a worker round trip later."""

from __future__ import annotations

import concurrent.futures
import shutil

from tui_helpers import SAMPLE, SIZE, quit_app, started, sync

from porter.tui.widgets.diff_view import DiffView


@sync
async def test_the_first_file_converted_while_the_app_starts_is_drawn_on_the_first_screen(tmp_path, monkeypatch):
    from porter.cli.review import prepare
    from porter.tui.app import PorterApp
    from porter.tui.conversion import BackgroundConverter, first_file

    src = tmp_path / "proj"
    src.mkdir()
    for name in ("reduce_kernels.cu", "reduce_kernels.h", "warp_utils.cuh"):  # a CUDA source comes first
        shutil.copy(SAMPLE / name, src / name)
    project, store, messages = prepare(src, tmp_path / "out")
    first = first_file(project)
    assert first is not None and first.kind == "source"

    shown: list[str] = []  # every message the diff pane showed instead of a diff
    real = DiffView.show_message

    def recorded(self, text: str) -> None:
        shown.append(text)
        real(self, text)

    monkeypatch.setattr(DiffView, "show_message", recorded)

    converter = BackgroundConverter(None, project)  # as `porter PATH` makes it, before the app exists
    converter.prewarm(first)
    # the state the fix is for: the worker converted the first file while the app was starting
    done, _ = concurrent.futures.wait(list(converter._early), timeout=120)
    assert done, "prewarm did not ask for the first file"

    app = PorterApp(project, store, messages, converter=converter)
    app.animation_level = "none"
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        assert app.current is first
        assert app.diff.file is first  # the diff itself, from the first screen on
        assert first.hip and "hip" in first.hip
        assert not [m for m in shown if m.startswith("converting")]
        await quit_app(pilot)


def test_stopping_the_converter_leaves_no_pool_thread_at_exit(tmp_path):
    # Quitting the app stops the converter: the worker pool's manager thread must be gone by then, or
    # Python 3.11's exit hook can race it and print "OSError: Bad file descriptor" on the terminal.
    import threading
    from concurrent.futures.process import _ExecutorManagerThread

    from porter.cli.review import prepare
    from porter.tui.conversion import BackgroundConverter, first_file

    src = tmp_path / "src"
    src.mkdir()
    shutil.copy(SAMPLE / "reduce_kernels.cu", src / "reduce_kernels.cu")
    project, _store, _messages = prepare(src, tmp_path / "out")
    converter = BackgroundConverter(None, project)
    converter.prewarm(first_file(project))
    done, _ = concurrent.futures.wait(list(converter._early), timeout=120)
    assert done, "prewarm did not ask for the first file"
    converter.stop()
    assert not [t for t in threading.enumerate() if isinstance(t, _ExecutorManagerThread)]
