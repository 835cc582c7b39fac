"""One rank of a multi-process smoke run: ``python -m porter.smoke.worker`` (started by porter.smoke.dist).

Reads its options from PORTER_SMOKE_OPTIONS (JSON) and torchrun-style RANK/WORLD_SIZE/LOCAL_RANK/
MASTER_ADDR/MASTER_PORT, trains, probes all-reduce bandwidth, and writes its report atomically to
PORTER_SMOKE_RESULT.  Rank 0 prints the progress lines.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from datetime import timedelta

from porter.smoke import report as srep
from porter.smoke.options import SmokeError, SmokeOptions

COMM_HINTS = ("connection closed", "connection reset", "broken pipe", "gloo", "nccl", "timed out", "peer")


def _on_term(signum, frame):
    raise KeyboardInterrupt


def allreduce_probe(torch, dist, device, world_size: int, *, size_mib: int, iters: int = 5) -> dict:
    n = size_mib * 2**20 // 4
    buf = torch.ones(n, dtype=torch.float32, device=device)
    sync = (lambda: torch.cuda.synchronize(device)) if device.type == "cuda" else (lambda: None)
    for _ in range(2):
        dist.all_reduce(buf)
    sync()
    t0 = time.perf_counter()
    for _ in range(iters):
        dist.all_reduce(buf)
    sync()
    dt = (time.perf_counter() - t0) / iters
    nbytes = n * 4
    algbw = nbytes / dt / 1e9
    return {"size_mib": size_mib, "time_s": round(dt, 6), "algbw_gbps": round(algbw, 4),
            "busbw_gbps": round(algbw * 2 * (world_size - 1) / world_size, 4)}


def main() -> int:
    signal.signal(signal.SIGTERM, _on_term)
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    local = int(os.environ.get("LOCAL_RANK", rank))
    out = os.environ["PORTER_SMOKE_RESULT"]
    t_launch = float(os.environ.get("PORTER_SMOKE_LAUNCH_T0", time.time()))
    opts = SmokeOptions.from_json(os.environ["PORTER_SMOKE_OPTIONS"])
    emit = (lambda line: print(line, flush=True)) if local == 0 else None  # each node's first rank
    rep = None
    try:
        from porter.smoke.torchload import import_torch  # noqa: PLC0415

        torch = import_torch()
        import torch.distributed as dist  # noqa: PLC0415

        from porter.smoke.device import detect  # noqa: PLC0415

        dev = detect(opts.device, index=local, torch=torch)
        backend = "gloo" if dev.backend == "cpu" else "nccl"  # nccl is RCCL on ROCm builds
        if dev.backend != "cpu":
            torch.cuda.set_device(local)
        timeout = timedelta(seconds=max(30.0, min(opts.timeout_s, 300.0)))
        kw = {"device_id": torch.device(f"cuda:{local}")} if dev.backend != "cpu" else {}
        try:
            dist.init_process_group(backend, rank=rank, world_size=world, timeout=timeout, **kw)
        except TypeError:  # torch < 2.3 has no device_id
            dist.init_process_group(backend, rank=rank, world_size=world, timeout=timeout)
        from porter.smoke import train  # noqa: PLC0415

        rep = train.run(opts, rank=rank, world_size=world, local_rank=local, emit=emit,
                        start_time=t_launch, distributed=world > 1)
        if world > 1 and rep["error"] is None and rep["nonfinite_step"] is None:
            device = torch.device(dev.device)
            rep["allreduce"] = allreduce_probe(torch, dist, device, world, size_mib=64 if dev.backend != "cpu" else 4)
        if opts.nnodes > 1 and rep["error"] is None and rep["nonfinite_step"] is None:
            rep["nodes"] = gather_nodes(dist, rep, rank, world, opts.node_rank)
        rep["ranks"] = [{"rank": rank, "pid": os.getpid(), "first_step_wall": (t_launch + rep["time_to_first_step_s"])
                         if rep["time_to_first_step_s"] is not None else None}]
        if rep["error"] and rep["error"] != "interrupted":
            rep["ranks"][0]["comm_error"] = any(h in rep["error"].lower() for h in COMM_HINTS)
        # The report is written before the process group is torn down: gloo's teardown can abort a
        # rank ("terminate called without an active exception") after every step has run, and the
        # launcher then tells a teardown crash (report present, no error) from a failed run.
        srep.write_json(rep, out)
        _teardown(dist, barrier=world > 1 and rep["error"] is None)
        return 0 if rep["error"] is None else 1
    except SmokeError as exc:
        _write_error(out, opts, rank, world, str(exc), comm=False)
        return 1
    except KeyboardInterrupt:
        _write_error(out, opts, rank, world, "interrupted", comm=False, partial=rep)
        return 130
    except Exception as exc:  # noqa: BLE001 - a rank reports why it failed instead of a bare traceback
        msg = f"{type(exc).__name__}: {str(exc).strip().splitlines()[0] if str(exc).strip() else ''}"[:300]
        comm = any(h in msg.lower() for h in COMM_HINTS) or "distributed" in type(exc).__module__
        _write_error(out, opts, rank, world, msg, comm=comm)
        return 1


def gather_nodes(dist, rep: dict, rank: int, world: int, node_rank: int) -> list[dict]:
    """Every rank's node, address and figures, gathered from all ranks (every node's report lists
    every node): [{node_rank, host, address, ranks, steps_done, step_time_s}] by node."""
    import socket  # noqa: PLC0415

    mine = {"rank": rank, "node_rank": node_rank, "host": socket.gethostname(),
            "address": os.environ.get("PORTER_SMOKE_NODE_ADDR") or None,
            "steps_done": rep["steps_done"], "step_time_s": rep["step_time_s"]}
    everyone: list = [None] * world
    dist.all_gather_object(everyone, mine)
    nodes: dict[int, dict] = {}
    for r in sorted((e for e in everyone if e), key=lambda e: e["rank"]):
        n = nodes.setdefault(r["node_rank"], {"node_rank": r["node_rank"], "host": r["host"], "address": r["address"],
                                              "ranks": [], "steps_done": r["steps_done"], "step_time_s": r["step_time_s"]})
        n["ranks"].append(r["rank"])
        n["steps_done"] = min(n["steps_done"] or 0, r["steps_done"] or 0)
        if r["step_time_s"] is not None:
            n["step_time_s"] = max(n["step_time_s"] or 0.0, r["step_time_s"])  # the node's slowest rank
    return [nodes[k] for k in sorted(nodes)]


def _teardown(dist, *, barrier: bool) -> None:
    """Leave the process group.  With a barrier first (when this rank succeeded), no rank destroys
    its group while a peer still has a collective or its connections in flight; a rank whose peer
    failed is stopped by the launcher, so the barrier cannot hang a run."""
    try:
        if barrier:
            dist.barrier()
        dist.destroy_process_group()
    except Exception:  # noqa: BLE001 - the report is already written
        pass


def _write_error(out: str, opts: SmokeOptions, rank: int, world: int, msg: str, *, comm: bool, partial=None):
    rep = partial or srep.empty_report(model=opts.model, steps=opts.steps, batch_size=opts.batch_size,
                                       seq_len=opts.seq_len, world_size=world)
    rep["error"] = msg
    rep["ranks"] = [{"rank": rank, "pid": os.getpid(), "comm_error": comm}]
    try:
        srep.write_json(srep.judge(rep), out)
    except OSError:
        pass


if __name__ == "__main__":
    sys.exit(main())
