"""The ``--target-rocm`` option, shared by convert, scan, build and the review app."""

from __future__ import annotations


def add_target_argument(parser) -> None:
    parser.add_argument(
        "--target-rocm", "--target-hip", dest="target_rocm", metavar="X.Y",
        help="the ROCm release the port must build with (default: the newest porter knows; MI300X needs 6.0 or "
             "newer; Debian 12's hipcc is 5.2): HIP APIs added later, or removed by then, are reported (PORT032), "
             "not emitted. --target-hip is the old name")


def target_from(args) -> str | None:
    """The checked target release, or None for the default; a bad value is a UsageError (one line, exit 2)."""
    from porter.cli.main import UsageError
    from porter.mapping import parse_target

    value = getattr(args, "target_rocm", None)
    if value is None:
        return None
    try:
        value = parse_target(value)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    note = newer_than_data(value)
    if note:
        import sys

        print(f"porter: note: {note}", file=sys.stderr)
    return value


def newer_than_data(target: str) -> str | None:
    """A one-line note when ``target`` is newer than the newest ROCm porter's mapping data describes."""
    from porter.mapping import NEWEST_ROCM, version_key

    if version_key(target)[:2] <= version_key(NEWEST_ROCM)[:2]:
        return None
    return (f"--target-rocm {target} is newer than porter's data (ROCm {NEWEST_ROCM}): porter assumes "
            f"{target} has the HIP APIs of {NEWEST_ROCM}, none added or removed since")


def check_arch(value: str | None, option: str = "--arch") -> None:
    """Raise UsageError (one line, exit 2) when ``value`` is not an AMD GPU target; None passes.
    The one check for every command's --arch (convert, build, the review app)."""
    if value is None:
        return
    from porter.build.targets import arch_problem_line
    from porter.cli.main import UsageError

    problem = arch_problem_line(value, option)
    if problem:
        raise UsageError(problem)


def project_options(root, args, **overrides):
    """TranslateOptions from the project's porter.toml, with --target-rocm / --roc on the command line winning."""
    from pathlib import Path

    from porter.cli.main import UsageError
    from porter.project.settings import SettingsError, load_settings

    root = Path(root)
    try:
        settings = load_settings(root if root.is_dir() else root.parent)
    except SettingsError as exc:
        raise UsageError(str(exc)) from None
    return settings.translate_options(target_from(args), bool(getattr(args, "roc", False)), **overrides)
