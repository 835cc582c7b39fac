"""The review session is saved atomically: a save that fails or is killed part-way leaves the
previous session readable and whole.

Each test injects the fault at a known point instead of killing a process after a delay:
  * the operating system refuses the write past a size limit (RLIMIT_FSIZE, in a child process),
    whatever Python call the save uses to write;
  * the process is killed (SIGKILL) by the write itself, half-way through the data;
  * the process is killed between the complete write and the rename.
A save that writes ``session.json`` in place truncates it first, so every one of these leaves a
cut-off file behind; an atomic save leaves the old one.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

from porter.project.session import SessionStore

OLD = {"project": "/p", "files": {"a.cu": {"decisions": {"k0": "accepted"}}}}
# ~0.5 MB of decisions: far past the size limit below (the child builds it from the same expression)
BIG_EXPR = ('{"project": "/p", "files": {f"f{i}.cu": {"decisions": {f"k{j}": "rejected" for j in range(200)}}'
            ' for i in range(100)}}')
BIG = eval(BIG_EXPR)
LIMIT = 64 * 1024


def _child(tmp_path: Path, body: str) -> subprocess.CompletedProcess:
    script = ("import json, os, resource, signal, sys\n"
              "from porter.project.session import SessionStore\n"
              f"store = SessionStore({str(tmp_path)!r})\n"
              f"big = {BIG_EXPR}\n" + body)
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)


def _old_session_intact(tmp_path: Path) -> None:
    data, msg = SessionStore(tmp_path).load("/p")
    assert msg is None, msg
    assert data["files"] == OLD["files"]
    assert not list((tmp_path / ".porter").glob("*.bad"))


def test_a_write_refused_by_the_system_leaves_the_old_session_and_no_temporary(tmp_path):
    SessionStore(tmp_path).save(OLD)
    assert len((tmp_path / ".porter" / "session.json").read_bytes()) < LIMIT
    r = _child(tmp_path, (
        "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"  # the write fails with EFBIG instead of killing
        f"resource.setrlimit(resource.RLIMIT_FSIZE, ({LIMIT}, {LIMIT}))\n"
        "try:\n"
        "    store.save(big)\n"
        "except OSError as exc:\n"
        "    print('refused', exc.errno)\n"
        "    sys.exit(0)\n"
        "sys.exit('the save was not refused')\n"))
    assert r.returncode == 0 and r.stdout.startswith("refused"), (r.stdout, r.stderr)
    _old_session_intact(tmp_path)
    assert sorted(p.name for p in (tmp_path / ".porter").iterdir()) == ["session.json"]  # the temporary went


def test_a_kill_in_the_middle_of_the_write_leaves_the_old_session(tmp_path):
    SessionStore(tmp_path).save(OLD)
    # the size limit with its default action: the kernel kills the process in the write that crosses it
    r = _child(tmp_path, (
        "signal.signal(signal.SIGXFSZ, signal.SIG_DFL)\n"
        f"resource.setrlimit(resource.RLIMIT_FSIZE, ({LIMIT}, {LIMIT}))\n"
        "store.save(big)\n"
        "sys.exit('the save finished')\n"))
    assert r.returncode == -signal.SIGXFSZ, (r.returncode, r.stderr)
    _old_session_intact(tmp_path)
    # what the killed save left (its temporary) does not stop the next save or load
    SessionStore(tmp_path).save(BIG)
    data, msg = SessionStore(tmp_path).load("/p")
    assert msg is None and data["files"] == BIG["files"]


def test_a_kill_between_the_write_and_the_rename_leaves_the_old_session(tmp_path):
    SessionStore(tmp_path).save(OLD)
    # the new data is written out completely, then the process dies where it would rename
    r = _child(tmp_path, (
        "def dead(*a, **k):\n"
        "    os.kill(os.getpid(), signal.SIGKILL)\n"
        "os.replace = os.rename = dead\n"
        "store.save(big)\n"
        "sys.exit('the save finished')\n"))
    assert r.returncode == -signal.SIGKILL, (r.returncode, r.stderr)
    _old_session_intact(tmp_path)
    left = [p for p in (tmp_path / ".porter").iterdir() if p.name != "session.json"]
    assert left and all(p.name.startswith(".") for p in left)  # the complete new data, in a hidden temporary
    assert json.loads(left[0].read_bytes())["files"] == BIG["files"]
