"""``porter`` entry point: dispatches to the sub-command modules.

``porter [PATH] [--output DIR]`` with no sub-command opens the review app.
Exit codes: EXIT_CODES below (``porter --help`` prints them).
"""

from __future__ import annotations

import argparse
import errno
import importlib
import sys

# sub-command name -> module under porter.cli (each has register() and run())
COMMANDS = {
    "convert": "convert",
    "scan": "scan",
    "explain": "explain",
    "query": "query",
    "build": "build",
    "smoke": "smoke",
    "doctor": "doctor",
    "review": "review",
}


EXIT_CODES = (
    ("0", "success"),
    ("1", "some files or steps failed (scan --fail-on: a finding at that severity; query: an unknown name)"),
    ("2", "bad usage (a bad option or value, a missing path, an output folder that cannot be written)"),
    ("3", "smoke --project: the port could not run here ('port not exercised'), never a pass"),
    ("130", "interrupted (Ctrl-C)"),
    ("143", "terminated (SIGTERM)"),
)


class loading_modules:
    """``with loading_modules():`` around a command's imports: the cyclic garbage collector does not run
    while they load, and what they made (modules, classes, functions: some 100,000 objects, all kept to the
    end, none garbage) is moved out of its sight after (``gc.freeze``), so that no later collection walks
    it either; the collector is then on again as it was.  Those passes were a twentieth of a 1-line
    convert's time.  (Worker processes are forked: they start with the same frozen objects.)"""

    def __enter__(self):
        import gc

        self._collecting = gc.isenabled()
        gc.disable()
        return self

    def __exit__(self, *exc) -> None:
        import gc

        gc.freeze()
        if self._collecting:
            gc.enable()


class UsageError(Exception):
    """Bad command-line usage: printed as one line, exit code 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, exit 2
        self.exit(2, f"porter: error: {message}\n")


def _available(only: str | None = None) -> dict[str, object]:
    """The sub-command modules that are present (one that is not is left out); ``only``: that one command's
    module alone (a command line naming a command needs no other: start-up imports less)."""
    mods = {}
    for name, mod in COMMANDS.items():
        if only is not None and name != only:
            continue
        try:
            mods[name] = importlib.import_module(f"porter.cli.{mod}")
        except ModuleNotFoundError as exc:
            if exc.name != f"porter.cli.{mod}":
                raise
    return mods


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The command-line parser; ``only``: register that sub-command alone (its options, usage and errors are
    the same; `porter --help`, which lists every command, builds the parser with all of them; "": none)."""
    parser = _Parser(prog="porter", description="Port CUDA code to HIP/ROCm, review it, build it and smoke-test it.",
                     formatter_class=argparse.RawDescriptionHelpFormatter)
    from porter import __version__

    parser.add_argument("--version", action="version", version=f"porter {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    mods = _available(only) if only != "" else {}
    if only and not mods:  # that command is not installed: the error lists those that are
        return build_parser()
    for name, mod in mods.items():
        mod.register(sub)
    if only is None:
        parser.epilog = _epilog(sub.choices.get("review"))
    return parser


def _epilog(review: argparse.ArgumentParser | None) -> str:
    """The review app's options (it is what `porter PATH` runs) and the exit codes, for `porter --help`."""
    parts = []
    if review is not None:
        text = review.format_help()
        options = text[text.find("positional arguments:"):] if "positional arguments:" in text else ""
        options = "\n".join(line for line in options.splitlines()
                            if "show this help message" not in line and line.strip()
                            and line not in ("positional arguments:", "options:"))
        parts.append("the review app, the default command (as porter review; ? in the app lists its keys):\n"
                     "  porter [PATH] [-o OUTPUT] [--target-rocm X.Y] [--arch ARCH]\n" + options.rstrip())
    import textwrap

    width = max(len(code) for code, _ in EXIT_CODES)
    lines = [textwrap.fill(what, 76, initial_indent=f"  {code:>{width}}  ", subsequent_indent=" " * (width + 4))
             for code, what in EXIT_CODES]
    parts.append("exit codes:\n" + "\n".join(lines))
    return "\n\n".join(parts)


def main(argv: list[str] | None = None) -> int:
    """Run porter's command line: ``argv``, or this process's own arguments when None (the ``porter``
    program and ``python -m porter`` call it so)."""
    code = _main(list(sys.argv[1:] if argv is None else argv))
    if argv is None:
        # the process ends now: at exit the interpreter's collections would walk every object still held
        # (the mapping tables, every module's functions), a fifth of a 1-line convert's time; frozen objects
        # are left to the exit itself. Files are written and closed before this, so nothing waits on them.
        # Not for a caller that goes on (a test, another program calling main(ARGS)).
        import gc

        gc.freeze()
    return code


def _main(argv: list[str]) -> int:
    # `porter`, `porter PATH ...`: the review app
    if not argv or (argv[0] not in COMMANDS and argv[0] not in ("-h", "--help", "--version")):
        argv = ["review", *argv]
    # a command line naming a command registers that one alone; `porter --version` none (it prints and exits
    # before anything else is read, whatever follows); `porter --help` all of them (it lists them)
    with loading_modules():
        parser = build_parser(argv[0] if argv[0] in COMMANDS else "" if argv[0] == "--version" else None)
    args = parser.parse_args(argv)
    if not getattr(args, "command", None):
        parser.print_help()
        return 2
    with loading_modules():
        from porter.project.workers import Terminated, WorkerDied, sigterm_unwinds

    if args.command in ("convert", "scan"):
        sigterm_unwinds()
    try:
        code = int(args.run(args) or 0)
        sys.stdout.flush()  # what stays buffered is written now, where a failure can still be reported
        return code
    except BrokenPipeError:
        _discard_stdout()
        return 0
    except OSError as exc:
        if exc.filename is not None or exc.errno not in _FULL:
            raise
        _discard_stdout()  # a full disk under `porter ... > FILE`: the output is incomplete, say so
        print(f"porter: cannot write the output: {exc.strerror or exc}", file=sys.stderr)
        return 1
    except WorkerDied as exc:  # convert or scan of a folder: one line, the files left unfinished
        print(f"porter: {exc}", file=sys.stderr)
        return 1
    except UsageError as exc:
        print(f"porter: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("porter: interrupted", file=sys.stderr)
        return 130
    except Terminated:
        print("porter: terminated", file=sys.stderr)
        return 128 + 15


_FULL = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)  # stdout is a file on a full disk (or over its quota or size limit)


def _discard_stdout() -> None:
    """Point stdout at /dev/null, so that the interpreter's flush at exit does not fail a second time."""
    import os

    try:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, sys.stdout.fileno())
        os.close(fd)
    except (OSError, ValueError):
        pass
