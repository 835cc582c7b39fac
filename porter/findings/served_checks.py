"""File checks served from a big file's region loop: each region is parsed once for the query pass
and for the file checks that look at syntax trees.

A file check is a whole-file function (``f(ctx) -> hits``) that asks the index for trees at places
(``tree_at``, ``node_at``, ``roots``) and reads the findings of the query pass (``ctx.reported``).
Run after the query pass, it made every region it asks for be parsed a second time (the query pass
cannot keep 25 bytes of tree per source byte).  Here each such check runs as a coroutine beside the
scan's region loop: a thread that runs only while the loop waits for it (never two at once, in a
fixed order, so the result does not depend on timing).  When the check asks for the tree of a region
the loop has not reached, or for the findings at a place there, it pauses; the loop resumes it once
that region's tree is made and its query findings are reported, with that same tree.  A check that
asks for a region the loop has passed gets it parsed again (``SourceIndex.tree_at``: it still works,
it only costs a parse).  The checks' own hits are reported after the loop, in registry order, as
when they ran one after another; a check therefore must not read the hits of another file check
(none does: PORT015 reads PORT010-016 and PORT072's query findings, PORT030 those of the query pass).
"""

from __future__ import annotations

import bisect
import threading


class _Stop(BaseException):
    """Unwinds a paused check when the scan ends early (an error, an interrupt)."""


class _Check:
    def __init__(self, rule_id: str, fn, ctx):
        self.rule_id = rule_id
        self.fn = fn
        self.ctx = ctx
        self.go = threading.Semaphore(0)  # released by the loop to let the check run
        self.want: tuple[int, bool] | None = None  # (region, needs its tree) it waits for
        self.done = False
        self.result = None
        self.error: BaseException | None = None
        self.thread: threading.Thread | None = None


class ServedChecks:
    """The coroutine file checks of one scan and the region loop's progress.

    ``start()`` runs each check up to its first pause; the loop calls ``needs_tree(k)`` before
    deciding whether to parse region k, then ``served(k, tree)`` once region k's query findings
    are reported; ``finish()`` runs the checks to their end (past the last region every tree is
    parsed on demand) and ``outcome(rule_id)`` gives a check's hits or raises its error."""

    def __init__(self, index, checks: list[tuple[str, object]], ctx):
        self.index = index
        self.starts = [s for s, _e in index.regions]
        self.checks = [_Check(rid, fn, ctx) for rid, fn in checks]
        self.by_id = {c.rule_id: c for c in self.checks}
        self.reached = -1  # the last region whose query findings are reported
        self.tree = None  # that region's tree while the checks run (None: not parsed)
        self.over = False  # past the loop: nothing waits any more
        self.stopping = False
        self._main = threading.Semaphore(0)  # released by a check when it pauses or ends
        self._local = threading.local()
        self._tree_at = index.tree_at  # (the index's own method, for the regions already passed)

    # ------------------------------------------------------------ what the checks call
    def region_of(self, pos: int) -> int:
        return max(bisect.bisect_right(self.starts, pos) - 1, 0)

    def _current(self) -> _Check | None:
        return getattr(self._local, "check", None)

    def _pause(self, check: _Check, k: int, tree: bool) -> None:
        check.want = (k, tree)
        self._main.release()
        check.go.acquire()
        check.want = None
        if self.stopping:
            raise _Stop

    def tree_at(self, pos: int):
        """The index's ``tree_at`` as a served check sees it."""
        check = self._current()
        if check is None or self.over:
            return self._tree_at(pos)
        k = self.region_of(pos)
        if k > self.reached:
            self._pause(check, k, True)
        if k == self.reached and self.tree is not None:
            return self.tree
        return self._tree_at(pos)  # a region the loop passed: parsed again

    def wait_reported(self, pos: int) -> None:
        """Before a served check reads the findings at ``pos``: wait until its region's are reported."""
        check = self._current()
        if check is None or self.over:
            return
        k = self.region_of(pos)
        if k > self.reached:
            self._pause(check, k, False)

    # ------------------------------------------------------------ what the loop calls
    def _run(self, check: _Check) -> None:
        self._local.check = check
        check.go.acquire()
        try:
            if not self.stopping:
                check.result = check.fn(check.ctx)
        except _Stop:
            pass
        except Exception as exc:  # noqa: BLE001 - reported as the rule's internal error
            check.error = exc
        finally:
            check.done = True
            self._main.release()

    def _resume(self, check: _Check) -> None:
        check.go.release()
        self._main.acquire()

    def start(self) -> None:
        self.index.tree_at = self.tree_at
        for check in self.checks:
            check.thread = threading.Thread(target=self._run, args=(check,), name=f"porter-{check.rule_id}",
                                            daemon=True)
            check.thread.start()
            self._resume(check)

    def needs_tree(self, k: int) -> bool:
        return any(c.want is not None and c.want[1] and c.want[0] == k for c in self.checks if not c.done)

    def served(self, k: int, tree) -> None:
        """Region ``k``'s query findings are reported (``tree``: its tree, or None when not parsed):
        every check waiting for it runs on, in registry order, until it waits for a later region."""
        self.reached, self.tree = k, tree
        for check in self.checks:
            while not check.done and check.want is not None and check.want[0] <= k:
                self._resume(check)
        self.tree = None

    def finish(self) -> None:
        self.over = True
        self.tree = None
        for check in self.checks:
            while not check.done:
                self._resume(check)
        self._close()

    def stop(self) -> None:
        """Unwind the checks still paused (the scan is ending early)."""
        self.stopping = True
        for check in self.checks:
            while not check.done and check.thread is not None:
                self._resume(check)
        self._close()

    def _close(self) -> None:
        for check in self.checks:
            if check.thread is not None:
                check.thread.join()
        self.index.__dict__.pop("tree_at", None)

    def release(self) -> None:
        """Drop every reference to the scan (its context, index and trees) once its findings are
        reported: the threads' objects hold this one in a cycle, which would keep the scan's
        caches (a 40 MB file's are about 150 MB) alive until the cyclic collector runs."""
        for check in self.checks:
            check.ctx = check.fn = check.result = check.error = check.thread = None
        self.index = self.tree = self._tree_at = None

    def outcome(self, rule_id: str):
        check = self.by_id[rule_id]
        if check.error is not None:
            raise check.error
        return check.result
