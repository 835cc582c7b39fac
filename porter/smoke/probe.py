"""One rank of the all-reduce probe alone: ``python -m porter.smoke.probe`` (started by porter.smoke.dist.probe_allreduce).

The same environment and rendezvous as porter.smoke.worker (torchrun-style RANK/WORLD_SIZE/LOCAL_RANK,
MASTER_ADDR/MASTER_PORT, PORTER_SMOKE_OPTIONS, PORTER_SMOKE_RESULT), the same process group (gloo on a CPU,
nccl/RCCL on GPUs, NCCL_DEBUG=INFO set by the launcher for the transport check) and the same probe
(porter.smoke.worker.allreduce_probe), but no training: the LLaMA-Factory backend trains in LLaMA-Factory's
own processes and checks the collective fabric with this.
"""

from __future__ import annotations

import os
import signal
import sys
from datetime import timedelta

from porter.smoke import report as srep
from porter.smoke.options import SmokeOptions
from porter.smoke.worker import COMM_HINTS, _on_term, _teardown, _write_error, allreduce_probe


def main() -> int:
    signal.signal(signal.SIGTERM, _on_term)
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    local = int(os.environ.get("LOCAL_RANK", rank))
    out = os.environ["PORTER_SMOKE_RESULT"]
    opts = SmokeOptions.from_json(os.environ["PORTER_SMOKE_OPTIONS"])
    try:
        from porter.smoke.torchload import import_torch  # noqa: PLC0415

        torch = import_torch()
        import torch.distributed as dist  # noqa: PLC0415

        from porter.smoke.device import detect  # noqa: PLC0415

        dev = detect(opts.device, index=local, torch=torch)
        gpu = dev.backend != "cpu"
        if gpu:
            torch.cuda.set_device(local)
        timeout = timedelta(seconds=max(30.0, min(opts.timeout_s, 300.0)))
        dist.init_process_group("nccl" if gpu else "gloo", rank=rank, world_size=world, timeout=timeout)
        rep = srep.empty_report(engine=opts.backend, model=opts.model, device=dev.device, device_name=dev.name,
                                backend=dev.backend, arch=dev.arch, torch=dev.torch, world_size=world)
        rep["allreduce"] = allreduce_probe(torch, dist, torch.device(dev.device), world, size_mib=64 if gpu else 4)
        rep["ranks"] = [{"rank": rank, "pid": os.getpid()}]
        srep.write_json(rep, out)
        _teardown(dist, barrier=True)
        return 0
    except KeyboardInterrupt:
        _write_error(out, opts, rank, world, "interrupted", comm=False)
        return 130
    except Exception as exc:  # noqa: BLE001 - a rank reports why it failed instead of a bare traceback
        msg = f"{type(exc).__name__}: {str(exc).strip().splitlines()[0] if str(exc).strip() else ''}"[:300]
        comm = any(h in msg.lower() for h in COMM_HINTS) or "distributed" in type(exc).__module__
        _write_error(out, opts, rank, world, msg, comm=comm)
        return 1


if __name__ == "__main__":
    sys.exit(main())
