"""A project's smoke-test declaration: the ``[smoke]`` table of ``porter.toml`` at the project root.

    [smoke]
    setup = "setup.py"               # read (never run) for its CUDAExtension / CppExtension entries
    # or, instead of setup: the arguments of torch.utils.cpp_extension.load
    # name = "fused_ops"
    # sources = ["binding.cpp", "kernels.cu"]
    # extra_cflags = ["-O2"]   extra_cuda_cflags = []   extra_ldflags = []   extra_include_paths = []
    loss_tolerance = 0.05            # optional: max |loss(port) - loss(reference)| over the steps

    [smoke.ops]
    rms_norm = "fused_ops.rms_norm"  # short form: the op takes the slot's arguments in its order

    [smoke.ops.mlp_activation]       # long form
    call = "fused_ops.bias_gelu"     # EXTENSION.FUNCTION, or a Python module of the project and a function
    reference = "bias_gelu_tanh"     # which activation it computes (see porter.smoke.ops.SLOTS)
    args = ["x", "bias"]             # the slot's arguments in the order the op takes them
    output = 0                       # the op returns a tuple: use this element
    forward_only = true              # no backward: used only where no gradient flows through it
    dtypes = ["fp32", "bf16"]        # parity dtypes (default fp32 and bf16; fp16 too on a GPU)
    tolerance = { fp32 = [1e-3, 1e-2] }   # parity [atol, rtol] per dtype (defaults: porter.smoke.ops.PARITY_TOL)

``[port]`` (porter.project.settings) shares the file and ignores this table; this module ignores
``[port]``.  Every bad key or value is one line naming the file and the key (``DeclarationError``).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from porter.smoke.options import SmokeUsageError

FILE = "porter.toml"
DTYPES = ("fp32", "bf16", "fp16")

_TOP = {"setup": str, "name": str, "sources": list, "extra_cflags": list, "extra_cuda_cflags": list,
        "extra_ldflags": list, "extra_include_paths": list, "loss_tolerance": (int, float), "ops": dict}
_OP = {"call": str, "reference": str, "args": list, "output": int, "forward_only": bool, "dtypes": list,
       "tolerance": dict}
_TYPE_WORD = {str: "a string", list: "a list", dict: "a table", int: "an integer", bool: "true or false",
              (int, float): "a number"}


class DeclarationError(SmokeUsageError):
    """porter.toml [smoke] cannot be used; the message is one line naming the file and key."""


@dataclass(frozen=True)
class OpDecl:
    slot: str                      # rms_norm | mlp_activation
    call: str                      # "fused_ops.rms_norm"
    reference: str                 # the reference computation the op replaces (porter.smoke.ops)
    args: tuple[str, ...]          # slot argument names, in the op's order
    output: int | None = None      # index into a tuple result
    forward_only: bool = False
    dtypes: tuple[str, ...] | None = None   # None: the defaults for the device
    tolerance: tuple[tuple[str, float, float], ...] = ()  # (dtype, atol, rtol) overriding the defaults

    @property
    def module(self) -> str:
        return self.call.rpartition(".")[0]

    @property
    def function(self) -> str:
        return self.call.rpartition(".")[2]


@dataclass(frozen=True)
class Declaration:
    root: Path
    file: Path
    setup: str | None = None
    name: str | None = None
    sources: tuple[str, ...] = ()
    extra_cflags: tuple[str, ...] = ()
    extra_cuda_cflags: tuple[str, ...] = ()
    extra_ldflags: tuple[str, ...] = ()
    extra_include_paths: tuple[str, ...] = ()
    loss_tolerance: float | None = None
    ops: tuple[OpDecl, ...] = field(default_factory=tuple)


def has_declaration(root: str | Path) -> bool:
    """True when ROOT/porter.toml has a [smoke] table (cheap: no torch, no checks beyond reading TOML)."""
    path = Path(root) / FILE
    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return path.is_file()  # a broken file: let the smoke run say what is wrong with it
    return "smoke" in doc


def _is(value, types) -> bool:
    if isinstance(value, bool) and types is not bool:
        return False
    return isinstance(value, types)


def load(root: str | Path) -> Declaration:
    """Read and check ROOT/porter.toml [smoke]; DeclarationError (one line) for any problem."""
    from porter.smoke import ops as sops  # noqa: PLC0415 - the slot catalogue (no torch at import)

    root = Path(root)
    path = root / FILE
    if not root.is_dir():
        raise DeclarationError(f"--project {root}: not a folder")
    if not path.is_file():
        raise DeclarationError(f"--project {root}: no {FILE} (its [smoke] table declares the extension and the ops "
                               "it replaces; see the README's smoke-test section)")
    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise DeclarationError(f"{path}: cannot read: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise DeclarationError(f"{path}: not valid TOML: {exc}") from None
    if "smoke" not in doc:
        raise DeclarationError(f"{path}: no [smoke] table (it declares the extension to build and the ops it replaces)")
    sm = doc["smoke"]
    if not isinstance(sm, dict):
        raise DeclarationError(f"{path}: smoke must be a table ([smoke])")
    where = f"{path}: [smoke]"
    for key, value in sm.items():
        if key not in _TOP:
            raise DeclarationError(f"{where} has an unknown key {key!r} (known: {', '.join(sorted(_TOP))})")
        if not _is(value, _TOP[key]):
            raise DeclarationError(f"{where} {key} must be {_TYPE_WORD[_TOP[key]]}, not {value!r}")
    for key in ("sources", "extra_cflags", "extra_cuda_cflags", "extra_ldflags", "extra_include_paths"):
        if key in sm and not all(isinstance(v, str) and v for v in sm[key]):
            raise DeclarationError(f"{where} {key} must be a list of non-empty strings")
    if "setup" in sm and "sources" in sm:
        raise DeclarationError(f"{where} has both setup and sources: give one")
    if "setup" not in sm and "sources" not in sm:
        raise DeclarationError(f"{where} needs setup = \"setup.py\" (its CUDAExtension/CppExtension entries) "
                               "or sources = [...] with name = \"...\" (built with torch.utils.cpp_extension.load)")
    if "sources" in sm:
        if not sm["sources"]:
            raise DeclarationError(f"{where} sources is empty")
        if "name" not in sm:
            raise DeclarationError(f"{where} sources needs name = \"...\" (the module name the op calls use)")
        if not sm["name"].replace("_", "a").isalnum():
            raise DeclarationError(f"{where} name must be a Python identifier, not {sm['name']!r}")
        for src in sm["sources"]:
            if not (root / src).is_file():
                raise DeclarationError(f"{where} sources: {src} does not exist under {root}")
    else:
        if "name" in sm:
            raise DeclarationError(f"{where} name goes with sources; with setup the names come from setup.py")
        if not (root / sm["setup"]).is_file():
            raise DeclarationError(f"{where} setup: {sm['setup']} does not exist under {root}")
    tol = sm.get("loss_tolerance")
    if tol is not None and not tol > 0:
        raise DeclarationError(f"{where} loss_tolerance must be above 0, not {tol!r}")
    raw_ops = sm.get("ops")
    if not raw_ops:
        raise DeclarationError(f"{where} declares no ops: add [smoke.ops] with e.g. rms_norm = \"fused_ops.rms_norm\" "
                               f"(slots: {', '.join(sops.SLOTS)})")
    ops = tuple(_op(path, slot, value, sops) for slot, value in raw_ops.items())
    return Declaration(
        root=root, file=path, setup=sm.get("setup"), name=sm.get("name"), sources=tuple(sm.get("sources", ())),
        extra_cflags=tuple(sm.get("extra_cflags", ())), extra_cuda_cflags=tuple(sm.get("extra_cuda_cflags", ())),
        extra_ldflags=tuple(sm.get("extra_ldflags", ())), extra_include_paths=tuple(sm.get("extra_include_paths", ())),
        loss_tolerance=float(tol) if tol is not None else None, ops=ops)


def _op(path: Path, slot: str, value, sops) -> OpDecl:
    where = f"{path}: [smoke.ops] {slot}"
    if slot not in sops.SLOTS:
        raise DeclarationError(f"{path}: [smoke.ops] has an unknown slot {slot!r} (slots: {', '.join(sops.SLOTS)})")
    if isinstance(value, str):
        value = {"call": value}
    if not isinstance(value, dict):
        raise DeclarationError(f"{where} must be \"MODULE.FUNCTION\" or a table with call = ...")
    for key, v in value.items():
        if key not in _OP:
            raise DeclarationError(f"{where} has an unknown key {key!r} (known: {', '.join(sorted(_OP))})")
        if not _is(v, _OP[key]):
            raise DeclarationError(f"{where} {key} must be {_TYPE_WORD[_OP[key]]}, not {v!r}")
    call = value.get("call")
    if not call:
        raise DeclarationError(f"{where} needs call = \"MODULE.FUNCTION\"")
    mod, _, fn = call.rpartition(".")
    if not mod or not fn or not all(p.isidentifier() for p in call.split(".")):
        raise DeclarationError(f"{where} call must be MODULE.FUNCTION (e.g. \"fused_ops.rms_norm\"), not {call!r}")
    slot_def = sops.SLOTS[slot]
    reference = value.get("reference", slot_def.default_reference)
    if reference is None:
        raise DeclarationError(f"{where} needs reference = one of {', '.join(slot_def.references)} "
                               "(the computation the op replaces)")
    if reference not in slot_def.references:
        raise DeclarationError(f"{where} reference must be one of {', '.join(slot_def.references)}, not {reference!r}")
    ref = slot_def.references[reference]
    args = tuple(value.get("args", ref.args))
    unknown = [a for a in args if a not in ref.args]
    if unknown:
        raise DeclarationError(f"{where} args: {unknown[0]!r} is not an argument of {reference} "
                               f"(its arguments: {', '.join(ref.args)})")
    if len(set(args)) != len(args):
        raise DeclarationError(f"{where} args names an argument twice")
    missing = [a for a in ref.args if a not in args and a not in ref.optional]
    if missing:
        raise DeclarationError(f"{where} args leaves out {missing[0]!r}, which {reference} needs")
    output = value.get("output")
    if output is not None and output < 0:
        raise DeclarationError(f"{where} output must be 0 or more, not {output}")
    dtypes = value.get("dtypes")
    if dtypes is not None:
        bad = [d for d in dtypes if d not in DTYPES]
        if bad or not dtypes:
            raise DeclarationError(f"{where} dtypes must be a non-empty list of {', '.join(DTYPES)}"
                                   + (f", not {bad[0]!r}" if bad else ""))
        dtypes = tuple(dtypes)
    tol = []
    for dt, pair in (value.get("tolerance") or {}).items():
        if dt not in DTYPES:
            raise DeclarationError(f"{where} tolerance: {dt!r} is not a dtype ({', '.join(DTYPES)})")
        if not (isinstance(pair, list) and len(pair) == 2 and all(_is(x, (int, float)) and x >= 0 for x in pair)):
            raise DeclarationError(f"{where} tolerance {dt} must be [atol, rtol] (two numbers, 0 or more), not {pair!r}")
        tol.append((dt, float(pair[0]), float(pair[1])))
    return OpDecl(slot=slot, call=call, reference=reference, args=args, output=output,
                  forward_only=value.get("forward_only", False), dtypes=dtypes, tolerance=tuple(tol))
