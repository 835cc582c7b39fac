"""Time-limited, cancellable subprocesses (own process group, never a shell).

Every tool porter runs goes through :func:`run`: the child gets its own
session, so a timeout or a cancel kills the whole group (hipcc is a perl
script that starts clang, which starts lld ...), not only the direct child.

Those groups also die with porter however porter ends, SIGKILL included: a
small reaper process (started with the first tool) is told each group's id
through a pipe whose only writer is porter; when porter is gone the pipe reads
end-of-file and the reaper kills every group still registered (see
:func:`track`).  A parent-death signal would reach only the direct child
(hipcc's perl), not the clang it started.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from dataclasses import dataclass


@dataclass(slots=True)
class Result:
    argv: list[str]
    returncode: int | None  # None: never started (see .error)
    stdout: str
    stderr: str
    duration_s: float
    timed_out: bool = False
    cancelled: bool = False
    error: str = ""  # e.g. "not found: hipcc"

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out and not self.cancelled


# The reaper: reads "+PGID" / "-PGID" lines on stdin; at end of input (porter is gone) it sends SIGTERM, then
# SIGKILL, to every group still registered.  Started with -S -E -I: nothing from the user's site or environment.
_REAPER_CODE = r"""
import os, signal, sys, time
live = set()
for line in sys.stdin:
    line = line.strip()
    if line[:1] in "+-" and line[1:].isdigit():
        (live.add if line[0] == "+" else live.discard)(int(line[1:]))
for sig in (signal.SIGTERM, signal.SIGKILL):
    for pgid in list(live):
        try:
            os.killpg(pgid, sig)
        except OSError:
            live.discard(pgid)
    if not live:
        break
    time.sleep(1.0)
"""
_reaper_lock = threading.Lock()
_reaper_pipe: int | None = None  # the write end; -1: could not start one
_reaper_pid = 0  # the process that started it (a forked child does not share it)


def _reaper_fd() -> int | None:
    global _reaper_pipe, _reaper_pid
    with _reaper_lock:
        if _reaper_pipe is not None and _reaper_pid == os.getpid():
            return _reaper_pipe if _reaper_pipe >= 0 else None
        import sys

        read_end, write_end = os.pipe()
        try:
            subprocess.Popen([sys.executable, "-S", "-E", "-I", "-c", _REAPER_CODE], stdin=read_end,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
                             close_fds=True)
        except OSError:
            os.close(write_end)
            write_end = -1
        finally:
            os.close(read_end)
        if write_end >= 0:
            os.set_inheritable(write_end, False)  # only porter holds it: its end is porter's end
        _reaper_pipe, _reaper_pid = write_end, os.getpid()
        return write_end if write_end >= 0 else None


def track(pgid: int, alive: bool) -> None:
    """Register (``alive``) or forget a child's process group with the reaper, which kills the groups
    still registered when porter ends, however it ends."""
    fd = _reaper_fd()
    if fd is None:
        return
    try:
        os.write(fd, f"{'+' if alive else '-'}{pgid}\n".encode())
    except OSError:
        pass


def popen(argv, **kwargs) -> subprocess.Popen:
    """``subprocess.Popen`` in a new session, its group registered with the reaper; pair with :func:`untrack`
    once the process has been waited for."""
    proc = subprocess.Popen(argv, start_new_session=True, **kwargs)
    track(proc.pid, True)
    return proc


def untrack(proc: subprocess.Popen) -> None:
    track(proc.pid, False)


def kill_group(proc: subprocess.Popen) -> None:
    """SIGTERM the child's process group, then SIGKILL it if it lingers."""
    try:
        pgid = os.getpgid(proc.pid)
    except ProcessLookupError:
        return
    for sig, wait in ((signal.SIGTERM, 2.0), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(pgid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=wait)
            # the leader is gone; make sure its children are too
            try:
                os.killpg(pgid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            return
        except subprocess.TimeoutExpired:
            continue


def run(argv: list[str], *, timeout: float = 60.0, cwd: str | os.PathLike | None = None,
        env: dict[str, str] | None = None, cancel: threading.Event | None = None,
        stdin_text: str | None = None) -> Result:
    """Run ``argv`` (no shell) with a wall-clock limit; never raises for a failing tool."""
    start = time.monotonic()
    try:
        proc = popen(
            argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            stdin=subprocess.PIPE if stdin_text is not None else subprocess.DEVNULL,
            text=True, errors="replace",
        )
    except FileNotFoundError:
        return Result(list(argv), None, "", "", 0.0, error=f"not found: {argv[0]}")
    except OSError as exc:
        return Result(list(argv), None, "", "", 0.0, error=f"cannot run {argv[0]}: {exc.strerror or exc}")
    try:
        return _communicate(proc, argv, start, timeout, cancel, stdin_text)
    finally:
        untrack(proc)


def output(argv: list[str], *, timeout: float) -> str | None:
    """The stdout of a short query of a tool (``amd-smi version``, ``rocm-smi --showtopo``) run as :func:`run`
    runs it; None where the tool is missing, fails, or runs past ``timeout`` (its process group is killed)."""
    r = run(argv, timeout=timeout)
    return r.stdout if r.ok else None


def _communicate(proc, argv, start, timeout, cancel, stdin_text) -> Result:
    timed_out = cancelled = False
    out = err = ""
    deadline = start + timeout
    first = True
    while True:
        step = 0.2 if cancel is not None else max(0.01, deadline - time.monotonic())
        try:
            out, err = proc.communicate(input=stdin_text if first else None, timeout=min(step, max(0.01, deadline - time.monotonic())))
            break
        except subprocess.TimeoutExpired:
            first = False
            if cancel is not None and cancel.is_set():
                cancelled = True
            elif time.monotonic() >= deadline:
                timed_out = True
            else:
                continue
            kill_group(proc)
            try:
                out, err = proc.communicate(timeout=5)
            except (subprocess.TimeoutExpired, ValueError):
                out, err = "", ""
            break
        except BaseException:
            kill_group(proc)
            raise
    return Result(list(argv), proc.returncode, out or "", err or "", time.monotonic() - start,
                  timed_out=timed_out, cancelled=cancelled)


def stream(argv: list[str], *, timeout: float = 600.0, cwd: str | os.PathLike | None = None,
           env: dict[str, str] | None = None, cancel: threading.Event | None = None,
           on_line=None) -> Result:
    """Like :func:`run`, stdout and stderr merged, each line passed to
    ``on_line(str)`` as it arrives (from a reader thread)."""
    start = time.monotonic()
    try:
        proc = popen(argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                     stdin=subprocess.DEVNULL, text=True, errors="replace", bufsize=1)
    except FileNotFoundError:
        return Result(list(argv), None, "", "", 0.0, error=f"not found: {argv[0]}")
    except OSError as exc:
        return Result(list(argv), None, "", "", 0.0, error=f"cannot run {argv[0]}: {exc.strerror or exc}")
    lines: list[str] = []

    def reader():
        for line in proc.stdout:
            lines.append(line)
            if on_line is not None:
                try:
                    on_line(line.rstrip("\n"))
                except Exception:  # noqa: BLE001 - a broken callback must not hang the build
                    pass

    t = threading.Thread(target=reader, daemon=True)
    t.start()
    timed_out = cancelled = False
    try:
        while True:
            try:
                proc.wait(timeout=0.1)
                break
            except subprocess.TimeoutExpired:
                if cancel is not None and cancel.is_set():
                    cancelled = True
                elif time.monotonic() - start > timeout:
                    timed_out = True
                else:
                    continue
                kill_group(proc)
                break
    except BaseException:
        kill_group(proc)
        raise
    finally:
        untrack(proc)
    t.join(timeout=5)
    return Result(list(argv), proc.returncode, "".join(lines), "", time.monotonic() - start,
                  timed_out=timed_out, cancelled=cancelled)
