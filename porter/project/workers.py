"""Per-file work on all cores: ``convert`` and ``scan`` of a project tree.

``run_per_file(fn, context, items, jobs)`` yields ``fn(context, item)`` for each
item, in order.  With more than one job the calls run in worker processes:
``context`` (options, output folder) is sent once to each worker, not with
every file, and the items travel in chunks.  The workers ignore SIGINT; when
the caller is interrupted (Ctrl-C) or fails, the workers are terminated at once
instead of finishing the queue.  SIGTERM in a worker unwinds the file in hand
(``atomic_write`` removes its temporary file) and ends the process, so no
half-written file and no worker is left behind.  ``fn`` must be a module-level function.

The workers also die with the parent when it is killed outright (SIGKILL, the OOM
killer): on Linux each one asks the kernel for SIGTERM when its parent dies
(``PR_SET_PDEATHSIG``); elsewhere a thread watches the parent's pid.  A worker
never outlives the run holding the caller's stdout and stderr open.
"""

from __future__ import annotations

import os
import signal
from collections import deque
from typing import Callable, Iterable, Iterator, TypeVar

T = TypeVar("T")
R = TypeVar("R")


class WorkerDied(RuntimeError):
    """A worker process ended abnormally (killed, out of memory, a crash in a C extension)."""


class Terminated(BaseException):
    """SIGTERM reached the parent: the run unwinds as on Ctrl-C (workers stopped, temporary files removed)."""


def sigterm_unwinds() -> None:
    """From now on SIGTERM unwinds this process (raises Terminated) instead of ending it on the spot,
    so that a CI runner's SIGTERM stops the workers and leaves no temporary file.  Main thread only."""
    def handler(signum, frame):
        raise Terminated()

    signal.signal(signal.SIGTERM, handler)


_FN: Callable | None = None
_CONTEXT = None


def job_count(requested: int, n_items: int, per_worker: int = 8) -> int:
    """Worker processes for ``n_items`` files: ``requested`` (0: all cores), at most one per ``per_worker`` files."""
    jobs = requested or os.cpu_count() or 1
    return max(1, min(jobs, n_items // per_worker or 1))


_busy = False

# How long an interrupted run waits for the pool's manager thread to notice its stopped workers.
_MANAGER_EXIT_S = 10.0


class _Stopped(BaseException):
    """SIGTERM in a worker that is converting a file: unwinds through the file's clean-up."""


def _stop(signum, frame) -> None:
    if not _busy:
        os._exit(128 + signum)  # idle: nothing to clean up
    raise _Stopped()


_PR_SET_PDEATHSIG = 1


def _die_with_parent(parent: int) -> None:
    """SIGTERM to this process when ``parent`` dies, however it dies."""
    import ctypes  # here, in the worker: the parent's start-up does not pay for it
    import ctypes.util

    armed = False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
        armed = libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0) == 0
    except (OSError, AttributeError):  # not Linux
        pass
    if os.getppid() != parent:  # the parent died before the request was made
        os._exit(128 + signal.SIGTERM)
    if not armed:
        import threading
        import time

        def watch() -> None:
            while os.getppid() == parent:
                time.sleep(0.5)
            os.kill(os.getpid(), signal.SIGTERM)

        threading.Thread(target=watch, daemon=True, name="porter-parent-watch").start()


def review_worker_init(parent: int) -> None:
    """In a worker of the review app: the app decides when it ends.  A closed terminal's SIGHUP (and
    a stray SIGINT) reach the whole process group, and a worker killed by them leaves its pool's named
    semaphores in /dev/shm; so they are ignored, and the worker ends when the app shuts its pool
    down, or with the app when it dies."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    _die_with_parent(parent)


def _init(fn: Callable, context, parent: int) -> None:
    global _FN, _CONTEXT
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides; no traceback from each worker
    signal.signal(signal.SIGTERM, _stop)  # unwinds through the cleanup of a write in progress
    _die_with_parent(parent)
    _FN, _CONTEXT = fn, context


def _call_chunk(items: list) -> list:
    global _busy
    try:
        _busy = True
        return [_FN(_CONTEXT, item) for item in items]
    except _Stopped:
        os._exit(128 + signal.SIGTERM)  # the pool would otherwise report it and take the next chunk
    finally:
        _busy = False


def stop_pool(pool, terminate: bool, wait_s: float = _MANAGER_EXIT_S) -> None:
    """Shut ``pool`` (a ProcessPoolExecutor) down without waiting for its queue: ``terminate`` stops the
    workers at once, else each finishes the item in hand.  Then wait, at most ``wait_s``, for the pool's
    manager thread to end: it closes its wake-up pipe as it ends, and were it still closing at
    interpreter exit, Python 3.11's exit hook could write to that pipe and print an "OSError: Bad file
    descriptor" traceback after the program's last line."""
    workers = list((getattr(pool, "_processes", None) or {}).values())
    manager = getattr(pool, "_executor_manager_thread", None)
    if terminate:
        for proc in workers:
            proc.terminate()
    pool.shutdown(wait=False, cancel_futures=not terminate)
    if manager is not None and wait_s > 0:
        manager.join(timeout=wait_s)


def run_per_file(fn: Callable[[object, T], R], context, items: Iterable[T], jobs: int,
                 chunksize: int = 16, name: Callable[[T], str] = str) -> Iterator[R]:
    """``name(item)`` says which files a worker had in hand if it dies (WorkerDied)."""
    items = list(items)
    if jobs <= 1:
        for item in items:
            yield fn(context, item)
        return
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    chunks = [items[i:i + chunksize] for i in range(0, len(items), chunksize)]
    pool = ProcessPoolExecutor(max_workers=jobs, initializer=_init, initargs=(fn, context, os.getpid()))
    window: deque = deque()  # (future, chunk) in flight, oldest first: results come back in order
    chunk: list = []
    try:
        try:
            for chunk in chunks:
                window.append((pool.submit(_call_chunk, chunk), chunk))
                if len(window) > 2 * jobs:
                    yield from window[0][0].result()
                    window.popleft()
            while window:
                yield from window[0][0].result()
                window.popleft()
        except BrokenProcessPool:
            unfinished = window[0][1] if window else chunk
            shown = ", ".join(name(item) for item in unfinished[:3])
            shown += f" (+{len(unfinished) - 3} more)" if len(unfinished) > 3 else ""
            raise WorkerDied(f"a worker process died; the first files left unfinished: {shown}; run with -j 1 "
                             "to find the one that kills it (files already written are complete)") from None
    except BaseException:
        # Ctrl-C or an error in the caller: stop the workers without waiting for the queue.  No future
        # is cancelled: the pool marks the ones left as failed (cancelling them races with that in 3.11).
        stop_pool(pool, terminate=True)
        raise
    pool.shutdown()
