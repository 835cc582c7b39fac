"""``porter smoke --project DIR``: the smoke fine-tune with the project's own ops in the loop.

1. Read DIR/porter.toml [smoke] (porter.smoke.declare) and the extensions (setup.py, read not run).
2. Decide what can run here (porter.smoke.extbuild.unavailable): a CppExtension always; a CUDA/HIP
   extension needs a GPU torch of the right kind and a GPU.
3. Build what can run (cached), import it, check each op's parity against the reference on the same
   inputs (porter.smoke.parity), forward and backward, per dtype.
4. Train N steps of the reference model and N steps with the ops swapped in (porter.smoke.swap), same
   seed and data, and compare the loss trajectories (max |delta loss| against a tolerance).
When no declared op can run here, the plain smoke test runs instead and the verdict is
``not_exercised`` (exit 3 from the CLI), never a pass.  The report is the port run's (or the plain
run's) report with a ``port`` section (porter.smoke.report.PORT_KEYS).
"""

from __future__ import annotations

import dataclasses
import importlib
import os
import sys
import time
from pathlib import Path
from typing import Callable

from porter.smoke import declare, extbuild, report as srep, setupread
from porter.smoke import ops as sops
from porter.smoke.options import SmokeError, SmokeOptions, SmokeUsageError

Emit = Callable[[str], None]


def extensions(decl: declare.Declaration) -> list[setupread.ExtensionSpec]:
    if decl.setup:
        return setupread.read(decl.root / decl.setup, decl.root)
    kind = "cuda" if any(Path(s).suffix in extbuild.GPU_SUFFIXES for s in decl.sources) else "cpp"
    return [setupread.ExtensionSpec(name=decl.name, kind=kind, sources=decl.sources, extra_cflags=decl.extra_cflags,
                                    extra_cuda_cflags=decl.extra_cuda_cflags, extra_ldflags=decl.extra_ldflags,
                                    extra_include_paths=decl.extra_include_paths, origin=str(decl.file.name))]


def _owner(op: declare.OpDecl, exts: list[setupread.ExtensionSpec]):
    """The extension an op's call names (None: a Python module of the project, which may use any of them)."""
    for e in exts:
        if op.module in (e.name, e.module_name):
            return e
    return None


def _forget_other_projects(root: Path) -> None:
    """Drop imported modules named like a Python module of ROOT but loaded from elsewhere (another project run
    earlier in this process): the op's module and the project modules it imports must be ROOT's own.  Modules
    of the Python installation (the standard library, site-packages), built-in ones and porter's are left alone."""
    own = (str(root) + os.sep, str(root.resolve()) + os.sep)  # with the separator: not also ROOT2/
    installed = tuple({sys.prefix, sys.base_prefix, sys.exec_prefix})
    for name in list(sys.modules):
        top = name.partition(".")[0]
        if top == __name__.partition(".")[0]:
            continue  # porter itself, whatever the project holds
        if not ((root / f"{top}.py").is_file() or (root / top / "__init__.py").is_file()):
            continue
        where = str(getattr(sys.modules[name], "__file__", "") or "")
        if where and not where.startswith(own) and not where.startswith(installed):
            del sys.modules[name]


def _resolve(op: declare.OpDecl, modules: dict, root: Path):
    mod = modules.get(op.module)
    if mod is None:
        _forget_other_projects(root)
        saved, sys.dont_write_bytecode = sys.dont_write_bytecode, True  # never write __pycache__ into the project
        sys.path.insert(0, str(root))
        try:
            mod = importlib.import_module(op.module)
        except Exception as exc:  # noqa: BLE001 - the project's own code
            raise SmokeError(f"{op.slot}: cannot import {op.module} for {op.call}: {type(exc).__name__}: {exc}") from None
        finally:
            sys.path.remove(str(root))
            sys.dont_write_bytecode = saved
    fn = getattr(mod, op.function, None)
    if not callable(fn):
        names = sorted(n for n in dir(mod) if not n.startswith("_"))
        raise SmokeError(f"{op.slot}: {op.module} has no function {op.function!r} (it has: {', '.join(names)[:200]})")
    return fn


def _op_entry(op: declare.OpDecl) -> dict:
    return {"slot": op.slot, "call": op.call, "reference": op.reference,
            "formula": sops.SLOTS[op.slot].references[op.reference].formula, "replaces": sops.SLOTS[op.slot].replaces,
            "forward_only": op.forward_only, "exercised": False, "skipped": None, "parity": [], "parity_ok": None,
            "problem": None, "used_in": [], "reference_in": [], "eval_used_in": []}


def run(opts: SmokeOptions, project: str | Path, *, emit: Emit | None = print, cache: str | Path | None = None,
        cancel=None) -> dict:
    if opts.backend != "builtin" or opts.model != "tiny" or opts.nproc != 1:
        raise SmokeUsageError("--project runs the built-in tiny model in one process: leave out --model, --backend "
                              "and --nproc")
    decl = declare.load(project)
    exts = extensions(decl)
    for op in decl.ops:
        rel = Path(*op.module.split("."))
        if _owner(op, exts) is None and not ((decl.root / rel).with_suffix(".py").is_file()
                                             or (decl.root / rel / "__init__.py").is_file()):
            raise declare.DeclarationError(
                f"{decl.file}: [smoke.ops] {op.slot} call {op.call!r}: no extension {op.module!r} and no Python "
                f"module {rel}.py in the project (extensions: {', '.join(e.name for e in exts)})")

    from porter.smoke import train  # noqa: PLC0415
    from porter.smoke.device import detect  # noqa: PLC0415
    from porter.smoke.torchload import import_torch  # noqa: PLC0415

    host_only = opts.device == "auto" and not any(extbuild.is_gpu(e) for e in exts)
    if host_only:  # CppExtensions are host code: their ops get CPU tensors unless --device cuda says otherwise
        opts = dataclasses.replace(opts, device="cpu")
    torch = import_torch()
    dev = detect(opts.device, torch=torch)
    port = {"project": str(decl.root), "declaration": str(decl.file), "torch_build": extbuild.torch_build(torch),
            "exercised": False, "not_exercised": [], "extensions": [], "ops": [_op_entry(o) for o in decl.ops],
            "model_activation": sops.model_activation(decl.ops), "loss_reference": [], "loss_port": [],
            "max_abs_dloss": None, "dloss_step": None, "loss_tolerance": None, "loss_ok": None,
            "eval_loss_reference": None, "eval_loss_port": None, "eval_ok": None, "build_error": None}
    why: dict[str, str] = {}
    for e in exts:
        lang = extbuild.language(e, decl.root)
        reason = extbuild.unavailable(e, lang, torch, dev.backend != "cpu")
        port["extensions"].append({"name": e.name, "kind": e.kind, "language": lang or "c++", "origin": e.origin,
                                   "sources": list(e.sources), "built": False, "cached": None, "build_s": None,
                                   "build_dir": None, "log": None, "skipped": reason, "notes": list(e.notes)})
        if reason:
            why[e.name] = reason
    # which ops can run: their extension builds here (a Python-module op needs every extension)
    runnable = []
    for op, entry in zip(decl.ops, port["ops"]):
        owner = _owner(op, exts)
        blockers = [why[e.name] for e in ([owner] if owner else exts) if e.name in why]
        if blockers:
            entry["skipped"] = blockers[0]
        else:
            runnable.append((op, entry))
    needed = {e.name for e in exts if e.name not in why} if runnable else set()
    for reason in dict.fromkeys(why.values()):
        port["not_exercised"].append(reason)

    built_modules: dict = {}
    for e, info in zip(exts, port["extensions"]):
        if e.name not in needed:
            continue
        try:
            b = extbuild.build(e, decl.root, torch=torch, cache=cache, timeout_s=opts.timeout_s, cancel=cancel, emit=emit)
        except extbuild.ExtBuildError as exc:
            info["log"] = exc.log
            port["build_error"] = str(exc)
            return _failed(opts, dev, port)
        info.update(built=True, cached=b.cached, build_s=b.seconds, build_dir=b.build_dir, log=b.log,
                    notes=list(b.spec.notes))
        if emit:
            emit(f"extension {e.name}: up to date in {b.build_dir}" if b.cached
                 else f"extension {e.name}: built in {b.seconds:.1f} s")
        mod = extbuild.import_built(b)
        built_modules[e.name] = mod
        built_modules[e.module_name] = mod

    device = torch.device(dev.device)
    default_dtypes = ("fp32", "bf16") + (("fp16",) if dev.backend != "cpu" else ())
    swapped = []
    for op, entry in runnable:
        try:
            fn = _resolve(op, built_modules, decl.root)
        except SmokeError as exc:
            entry["problem"] = str(exc)
            entry["parity_ok"] = False
            continue
        from porter.smoke import parity  # noqa: PLC0415

        entry["parity"] = parity.check(torch, fn, op, device, op.dtypes or default_dtypes)
        entry["parity_ok"] = all(parity.entry_ok(x) for x in entry["parity"])
        entry["problem"] = parity.describe_failure(op, entry["parity"])
        if emit:
            emit(f"parity {op.slot} ({op.call}): ok" if entry["parity_ok"] else f"parity FAILS: {entry['problem']}")
        swapped.append((op, fn, entry))
    def note(rep: dict) -> dict:
        if host_only and torch.cuda.is_available():
            rep["warnings"].append("the project's extensions are CppExtensions (host code), so the smoke test ran on "
                                   "the CPU; --device cuda passes them GPU tensors")
        return rep

    if not swapped:
        if emit:
            emit("port not exercised here: " + "; ".join(port["not_exercised"] or ["no op could be called"])
                 + "; running the plain smoke test")
        rep = note(train.run(opts, emit=emit))
        rep["port"] = port
        return srep.judge(rep)

    from porter.smoke import model as smodel  # noqa: PLC0415
    from porter.smoke import swap  # noqa: PLC0415

    cfg = smodel.TinyConfig(mlp_act=port["model_activation"])
    if emit:
        emit(f"reference run: the smoke model's own modules (MLP activation {cfg.mlp_act})")
    ref = train.run(opts, emit=emit, tiny_config=cfg, collect_smi=False, start_time=time.time(),
                    before_eval=lambda: None)
    if ref.get("error") == "interrupted":
        ref["port"] = port
        return srep.judge(ref)
    usage = swap.Usage()
    if emit:
        emit("port run: " + ", ".join(f"{op.call} in {op.slot}" for op, _, _ in swapped))
    rep = train.run(opts, emit=emit, tiny_config=cfg, patch_model=swap.patcher([(o, f) for o, f, _ in swapped], usage),
                    start_time=time.time(),  # "first step after" counts from this run's start, not the build
                    before_eval=usage.start_eval)
    for op, _, entry in swapped:
        entry["used_in"] = sorted({p for s, p in usage.port if s == op.slot})
        entry["reference_in"] = sorted({p for s, p in usage.reference if s == op.slot} - set(entry["used_in"]))
        entry["eval_used_in"] = sorted({p for s, p in usage.eval_port if s == op.slot})
        entry["exercised"] = bool(entry["used_in"] or entry["eval_used_in"])
        if op.forward_only and not entry["used_in"]:
            rep["warnings"].append(f"{op.slot} ({op.call}) is forward-only and a gradient flows through every "
                                   f"{op.slot} of the model: training never ran it, only the no-gradient batch "
                                   "after training did")
        if not entry["exercised"]:
            port["not_exercised"].append(f"{op.slot} ({op.call}) never ran in the model")
    port["exercised"] = True
    port["loss_reference"] = list(ref["losses"])
    port["loss_port"] = list(rep["losses"])
    port["loss_tolerance"] = decl.loss_tolerance or sops.LOSS_TOL.get(rep["dtype"], 5e-2)
    if ref.get("error"):
        rep.setdefault("warnings", []).append(f"the reference run failed: {ref['error']}")
    pairs = list(zip(ref["losses"], rep["losses"]))
    if pairs:
        deltas = [abs(a - b) for a, b in pairs]
        worst = max(range(len(deltas)), key=lambda i: (deltas[i] != deltas[i], deltas[i]))
        port["max_abs_dloss"] = deltas[worst]
        port["dloss_step"] = worst + 1
        port["loss_ok"] = all(d <= port["loss_tolerance"] for d in deltas) and len(ref["losses"]) == len(rep["losses"])
    note(rep)
    port["eval_loss_reference"], port["eval_loss_port"] = ref.get("eval_loss"), rep.get("eval_loss")
    if port["eval_loss_reference"] is not None and port["eval_loss_port"] is not None:
        port["eval_ok"] = abs(port["eval_loss_port"] - port["eval_loss_reference"]) <= port["loss_tolerance"]
    rep["port"] = port
    return srep.judge(rep)


def _failed(opts: SmokeOptions, dev, port: dict) -> dict:
    rep = srep.empty_report(model="tiny", device=dev.device, device_name=dev.name, backend=dev.backend, arch=dev.arch,
                            torch=dev.torch, hip=dev.hip, cuda=dev.cuda, steps=opts.steps, batch_size=opts.batch_size,
                            seq_len=opts.seq_len, error=port["build_error"])
    rep["port"] = port
    return srep.judge(rep)
