"""End to end: the real `porter` command in tmux, driven the way a person would
(send-keys, capture-pane), on a copy of a sample project."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tui_helpers import tree_bytes

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


SOCKET = f"porter-e2e-{os.getpid()}"  # a private tmux server: other tmux users are not disturbed


def _tmux(*args: str) -> str:
    return subprocess.run(["tmux", "-L", SOCKET, *args], capture_output=True, text=True, timeout=20).stdout


def _wait_for(session: str, text: str, timeout: float = 30.0) -> str:
    deadline = time.monotonic() + timeout
    screen = ""
    while time.monotonic() < deadline:
        screen = _tmux("capture-pane", "-p", "-t", session)
        if text in screen:
            return screen
        time.sleep(0.2)
    raise AssertionError(f"{text!r} never appeared on the screen:\n{screen}")


def _wait_until(session: str, pred, timeout: float = 30.0) -> str:
    deadline = time.monotonic() + timeout
    screen = ""
    while time.monotonic() < deadline:
        screen = _tmux("capture-pane", "-p", "-t", session)
        if pred(screen):
            return screen
        time.sleep(0.2)
    raise AssertionError(f"the expected screen never appeared:\n{screen}")


def _alive(session: str) -> bool:
    return subprocess.run(["tmux", "-L", SOCKET, "has-session", "-t", session], capture_output=True,
                          timeout=20).returncode == 0


def _wait_gone(session: str, why: str) -> None:
    """Wait until porter in ``session`` has quit (the session ends with it); fail with ``why``."""
    deadline = time.monotonic() + 15
    while _alive(session) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not _alive(session), why


def test_review_accept_all_write_and_quit_in_tmux(project_dir):
    before = tree_bytes(project_dir)
    out = project_dir.with_name("warp_reduce-hip")
    session = f"porter-e2e-{os.getpid()}"
    # COLUMNS/LINES: the pane size as the app sees it (tmux started from pytest can report 80x24)
    cmd = (f"cd {shlex.quote(str(project_dir.parent))} && COLUMNS=160 LINES=45 "
           f"{shlex.quote(sys.executable)} -m porter {shlex.quote(project_dir.name)}")
    env_cmd = ["tmux", "-L", SOCKET, "-f", "/dev/null", "new-session", "-d", "-s", session, "-x", "160", "-y", "45", cmd]
    subprocess.run(env_cmd, check=True, timeout=20)
    try:
        # the first screen, every file converted (the header drops "converting")
        _wait_until(session, lambda sc: "files reviewed" in sc and "warp_utils.cuh" in sc
                             and "converting" not in sc and "│" in sc)
        n = sum(1 for p in project_dir.iterdir() if p.suffix in (".cu", ".cuh", ".h") or p.name in
                ("CMakeLists.txt", "Makefile"))
        for _ in range(n):
            _tmux("send-keys", "-t", session, "A")
            time.sleep(0.3)
            _tmux("send-keys", "-t", session, "Tab")
            time.sleep(0.3)
        _wait_for(session, "every file is reviewed")
        _tmux("send-keys", "-t", session, "w")
        _wait_for(session, "wrote")
        _tmux("send-keys", "-t", session, "q")
        _wait_gone(session, "porter did not quit on q after writing")
    finally:
        if _alive(session):
            _tmux("kill-session", "-t", session)
        _tmux("kill-server")
    for rel in ("main.cu", "reduce_kernels.cu", "reduce_kernels.h", "warp_utils.cuh"):
        text = (out / rel).read_text()
        assert "cuda_runtime.h" not in text and "hip/hip_runtime.h" in text, rel
    assert "hipMalloc" in (out / "main.cu").read_text()
    assert (out / "README.md").exists()
    assert (out / ".porter" / "session.json").exists()
    assert tree_bytes(project_dir) == before  # the source is untouched


FILES = ("CMakeLists.txt", "Makefile", "main.cu", "reduce_kernels.cu", "reduce_kernels.h", "warp_utils.cuh")


def _file_list(screen: str) -> list[tuple[str, ...]]:
    """(mark, name, state) of each line of the file list pane, without the marks of the last
    build (``✖3``: they belong to the job, not to the review; the pane cuts the rest short)."""
    out = []
    for line in screen.splitlines():
        tokens = [t for t in line.split("│", 1)[0].split() if not t.startswith("✖")]
        if len(tokens) >= 3 and tokens[1] in FILES:
            out.append(tuple(tokens[:3]))
    return out


def _send(session: str, *keys: str, pause: float = 0.3) -> None:
    for k in keys:
        _tmux("send-keys", "-t", session, k)
        time.sleep(pause)


def _allow(session: str) -> None:
    """Answer yes to the question c / T / t ask before running the project's own code (its build
    files, porter.toml's [test] command or [smoke] module): once per project, kept in the session."""
    _wait_for(session, "y: yes    n / escape: no")
    _send(session, "y")


def test_the_review_loop_in_tmux_keeps_every_piece_of_work(tmp_path, amd_compilers):
    """The default sample from a fresh folder: accept every file, reopen one from the
    file list, edit it (escape asks to save), T (write, compile, test), } to the
    first error, f fixes it, u u undo the fix and the edit, q asks about the
    unwritten work; a restart finds everything as it was left.  Then every safe fix
    (palette), accept, and T passes: build, no test command (said), smoke test."""
    root = Path(__file__).resolve().parents[2]
    sample = root / "sample_projects" / "warp_reduce"
    before = tree_bytes(sample)
    work = tmp_path / "work"
    work.mkdir()
    out = work / "warp_reduce-hip"
    session = f"porter-loop-{os.getpid()}"
    env = (f"COLUMNS=200 LINES=50 PYTHONPATH={shlex.quote(str(root))} "
           f"PORTER_CACHE_DIR={shlex.quote(str(tmp_path / 'cache'))} ")
    cmd = f"cd {shlex.quote(str(work))} && {env}{shlex.quote(sys.executable)} -m porter"  # no PATH: the sample

    def start() -> None:
        subprocess.run(["tmux", "-L", SOCKET, "-f", "/dev/null", "new-session", "-d", "-s", session,
                        "-x", "200", "-y", "50", cmd], check=True, timeout=20)

    def quit_with_prompt() -> None:
        _send(session, "q")
        _wait_for(session, "not written to the output folder")
        _send(session, "y")
        _wait_gone(session, "porter did not quit after y")

    start()
    try:
        screen = _wait_until(session, lambda sc: "files reviewed" in sc and "converting" not in sc and "│" in sc)
        assert "warp_reduce → ./warp_reduce-hip" in screen  # the output goes under the current folder
        for _ in range(6):
            _send(session, "A", "Tab")
        _wait_for(session, "every file is reviewed")
        _send(session, "1", "Up", "Up", "Up", "Enter")  # from warp_utils.cuh back up to main.cu, keyboard only
        _wait_until(session, lambda sc: any(ln.lstrip(" ").startswith("main.cu  accepted")
                                            for ln in (x.split("│", 1)[-1] for x in sc.splitlines())))
        _send(session, "e")
        _wait_for(session, "editing HIP: main.cu")
        _send(session, "// reviewed in tmux", "Enter", "Escape")
        _wait_for(session, "unsaved changes")
        _send(session, "s")
        _wait_for(session, "main.cu  edited")
        _send(session, "T")
        _allow(session)  # the project's CMakeLists.txt and Makefile run: asked once, kept in the session
        screen = _wait_for(session, "compile and test stopped at the build", timeout=120)
        assert "errors" in screen
        _send(session, "}")
        screen = _wait_for(session, "warp_utils.cuh:")
        assert "PORT020" in screen
        _send(session, "f")
        _wait_for(session, "applied the fix for PORT020")
        _send(session, "u")
        _wait_for(session, "undone: warp_utils.cuh")
        _send(session, "u")
        screen = _wait_for(session, "undone: main.cu")
        left = _file_list(screen)
        assert [(mark, state) for mark, _, state in left] == [("✓", "accepted")] * 6, screen
        quit_with_prompt()
        assert "// reviewed in tmux" in (out / "main.cu").read_text()  # T wrote the edit; the undo is not written
        start()
        screen = _wait_until(session, lambda sc: "6/6 files reviewed" in sc and "converting" not in sc)
        assert "restored the review session" in screen
        assert _file_list(screen) == left  # every file's state and badges, as on screen before the quit
        _send(session, "q")  # still not written after the restart: q still asks; n stays
        _wait_for(session, "not written to the output folder")
        _send(session, "n")
        # the loop to the end: every safe fix in the project (palette), every file accepted again,
        # T builds, finds no test command, and runs the smoke fine-tune
        _send(session, "C-p")
        _send(session, "every safe fix in the project", "Enter")
        _wait_for(session, "(u takes them all back)")
        _send(session, "y")
        _wait_for(session, "applied")
        for _ in range(6):
            _send(session, "A", "Tab")
        _wait_for(session, "every file is reviewed")
        _send(session, "T")  # allowed before the restart, and the build files did not change: no question
        screen = _wait_for(session, "compile and test passed", timeout=240)
        # the steps that ran (no [test] command in the sample: none is claimed) and the smoke verdict
        assert "compile and test passed: build, smoke test" in screen and "verdict     PASS" in screen, screen
        _send(session, "q")  # everything is written: no question
        _wait_gone(session, "porter did not quit on q with everything written")
    finally:
        if _alive(session):
            _tmux("kill-session", "-t", session)
        _tmux("kill-server")
    saved = (out / ".porter" / "session.json").read_text()
    assert "reviewed in tmux" not in saved  # the edit was undone, and stays undone
    assert tree_bytes(sample) == before  # the installed sample is untouched


@pytest.mark.parametrize("size", [(80, 24), (100, 30)])
def test_expired_toasts_leave_nothing_drawn_in_tmux(project_dir, size):
    """Issue 14: a fragment of an expired toast stayed drawn over the diff's border until a
    screen switch.  Three stacked toasts over the diff, then their expiry: the screen is the one
    before them, cell for cell."""
    cols, rows = size
    session = f"porter-toast-{os.getpid()}-{cols}"
    cmd = (f"cd {shlex.quote(str(project_dir.parent))} && COLUMNS={cols} LINES={rows} PORTER_KEYMAP=/nonexistent "
           f"{shlex.quote(sys.executable)} -m porter {shlex.quote(project_dir.name)}")
    subprocess.run(["tmux", "-L", SOCKET, "-f", "/dev/null", "new-session", "-d", "-s", session,
                    "-x", str(cols), "-y", str(rows), cmd], check=True, timeout=20)
    try:
        # every file converted and its findings checked: the header's counts are final (the
        # header says "converting" or "checking findings" first while they are not)
        before = _wait_until(session, lambda sc: "files reviewed" in sc and "converting" not in sc
                             and "checking findings" not in sc and "│" in sc)
        time.sleep(0.5)
        before = _tmux("capture-pane", "-p", "-t", session)
        _send(session, "]", "]", "]", pause=0.15)  # the build file has no findings: a toast each time
        during = _wait_for(session, "no findings in this file")
        assert during != before
        screen = _wait_until(session, lambda sc: "no findings in this file" not in sc, timeout=20)
        time.sleep(0.5)  # a repaint that would clear a fragment late has had its chance
        screen = _tmux("capture-pane", "-p", "-t", session)
        assert screen == before, f"left on screen after the toasts expired:\n{screen}"
        _send(session, "q")  # nothing decided: q quits at once (a killed session would leave its semaphores)
        _wait_gone(session, "porter did not quit on q with nothing to write")
    finally:
        if _alive(session):
            _tmux("kill-session", "-t", session)
        _tmux("kill-server")


def _descendants(pid: int) -> list[int]:
    """``pid`` and every process below it (from /proc)."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        for task in Path(f"/proc/{p}/task").glob("*"):
            try:
                todo += [int(x) for x in (task / "children").read_text().split()]
            except OSError:
                pass
    return out


def _sems() -> set[str]:
    shm = Path("/dev/shm")
    return {p.name for p in shm.glob("sem.mp-*")} if shm.is_dir() else set()


def test_closing_the_terminal_saves_the_last_decision_and_leaves_nothing_behind(project_dir):
    """The terminal window closed under the app (tmux kill-session: SIGHUP to the whole process
    group) within the 0.2 s in which a decision waits to be saved: it is in the session all the
    same, and no worker process or named semaphore of the app's pool is left."""
    out = project_dir.with_name("warp_reduce-hip")
    session = f"porter-hup-{os.getpid()}"
    before = _sems()
    cmd = (f"cd {shlex.quote(str(project_dir.parent))} && COLUMNS=160 LINES=45 PORTER_KEYMAP=/nonexistent "
           f"exec {shlex.quote(sys.executable)} -m porter {shlex.quote(project_dir.name)}")
    subprocess.run(["tmux", "-L", SOCKET, "-f", "/dev/null", "new-session", "-d", "-s", session,
                    "-x", "160", "-y", "45", cmd], check=True, timeout=20)
    try:
        _wait_until(session, lambda sc: "files reviewed" in sc and "converting" not in sc and "│" in sc)
        pid = int(_tmux("display-message", "-p", "-t", session, "#{pane_pid}").strip())
        _tmux("send-keys", "-t", session, "a")
        deadline = time.monotonic() + 10
        while "1/" not in _tmux("capture-pane", "-p", "-t", session).split("hunks decided")[0].rsplit("\n", 1)[-1]:
            assert time.monotonic() < deadline, "the decision never showed"
        family = _descendants(pid)  # the workers and multiprocessing's resource tracker
        assert len(family) >= 2, family
        _tmux("kill-session", "-t", session)  # at once: the decision's save is still pending
        deadline = time.monotonic() + 20
        while any(Path(f"/proc/{p}").exists() for p in family) and time.monotonic() < deadline:
            time.sleep(0.1)
        left = [p for p in family if Path(f"/proc/{p}").exists()]
        assert not left, f"processes of the app outlived its terminal: {left}"
    finally:
        if _alive(session):
            _tmux("kill-session", "-t", session)
        _tmux("kill-server")
    saved = json.loads((out / ".porter" / "session.json").read_text())
    decided = [d for f in saved["files"].values() for d in (f.get("decisions") or {}).values()]
    assert "accepted" in decided, saved
    time.sleep(0.5)  # the tracker unlinks as it ends
    assert _sems() <= before, f"named semaphores left in /dev/shm: {sorted(_sems() - before)}"


def _start(session: str, folder: Path, name: str, cols: int, rows: int, tail: str = "") -> None:
    """porter on ``folder/name`` in a ``cols`` x ``rows`` tmux pane (``tail``: a command run after it
    in the same pane, so that what porter leaves on the terminal can be read)."""
    cmd = (f"cd {shlex.quote(str(folder))} && COLUMNS={cols} LINES={rows} PORTER_KEYMAP=/nonexistent "
           f"{shlex.quote(sys.executable)} -m porter {shlex.quote(name)}{tail}")
    subprocess.run(["tmux", "-L", SOCKET, "-f", "/dev/null", "new-session", "-d", "-s", session,
                    "-x", str(cols), "-y", str(rows), cmd], check=True, timeout=20)


def _ready(screen: str) -> bool:
    """Every file converted and its findings checked (the header's counts are final)."""
    return "files reviewed" in screen and "converting" not in screen and "checking findings" not in screen \
        and "│" in screen


def test_keys_typed_right_after_q_do_not_crash_the_quit(project_dir):
    """Issue 32: `tmux send-keys q e` (two keys in one read) raised NoMatches (TextArea) from the editor
    screen that `e` pushed onto the app `q` was ending."""
    session = f"porter-qe-{os.getpid()}"
    _start(session, project_dir.parent, project_dir.name, 80, 24, tail="; echo porter-exit=$?; sleep 30")
    try:
        _wait_until(session, _ready)
        _tmux("send-keys", "-t", session, "q", "e")  # one send-keys: both keys in one read
        screen = _wait_for(session, "porter-exit=")
        assert "porter-exit=0" in screen and "Traceback" not in screen and "NoMatches" not in screen, screen
    finally:
        if _alive(session):
            _tmux("kill-session", "-t", session)
        _tmux("kill-server")


LOOP_WORDS = ("a accept", "x reject", "n hunk", "A all", "tab file", "] finding", "f fix", "w write", "T test",
              "c compile", "} error", "q quit")


@pytest.mark.parametrize("size", [(80, 24), (160, 45)])
def test_the_review_loop_on_a_multi_file_project_at_80x24_and_160x45(project_dir, size, amd_compilers):
    """Issue 32, end to end: the loop's keys are all on screen at both sizes; the file list's filter
    opens a file; the chosen finding is readable (at 80x24 in the zoomed diff); every file accepted;
    T writes, compiles for gfx942 and stops at the build's errors, said on screen; } jumps to the
    first error with its finding; q quits at once (everything is written)."""
    import re

    cols, rows = size
    session = f"porter-loop32-{os.getpid()}-{cols}"
    _start(session, project_dir.parent, project_dir.name, cols, rows)
    try:
        screen = _wait_until(session, _ready)
        bar = " ".join(screen.splitlines()[-2:])
        for word in LOOP_WORDS:
            assert word in bar, (word, bar)
        _send(session, "1", "/")
        _send(session, "warp_u", "Enter", "Enter")  # filter the list, then open what it keeps
        _wait_for(session, "warp_utils.cuh  pending")
        if cols == 80:
            _send(session, "z")  # the diff alone: the finding bar under it holds the message
        _send(session, "]")
        screen = _wait_until(session, lambda sc: re.search(r"PORT\d{3} (error|warning|info) line \d+", sc))
        if cols == 80:
            _send(session, "z")
        for _ in range(8):
            _send(session, "A", "Tab")
        _wait_for(session, "every file is reviewed")
        _send(session, "T")
        _allow(session)
        # the result, said in the log and in a toast (wrapped at 80 columns: read across the lines)
        _wait_until(session, lambda sc: re.search(r"compile and test stopped at the build: \d+ errors?",
                                                  " ".join(sc.split())), timeout=180)
        _send(session, "}")
        screen = _wait_until(session, lambda sc: "PORT020 error line" in sc)
        assert "warp_utils.cuh  accepted" in screen  # the first error's file, its finding chosen
        _send(session, "q")  # T wrote every accepted file: nothing to ask
        _wait_gone(session, "porter did not quit on q with everything written")
    finally:
        if _alive(session):
            _tmux("kill-session", "-t", session)
        _tmux("kill-server")
    out = project_dir.with_name("warp_reduce-hip")
    assert "hip/hip_runtime.h" in (out / "warp_utils.cuh").read_text()


@pytest.mark.parametrize("size", [(80, 24), (160, 45)])
def test_accept_write_compile_then_test_with_the_projects_test_command_at_80x24_and_160x45(project_dir, size,
                                                                                          amd_compilers):
    """Issue 32 "done when", end to end on the multi-file sample (6 files) with a porter.toml [test]
    command: every file accepted, `w` writes them, `c` compiles for gfx942 and shows its errors
    (the sample's 32-bit lane masks: PORT020), every safe fix (palette), every file accepted again,
    then `T` builds, runs the project's test command in the output folder and says it passed."""
    import re

    cols, rows = size
    code = "import pathlib; pathlib.Path('test-ran.txt').write_text('ok'); print('project tests passed')"
    (project_dir / "porter.toml").write_text(f"[test]\ncommand = '''{sys.executable} -c \"{code}\"'''\n")
    out = project_dir.with_name("warp_reduce-hip")
    session = f"porter-done32-{os.getpid()}-{cols}"
    _start(session, project_dir.parent, project_dir.name, cols, rows)
    try:
        _wait_until(session, _ready)
        for _ in range(8):
            _send(session, "A", "Tab")
        _wait_for(session, "every file is reviewed")
        _send(session, "w")
        _wait_for(session, "wrote")
        assert "hipMalloc" in (out / "main.cu").read_text()
        _send(session, "c")
        screen = _wait_for(session, "y: yes    n / escape: no")  # the project's Makefile may run anything
        assert "Makefile" in screen  # what would run is shown
        _send(session, "y")
        # the verdict, in a toast and the log (wrapped at 80 columns: read across the lines)
        _wait_until(session, lambda sc: re.search(r"build failed|gfx942[^:│]*: failed", " ".join(sc.split())),
                    timeout=180)
        _send(session, "}")  # the first error, with its finding chosen
        _wait_until(session, lambda sc: "PORT020 error line" in sc)
        assert not (out / "test-ran.txt").exists()
        _send(session, "C-p")
        _send(session, "every safe fix in the project", "Enter")
        _wait_for(session, "(u takes them all back)")
        _send(session, "y")
        _wait_for(session, "applied")
        for _ in range(8):
            _send(session, "A", "Tab")
        _wait_for(session, "every file is reviewed")
        _send(session, "T")
        _allow(session)  # the build files are allowed; the [test] command is new: asked about alone
        screen = _wait_until(session, lambda sc: "compile and test passed" in " ".join(sc.split()), timeout=300)
        flat = " ".join(screen.split())
        assert "compile and test passed: build, test" in flat, screen
        _send(session, "q")  # T wrote everything: no question
        _wait_gone(session, "porter did not quit on q with everything written")
    finally:
        if _alive(session):
            _tmux("kill-session", "-t", session)
        _tmux("kill-server")
    assert (out / "test-ran.txt").read_text() == "ok"  # the project's test command ran, in the output folder
    assert "0xffffffffffffffff" in (out / "warp_utils.cuh").read_text() or \
        "__shfl_down(" in (out / "warp_utils.cuh").read_text()  # the fixes were written before the build


def test_a_second_app_on_the_same_output_folder_is_refused_in_one_line(project_dir):
    """Issue 33 item 6: two apps on one output folder each saved the session, the last one wiping the
    other's decisions.  The app holds the output folder's lock while it runs, as porter convert does:
    a second app is refused at once, in one line, exit 2; once the first quits, the folder is free."""
    session = f"porter-lock-{os.getpid()}"
    out = project_dir.with_name("warp_reduce-hip")
    second = [sys.executable, "-m", "porter", project_dir.name, "-o", str(out)]
    _start(session, project_dir.parent, project_dir.name, 120, 40)
    try:
        _wait_until(session, _ready)
        _send(session, "2", "A")  # a decision of the first app, saved in its session
        _wait_until(session, lambda sc: "1/6 files reviewed" in sc)
        r = subprocess.run(second, cwd=project_dir.parent, capture_output=True, text=True, timeout=60,
                           stdin=subprocess.DEVNULL)
        assert r.returncode == 2, r
        assert r.stderr.count("\n") == 1 and "is being written by another porter (a review app or a convert)" \
            in r.stderr, r.stderr
        assert r.stdout == ""
        _send(session, "q", "y")
        _wait_gone(session, "porter did not quit on q y")
    finally:
        if _alive(session):
            _tmux("kill-session", "-t", session)
        _tmux("kill-server")
    saved = json.loads((out / ".porter" / "session.json").read_text())
    assert "accepted" in [d for f in saved["files"].values() for d in (f.get("decisions") or {}).values()]
    assert not (out / ".porter" / "lock").exists()  # released with the app
