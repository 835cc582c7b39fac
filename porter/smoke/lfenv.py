"""Which LLaMA-Factory a smoke run uses, and what its Python has.

``llamafactory-cli`` is looked for beside porter's own interpreter (``DIR/bin/porter`` of the environment
``scripts/setup_llamafactory.sh`` makes), on PATH, in ``$PORTER_LLAMAFACTORY_VENV`` and in the set-up script's
default ``.venv-lf`` beside porter's sources; failing those, ``python -m llamafactory.cli`` when porter's own
interpreter imports llamafactory.  Its interpreter (the script's ``#!`` line) is asked, in a subprocess that
imports neither torch nor LLaMA-Factory, whether deepspeed is installed at the version LLaMA-Factory requires
(read from LLaMA-Factory's own source), and reads/writes YAML with the PyYAML that LLaMA-Factory itself uses.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from porter.smoke.options import SmokeError
from porter.smoke.torchload import installed_torch_version

CLI = "llamafactory-cli"
SETUP_VENV = ".venv-lf"          # scripts/setup_llamafactory.sh's default
SOURCE_ROOT = Path(__file__).resolve().parents[2]
DEEPSPEED_SPEC = ">=0.10.0,<=0.16.9"  # LLaMA-Factory 0.9.3, hparams/parser.py; read from the installed source when it can be


@dataclass
class Install:
    argv: list[str]          # the command before "train CONFIG"
    where: str               # how it was found, for the report
    python: str | None       # its interpreter

    @property
    def bin_dir(self) -> str | None:
        """The folder of llamafactory-cli (its torchrun lives there too), or None for ``python -m``."""
        return str(Path(self.argv[0]).parent) if len(self.argv) == 1 else None


def _runnable(p: Path) -> bool:
    return p.is_file() and os.access(p, os.X_OK)


def interpreter_of(script: str | Path) -> str | None:
    """The Python a console script runs under: its ``#!`` line (``#!/usr/bin/env python3`` through PATH), else the
    ``python`` beside it; None when neither is there."""
    script = Path(script)
    try:
        with open(script, "rb") as fh:
            first = fh.readline(4096).decode("utf-8", "replace").strip()
    except OSError:
        first = ""
    if first.startswith("#!"):
        parts = first[2:].split()
        if parts and Path(parts[0]).name == "env" and len(parts) > 1:
            parts = [shutil.which(parts[1]) or parts[1]] + parts[2:]
        if parts and Path(parts[0]).name.startswith("python") and _runnable(Path(parts[0])):
            return parts[0]
    for name in ("python", "python3"):
        if _runnable(script.parent / name):
            return str(script.parent / name)
    return None


def candidates(executable: str | None = None, path: str | None = None) -> list[tuple[Path, str]]:
    """(llamafactory-cli, how it was found) in the order they are tried."""
    exe = Path(executable or sys.executable)  # not resolved: a venv's python is a link to the base interpreter
    out = [(exe.parent / CLI, f"beside porter's interpreter ({exe})")]
    on_path = shutil.which(CLI, path=path)
    if on_path:
        out.append((Path(on_path), "on PATH"))
    venv = os.environ.get("PORTER_LLAMAFACTORY_VENV")
    if venv:
        out.append((Path(venv) / "bin" / CLI, "in $PORTER_LLAMAFACTORY_VENV"))
    out.append((SOURCE_ROOT / SETUP_VENV / "bin" / CLI, f"in {SOURCE_ROOT / SETUP_VENV} (scripts/setup_llamafactory.sh)"))
    return out


def find(executable: str | None = None, path: str | None = None, *, module_fallback: bool = True) -> Install:
    """The LLaMA-Factory to run; SmokeError (one line, where it looked and how to install) when there is none."""
    tried = []
    for cli, where in candidates(executable, path):
        if _runnable(cli):
            return Install([str(cli)], where, interpreter_of(cli))
        tried.append(str(cli))
    if module_fallback:
        import importlib.util  # noqa: PLC0415

        if importlib.util.find_spec("llamafactory") is not None:
            exe = executable or sys.executable
            return Install([exe, "-m", "llamafactory.cli"], f"python -m llamafactory.cli ({exe} has llamafactory "
                           f"but no {CLI} script)", exe)
    raise SmokeError(missing_message(tried, executable))


def from_cli(cli: str) -> Install:
    """An Install for a given llamafactory-cli (tests, or a caller that knows it)."""
    return Install([str(cli)], "given", interpreter_of(cli))


def missing_message(tried: list[str] | None = None, executable: str | None = None) -> str:
    tv = installed_torch_version()
    pin = f"a constraints file with the line torch=={tv}" if tv else "a constraints file pinning your torch version"
    looked = (f"no {CLI} beside porter's interpreter, on PATH or in {SOURCE_ROOT / SETUP_VENV}, and "
              f"{executable or sys.executable} cannot import llamafactory")
    return (f"LLaMA-Factory is not installed ({looked}): pip install -c constraints.txt "
            f"-c constraints/llamafactory.txt 'hip-porter[llamafactory]' (LLaMA-Factory 0.9.3 and the versions "
            f"tested with it), where constraints.txt is {pin}, so pip does not replace your (ROCm) torch with a "
            f"CUDA build; or bash scripts/setup_llamafactory.sh for an environment of its own (.venv-lf)")


# ---- asking LLaMA-Factory's interpreter ------------------------------------------------------------------

_DEEPSPEED_PROBE = r"""
import importlib.metadata as m, importlib.util as u, json, re
out = {"found": u.find_spec("deepspeed") is not None, "version": None, "spec": None, "ok": None}
try:
    out["version"] = m.version("deepspeed")
except Exception:
    pass
try:
    lf = u.find_spec("llamafactory")
    src = open(lf.submodule_search_locations[0] + "/hparams/parser.py", encoding="utf-8").read()
    hit = re.search(r'check_version\(\s*"deepspeed([^"]*)"', src)
    out["spec"] = hit.group(1) if hit else None
except Exception:
    pass
if out["version"] and out["spec"]:
    try:
        from packaging.specifiers import SpecifierSet
        out["ok"] = SpecifierSet(out["spec"]).contains(out["version"], prereleases=True)
    except Exception:
        pass
print(json.dumps(out))
"""

_YAML_LOAD = ("import json, sys, yaml\n"
              "print(json.dumps(yaml.safe_load(open(sys.argv[1], encoding='utf-8').read()), default=str))\n")
_YAML_DUMP = ("import json, sys, yaml\n"
              "sys.stdout.write(yaml.safe_dump(json.loads(sys.stdin.read()), sort_keys=False, allow_unicode=True, "
              "default_flow_style=False))\n")


def _ask(python: str, code: str, *args: str, stdin: str | None = None, timeout: float = 60.0) -> str:
    p = subprocess.run([python, "-c", code, *args], input=stdin, capture_output=True, text=True, timeout=timeout,
                       env=dict(os.environ, PYTHONNOUSERSITE="1"))
    if p.returncode != 0:
        tail = [ln for ln in p.stderr.splitlines() if ln.strip()][-1:] or ["no output"]
        raise SmokeError(f"{python}: {tail[0][:300]}")
    return p.stdout


def deepspeed_check(inst: Install) -> tuple[str | None, str | None]:
    """(why deepspeed cannot run under LLaMA-Factory here, one line saying what to install, or None; its version)."""
    python = inst.python or sys.executable
    try:
        info = json.loads(_ask(python, _DEEPSPEED_PROBE).strip().splitlines()[-1])
    except (SmokeError, ValueError, IndexError, subprocess.TimeoutExpired) as exc:
        return f"cannot ask LLaMA-Factory's interpreter {python} about deepspeed: {exc}", None
    spec = info.get("spec") or DEEPSPEED_SPEC
    tv = installed_torch_version()
    how = (f"install it there: {python} -m pip install -c constraints.txt 'deepspeed{spec}' (constraints.txt: "
           f"torch=={tv or 'YOUR_TORCH_VERSION'}, so pip keeps your torch), or bash scripts/setup_llamafactory.sh")
    if not info.get("found"):
        return f"deepspeed is not installed in LLaMA-Factory's environment ({python}); {how}", None
    if info.get("ok") is False:
        return (f"deepspeed {info.get('version')} is installed in LLaMA-Factory's environment ({python}), but "
                f"LLaMA-Factory requires deepspeed{spec}; {how}"), info.get("version")
    return None, info.get("version")


def load_config(inst: Install, path: Path) -> dict:
    """The user's config as LLaMA-Factory reads it (hparams/parser.py read_args: yaml.safe_load for .yaml/.yml,
    json for .json)."""
    if path.suffix == ".json":
        data = json.loads(path.read_text(encoding="utf-8"))
    else:
        data = json.loads(_ask(inst.python or sys.executable, _YAML_LOAD, str(path)))
    if not isinstance(data, dict):
        raise ValueError("not a mapping of keys to values")
    return data


def dump_config(inst: Install, cfg: dict) -> str:
    """YAML text of cfg, written by the PyYAML LLaMA-Factory reads it back with."""
    return _ask(inst.python or sys.executable, _YAML_DUMP, stdin=json.dumps(cfg))
