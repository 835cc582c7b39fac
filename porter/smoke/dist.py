"""Multi-process smoke runs: spawn N ranks torchrun-style, watch them, merge their reports.

Each rank is ``python -m porter.smoke.worker`` in its own process group, with MASTER_ADDR=127.0.0.1
and the port of a rendezvous server this process holds; gloo on CPU, nccl (RCCL on ROCm) on GPUs.
If a rank dies the others are stopped and the report names the rank and why; Ctrl-C stops every
rank and keeps a partial report built from the progress lines seen so far.  Scaling efficiency compares against a 1-process run of the same per-rank work.
"""

from __future__ import annotations

import collections
import json
import os
import queue
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Callable

from porter.proc import popen, untrack
from porter.smoke import nccl
from porter.smoke import report as srep
from porter.smoke.netroute import route_to
from porter.smoke.options import SmokeError, SmokeOptions, process_start_time, rendezvous

GRACE_S = 3.0


def rendezvous_store(world_size: int, timeout_s: float, host: str = "127.0.0.1", port: int = 0):
    """(store, port): the ranks' rendezvous server, in this process, on ``port`` (0: one the system
    picks; several nodes: the --rdzv-endpoint's, which the other nodes' ranks connect to).

    The port is bound here before any rank starts and stays held until the run ends; the ranks
    connect to it as clients (TORCHELASTIC_USE_AGENT_STORE, what torchrun's agent does).  Picking a
    free port, closing it and letting rank 0 bind it later left a gap in which another process
    could take it (rank 0 then failed with "address already in use")."""
    from datetime import timedelta  # noqa: PLC0415

    from porter.smoke.torchload import import_torch  # noqa: PLC0415

    torch = import_torch()
    try:
        store = torch.distributed.TCPStore(host, port, world_size, is_master=True, wait_for_workers=False,
                                           timeout=timedelta(seconds=max(30.0, min(timeout_s, 300.0))))
    except (RuntimeError, OSError) as exc:  # the port is taken, or not ours to bind
        first = (str(exc).strip().splitlines() or [""])[0][:200]
        raise SmokeError(f"cannot listen for the rendezvous on port {port}: {first}") from None
    return store, store.port


def _describe_exit(code: int | None) -> str:
    if code is None:
        return "still running"
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exited with code {code}"


class _Rank:
    def __init__(self, rank: int, proc: subprocess.Popen, result: Path, local: int | None = None):
        self.rank, self.proc, self.result = rank, proc, result
        self.local = rank if local is None else local  # its index on this node
        self.tail: collections.deque[str] = collections.deque(maxlen=30)
        self.reader: threading.Thread | None = None


def _reader(r: _Rank, q: queue.Queue):
    assert r.proc.stdout is not None
    for line in r.proc.stdout:
        q.put((r.local, line.rstrip("\n")))
    q.put((r.local, None))


def _stop(ranks: list[_Rank]):
    """SIGTERM each rank's process group, then SIGKILL what is left after a grace period."""
    for r in ranks:
        if r.proc.poll() is None:
            try:
                os.killpg(r.proc.pid, signal.SIGTERM)
            except (ProcessLookupError, PermissionError):
                pass
    deadline = time.monotonic() + GRACE_S
    for r in ranks:
        try:
            r.proc.wait(timeout=max(0.05, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            try:
                os.killpg(r.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            r.proc.wait()
    for r in ranks:
        try:
            os.killpg(r.proc.pid, signal.SIGKILL)  # what a rank started, if anything is left of its group
        except (ProcessLookupError, PermissionError):
            pass
        untrack(r.proc)


def run_ranks(opts: SmokeOptions, nproc: int, *, emit: Callable[[str], None] | None, t0: float,
              gpu: bool, timeout_s: float, module: str = "porter.smoke.worker") -> dict:
    """Run nproc ranks to the end (or the first failure); return rank 0's report with the others merged in.

    module: what each rank runs (porter.smoke.probe: the all-reduce probe alone, for the LLaMA-Factory backend)."""
    world, first = nproc * opts.nnodes, opts.node_rank * nproc  # this node's ranks: first .. first + nproc - 1
    node_env: dict[str, str] = {}
    if opts.nnodes == 1:
        master = "127.0.0.1"
        store, port = rendezvous_store(nproc, timeout_s)  # held until this function returns
    else:  # torchrun's c10d shape: node 0 holds the store at the endpoint, every node's ranks connect to it
        master, port = rendezvous(opts.rdzv_endpoint)
        store = rendezvous_store(world, timeout_s, master, port)[0] if opts.node_rank == 0 else None
        address, ifname = route_to(master, port)
        node_env.update(NODE_RANK=str(opts.node_rank), GROUP_RANK=str(opts.node_rank),
                        PORTER_SMOKE_NODE_ADDR=address or "")
        if ifname and not gpu and "GLOO_SOCKET_IFNAME" not in os.environ:
            node_env["GLOO_SOCKET_IFNAME"] = ifname  # else gloo takes the host name's address, often a loopback one
    tmp = Path(tempfile.mkdtemp(prefix="porter-smoke-"))
    q: queue.Queue = queue.Queue()
    ranks: list[_Rank] = []
    base_env = dict(os.environ)
    base_env.update(MASTER_ADDR=master, MASTER_PORT=str(port), TORCHELASTIC_USE_AGENT_STORE="True",
                    WORLD_SIZE=str(world), LOCAL_WORLD_SIZE=str(nproc), PORTER_SMOKE_OPTIONS=opts.to_json(),
                    PORTER_SMOKE_LAUNCH_T0=repr(t0), PYTHONUNBUFFERED="1", **node_env)
    if gpu:
        base_env.setdefault("NCCL_DEBUG", "INFO")
    else:
        base_env.setdefault("OMP_NUM_THREADS", "1")
    progress: list[dict] = []
    nccl_lines: list[str] = []
    error = failed_rank = None
    interrupted = False
    teardown: list[_Rank] = []  # ranks that crashed after writing a successful report

    def take(local: int, line: str, echo: bool = True) -> None:
        """One line of a rank: NCCL's go to the transport check, the others to the rank's tail; the
        node's first rank's progress lines are the run's steps (shown as they come)."""
        if "NCCL INFO" in line or "NCCL WARN" in line:
            nccl_lines.append(line)
            return
        ranks[local].tail.append(line)
        p = srep.parse_progress_line(line) if local == 0 else None
        if p and (not progress or p["step"] > progress[-1]["step"]):
            progress.append(p)
            if emit and echo:
                emit(line)

    def drain(echo: bool = True) -> None:
        """The lines already read from the ranks' pipes and not yet taken."""
        while True:
            try:
                local, line = q.get_nowait()
            except queue.Empty:
                return
            if line is not None:
                take(local, line, echo)
    try:
        for local in range(nproc):
            rank = first + local
            env = dict(base_env, RANK=str(rank), LOCAL_RANK=str(local), PORTER_SMOKE_RESULT=str(tmp / f"rank{rank}.json"))
            # own group, registered with porter's reaper: the rank dies with the launcher, SIGKILL included
            proc = popen([sys.executable, "-m", module], env=env, stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1, errors="replace")
            r = _Rank(rank, proc, tmp / f"rank{rank}.json", local)
            r.reader = threading.Thread(target=_reader, args=(r, q), daemon=True)
            r.reader.start()
            ranks.append(r)
        deadline = time.monotonic() + timeout_s
        open_streams = nproc
        while True:
            try:
                rank, line = q.get(timeout=0.1)
            except queue.Empty:
                rank, line = None, None
            if line is not None:
                take(rank, line)
            elif rank is not None:
                open_streams -= 1
            codes = [r.proc.poll() for r in ranks]
            for r, c in zip(ranks, codes):
                if c not in (None, 0) and r not in teardown and _reported_success(r):
                    teardown.append(r)
            bad = [r for r, c in zip(ranks, codes) if c not in (None, 0) and r not in teardown]
            if bad:
                time.sleep(0.5)  # let the rank that caused it and its peers' reactions settle
                drain()  # the lines printed meanwhile count: "after step N" is what rank 0 had finished
                failed_rank, error = _blame(ranks, len(progress))
                break
            ended = all(c == 0 or r in teardown for r, c in zip(ranks, codes))
            if ended and open_streams <= 0:
                break
            if ended and q.empty():
                time.sleep(0.05)
                if q.empty() and all(not r.reader.is_alive() for r in ranks):
                    break
            if time.monotonic() > deadline:
                error = f"timed out after {timeout_s:g} s; all ranks stopped"
                break
    except KeyboardInterrupt:
        interrupted = True
        error = "interrupted"
    finally:
        _stop(ranks)
    for r in ranks:  # drain the readers (their pipes close with the processes)
        if r.reader:
            r.reader.join(timeout=2)
    drain(echo=False)
    reports = {}
    for r in ranks:
        try:
            reports[r.rank] = srep.from_json_safe(json.loads(r.result.read_text()))
        except (OSError, ValueError):
            pass
    rep = reports.get(first) or _from_progress(opts, world, progress)
    rep["world_size"] = world
    rep["ranks"] = [_rank_summary(r, reports.get(r.rank)) for r in ranks]
    if error:
        rep["error"] = error
    rep["failed_rank"] = failed_rank
    summary = nccl.parse_transports(nccl_lines)
    if rep.get("allreduce") is not None:
        rep["allreduce"]["transports"] = summary["counts"] or None
    rep["warnings"] = list(rep.get("warnings") or []) + nccl.transport_warnings(summary, rocm=rep.get("backend") == "rocm")
    for r in teardown:
        last = next((ln for ln in reversed(r.tail) if ln.strip()), "")
        rep["warnings"].append(f"rank {r.rank} {_describe_exit(r.proc.returncode)} while leaving the process group, "
                               "after all its steps ran and its report was written"
                               + (f" (last output: {last[:200]})" if last else ""))
    for f in tmp.iterdir():
        f.unlink(missing_ok=True)
    tmp.rmdir()
    if opts.nnodes > 1:
        _check_nodes(rep, opts, f"{master}:{port}")
    if interrupted:
        rep["error"] = "interrupted"
    del store  # every rank has ended: the rendezvous port is free again
    return rep


def _check_nodes(rep: dict, opts: SmokeOptions, endpoint: str) -> None:
    """A multi-node run passes only when every node's ranks took part: node 0's report lists them
    (gathered from every rank at the end); a failed run says where the rendezvous was."""
    if rep.get("error"):
        rep["error"] += (f" (several nodes: each of the {opts.nnodes} hosts runs porter smoke with the same --nnodes, "
                         f"its own --node-rank and --rdzv-endpoint {endpoint}, where node 0 listens)")
        return
    seen = sorted(n.get("node_rank") for n in rep.get("nodes") or [])
    if seen != list(range(opts.nnodes)):
        rep["error"] = f"{opts.nnodes} nodes were asked for, the ranks that finished came from node(s) {seen or 'none'}"
    if opts.node_rank != 0:
        rep["warnings"].append(f"node {opts.node_rank} of {opts.nnodes}: this report holds this node's ranks; "
                               "node 0's report holds the run's figures")


def _reported_success(r: _Rank) -> bool:
    """Whether the rank wrote its report with no error (it writes it before leaving the process group)."""
    try:
        info = json.loads(r.result.read_text())
    except (OSError, ValueError):
        return False
    return isinstance(info, dict) and info.get("error") is None and not info.get("nonfinite_step")


def _blame(ranks: list[_Rank], steps_seen: int) -> tuple[int, str]:
    """The rank that failed first in cause: killed or silent beats one that only saw its peer vanish."""
    cands = []
    for r in ranks:
        code = r.proc.poll()
        if code in (None, 0):
            continue
        info = None
        try:
            info = json.loads(r.result.read_text())
        except (OSError, ValueError):
            pass
        comm = bool(info and info.get("ranks") and info["ranks"][0].get("comm_error"))
        why = info.get("error") if info and info.get("error") else None
        cands.append((comm, info is not None, r.rank, code, why, r))
    cands.sort(key=lambda c: (c[0], c[1], c[2]))
    comm, _, rank, code, why, r = cands[0]
    last = next((ln for ln in reversed(r.tail) if ln.strip()), "")
    detail = why or (f"last output: {last[:200]}" if last else "it left no report")
    return rank, (f"rank {rank} {_describe_exit(code)} after step {steps_seen} ({detail}); "
                  "the other ranks were stopped")


def _rank_summary(r: _Rank, rep: dict | None) -> dict:
    out = {"rank": r.rank, "exit": _describe_exit(r.proc.returncode)}
    if rep:
        out.update(steps_done=rep.get("steps_done"), step_time_s=rep.get("step_time_s"),
                   loss_last=rep.get("loss_last"), error=rep.get("error"))
    else:
        out.update(steps_done=None, step_time_s=None, loss_last=None, error="no report (process died)")
    return out


def _from_progress(opts: SmokeOptions, nproc: int, progress: list[dict]) -> dict:
    """A partial report from rank 0's progress lines, when rank 0 left no report of its own."""
    rep = srep.empty_report(model=opts.model, engine="builtin" if opts.model == "tiny" else "hf",
                            steps=opts.steps, batch_size=opts.batch_size, seq_len=opts.seq_len, world_size=nproc,
                            dtype=opts.dtype or "?", device=opts.device)
    rep["losses"] = [p["loss"] for p in progress]
    rep["step_times_s"] = [p["step_time_s"] for p in progress]
    rep["steps_done"] = len(progress)
    return rep


def probe_allreduce(opts: SmokeOptions, nproc: int, *, gpu: bool, timeout_s: float) -> dict:
    """The built-in launcher's all-reduce and transport checks alone (no training): nproc ranks of
    porter.smoke.probe through run_ranks.  A report dict: allreduce (with transports), warnings (a
    fabric-fallback one when peers talk over sockets/SHM), error and failed_rank when a rank failed."""
    return run_ranks(opts, nproc, emit=None, t0=time.time(), gpu=gpu, timeout_s=timeout_s, module="porter.smoke.probe")


def launch(opts: SmokeOptions, *, emit: Callable[[str], None] | None = print, gpu: bool = False) -> dict:
    """The multi-process smoke run: N ranks, then (if they passed) a 1-process baseline of the same per-rank work.

    The baseline runs in this process (no process group, no DDP: what one rank computes, alone)."""
    t0 = process_start_time()
    rep = run_ranks(opts, opts.nproc, emit=emit, t0=t0, gpu=gpu, timeout_s=opts.timeout_s)
    if not rep.get("error") and opts.baseline and rep.get("step_time_s") and opts.node_rank == 0:
        if emit:
            emit(f"baseline: timing 1 process with the same per-rank work ({opts.steps} steps)")
        from porter.smoke import train  # noqa: PLC0415

        base = train.run(opts, emit=None, start_time=time.time(), collect_smi=False)
        if base.get("step_time_s") and not base.get("error"):
            rep["baseline_step_time_s"] = base["step_time_s"]
            rep["scaling_efficiency"] = round(base["step_time_s"] / rep["step_time_s"], 4)
        elif base.get("error") == "interrupted":
            rep["error"] = "interrupted"
        else:
            rep["warnings"].append(f"baseline run failed: {base.get('error') or 'no step time'}")
    return srep.finish(rep)
