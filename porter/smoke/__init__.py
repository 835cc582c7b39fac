"""``porter smoke``: does this machine's GPU stack train a LoRA fine-tune, how fast, and is anything misconfigured.

Public API (no torch import at package import):
    SmokeOptions, SmokeError                     options and the one-line error
    run_smoke(opts, emit=print) -> dict          the report (see porter.smoke.report.SCHEMA)
    report.format_text(rep), report.write_json(rep, path), report.parse_progress_line(line)
    nccl.parse_transports(lines), nccl.transport_warnings(summary)
    llamafactory.write_inputs / read_logs / logs_to_report
"""

from __future__ import annotations

from typing import Callable

from porter.smoke.options import SmokeError, SmokeOptions, SmokeUsageError

__all__ = ["SmokeError", "SmokeOptions", "SmokeUsageError", "run_smoke"]


def run_smoke(opts: SmokeOptions, emit: Callable[[str], None] | None = print) -> dict:
    """Run the smoke test described by opts; progress lines go to emit.  Raises SmokeError for bad input."""
    opts.check()
    if opts.backend == "llamafactory":
        from porter.smoke import llamafactory  # noqa: PLC0415

        return llamafactory.run(opts, emit=emit)
    if opts.model != "tiny":
        from porter.smoke import hf  # noqa: PLC0415

        hf.check_model_folder(opts.model)  # before the slow imports
        hf.import_hf()
    if opts.nproc == 1:
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
