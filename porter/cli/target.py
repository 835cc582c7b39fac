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
        return parse_target(value)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


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
