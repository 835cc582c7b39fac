"""Background conversion for the review app: files are converted lazily, the
wanted ones (the file on screen) first, in worker processes when they start
(the UI keeps its interpreter to itself), else in a thread of this process.

The converter never touches widgets: converted files are queued and the app
takes them with ``take_ready`` (on a timer, or at once for the file on screen
through ``on_current_ready``).
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from typing import TYPE_CHECKING, Callable

from porter.project.file_conversion import source_bytes
from porter.project.file_review import S_WAITING, FileReview
from porter.project.review_project import ReviewProject

if TYPE_CHECKING:  # Textual is imported by the app: the converter can start its workers before that import
    from textual.app import App

# The file on screen at least this big is translated first and scanned for findings in a second
# job, so that its diff does not wait for the scan (a 50,000-line file: ~0.5 s against ~1.5 s).
SPLIT_BYTES = 512 * 1024
# How long quitting waits for the worker pool to wind down (the file in hand finishes first).
STOP_WAIT_S = 5.0


def _start_resource_tracker() -> None:
    """While Textual runs, ``sys.stderr`` captures prints and has no file descriptor (-1), and the
    first pool starts multiprocessing's resource tracker with ``sys.stderr.fileno()``: "bad
    value(s) in fds_to_keep", and the app silently converted in threads of the UI process.  The
    tracker gets /dev/null instead (its only output is a warning about leaked semaphores)."""
    from multiprocessing import resource_tracker

    saved = sys.stderr
    hangup = signal.getsignal(signal.SIGHUP) if threading.current_thread() is threading.main_thread() else None
    with open(os.devnull, "w") as null:
        sys.stderr = null
        try:
            if hangup is not None:  # an ignored signal stays ignored in the tracker: it outlives a closed
                signal.signal(signal.SIGHUP, signal.SIG_IGN)  # terminal and unlinks the semaphores at the end
            resource_tracker.ensure_running()
        finally:
            sys.stderr = saved
            if hangup is not None:
                signal.signal(signal.SIGHUP, hangup)


def first_file(project: ReviewProject) -> FileReview | None:
    """The file the app opens at start (so the one converted first)."""
    return project.files[0] if project.files else None


class BackgroundConverter:
    """``app``: None for a converter started before the app exists (``porter PATH`` starts the workers
    and the first file's conversion before importing Textual); the app then ``attach``es itself."""

    def __init__(self, app: App | None, project: ReviewProject, processes: bool = True,
                 is_current: Callable[[FileReview], bool] = lambda fr: False,
                 on_current_ready: Callable[[], None] = lambda: None) -> None:
        self.app = app
        self.project = project
        self.is_current = is_current
        self.on_current_ready = on_current_ready
        self._ready: list[FileReview] = []
        self._scanned: list[FileReview] = []  # files whose findings came after their diff
        self._ready_lock = threading.Lock()
        self._wanted: list[str] = []
        self._lock = threading.Lock()
        self.running = False
        self._pos = 0
        self._in_flight: set[str] = set()
        self._executor = None
        self._pool_lock = threading.Lock()
        self._no_pool = not processes  # True: convert and highlight in threads of this process
        self._pool_size = 1
        self._early: dict = {}  # the first file's conversion, submitted by prewarm (future -> (file, "convert"))
        self.prewarmed = False  # prewarm() was called (by `porter PATH` before the app, else by the app)
        self.stop_event = threading.Event()

    def attach(self, app: App, is_current: Callable[[FileReview], bool], on_current_ready: Callable[[], None]) -> None:
        """The app this converter (made before it) reports to."""
        self.app, self.is_current, self.on_current_ready = app, is_current, on_current_ready

    # ---- the queue ----------------------------------------------------------------
    def take_ready(self) -> list[FileReview]:
        """The files converted since the last call."""
        with self._ready_lock:
            ready, self._ready = self._ready, []
        return ready

    def take_scanned(self) -> list[FileReview]:
        """The files whose findings (scanned after their translation) came since the last call."""
        with self._ready_lock:
            scanned, self._scanned = self._scanned, []
        return scanned

    def prewarm(self, first: FileReview | None = None) -> None:
        """Start the worker processes now: they convert ``first`` (the file the app opens first), then
        import the rest of the engine and load its data, while Textual loads and draws the first screen:
        the first diff is ready with the screen, not asked for once it is drawn."""
        from porter.project.file_conversion import convert_file, warm_up

        self.prewarmed = True
        pool = self.pool()
        if pool is None:
            return
        try:
            if first is not None and first.status == S_WAITING:  # first: it imports what it needs itself
                with self._lock:
                    self._in_flight.add(first.rel)
                    self._early[pool.submit(convert_file, *self._job(first, current=True))] = (first, "convert")
            for _ in range(self._pool_size):
                pool.submit(warm_up)
        except RuntimeError:  # shut down meanwhile
            with self._lock:
                self._early.clear()
                if first is not None:
                    self._in_flight.discard(first.rel)

    def take_early(self) -> list[FileReview]:
        """The files whose conversion prewarm submitted and that are done now, taken here and now (the app
        calls this before it shows the first file: its first screen then draws the diff, not
        "converting …" until the background thread has passed the result on). A big file's findings,
        still to come, are asked for at once (the background thread takes them)."""
        from porter.project.file_conversion import scan_file

        with self._lock:
            done = [(fut, fr) for fut, (fr, job) in self._early.items() if job == "convert" and fut.done()]
            for fut, fr in done:
                del self._early[fut]
                self._in_flight.discard(fr.rel)
        for fut, fr in done:
            try:
                res = fut.result()
            except Exception as exc:  # a worker process died
                res = {"status": "error", "error": f"conversion failed: {type(exc).__name__}: {exc}"}
            self.project.apply_loaded(fr, res)
            if fr.findings_pending and self._executor is not None:
                try:
                    scan = self._executor.submit(scan_file, fr.rel, source_bytes(fr.cuda), fr.source_hash,
                                                 fr.options, fr.path)
                except RuntimeError:  # shut down
                    continue
                with self._lock:
                    self._early[scan] = (fr, "scan")
        return [fr for _, fr in done]

    def _job(self, fr: FileReview, current: bool | None = None) -> tuple:
        """``convert_file``'s arguments for ``fr``."""
        return (fr.rel, fr.path, fr.kind, None, tuple(fr.applied_fixes), fr.options, None,
                self._split(fr, current))

    def start(self) -> None:
        with self._lock:
            self.running = True
        self._run()

    def want(self, rel: str, background: bool = True) -> None:
        """Convert ``rel`` next (starts the worker again when it had ended)."""
        with self._lock:
            self._wanted.append(rel)
            if self.running or not background:
                return
            self.running = True
        self._run()

    def stop(self, wait: bool = True) -> None:
        """No more conversions; the workers finish the file in hand (``wait``: and this waits for the
        pool to wind down, a few seconds at most, so that nothing of it is left at interpreter exit)."""
        self.stop_event.set()
        if self._executor is not None:
            from porter.project.workers import stop_pool

            stop_pool(self._executor, terminate=False, wait_s=STOP_WAIT_S if wait else 0)

    def _next(self) -> FileReview | None:
        """The next file to convert (the wanted ones first), marked in flight so that no other
        worker thread takes it too."""
        with self._lock:
            fr = self._pick()
            if fr is not None:
                self._in_flight.add(fr.rel)
            return fr

    def _pick(self) -> FileReview | None:
        while self._wanted:
            cand = self.project.by_rel.get(self._wanted.pop())
            if cand is not None and cand.status == S_WAITING and cand.rel not in self._in_flight:
                return cand
        files = self.project.files
        while self._pos < len(files) and (files[self._pos].status != S_WAITING
                                          or files[self._pos].rel in self._in_flight):
            self._pos += 1
        if self._pos >= len(files):
            return None
        return files[self._pos]

    def _wanted_waiting(self) -> bool:
        """Whether a wanted file still waits (call with _lock held)."""
        return any((fr := self.project.by_rel.get(r)) is not None and fr.status == S_WAITING for r in self._wanted)

    # ---- the pool -------------------------------------------------------------------
    def pool(self):
        """Worker processes, or None where they cannot start (or are not wanted)."""
        with self._pool_lock:  # (two converter threads and the highlighter ask for it at once)
            return self._make_pool()

    def _make_pool(self):
        if self._executor is None and not self._no_pool:
            try:
                import multiprocessing
                from concurrent.futures import ProcessPoolExecutor

                from porter.project.workers import review_worker_init

                n = max(1, min(4, (os.cpu_count() or 2) - 1))
                _start_resource_tracker()
                self._executor = ProcessPoolExecutor(n, mp_context=multiprocessing.get_context("spawn"),
                                                     initializer=review_worker_init, initargs=(os.getpid(),))
                self._pool_size = n
            except (OSError, ImportError, ValueError):
                self._no_pool = True
        return self._executor

    # ---- the worker -----------------------------------------------------------------
    def _loaded(self, fr: FileReview, res: dict | None) -> None:
        if res is None:
            self.project.load_file(fr)
        else:
            self.project.apply_loaded(fr, res)
        with self._ready_lock:
            self._ready.append(fr)
        if self.is_current(fr):
            self.app.call_from_thread(self.on_current_ready)

    def _split(self, fr: FileReview, current: bool | None = None) -> bool:
        """Translate ``fr`` before scanning it: the big file on screen (``current``: it will be), with no
        fix chosen."""
        if current is None:
            current = self.is_current(fr)
        if fr.kind != "source" or fr.applied_fixes or fr.path is None or not current:
            return False
        try:
            return fr.path.stat().st_size >= SPLIT_BYTES
        except OSError:
            return False

    def _scanned_now(self, fr: FileReview, res: dict) -> None:
        if fr.take_findings(res):
            with self._ready_lock:
                self._scanned.append(fr)
            if self.is_current(fr):
                self.app.call_from_thread(self.on_current_ready)

    def _run(self) -> None:
        self.app.run_worker(self._convert_all, thread=True, group="convert", exit_on_error=False,
                            description="convert files")

    def _convert_all(self) -> None:
        """Convert files until none is left (the wanted ones first), then end."""
        from concurrent.futures import FIRST_COMPLETED
        from concurrent.futures import wait as wait_futures

        from porter.project.file_conversion import convert_file, scan_file

        pool = self.pool()
        with self._lock:  # the first file's conversion, when prewarm submitted it: taken by one thread
            futures: dict = self._early  # future -> (file, "convert" or "scan")
            self._early = {}
        while not self.stop_event.is_set():
            if pool is None:
                fr = self._next()
                if fr is None:
                    with self._lock:
                        if not self._wanted_waiting():
                            self.running = False
                            return
                    continue
                split = self._split(fr)
                try:
                    self._loaded(fr, convert_file(fr.rel, fr.path, fr.kind, None, tuple(fr.applied_fixes),
                                                  fr.options, None, True) if split else None)
                finally:
                    with self._lock:
                        self._in_flight.discard(fr.rel)
                if fr.findings_pending:
                    self._scanned_now(fr, scan_file(fr.rel, source_bytes(fr.cuda), fr.source_hash,
                                                    fr.options, fr.path))
                continue
            while len(futures) < 2 * self._pool_size:
                fr = self._next()
                if fr is None:
                    break
                try:
                    fut = pool.submit(convert_file, *self._job(fr))
                except RuntimeError:  # shut down
                    with self._lock:
                        self._in_flight.discard(fr.rel)
                    return
                futures[fut] = (fr, "convert")
            if not futures:
                with self._lock:
                    if not self._wanted_waiting():
                        self.running = False
                        return
                continue
            done, _ = wait_futures(list(futures), timeout=0.2, return_when=FIRST_COMPLETED)
            for fut in done:
                fr, job = futures.pop(fut)
                if job == "scan":
                    try:
                        res = fut.result()
                    except Exception as exc:  # a worker process died: the diff stays, the failure is said
                        res = {"status": "ready", "source_hash": fr.source_hash, "findings": [],
                               "warnings": [f"findings scan failed: {type(exc).__name__}: {exc}"]}
                    self._scanned_now(fr, res)
                    continue
                try:
                    res = fut.result()
                except Exception as exc:  # a worker process died
                    res = {"status": "error", "error": f"conversion failed: {type(exc).__name__}: {exc}"}
                with self._lock:
                    self._in_flight.discard(fr.rel)
                self._loaded(fr, res)
                if fr.findings_pending:  # next, before any other file: its findings
                    try:
                        scan = pool.submit(scan_file, fr.rel, source_bytes(fr.cuda), fr.source_hash,
                                           fr.options, fr.path)
                    except RuntimeError:  # shut down
                        return
                    futures[scan] = (fr, "scan")
