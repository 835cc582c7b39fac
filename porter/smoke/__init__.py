"""``porter smoke``: does this machine's GPU stack train a LoRA fine-tune, how fast, and is anything misconfigured.

Public API (no torch import at package import):
    SmokeOptions, SmokeError                     options and the one-line error
    run_smoke(opts, emit=print) -> dict          the report (see porter.smoke.report.SCHEMA)
    report.format_text(rep), report.write_json(rep, path), report.parse_progress_line(line)
    nccl.parse_transports(lines), nccl.transport_warnings(summary)
    llamafactory.write_inputs / read_logs / logs_to_report
    declare.has_declaration(root), smoke_command(root) -> (argv, label)   for the review app's `t`
    --project DIR: porter.smoke.portrun (the project's ops swapped into the model, parity, loss comparison)
"""

from __future__ import annotations

from typing import Callable

from porter.smoke.options import SmokeError, SmokeOptions, SmokeUsageError

__all__ = ["SmokeError", "SmokeOptions", "SmokeUsageError", "run_smoke", "smoke_command"]


def smoke_command(project_root, steps: int = 20, python: str | None = None) -> tuple[list[str], str]:
    """The `porter smoke` command line for a project, and a label saying which smoke test it is.

    With a porter.toml [smoke] table at project_root: the project's smoke test (its ops in the loop);
    otherwise the built-in one.  No torch import; the caller runs the argv (e.g. through porter.proc)."""
    import sys  # noqa: PLC0415

    from porter.smoke.declare import has_declaration  # noqa: PLC0415

    argv = [python or sys.executable, "-m", "porter", "smoke", "--steps", str(steps)]
    if project_root is not None and has_declaration(project_root):
        return argv + ["--project", str(project_root)], f"project smoke test ({project_root}/porter.toml [smoke])"
    return argv, "built-in smoke test (the project declares no [smoke] in porter.toml)"


def run_smoke(opts: SmokeOptions, emit: Callable[[str], None] | None = print) -> dict:
    """Run the smoke test described by opts; progress lines go to emit.  Raises SmokeError for bad input."""
    opts.check()
    if opts.project is not None:
        from porter.smoke import portrun  # noqa: PLC0415

        return portrun.run(opts, opts.project, emit=emit, cache=opts.build_cache)
    if opts.backend == "llamafactory":
        from porter.smoke import llamafactory  # noqa: PLC0415

        return llamafactory.run(opts, emit=emit)
    if opts.model != "tiny":
        from porter.smoke import hf  # noqa: PLC0415

        hf.check_model_folder(opts.model)  # before the slow imports
        hf.import_hf()
    if opts.nproc == 1 and opts.nnodes == 1:
        from porter.smoke import train  # noqa: PLC0415

        return train.run(opts, emit=emit)
    from porter.smoke import dist  # noqa: PLC0415

    gpu = False
    if opts.device != "cpu":
        from porter.smoke.device import detect  # noqa: PLC0415
        from porter.smoke.torchload import import_torch  # noqa: PLC0415

        torch = import_torch()
        dev = detect(opts.device, torch=torch)
        gpu = dev.backend != "cpu"
        if gpu and torch.cuda.device_count() < opts.nproc:
            raise SmokeError(f"--nproc {opts.nproc}: only {torch.cuda.device_count()} GPU(s) visible; "
                             "lower --nproc or check HIP_VISIBLE_DEVICES/CUDA_VISIBLE_DEVICES")
    return dist.launch(opts, emit=emit, gpu=gpu)
