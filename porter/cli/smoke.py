"""``porter smoke``: LoRA fine-tune smoke test of this machine's GPU stack (engine: porter.smoke)."""

from __future__ import annotations

import sys


def register(subparsers):
    p = subparsers.add_parser(
        "smoke", help="LoRA fine-tune smoke test: does this GPU stack train, how fast, is anything misconfigured",
        description="Train LoRA adapters for a few steps and report speed, memory and a verdict. "
                    "Prints one progress line per step: 'step 3/20 loss 5.4123 step_time 0.041s'.")
    p.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"],
                   help="cuda also means ROCm GPUs (PyTorch's device name); default: a GPU if torch sees one")
    p.add_argument("--steps", type=int, default=20, help="training steps (default 20)")
    p.add_argument("--nproc", type=int, default=1, help="processes (ranks) through torch.distributed (default 1)")
    p.add_argument("--nnodes", type=int, default=None, metavar="N",
                   help="hosts taking part, each running porter smoke with its own --node-rank (torchrun's c10d "
                        "rendezvous; default: NNODES from the environment, as LLaMA-Factory reads it, else 1)")
    p.add_argument("--node-rank", type=int, default=None, metavar="I", help="this host's place, 0..N-1 (default: NODE_RANK)")
    p.add_argument("--rdzv-endpoint", metavar="HOST:PORT",
                   help="where node 0 listens for the rendezvous (default: MASTER_ADDR:MASTER_PORT, port 29500)")
    p.add_argument("--dtype", choices=["bf16", "fp32"], default=None,
                   help="default: bf16 autocast where the GPU supports it, fp32 on CPU")
    p.add_argument("--model", default="tiny", help="'tiny' (built in, no download) or a local Hugging Face model folder")
    p.add_argument("--size", default="tiny", choices=["tiny", "llama3-8b"],
                   help="the built-in model's shape, random weights, nothing downloaded: tiny (3 M parameters) or "
                        "llama3-8b (Meta-Llama-3-8B's shape, 8.03 B parameters; refused where its weights do not fit)")
    p.add_argument("--layers", type=int, default=None, metavar="N",
                   help="--size: keep the first N layers (llama3-8b with 2 layers: 1.49 B parameters)")
    p.add_argument("--backend", default="builtin", choices=["builtin", "llamafactory"],
                   help="builtin loop, or llamafactory-cli train on --model PATH")
    p.add_argument("--batch-size", type=int, default=None, help="sequences per step per rank (default 4)")
    p.add_argument("--seq-len", type=int, default=None, help="tokens per sequence (default 128)")
    p.add_argument("--lr", type=_learning_rate, default=None, help="adapter learning rate (builtin; default 2e-3)")
    p.add_argument("--timeout", type=float, default=900.0, help="limit for multi-process and LLaMA-Factory runs, seconds")
    p.add_argument("--no-baseline", action="store_true", help="multi-process: skip the 1-process run for scaling efficiency")
    p.add_argument("--template", default=None, help="LLaMA-Factory chat template (default 'default')")
    p.add_argument("--deepspeed", action="store_true",
                   help="LLaMA-Factory: add porter's DeepSpeed ZeRO-3 config (unless --config names one)")
    p.add_argument("--config", metavar="YAML",
                   help="LLaMA-Factory: your own training config (and the DeepSpeed JSON it names), run as it is but "
                        "for what a smoke run must override (max_steps, output_dir, logging, report_to, saving); "
                        "relative paths resolve from the current folder")
    p.add_argument("--require-flash-attn", action="store_true",
                   help="LLaMA-Factory: fail unless FlashAttention-2 ran (also when the config says flash_attn: fa2)")
    p.add_argument("--json", metavar="FILE", help="also write the report as JSON (atomically)")
    p.add_argument("--project", metavar="DIR",
                   help="build DIR's extension (porter.toml [smoke]) and train with its ops swapped in, against the "
                        "reference; exit 3 when the port cannot run here ('port not exercised')")
    p.add_argument("--build-cache", metavar="DIR", help="--project: extension build cache (default ~/.cache/porter/smoke-ext)")
    p.set_defaults(run=run)


def _nodes(args) -> dict:
    """--nnodes/--node-rank/--rdzv-endpoint, else the variables a multi-node LLaMA-Factory or torchrun
    user already sets (NNODES, NODE_RANK, MASTER_ADDR, MASTER_PORT): never ignored, never a silent
    one-node run."""
    import os

    from porter.cli.main import UsageError

    def number(flag: str, given, var: str, default: int) -> int:
        if given is not None:
            return given
        text = os.environ.get(var, "").strip()
        if not text:
            return default
        if not text.isdigit():
            raise UsageError(f"smoke: {var}={text!r} in the environment is not a number (it gives {flag})")
        return int(text)

    nnodes = number("--nnodes", args.nnodes, "NNODES", 1)
    endpoint = args.rdzv_endpoint
    if endpoint is None and nnodes > 1 and os.environ.get("MASTER_ADDR"):
        endpoint = f"{os.environ['MASTER_ADDR']}:{os.environ.get('MASTER_PORT') or 29500}"
    return {"nnodes": nnodes, "node_rank": number("--node-rank", args.node_rank, "NODE_RANK", 0), "rdzv_endpoint": endpoint}


def _learning_rate(text: str) -> float:
    """A finite number above 0 (``nan``, ``inf`` and ``0`` train nothing and would still print steps)."""
    import argparse
    import math

    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a finite number above 0, not {text!r}")
    return value


def _json_target(path: str) -> str | None:
    """Why the --json report cannot be written at ``path`` (its folder must exist: none is created), or None."""
    import os

    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        return f"--json {path}: the folder {folder} does not exist"
    if os.path.isdir(path):
        return f"--json {path}: is a folder"
    return None


def run(args) -> int:
    from porter.cli.main import UsageError

    if args.json and (problem := _json_target(args.json)):
        raise UsageError(f"smoke: {problem}")
    from porter.smoke import SmokeError, SmokeOptions, SmokeUsageError, run_smoke
    from porter.smoke import report as srep

    if args.config:  # the user's config says these; a smoke run overrides only what it must
        given = [flag for flag, v in (("--batch-size", args.batch_size), ("--seq-len", args.seq_len), ("--lr", args.lr),
                                      ("--template", args.template), ("--dtype", args.dtype)) if v is not None]
        if given:
            raise UsageError(f"smoke: --config {args.config}: {', '.join(given)} would override your config; "
                             "set it in the config (porter overrides only max_steps, output_dir, logging, report_to "
                             "and saving)")
    optional = {k: v for k, v in (("batch_size", args.batch_size), ("seq_len", args.seq_len), ("lr", args.lr),
                                  ("template", args.template)) if v is not None}
    nodes = _nodes(args)
    opts = SmokeOptions(device=args.device, steps=args.steps, nproc=args.nproc, dtype=args.dtype, model=args.model,
                        backend=args.backend, timeout_s=args.timeout, baseline=not args.no_baseline,
                        deepspeed=args.deepspeed, project=args.project, build_cache=args.build_cache,
                        config=args.config, require_flash_attn=args.require_flash_attn,
                        json_path=args.json, size=args.size, layers=args.layers, **nodes, **optional)
    previous = _sigterm_interrupts()
    try:
        rep = run_smoke(opts, emit=lambda line: print(line, flush=True))
    except KeyboardInterrupt:  # before any step ran (loading, building): still a report and a line
        _error_json(args.json, opts, "interrupted")
        print("porter smoke: interrupted before training started; ranks and builds stopped", file=sys.stderr)
        return srep.EXIT_CODES["interrupted"]
    except SmokeUsageError as exc:
        _error_json(args.json, opts, str(exc))
        raise UsageError(f"smoke: {exc}") from None
    except SmokeError as exc:
        _error_json(args.json, opts, str(exc))
        print(f"porter smoke: error: {exc}", file=sys.stderr)
        return 1
    finally:
        _restore_sigterm(previous)
    print(srep.format_text(rep), flush=True)
    if rep.get("verdict") == "interrupted":
        print(f"porter smoke: interrupted after {rep.get('steps_done', 0)} of {rep.get('steps')} steps; ranks stopped"
              + (f"; partial report in {args.json}" if args.json else ""), file=sys.stderr)
    if args.json:
        try:
            srep.write_json(rep, args.json)
        except OSError as exc:
            print(f"porter smoke: error: cannot write {args.json}: {exc.strerror or exc}", file=sys.stderr)
            return 1
    return srep.EXIT_CODES.get(rep["verdict"], 1)


def _sigterm_interrupts():
    """SIGTERM (a job runner's stop) unwinds like Ctrl-C: ranks stopped, the report written marked interrupted.
    The previous handler, for _restore_sigterm (None off the main thread)."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return None

    def _term(signum, frame):
        raise KeyboardInterrupt

    return signal.signal(signal.SIGTERM, _term)


def _restore_sigterm(previous) -> None:
    import signal

    if previous is not None:
        signal.signal(signal.SIGTERM, previous)


def _error_json(path, opts, message: str):
    """A report that says why nothing ran, so a caller reading --json is not left without one."""
    if not path:
        return
    from porter.smoke import report as srep

    rep = srep.empty_report(model=opts.model, steps=opts.steps, batch_size=opts.batch_size, seq_len=opts.seq_len,
                            world_size=opts.nproc, error=message,
                            engine="llamafactory" if opts.backend == "llamafactory" else "builtin")
    try:
        srep.write_json(srep.judge(rep), path)
    except OSError:
        pass
