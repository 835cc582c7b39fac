"""``porter [PATH] [--output DIR]``: open the review app on a CUDA project.

No PATH: the bundled sample project sample_projects/warp_reduce.  Default
output: NAME-hip in the current directory (beside PATH when the current
directory is inside PATH: the source tree is never written to).  The session is kept in DIR/.porter/.  The target ROCm
comes from --target-rocm, else PATH/porter.toml ([port] target_rocm), else the newest."""

from __future__ import annotations

from pathlib import Path

from porter.cli.target import add_target_argument, project_options


def _sample() -> Path:
    return Path(__file__).resolve().parents[2] / "sample_projects" / "warp_reduce"


def register(subparsers) -> None:
    p = subparsers.add_parser("review", help="review a port side by side (the default command)",
                              description="Open the review app on a CUDA project folder: CUDA and HIP side by side.")
    p.add_argument("path", nargs="?", help="the CUDA project folder (default: the bundled sample warp_reduce)")
    p.add_argument("-o", "--output", help="output folder (default: NAME-hip in the current directory)")
    add_target_argument(p)
    p.add_argument("--arch", help="AMD GPU target the compile key builds for, e.g. gfx90a (default: the local GPU, "
                                  "else gfx942; kept in the session; the command palette changes it)")
    p.set_defaults(run=run)


def run(args) -> int:
    import contextlib

    from porter.cli.main import UsageError

    arch = getattr(args, "arch", None)
    from porter.cli.target import check_arch

    check_arch(arch)  # the one --arch check of every command (gfx9999: one line, exit 2)
    src = Path(args.path) if args.path else _sample()
    if not src.exists():
        raise UsageError(f"no such folder: {src}")
    if not src.is_dir():
        raise UsageError(f"{src} is a file; porter reviews a project folder (porter convert FILE converts one file)")
    src = src.resolve()
    out = Path(args.output).resolve() if args.output else default_output(src)
    if out == src:
        raise UsageError("the output folder must not be the source folder")
    from porter.project.output_path import overlap_problem

    problem = overlap_problem(src, out, "--output" if args.output else "the output") or \
        output_problem(out, "--output" if args.output else "the output")
    if problem:
        raise UsageError(problem)
    import importlib.util

    if importlib.util.find_spec("textual") is None:
        raise UsageError("the review app needs textual: No module named 'textual'")
    from porter.project.lock import FolderLocked, folder_lock

    made = not out.exists()
    try:
        # the output's lock, held while the app runs (as porter convert holds it): a second app (or a
        # convert) on this folder is refused, instead of the last to save wiping the other's decisions
        with folder_lock(out, "output folder"):
            options = project_options(src, args)
            project, store, messages = prepare(src, out, options)
            if arch is not None:
                project.build_arch = arch
            _run_app(project, store, messages)
    except FolderLocked as exc:
        raise UsageError(str(exc).replace("by another porter convert", "by another porter (a review app or a "
                                          "convert)")) from None
    finally:
        if made:
            with contextlib.suppress(OSError):
                out.rmdir()  # only if the app wrote nothing there
    return 0


def _run_app(project, store, messages) -> None:
    """The app on ``project``; its worker processes start, and convert the file shown first, before
    Textual is imported (a third of a second or more), so that the first diff is ready with the screen."""
    from porter.cli.main import UsageError
    from porter.tui.conversion import BackgroundConverter, first_file

    converter = BackgroundConverter(None, project)
    converter.prewarm(first_file(project))
    try:
        try:
            from porter.tui.app import PorterApp
        except ImportError as exc:
            raise UsageError(f"the review app needs textual: {exc}") from None
        app = PorterApp(project, store, messages, converter=converter)
    except BaseException:
        converter.stop()
        raise
    from porter.tui.app import ExitWatchdog

    app.exit_watchdog = ExitWatchdog(converter)  # SIGHUP/SIGTERM end porter even if the terminal is gone
    try:
        app.run()
    finally:
        app.exit_watchdog.cancel()


def output_problem(out: Path, what: str = "--output") -> str | None:
    """Why the review cannot keep its session and write the port in ``out`` (None: it can):
    ``out`` or a folder above it is a file, or the nearest existing folder cannot be written.
    Said at start: the app would open, keep nothing and fail at `w`."""
    import os

    if out.exists() and not out.is_dir():
        return f"{what} {out} is a file; the port is written into a folder (give a folder's path with -o)"
    parent = out
    while not parent.exists():
        if parent.parent == parent:
            return None
        parent = parent.parent
    if not parent.is_dir():
        return f"{what} {out}: {parent} is a file, so no folder can be made there"
    if not os.access(parent, os.W_OK | os.X_OK):
        where = "" if parent == out else f" (nor can {out} be made in it)"
        return f"{what} {out}: {parent} cannot be written{where}"
    return None


def default_output(src: Path, cwd: Path | None = None) -> Path:
    """NAME-hip in the current directory (not beside an installed package), or
    beside ``src`` when the current directory is ``src`` or inside it."""
    src = src.resolve()
    cwd = (cwd or Path.cwd()).resolve()
    if cwd == src or src in cwd.parents:
        return src.with_name(src.name + "-hip")
    return cwd / (src.name + "-hip")


def prepare(src: Path, out: Path, options=None):
    """The project under review, its session store, and the messages to show at start
    (a restored or an unreadable session)."""
    from porter.project.review_project import ReviewProject
    from porter.project.session import SessionStore

    project = ReviewProject(src, out, options)
    store = SessionStore(out)
    data, message = store.load(str(project.root))
    messages = [message] if message else []
    if data:
        n = project.restore(data)
        if n:
            messages.append(f"restored the review session of {n} file(s) from {store.path}")
    return project, store, messages
