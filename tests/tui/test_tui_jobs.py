"""The review app's subprocess runner and its reading of compiler output (porter/tui/jobs.py),
on their own: the app's tests only reach them through a build."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time

from porter.tui.jobs import Diagnostic, parse_diagnostics, report_summary, stream


def _gone(pid: int, within: float = 5.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        try:  # a zombie child of this process counts as gone once reaped
            if os.waitpid(pid, os.WNOHANG)[0] == pid:
                return True
        except ChildProcessError:
            pass
        time.sleep(0.05)
    return False


# a job that starts a grandchild in its group, says both pids, then hangs
HANG = ("import subprocess, sys, time; c = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']); "
        "print('pids', __import__('os').getpid(), c.pid, flush=True); time.sleep(60)")


def test_the_output_comes_in_order_and_the_exit_code_back():
    lines: list[str] = []
    code = "import sys\nfor i in range(500): print('line', i)\nprint('to stderr', file=sys.stderr)\nsys.exit(3)"
    rc = asyncio.run(stream([sys.executable, "-c", code], lines.extend, timeout=60))
    assert rc == 3
    assert lines[:500] == [f"line {i}" for i in range(500)] and lines[500:] == ["to stderr"]


def test_arguments_reach_the_program_as_they_are_no_shell(tmp_path):
    marker = tmp_path / "pwned"
    lines: list[str] = []
    rc = asyncio.run(stream([sys.executable, "-c", "import sys; print(sys.argv[1])", f"x; touch {marker}"],
                            lines.extend, timeout=60))
    assert rc == 0 and lines == [f"x; touch {marker}"] and not marker.exists()


def test_a_timeout_kills_the_whole_process_group():
    lines: list[str] = []
    started = time.monotonic()
    rc = asyncio.run(stream([sys.executable, "-c", HANG], lines.extend, timeout=3))
    assert rc is None and time.monotonic() - started < 30
    pids = [int(x) for x in next(line for line in lines if line.startswith("pids")).split()[1:]]
    assert all(_gone(pid) for pid in pids), "a process of the job outlived its timeout"


def test_cancelling_the_job_kills_the_whole_process_group():
    lines: list[str] = []

    async def run_then_cancel():
        task = asyncio.create_task(stream([sys.executable, "-c", HANG], lines.extend, timeout=60))
        while not any(line.startswith("pids") for line in lines):
            await asyncio.sleep(0.05)
        task.cancel()
        try:
            await task
        except asyncio.CancelledError:
            return True
        return False

    assert asyncio.run(run_then_cancel())
    pids = [int(x) for x in next(line for line in lines if line.startswith("pids")).split()[1:]]
    assert all(_gone(pid) for pid in pids), "a process of the job outlived its cancel"


def test_a_compiler_line_becomes_a_diagnostic_to_jump_to(tmp_path):
    (tmp_path / "k.hip").write_text("int main() {}\n")
    line = "\x1b[1mk.hip:12:7: \x1b[31merror:\x1b[0m use of undeclared identifier '__shfl_sync'"
    (d,) = parse_diagnostics(line, cwd=str(tmp_path))
    assert (d.line, d.column, d.severity) == (12, 7, "error") and d.file.endswith("k.hip")
    assert "__shfl_sync" in d.message
    assert parse_diagnostics("make: *** [Makefile:9: all] Error 1", cwd=str(tmp_path)) == []


def test_the_json_report_gives_its_diagnostics_and_a_command_line_error_has_no_place():
    rep = {"toolchain": "clang++-19", "ok": False, "arch": "gfx942", "diagnostics": [
        {"file": "a.cu", "line": 3, "column": 5, "severity": "error", "message": "boom", "rule": "PORT020",
         "hint": "use __shfl_down"},
        {"file": "", "line": 0, "severity": "error", "message": "unknown argument '--bad'"}]}
    diags = parse_diagnostics(json.dumps(rep))
    assert diags[0] == Diagnostic("a.cu", 3, 5, "error", "boom", "PORT020", "use __shfl_down")
    assert diags[0].label() == "a.cu:3:5: error: boom [PORT020]"
    assert diags[1].label() == "error: unknown argument '--bad'"  # not ":0:1:"


def test_the_build_report_reads_as_a_summary():
    rep = {"toolchain": "clang++-19 (clang 19.1.7)", "ok": False, "arch": "gfx942", "messages": ["1 compiled, 1 failed"],
           "diagnostics": [{"file": "a.cu", "line": 3, "severity": "error", "message": "boom", "rule": "PORT020",
                            "hint": "use the maskless form"},
                           {"file": "a.cu", "line": 9, "severity": "warning", "message": "unused"},
                           {"file": "b.cu", "line": 1, "severity": "warning", "message": "sign compare"}]}
    out = report_summary(rep)
    assert out[0] == "build failed: gfx942 with clang++-19 (clang 19.1.7); 1 error, 2 warnings"
    assert out[1:] == ["  a.cu:3: error: boom [PORT020]", "      hint: use the maskless form",
                       "  a.cu:9: warning: unused", "  b.cu:1: warning: sign compare", "  1 compiled, 1 failed"]
    assert report_summary({"toolchain": "t", "ok": True, "arch": "gfx90a"}) == ["build ok: gfx90a with t; no diagnostics"]


def test_the_undo_module_examples_hold():
    import doctest

    import porter.project.undo as undo

    failed, tried = doctest.testmod(undo)
    assert tried and not failed


class _App:
    """What SessionSaver uses of the app: a timer and notifications."""

    theme = "textual-dark"
    diff_layout = "unified"

    def __init__(self):
        self.timers, self.notes = [], []

    def set_timer(self, delay, callback):
        self.timers.append((delay, callback))

    def notify(self, message, severity="information"):
        self.notes.append((severity, message))


class _Store:
    def __init__(self, fail: bool = False, path=None):
        self.saved, self.fail, self.path = [], fail, path

    def save(self, data):
        if self.fail:
            raise OSError(28, "No space left on device")
        self.saved.append(data)


class _Project:
    def to_session(self):
        return {"files": {}}


def test_changes_close_together_are_saved_once_with_the_layout(tmp_path):
    from porter.tui.persistence import SAVE_DELAY_S, SessionSaver

    app, store = _App(), _Store(path=tmp_path / ".porter" / "session.json")
    saver = SessionSaver(app, _Project(), store)
    for _ in range(5):
        saver.save_soon()
    assert [d for d, _ in app.timers] == [SAVE_DELAY_S] and store.saved == []
    app.timers[0][1]()
    assert store.saved == [{"files": {}, "diff_layout": "unified"}]  # the default theme is not stored
    saver.save_now()  # nothing pending: nothing written again
    assert len(store.saved) == 1


def test_a_session_that_cannot_be_saved_is_said_once(tmp_path):
    from porter.tui.persistence import SessionSaver

    app = _App()
    saver = SessionSaver(app, _Project(), _Store(fail=True, path=tmp_path / ".porter" / "session.json"))
    for _ in range(3):
        saver.save_soon()
        saver.save_now()
    assert app.notes == [("error", f"session not saved: No space left on device ({tmp_path / '.porter'})")]
