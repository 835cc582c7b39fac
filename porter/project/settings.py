"""A project's porting settings: ``porter.toml`` at the CUDA project's root.

    [port]
    target_rocm = "6.1"   # the ROCm release the port must build with (default: the newest porter knows)
    roc = false           # map libraries to roc* (rocBLAS, rocSPARSE, ...) instead of hip*

    [test]
    command = "make test" # the project's own tests, run in the output folder by the
                          # review app's compile-and-test key (split like a shell, run without one)

The command line wins over the file (``--target-rocm``, ``--roc``).  A bad file is one
line naming the file and the key (``SettingsError``); a missing file is the defaults."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

FILE = "porter.toml"
_KEYS = {"target_rocm": str, "roc": bool}
TABLES = ("port", "test", "smoke")  # [smoke] is porter.smoke.declare's


def _nearest(name: str, known) -> str:
    import difflib

    close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.6)
    return f": did you mean {close[0]!r}?" if close else ""


class SettingsError(ValueError):
    """porter.toml cannot be used; the message is one line."""


@dataclass(frozen=True)
class PortSettings:
    target_rocm: str | None = None
    roc: bool = False
    test_command: str | None = None

    def test_argv(self) -> list[str] | None:
        """The [test] command as an argument list (no shell), None when there is none."""
        import shlex

        if not self.test_command:
            return None
        return shlex.split(self.test_command)

    def translate_options(self, target_rocm: str | None = None, roc: bool = False, **overrides):
        """TranslateOptions for these settings; a target or --roc given on the command line wins."""
        from porter.translate import TranslateOptions

        return TranslateOptions(roc=roc or self.roc, target_rocm=target_rocm or self.target_rocm, **overrides)


def load_settings(root: str | Path) -> PortSettings:
    path = Path(root) / FILE
    if not path.is_file():
        return PortSettings()
    import tomllib  # here: a project without porter.toml (most) does not pay for the parser

    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise SettingsError(f"{path}: cannot read: {exc}") from None
    except RecursionError:  # an array nested a thousand deep: tomllib recurses
        raise SettingsError(f"{path}: cannot read: values nested too deep") from None
    for table in doc:
        if table not in TABLES:  # a misspelt [ports] would silently drop its target release
            raise SettingsError(f"{path}: unknown table [{table}]{_nearest(table, TABLES)} "
                                f"(known: {', '.join(f'[{t}]' for t in TABLES)})")
    port = doc.get("port", {})
    if not isinstance(port, dict):
        raise SettingsError(f"{path}: [port] must be a table")
    for key, value in port.items():
        if key not in _KEYS:
            raise SettingsError(f"{path}: [port] has an unknown key {key!r}{_nearest(key, _KEYS)} "
                                f"(known: {', '.join(sorted(_KEYS))})")
        if not isinstance(value, _KEYS[key]):
            raise SettingsError(f"{path}: [port] {key} must be a {_KEYS[key].__name__}, not {value!r}")
    target = port.get("target_rocm")
    if target is not None:
        from porter.mapping import parse_target

        try:
            target = parse_target(target)
        except ValueError as exc:
            raise SettingsError(f"{path}: [port] {exc}".replace("--target-rocm ", "target_rocm ")) from None
    test = doc.get("test", {})
    if not isinstance(test, dict):
        raise SettingsError(f"{path}: [test] must be a table")
    for key, value in test.items():
        if key != "command":
            raise SettingsError(f"{path}: [test] has an unknown key {key!r}{_nearest(key, ('command',))} "
                                "(known: command)")
        if not isinstance(value, str) or not value.strip():
            raise SettingsError(f"{path}: [test] command must be a non-empty string, not {value!r}")
    command = test.get("command")
    if command is not None:
        import shlex

        try:
            shlex.split(command)
        except ValueError as exc:
            raise SettingsError(f"{path}: [test] command cannot be split: {exc}") from None
    return PortSettings(target_rocm=target, roc=port.get("roc", False), test_command=command)
