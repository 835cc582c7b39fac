"""The review app: files (left), CUDA | HIP diff (centre), findings (right),
log (bottom, toggled).  Files are converted lazily by a background thread, the
one on screen first; every decision is saved to the session at once.

    PorterApp(ReviewProject(root, out), SessionStore(out)).run()
"""

from __future__ import annotations

import functools
import importlib.util
import json
import os
import sys
import threading
from pathlib import Path
from typing import Iterable

from rich.text import Text
from textual import on, work
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Footer, OptionList, RichLog, Static
from textual.widgets.option_list import Option
from textual.worker import Worker, WorkerCancelled, WorkerFailed, WorkerState

from porter.project.review import S_WAITING, FileReview, ReviewProject, finding_key
from porter.project.session import SessionStore
from porter.tui.highlight import highlight_pair
from porter.tui.jobs import Diagnostic, parse_diagnostics, stream
from porter.tui.screens.dialogs import ConfirmScreen, TextScreen
from porter.tui.screens.editor import EditorScreen
from porter.tui.widgets.diff_view import DiffView
from porter.tui.widgets.file_tree import FileTree
from porter.tui.widgets.findings_list import FindingsList
from porter.tui.widgets.info_bar import InfoBar

SEV_LETTER = {"error": ("E", "bold #ff5f5f"), "warning": ("W", "#ffaf00"), "info": ("I", "#5fafff")}
BUILD_TIMEOUT_S = 900.0
# the palette's "Compile for ..." commands
COMPILE_ARCHS = (("gfx942", "MI300X"), ("gfx90a", "MI250X / MI210"), ("gfx950", "MI355X"))
SMOKE_TIMEOUT_S = 1800.0

# (key, action, description, id): the review keys, shown in the footer and the command palette
KEYS = [
    ("n", "next_hunk", "Next hunk", "next_hunk"),
    ("p", "prev_hunk", "Prev hunk", "prev_hunk"),
    ("a", "decide('accepted')", "Accept hunk", "accept_hunk"),
    ("x", "decide('rejected')", "Reject hunk", "reject_hunk"),
    ("A", "accept_file", "Accept file", "accept_file"),
    ("right_square_bracket", "finding(1)", "Next finding", "next_finding"),
    ("left_square_bracket", "finding(-1)", "Prev finding", "prev_finding"),
    ("f", "apply_fix", "Apply fix", "apply_fix"),
    ("i", "explain", "Explain finding", "explain"),
    ("e", "edit", "Edit HIP", "edit"),
    ("tab", "next_file(1)", "Next file", "next_file"),
    ("shift+tab", "next_file(-1)", "Prev file", "prev_file"),
    ("w", "write", "Write", "write"),
    ("c", "compile", "Compile", "compile"),
    ("t", "smoke", "Smoke test", "smoke"),
    ("l", "toggle_log", "Log", "toggle_log"),
    ("question_mark", "help", "Help", "help"),
    ("q", "quit", "Quit", "quit"),
]
KEY_LABEL = {"right_square_bracket": "]", "left_square_bracket": "[", "question_mark": "?"}


class MainScreen(Screen):
    BINDINGS = [Binding(k, f"app.{action}", desc, id=bid, show=bid not in ("prev_hunk", "prev_finding", "prev_file", "explain"),
                        priority=k in ("tab", "shift+tab"), key_display=KEY_LABEL.get(k))
                for k, action, desc, bid in KEYS]

    def __init__(self, project: ReviewProject) -> None:
        super().__init__()
        self.project = project

    def compose(self) -> ComposeResult:
        yield InfoBar(id="summary")
        with Horizontal(id="body"):
            yield FileTree(self.project.files, id="files")
            with Vertical(id="centre"):
                yield InfoBar(id="file-info")
                yield DiffView(id="diff")
            with Vertical(id="side"):
                yield Static(Text("Findings", style="bold"), id="findings-title")
                yield FindingsList(id="findings")
                yield InfoBar(id="fix-preview")
        with Horizontal(id="log-panel"):
            yield RichLog(id="log", max_lines=200_000, wrap=False, markup=False, highlight=False)
            yield OptionList(id="diagnostics")
        yield Footer()

    def on_mount(self) -> None:
        self.call_after_refresh(self.app.start, self)


class PorterApp(App):
    CSS_PATH = "app.tcss"
    TITLE = "porter review"

    def __init__(self, project: ReviewProject, store: SessionStore | None = None,
                 messages: Iterable[str] = (), convert_in_background: bool = True,
                 processes: bool = True) -> None:
        super().__init__()
        self.project = project
        self.store = store or SessionStore(project.output)
        self.start_messages = list(messages)
        self.current: FileReview | None = None
        self.unwritten = False
        self._session_warned = False
        self._ready_files: list[FileReview] = []
        self._ready_files_lock = threading.Lock()
        self._wanted: list[str] = []
        self._conv_lock = threading.Lock()
        self._conv_running = False
        self._conv_pos = 0
        self._in_flight: set[str] = set()
        self._executor = None
        self._no_pool = not processes  # False: convert and highlight in threads of this process
        self._pool_size = 1
        self._save_pending = False
        self._conv_stop = threading.Event()
        self._hl_cache: dict[tuple, tuple] = {}
        self._job_worker: Worker | None = None
        self.diagnostics: list[Diagnostic] = []
        self.last_build = ""  # "gfx942 with clang++-19 (clang 19.1.7): ok", from the last build's report
        self.convert_in_background = convert_in_background
        self.started = False  # the main screen and its widgets are up

    def get_default_screen(self) -> Screen:
        self.main = MainScreen(self.project)
        return self.main

    # ---- widgets -----------------------------------------------------------------
    @property
    def diff(self) -> DiffView:
        return self.main.query_one("#diff", DiffView)

    @property
    def file_tree(self) -> FileTree:
        return self.main.query_one("#files", FileTree)

    @property
    def findings_list(self) -> FindingsList:
        return self.main.query_one("#findings", FindingsList)

    def start(self, main: MainScreen) -> None:
        """Called by the main screen once it is mounted (again, a moment later, until
        the nested widgets are mounted too)."""
        self.main = main
        if not all(main.query(sel) for sel in ("#diff", "#files", "#findings", "#log", "#diagnostics", "#file-info")):
            self.set_timer(0.02, lambda: self.start(main))
            return
        for msg in self.start_messages:
            self.notify(msg, severity="information" if msg.startswith("restored") else "warning", timeout=8)
        self.update_summary()
        self.set_interval(0.2, self._flush_ready)
        if self.project.files:
            first = self.project.files[0]
            self.open_file(first.rel)
            self.file_tree.select_file(first.rel)
        else:
            self.diff.show_message("no CUDA source or build files found in this project")
        if self.convert_in_background:
            self._conv_running = True
            self._convert_all()
        self.diff.focus()
        self.started = True

    def on_unmount(self) -> None:
        self._conv_stop.set()
        if self._save_pending:
            self._save_now()
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)

    # ---- background conversion ---------------------------------------------------
    def _next_to_convert(self) -> FileReview | None:
        with self._conv_lock:
            while self._wanted:
                cand = self.project.by_rel.get(self._wanted.pop())
                if cand is not None and cand.status == S_WAITING and cand.rel not in self._in_flight:
                    return cand
            files = self.project.files
            while self._conv_pos < len(files) and (files[self._conv_pos].status != S_WAITING
                                                   or files[self._conv_pos].rel in self._in_flight):
                self._conv_pos += 1
            if self._conv_pos >= len(files):
                return None
            return files[self._conv_pos]

    def _pool(self):
        """Worker processes for converting (the UI keeps its interpreter to itself);
        None where they cannot start: files are converted in this thread then."""
        if self._executor is None and not self._no_pool:
            try:
                import multiprocessing
                from concurrent.futures import ProcessPoolExecutor

                n = max(1, min(4, (os.cpu_count() or 2) - 1))
                self._executor = ProcessPoolExecutor(n, mp_context=multiprocessing.get_context("spawn"))
                self._pool_size = n
            except (OSError, ImportError, ValueError):
                self._no_pool = True
        return self._executor

    def _loaded(self, fr: FileReview, res: dict | None) -> None:
        if res is None:
            self.project.load_file(fr)
        else:
            self.project.apply_loaded(fr, res)
        with self._ready_files_lock:
            self._ready_files.append(fr)
        if self.current is fr:
            self.call_from_thread(self._flush_ready)

    @work(thread=True, group="convert", exit_on_error=False)
    def _convert_all(self) -> None:
        """Convert files until none is left (the wanted ones first), in worker processes
        when they start, then end; ``want`` starts it again when a file needs converting."""
        from concurrent.futures import FIRST_COMPLETED
        from concurrent.futures import wait as wait_futures

        from porter.project.review import convert_file

        pool = self._pool()
        futures: dict = {}
        while not self._conv_stop.is_set():
            if pool is None:
                fr = self._next_to_convert()
                if fr is None:
                    with self._conv_lock:
                        if not self._wanted_waiting():
                            self._conv_running = False
                            return
                    continue
                self._loaded(fr, None)
                continue
            while len(futures) < 2 * self._pool_size:
                fr = self._next_to_convert()
                if fr is None:
                    break
                self._in_flight.add(fr.rel)
                try:
                    fut = pool.submit(convert_file, fr.rel, fr.path, fr.kind, None, tuple(fr.applied_fixes), fr.options)
                except RuntimeError:  # shut down
                    return
                futures[fut] = fr
            if not futures:
                with self._conv_lock:
                    if not self._wanted_waiting():
                        self._conv_running = False
                        return
                continue
            done, _ = wait_futures(list(futures), timeout=0.2, return_when=FIRST_COMPLETED)
            for fut in done:
                fr = futures.pop(fut)
                try:
                    res = fut.result()
                except Exception as exc:  # a worker process died
                    res = {"status": "error", "error": f"conversion failed: {type(exc).__name__}: {exc}"}
                self._in_flight.discard(fr.rel)
                self._loaded(fr, res)

    def _wanted_waiting(self) -> bool:
        """Whether a wanted file still waits (call with _conv_lock held)."""
        return any((fr := self.project.by_rel.get(r)) is not None and fr.status == S_WAITING for r in self._wanted)

    def want(self, rel: str) -> None:
        with self._conv_lock:
            self._wanted.append(rel)
            if self._conv_running or not self.convert_in_background:
                return
            self._conv_running = True
        self._convert_all()

    def _flush_ready(self) -> None:
        with self._ready_files_lock:
            ready, self._ready_files = self._ready_files, []
        if not ready:
            return
        tree = self.file_tree
        for fr in ready:
            tree.update_file(fr)
            if fr is self.current:
                self.show_current()
        self.update_summary()

    # ---- showing a file ----------------------------------------------------------
    def update_summary(self) -> None:
        p = self.project
        build = f"   build {p.build_arch}" if p.build_arch else ""
        if self.last_build:
            build = f"   build {self.last_build}"
        self.main.query_one("#summary", InfoBar).update(
            Text.assemble(("porter ", "bold"), (f"{p.root.name} → {p.output.name}   ", ""), (p.header(), "bold"),
                          (build, "")))

    def open_file(self, rel: str) -> None:
        fr = self.project.by_rel.get(rel)
        if fr is None:
            return
        self.current = fr
        if fr.status == S_WAITING:
            self.want(rel)
            if not self.convert_in_background:
                self.project.load_file(fr)
                self.file_tree.update_file(fr)
                self.update_summary()
        self.show_current()

    def show_current(self) -> None:
        fr = self.current
        if fr is None:
            return
        diff = self.diff
        if fr.status == S_WAITING:
            diff.show_message(f"converting {fr.rel} …")
        elif fr.status == "error":
            diff.show_message(f"{fr.rel}: {fr.error}")
        else:
            diff.set_file(fr)
            self._highlight_worker(fr)
            if fr.path is not None and not fr.path.exists():
                self.notify(f"{fr.rel} was deleted from the source tree; showing the version read before",
                            severity="warning")
        self.update_file_info()
        self.update_findings()

    def update_file_info(self) -> None:
        fr = self.current
        info = self.main.query_one("#file-info", InfoBar)
        if fr is None:
            info.update("")
            return
        parts = [(fr.rel, "bold"), (f"  {fr.state}", "")]
        if fr.status == "ready":
            h = self.diff.current_hunk() if self.diff.file is fr else None
            decided = len(fr.hunks) - fr.pending_hunks
            parts.append((f"  {decided}/{len(fr.hunks)} hunks decided", ""))
            if h is not None:
                parts.append((f"  hunk {h + 1}: {fr.decision(h)}", "italic"))
            if fr.stale_decisions or any(x.stale for x in fr.hunks):
                parts.append(("  source changed: hunks marked ! need review again", "#ffaf00"))
            if fr.warnings:
                parts.append((f"  {fr.warnings[0]}", "#ffaf00"))
        info.update(Text.assemble(*parts))

    def update_findings(self) -> None:
        ol = self.findings_list
        ol.set_items([])
        fr = self.current
        preview = self.main.query_one("#fix-preview", InfoBar)
        if fr is None or fr.status != "ready" or not fr.findings:
            preview.update(Text("no findings" if fr is not None and fr.status == "ready" else "", style="dim"))
            return
        opts = []
        for f in fr.findings:
            letter, style = SEV_LETTER.get(f.severity, ("?", ""))
            applied = finding_key(f) in fr.applied_fixes
            t = Text.assemble((letter + " ", style), (f"{f.rule} ", "bold"), (f"L{f.line} ", "dim"),
                              (f.message, "strike dim" if applied else ""), (" (fixed)" if applied else "", "green"))
            opts.append(t)
        ol.set_items(opts)
        preview.update(Text("] / [ move through the findings", style="dim"))

    @work(thread=True, exclusive=True, group="highlight", exit_on_error=False, description="highlight")
    def _highlight_worker(self, fr: FileReview) -> None:
        right_text = "".join(fr.right)
        key = (fr.rel, fr.source_hash, hash(right_text))
        cached = self._hl_cache.get(key)
        if cached is None:
            pool = self._pool()
            if pool is not None:  # parse and query in a worker process: the UI keeps the interpreter
                try:
                    cached = pool.submit(highlight_pair, fr.cuda, right_text).result()
                except Exception:
                    cached = None
            if cached is None:
                cached = highlight_pair(fr.cuda, right_text)
            if len(self._hl_cache) > 6:
                self._hl_cache.pop(next(iter(self._hl_cache)))
            self._hl_cache[key] = cached
        self.call_from_thread(self.diff.set_highlights, fr, *cached)

    @on(FileTree.Selected)
    def _tree_selected(self, event: FileTree.Selected) -> None:
        self.open_file(event.rel)
        self.diff.focus()

    @on(DiffView.CursorMoved)
    def _cursor_moved(self) -> None:
        self.update_file_info()

    # ---- changes -----------------------------------------------------------------
    def changed(self, fr: FileReview, rows_changed: bool = False) -> None:
        """A decision (or, with ``rows_changed``, a fix or an edit) changed ``fr``."""
        self.unwritten = True
        if self.diff.file is fr:
            if rows_changed:
                self.diff.refresh_file()
            else:
                self.diff.redraw()
        self.file_tree.update_file(fr)
        self.update_summary()
        self.update_file_info()
        self.save_session()

    def save_session(self) -> None:
        """Save soon (changes within 0.2 s are saved together; quitting saves at once)."""
        if not self._save_pending:
            self._save_pending = True
            self.set_timer(0.2, self._save_now)

    def _save_now(self) -> None:
        if not self._save_pending:
            return
        self._save_pending = False
        try:
            self.store.save(self.project.to_session())
        except OSError as exc:
            if not self._session_warned:
                self._session_warned = True
                self.notify(f"session not saved: {exc.strerror or exc} ({self.store.path.parent})", severity="error")

    def _ready_file(self) -> FileReview | None:
        fr = self.current
        if fr is None or fr.status != "ready":
            self.notify("this file is not ready for review" if fr else "no file selected", severity="warning",
                        timeout=2)
            return None
        return fr

    # ---- actions: hunks ----------------------------------------------------------
    def action_next_hunk(self) -> None:
        self._step_hunk(1)

    def action_prev_hunk(self) -> None:
        self._step_hunk(-1)

    def _step_hunk(self, step: int) -> None:
        fr = self._ready_file()
        if fr is None:
            return
        row = self.diff.current_row() or 0
        hunks = fr.hunks if step > 0 else list(reversed(fr.hunks))
        cur = fr.row_hunk.get(row)
        for h in hunks:
            if h.index == cur:
                continue
            if (step > 0 and h.start > row) or (step < 0 and h.start < row):
                self.diff.move_to_row(h.start)
                self.update_file_info()
                return
        self.notify("no more hunks in this file" if fr.hunks else "this file has no changes", timeout=1.5)

    def action_decide(self, decision: str) -> None:
        fr = self._ready_file()
        if fr is None or fr.edited is not None:
            if fr is not None:
                self.notify("this file is edited: its HIP text is written as edited", timeout=2)
            return
        h = self.diff.current_hunk()
        if h is None:
            self.notify("no hunk here", timeout=1.5)
            return
        fr.decide(h, decision)
        self.changed(fr)
        nxt = next((x for x in fr.hunks[h + 1:] if x.key not in fr.decisions), None)
        nxt = nxt or next((x for x in fr.hunks if x.key not in fr.decisions), None)
        if nxt is not None:
            self.diff.move_to_row(nxt.start)
        self.update_file_info()

    def action_accept_file(self) -> None:
        fr = self._ready_file()
        if fr is None:
            return
        fr.accept_all()
        self.changed(fr)
        self.notify(f"accepted every hunk of {fr.rel}", timeout=1.5)

    # ---- actions: findings -------------------------------------------------------
    def current_finding(self):
        fr = self.current
        idx = self.findings_list.highlighted
        if fr is None or fr.status != "ready" or idx is None or idx >= len(fr.findings):
            return None
        return fr.findings[idx]

    def action_finding(self, step: int) -> None:
        fr = self._ready_file()
        if fr is None:
            return
        if not fr.findings:
            self.notify("no findings in this file", timeout=1.5)
            return
        ol = self.findings_list
        idx = ol.highlighted
        idx = (0 if step > 0 else len(fr.findings) - 1) if idx is None else (idx + step) % len(fr.findings)
        ol.highlighted = idx

    @on(FindingsList.Highlighted)
    def _finding_highlighted(self, event: FindingsList.Highlighted) -> None:
        fr = self.current
        if fr is None or fr.status != "ready" or event.index >= len(fr.findings):
            return
        f = fr.findings[event.index]
        self.diff.move_to_row(fr.row_of_left_line(f.line))
        self.main.query_one("#fix-preview", InfoBar).update(self._fix_preview(fr, f))

    def _fix_preview(self, fr: FileReview, f) -> Text:
        t = Text()
        t.append(f"{f.rule} {f.severity} line {f.line}\n", style="bold")
        t.append(f.message + "\n")
        if f.fix is None:
            t.append("\nno automatic fix (i explains)\n", style="dim")
            return t
        t.append(f"\nfix ({'safe' if f.fix.safe else 'review it'}): {f.fix.description}\n", style="italic")
        src = fr.cuda.encode("utf-8")
        for e in f.fix.edits[:6]:
            old = src[e.start_byte:e.end_byte].decode("utf-8", "replace")
            if old:
                t.append("- " + old.replace("\n", "\n- ") + "\n", style="#ff8787")
            if e.replacement:
                t.append("+ " + e.replacement.replace("\n", "\n+ ") + "\n", style="#87d787")
        if finding_key(f) in fr.applied_fixes:
            t.append("(applied)\n", style="green")
        else:
            t.append("f applies it\n", style="dim")
        return t

    def action_apply_fix(self) -> None:
        fr = self._ready_file()
        if fr is None:
            return
        f = self.current_finding()
        if f is None:
            self.notify("select a finding first (] / [)", timeout=2)
            return
        if f.fix is None or not f.fix.edits:
            self.notify(f"{f.rule} has no automatic fix", timeout=2)
            return
        idx = self.findings_list.highlighted
        try:
            applied = fr.apply_fix(f)
        except Exception as exc:
            self.notify(f"the fix failed: {type(exc).__name__}: {exc}", severity="error")
            return
        if not applied:
            self.notify("this fix is already applied", timeout=2)
            return
        self.changed(fr, rows_changed=True)
        self._highlight_worker(fr)
        self.update_findings()
        if idx is not None and idx < len(fr.findings):
            self.findings_list.highlighted = idx
        self.notify(f"applied the fix for {f.rule}; the file was re-translated", timeout=2)

    def action_explain(self) -> None:
        f = self.current_finding()
        if f is None:
            self.notify("select a finding first (] / [)", timeout=2)
            return
        body = f"{f.rule}: {f.message}"
        try:
            from porter.findings import catalogue

            rules = catalogue()
            rule = rules.get(f.rule) if isinstance(rules, dict) else None
            if rule is not None:
                body = rule.page_text() if hasattr(rule, "page_text") else str(rule)
        except Exception:
            pass
        self.push_screen(TextScreen(f"porter explain {f.rule}", body))

    # ---- actions: editing, files -------------------------------------------------
    def action_edit(self) -> None:
        fr = self._ready_file()
        if fr is None:
            return

        def done(text: str | None) -> None:
            if text is not None:
                self._apply_edit(fr, text)

        self.push_screen(EditorScreen(fr.rel, fr.output_text()), done)

    @work(thread=True, group="edit", exit_on_error=False, description="apply an edit")
    def _apply_edit(self, fr: FileReview, text: str) -> None:
        fr.set_edited(text if text != fr.output_text() or fr.edited is not None else None)
        if fr.edited is None and text != fr.hip:
            fr.set_edited(text)
        self.call_from_thread(self._edited, fr)

    def _edited(self, fr: FileReview) -> None:
        self.changed(fr, rows_changed=True)
        self._highlight_worker(fr)

    def action_next_file(self, step: int) -> None:
        nxt = self.project.next_needing_review(self.current.rel if self.current else None, step)
        if nxt is None:
            self.notify("every file is reviewed: w writes them", timeout=2)
            return
        self.open_file(nxt.rel)
        self.file_tree.select_file(nxt.rel)

    def action_write(self) -> None:
        self._write_worker()

    @work(thread=True, exclusive=True, group="write", exit_on_error=False)
    def _write_worker(self) -> None:
        rep = self.project.write()
        self.call_from_thread(self._written, rep)

    def _written(self, rep) -> None:
        if not rep.errors:
            self.unwritten = False
        self.notify(rep.summary() + f" → {self.project.output}", severity="error" if rep.errors else "information",
                    timeout=6)
        self.save_session()

    # ---- actions: jobs -----------------------------------------------------------
    def action_compile(self) -> None:
        if importlib.util.find_spec("porter.cli.build") is None:
            self.notify("compile: not available yet (porter build is not installed)", severity="warning")
            return
        if not self.project.output.exists():
            self.notify("nothing written yet: w writes the output first", severity="warning")
            return
        argv = [sys.executable, "-m", "porter", "build", str(self.project.output), "--json"]
        if self.project.build_arch:
            argv += ["--arch", self.project.build_arch]
        target = getattr(self.project.options, "target_rocm", None)
        if target:  # the release the port was converted for (--target-rocm or porter.toml)
            argv += ["--target-rocm", target]
        self.start_job("build", argv, BUILD_TIMEOUT_S)

    def compile_for(self, arch: str | None) -> None:
        """The palette's "Compile for ARCH": kept for this session, then compiled."""
        self.project.build_arch = arch
        self.last_build = ""
        self.update_summary()
        self.save_session()
        self.notify(f"compiling for {arch or 'the default arch (local GPU, else gfx942)'}", timeout=3)
        self.action_compile()

    def _build_report_line(self, line: str) -> None:
        """The header shows the arch and toolchain of the last build (its --json report)."""
        if not line.startswith("{") or '"toolchain"' not in line:
            return
        try:
            rep = json.loads(line)
        except ValueError:
            return
        if isinstance(rep, dict) and rep.get("arch"):
            verdict = "ok" if rep.get("ok") else "failed"
            self.last_build = f"{rep['arch']}" + (f" with {rep['toolchain']}" if rep.get("toolchain") else "") + f": {verdict}"
            self.update_summary()

    def action_smoke(self) -> None:
        if importlib.util.find_spec("porter.cli.smoke") is None:
            self.notify("smoke test: not available yet (porter smoke is not installed)", severity="warning")
            return
        self.start_job("smoke", [sys.executable, "-m", "porter", "smoke", "--steps", "20"], SMOKE_TIMEOUT_S)

    def start_job(self, title: str, argv: list[str], timeout: float) -> None:
        self.main.query_one("#log-panel").display = True
        prev = self._job_worker
        self._job_worker = self.run_worker(self._run_job(title, argv, timeout, prev), group="job", exit_on_error=False)

    async def _run_job(self, title: str, argv: list[str], timeout: float, prev: Worker | None) -> None:
        log = self.main.query_one("#log", RichLog)
        if prev is not None and prev.state in (WorkerState.PENDING, WorkerState.RUNNING):
            log.write(Text("stopping the previous job …", style="dim"))
            prev.cancel()
            try:
                await prev.wait()
            except (WorkerCancelled, WorkerFailed):
                pass
        log.write(Text(f"$ porter {title}", style="bold"))
        diag_list = self.main.query_one("#diagnostics", OptionList)

        def batch(lines: list[str]) -> None:
            log.write(Text.from_ansi("\n".join(lines)))
            for line in lines:
                self._build_report_line(line)
            found = [d for line in lines for d in parse_diagnostics(line)]
            if found:
                self.diagnostics.extend(found)
                diag_list.add_options([Option(Text(d.label(), style="#ff8787" if d.severity == "error" else ""))
                                       for d in found])

        try:
            rc = await stream(argv, batch, timeout=timeout, cwd=str(self.project.output.parent))
        except OSError as exc:
            log.write(Text(f"{title}: could not start: {exc}", style="bold red"))
            return
        if rc is None:
            log.write(Text(f"{title}: stopped after {timeout:.0f} s", style="bold red"))
        else:
            log.write(Text(f"{title}: exit code {rc}", style="bold green" if rc == 0 else "bold red"))
            self.notify(f"{title} {'passed' if rc == 0 else 'failed'} (l shows the log)",
                        severity="information" if rc == 0 else "error", timeout=4)

    @on(OptionList.OptionSelected, "#diagnostics")
    def _diagnostic_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option_index < len(self.diagnostics):
            self.jump_to(self.diagnostics[event.option_index])

    def jump_to(self, d: Diagnostic) -> bool:
        rel = self._rel_of(d.file)
        fr = self.project.by_rel.get(rel) if rel else None
        if fr is None:
            self.notify(f"{d.file} is not a file of this project", severity="warning", timeout=2)
            return False
        self.open_file(fr.rel)
        self.file_tree.select_file(fr.rel)
        if fr.status == "ready":
            self.diff.move_to_row(fr.row_of_right_line(d.line))
            self.update_file_info()
            self.notify(f"{fr.rel}:{d.line} (CUDA line {fr.output_line_to_source(d.line)}): {d.message}", timeout=4)
        self.diff.focus()
        return True

    def _rel_of(self, name: str) -> str | None:
        p = Path(name)
        for base in (self.project.output, self.project.root):
            try:
                cand = (p if p.is_absolute() else (base / p)).resolve()
                return cand.relative_to(base).as_posix()
            except (ValueError, OSError):
                continue
        rel = name[2:] if name.startswith("./") else name
        for prefix in (self.project.output.name + "/", self.project.root.name + "/"):
            if rel.startswith(prefix):
                rel = rel[len(prefix):]
        return rel

    def action_toggle_log(self) -> None:
        panel = self.main.query_one("#log-panel")
        panel.display = not panel.display

    def action_help(self) -> None:
        lines = ["Keys (all also in the command palette, ctrl+p)", ""]
        for k, _, desc, _ in KEYS:
            lines.append(f"  {KEY_LABEL.get(k, k):10} {desc}")
        lines += ["", "  up/down, pgup/pgdn  move in the diff; enter unfolds unchanged lines",
                  "", "States: pending (hunks to decide), accepted, edited, unchanged, error.",
                  "w writes accepted, edited and unchanged files; pending files are skipped.",
                  f"Session: {self.store.path}"]
        self.push_screen(TextScreen("porter review: help", "\n".join(lines)))

    async def action_quit(self) -> None:
        if not self.unwritten:
            self.exit(0)
            return

        def answer(yes: bool | None) -> None:
            if yes:
                self.exit(0)

        self.push_screen(ConfirmScreen("There are decisions not written to the output folder yet "
                                       "(they are kept in the session). Quit anyway?"), answer)

    # ---- the rest ----------------------------------------------------------------
    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """The one place worker errors are reported."""
        if event.state == WorkerState.ERROR and event.worker.error is not None:
            err = event.worker.error
            self.notify(f"{event.worker.group or 'job'} failed: {type(err).__name__}: {err}", severity="error")

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        if isinstance(screen, MainScreen):
            for k, action, desc, _ in KEYS:
                if action == "quit":
                    continue
                yield SystemCommand(f"{desc} ({KEY_LABEL.get(k, k)})", f"review key {KEY_LABEL.get(k, k)}",
                                    functools.partial(screen.run_action, f"app.{action}"))
            for arch, what in COMPILE_ARCHS:
                yield SystemCommand(f"Compile for {arch} ({what})", f"build with --arch {arch} from now on "
                                    "(kept in the session)", functools.partial(self.compile_for, arch))
            yield SystemCommand("Compile for the default arch", "the local GPU, else gfx942",
                                functools.partial(self.compile_for, None))
