"""SIGHUP (the terminal was closed) ends the review app even when the terminal takes no more output.

Seen: closing the terminal while the app converted a 138-file tree left `porter` running with no
terminal, in 1 of 4 tries, holding the output folder's lock: its main thread waited in Textual's
shutdown for the output thread to take the terminal's reset sequences (`WriterThread.stop`). The
test makes that wait certain (the terminal driver's close never returns, as with a terminal that
takes no output) in a real process under tmux, sends a real SIGHUP, and waits for the process to end.
"""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from killable import running
from porter.project.lock import folder_lock

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")

SOCKET = f"porter-hup-{os.getpid()}"
ROOT = Path(__file__).resolve().parents[2]

STUCK_TERMINAL = (
    "import sys, threading\n"
    "import textual.drivers.linux_driver as d\n"
    "d.LinuxDriver.close = lambda self: threading.Event().wait()  # a terminal that takes no output\n"
    "from porter.cli.main import main\n"
    "main(sys.argv[1:])\n"
)


def _tmux(*args: str) -> str:
    return subprocess.run(["tmux", "-L", SOCKET, *args], capture_output=True, text=True, timeout=20).stdout



def test_sighup_ends_the_app_when_the_terminal_takes_no_output(project_dir, tmp_path):
    out = tmp_path / "out"
    script = tmp_path / "stuck_terminal.py"
    script.write_text(STUCK_TERMINAL)
    cmd = (f"cd {shlex.quote(str(project_dir.parent))} && PYTHONPATH={shlex.quote(str(ROOT))} exec "
           f"{shlex.quote(sys.executable)} {shlex.quote(str(script))} {shlex.quote(project_dir.name)} -o {shlex.quote(str(out))}")
    subprocess.run(["tmux", "-L", SOCKET, "-f", "/dev/null", "new-session", "-d", "-s", "hup", "-x", "120", "-y", "40",
                    cmd], check=True, timeout=20)
    try:
        pid = int(_tmux("list-panes", "-t", "hup", "-F", "#{pane_pid}").split()[0])
        deadline = time.monotonic() + 60
        while "files reviewed" not in _tmux("capture-pane", "-p", "-t", "hup"):
            assert time.monotonic() < deadline, "the app never showed its first screen"
            time.sleep(0.2)
        os.kill(pid, signal.SIGHUP)
        deadline = time.monotonic() + 60  # the app's grace is 20 s; this only bounds a failing run
        while running(pid) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not running(pid), "porter kept running after SIGHUP with a terminal that takes no output"
        with folder_lock(out, "output folder"):  # the lock went with the process
            pass
    finally:
        _tmux("kill-server")
