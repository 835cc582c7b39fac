"""Time-limited, cancellable subprocesses (own process group, never a shell).

Every tool porter runs goes through :func:`run`: the child gets its own
session, so a timeout or a cancel kills the whole group (hipcc is a perl
script that starts clang, which starts lld ...), not only the direct child.
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
        proc = subprocess.Popen(
            argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            stdin=subprocess.PIPE if stdin_text is not None else subprocess.DEVNULL,
            text=True, errors="replace", start_new_session=True,
        )
    except FileNotFoundError:
        return Result(list(argv), None, "", "", 0.0, error=f"not found: {argv[0]}")
    except OSError as exc:
        return Result(list(argv), None, "", "", 0.0, error=f"cannot run {argv[0]}: {exc.strerror or exc}")
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
        except KeyboardInterrupt:
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
        proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, text=True, errors="replace", bufsize=1,
                                start_new_session=True)
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
    t.join(timeout=5)
    return Result(list(argv), proc.returncode, "".join(lines), "", time.monotonic() - start,
                  timed_out=timed_out, cancelled=cancelled)
