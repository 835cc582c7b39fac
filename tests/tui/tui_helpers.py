"""Helpers of the review-app tests: a copy of a sample project, an app on it,
and a fake findings scan (the real one is another helper's; its interface is
porter.findings.model)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from porter.findings.model import Finding, Fix, FixEdit

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "sample_projects" / "warp_reduce"


def tree_bytes(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def fake_scan(source: bytes, path=None, index=None, options=None, file=None):
    """One finding per `__syncwarp()` / `0xffffffff` (with a fix), like a lane-mask rule would."""
    out = []
    text = source
    for needle, rule, sev, fix_to in ((b"0xffffffff", "PORT900", "error", "0xffffffffffffffffull"),
                                       (b"warpSize", "PORT901", "warning", None)):
        pos = text.find(needle)
        while pos >= 0:
            line = text.count(b"\n", 0, pos) + 1
            col = pos - (text.rfind(b"\n", 0, pos) + 1) + 1
            fix = Fix(True, "use a 64-bit mask", (FixEdit(pos, pos + len(needle), fix_to),)) if fix_to else None
            out.append(Finding(rule, "lane-mask", sev, str(path), line, col, line, col + len(needle),
                               f"{needle.decode()} assumes a 32-lane warp", fix, pos, pos + len(needle)))
            pos = text.find(needle, pos + 1)
    return out


def notes(app) -> list[str]:
    return [str(n.message) for n in app._notifications]


def make_app(root: Path, out: Path | None = None, preload: bool = True, ask_to_run: bool = False):
    """The app as `porter ROOT --output OUT` builds it; ``preload`` converts every file first
    (deterministic tests), else files are converted in the background as in real use.
    ``ask_to_run``: c / T / t ask before running the project's code, as in real use; off by default,
    as if the user had allowed it in an earlier session (the question has its own tests,
    test_tui_trust.py; the tmux tests answer it)."""
    from porter.cli.review import prepare
    from porter.tui.app import PorterApp

    out = out or root.with_name(root.name + "-hip")
    project, store, messages = prepare(root, out)
    if preload:
        for fr in project.files:
            project.load_file(fr)
    # preloaded tests run without worker processes (faster to start); the others use them as in real use
    app = PorterApp(project, store, messages, convert_in_background=not preload, processes=not preload)
    app.animation_level = "none"
    app.ask_before_project_code = ask_to_run
    return app


def sync(fn):
    """Run an async test body with asyncio.run (no pytest-asyncio needed)."""
    import asyncio
    import functools

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return asyncio.run(fn(*args, **kwargs))

    return wrapper


async def started(pilot) -> None:
    """Wait until the app's main screen and its widgets are up."""
    while not pilot.app.started:
        await pilot.pause(0.01)


SIZE = (160, 45)  # terminal size of the Pilot tests


async def open_file(app, pilot, rel):
    """Start the app, open ``rel`` as a person would (tree selection), return its FileReview."""
    await started(pilot)
    app.open_file(rel)
    app.file_tree.select_file(rel)
    await pilot.pause()
    return app.project.by_rel[rel]


async def settle(app, pilot) -> None:
    """Let the app's workers finish and the screen catch up.  A worker of an exclusive group
    (the highlighting) is cancelled by design when a newer one replaces it: the newer one is
    waited for, the cancelled one is not (Textual's ``wait_for_complete`` raises on it); a worker
    that failed still fails the test."""
    from textual.worker import WorkerFailed, WorkerState

    while True:
        live = [w for w in app.workers if w.state in (WorkerState.PENDING, WorkerState.RUNNING)]
        if not live:
            break
        if any(w.state == WorkerState.PENDING for w in live):
            await pilot.pause()  # (a pending worker cannot be waited for yet)
            continue
        results = await asyncio.gather(*(w.wait() for w in live), return_exceptions=True)
        for r in results:
            if isinstance(r, WorkerFailed):
                raise r
    await pilot.pause()


async def quit_app(pilot) -> None:
    """`q`, and `y` when the app asks (work not written)."""
    await pilot.press("q")
    if pilot.app.is_running:
        await pilot.press("y")


async def edit_top(app, pilot, text_at_top: str) -> None:
    """`e`, type ``text_at_top`` as a new first line, save and close the editor."""
    from textual.widgets import TextArea

    await pilot.press("e")
    await pilot.pause()
    app.screen.query_one(TextArea).move_cursor((0, 0))
    await pilot.press(*text_at_top, "enter", "ctrl+s", "escape")
    await settle(app, pilot)


NEW_CUDA_LINE = "\n#define NEW_IN_CUDA cudaSuccess\n"


def add_cuda_line(path: Path) -> str:
    """Another editor saves ``path`` with a line added (its size changes too: mtime alone may tick
    coarsely); returns the text it had."""
    before = path.read_text()
    path.write_text(before + NEW_CUDA_LINE)
    return before
