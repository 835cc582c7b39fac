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
