"""The review app: files (left), CUDA | HIP diff (centre), findings (right),
log (bottom, toggled).  Files are converted lazily in the background, the one
on screen first; every decision is saved to the session at once.

    PorterApp(ReviewProject(root, out), SessionStore(out)).run()

Where things live: the keys (with binding ids) in keymap.py, the layout in
screens/main.py, the actions in actions/ (hunks and files, findings, jobs,
panes), background conversion in conversion.py, session saving in
persistence.py, the subprocess runner in jobs.py.  This module wires them:
state, showing the current file, and the message handlers.
"""

from __future__ import annotations

import asyncio
import functools
import gc
import time
from pathlib import Path
from typing import Iterable

from rich.text import Text
from textual import on, work
from textual.app import App, SystemCommand
from textual.screen import Screen
from textual.markup import escape
from textual.widgets import Input, OptionList
from textual.worker import Worker, WorkerState

from porter.project.file_conversion import finding_key
from porter.project.file_review import S_WAITING, FileReview
from porter.project.review_project import ReviewProject
from porter.project.session import SessionStore, unwritten
from porter.tui.history import UndoRedo
from porter.tui.actions.findings import FindingActions
from porter.tui.actions.jobs import COMPILE_ARCHS, JobActions
from porter.tui.actions.panes import PaneActions
from porter.tui.actions.review import ReviewActions
from porter.tui.colours import DEFAULT, palette_for
from porter.tui.conversion import BackgroundConverter, first_file
from porter.tui.highlight import highlight_pair
from porter.tui.jobs import Diagnostic
from porter.tui.keymap import KEYS, Key, label, read_user_keymap, user_keymap_path
from porter.tui.persistence import SessionSaver, saved_diff_layout, saved_theme
from porter.tui.trust import saved_trusted
from porter.tui.screens.editor import EditorScreen
from porter.tui.screens.main import MainScreen
from porter.tui.widgets.diff_view import DiffView
from porter.tui.widgets.file_tree import FileTree, FilterInput, shown_state
from porter.tui.widgets.findings_list import FindingsList
from porter.tui.widgets.info_bar import InfoBar
from porter.tui.widgets.text_pane import TextPane

# after SIGHUP/SIGTERM, how long the app's own shutdown may take before the process ends without it
SIGNAL_EXIT_GRACE_S = 20.0


class ExitWatchdog:
    """Ends the porter process if the app's shutdown after SIGHUP/SIGTERM does not finish.

    Textual's shutdown writes the terminal's reset sequences through its output thread and waits for
    it; a terminal that takes no more output (closed, or stopped) can leave that wait unanswered and
    porter running with no terminal, holding the output folder's lock (seen after closing a terminal
    during a conversion: the main thread in WriterThread.stop). The session is saved before this
    starts; after SIGNAL_EXIT_GRACE_S the workers are stopped and the process ends (128 + the
    signal). The program that runs the app owns it (`porter` arms it, cancels it once ``run``
    returns); an app run inside another program (the tests) has none."""

    def __init__(self, converter: BackgroundConverter) -> None:
        self.converter = converter
        self.timer = None

    def start(self, signum: int) -> None:
        import os
        import threading

        def end() -> None:
            self.converter.stop(wait=False)
            os._exit(128 + signum)

        self.timer = threading.Timer(SIGNAL_EXIT_GRACE_S, end)
        self.timer.daemon = True
        self.timer.start()

    def cancel(self) -> None:
        if self.timer is not None:
            self.timer.cancel()

GOTO_FILE_LIMIT = 5000  # "Go to file" palette entries up to this many files
MESSAGES_KEPT = 1000  # the message history (m) keeps this many, the oldest dropped first


class PorterApp(ReviewActions, FindingActions, JobActions, PaneActions, App):
    CSS_PATH = "app.tcss"
    TITLE = "porter review"

    def __init__(self, project: ReviewProject, store: SessionStore | None = None,
                 messages: Iterable[str] = (), convert_in_background: bool = True,
                 processes: bool = True, converter: BackgroundConverter | None = None) -> None:
        """``converter``: one made for ``project`` before the app (its workers started while Textual was
        imported: ``porter PATH``); else the app makes its own."""
        super().__init__()
        self.project = project
        self.store = store or SessionStore(project.output)
        self.start_messages = list(messages)
        self.current: FileReview | None = None
        self.converter = converter or BackgroundConverter(self, project, processes=processes)
        self.exit_watchdog: ExitWatchdog | None = None  # set by the program that runs the app
        self.converter.attach(self, is_current=lambda fr: fr is self.current, on_current_ready=self._flush_ready)
        self.saver = SessionSaver(self, project, self.store)
        self.undo_stack = UndoRedo()
        self.messages: list[tuple[str, str, str]] = []  # (time, severity, text) of every toast, for m
        self.quitting = False  # exit() was called: no screen is pushed any more
        self._asked_stale: set[str] = set()
        self._hl_cache: dict[tuple, tuple] = {}
        self._rechecks_asked: dict[str, tuple] = {}  # file -> the fixes its last re-check was asked for
        self._job_worker: Worker | None = None
        self.diagnostics: list[Diagnostic] = []
        self.last_build = ""  # "gfx942 with clang++-19 (clang 19.1.7): ok", from the last build's report
        self.convert_in_background = convert_in_background
        self.started = False  # the main screen and its widgets are up
        self.palette = DEFAULT  # the colours of the active theme (apply_theme_colours)
        self.diff_layout = "side-by-side"  # or "unified" (v toggles; kept in the session)
        # project code (build files, [test] command, [smoke] module) the user allowed: kept in the session
        saved = self.store.load(str(project.root))[0]
        self.trusted: set[str] = saved_trusted(saved)
        choice = (saved or {}).get("stale_build")
        self.stale_build = choice if choice in ("write", "disk") else None  # c/T with unwritten work (jobs.py)
        self.ask_before_project_code = True
        self.user_keys, self._keymap_problems = read_user_keymap(user_keymap_path())
        if self.user_keys:
            self.set_keymap(self.user_keys)
        if convert_in_background and not self.converter.prewarmed:  # the workers import the engine and
            self.converter.prewarm(first_file(project))  # convert the first file while Textual starts and draws

    def key_label(self, key: Key) -> str:
        """How ``key`` is pressed here: the user's keymap, else the default."""
        return ", ".join(label(part) for part in self.user_keys.get(key.id, key.key).split(","))

    def notify(self, message, *, title: str = "", severity: str = "information", timeout: float | None = None,
               **kwargs) -> None:
        """A toast, also kept in the message history (m): toasts go in seconds."""
        self.messages.append((time.strftime("%H:%M:%S"), severity, str(message)))
        if len(self.messages) > MESSAGES_KEPT:
            del self.messages[0]
        super().notify(message, title=title, severity=severity, timeout=timeout, **kwargs)

    def exit(self, *args, **kwargs) -> None:
        self.quitting = True
        super().exit(*args, **kwargs)

    def push_screen(self, screen, *args, **kwargs):
        """As Textual's, but nothing is pushed once the app is quitting: a key typed right after
        `q` (`tmux send-keys q e`) would mount a screen on an app that is tearing down."""
        if self.quitting:
            done = asyncio.get_running_loop().create_future()
            done.set_result(None)
            return done
        return super().push_screen(screen, *args, **kwargs)

    @property
    def unwritten(self) -> bool:
        """Reviewed work that the output folder does not hold yet (from the review
        against the files on disk, not from memory: true after a restart too)."""
        return bool(unwritten(self.project))

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
        theme = saved_theme(self.store, self.project, self.available_themes)
        if theme:
            self.theme = theme
        self.apply_theme_colours()
        self.theme_changed_signal.subscribe(self, self._theme_changed)
        self.diff_layout = saved_diff_layout(self.store, self.project)
        self.diff.set_unified(self.diff_layout == "unified")
        for msg in self.start_messages:
            self.notify(msg, severity="information" if msg.startswith("restored") else "warning", timeout=8)
        for msg in self._keymap_problems:
            self.notify(msg, severity="warning", timeout=10)
        for fr in self.converter.take_early():  # the first file, when converted while the app started
            self.file_tree.update_file(fr)
        self.update_summary()
        self.set_interval(0.2, self._flush_ready)
        self.set_interval(1.0, self._watch_current)  # the file on screen saved by another editor
        first = first_file(self.project)
        if first is not None:
            self.open_file(first.rel)
            self.file_tree.select_file(first.rel)
        else:
            self.diff.show_message("no CUDA source or build files found in this project")
        if self.convert_in_background:
            self.converter.start()
        self._end_on_signals()
        self.diff.focus()
        self.started = True

    def _end_on_signals(self) -> None:
        """SIGHUP (the terminal was closed) and SIGTERM end the app as a quit does, without asking:
        the session's last changes are saved, a running job and the workers are stopped (killed
        outright, the workers' named semaphores would stay in /dev/shm)."""
        import asyncio
        import signal

        try:
            loop = asyncio.get_running_loop()
            for sig in (signal.SIGHUP, signal.SIGTERM):
                loop.add_signal_handler(sig, self._ended_by_signal, int(sig))
        except (RuntimeError, NotImplementedError, ValueError, AttributeError):  # not the main thread, not POSIX
            pass

    def _ended_by_signal(self, signum: int) -> None:
        if self.saver.pending:
            self.saver.save_now()  # first: the terminal may be gone, and the exit may not get far
        self.converter.stop_event.set()
        if self.exit_watchdog is not None:
            self.exit_watchdog.start(signum)
        self.exit()

    def _theme_changed(self, _theme) -> None:
        self.apply_theme_colours()
        self.save_session()  # the theme is kept for the next start

    def apply_theme_colours(self) -> None:
        """The diff, the file list and the findings draw in the active theme's colours."""
        self.palette = palette_for(self.get_css_variables())
        for widget in (self.diff, self.file_tree, self.findings_list):
            widget.set_palette(self.palette)
        self.update_findings()

    def on_unmount(self) -> None:
        self.converter.stop_event.set()
        if self.saver.pending:
            self.saver.save_now()
        self.converter.stop()

    def _flush_ready(self) -> None:
        ready, scanned = self.converter.take_ready(), self.converter.take_scanned()
        if not ready and not scanned:
            return
        # The converted files' lines, rows and hunks live as long as the app: out of the cycle
        # collector's reach, a full collection no longer walks them (one took 170-190 ms with a
        # 50k-line file and 1,000 files in memory, and a key press waited for it).  Refcounting
        # still frees them when a file is converted again.  The price: a cycle alive at a freeze
        # (a dialog open then) is not reclaimed once dropped; a freeze happens only as converted
        # files arrive, so that is a few widgets at most.
        gc.freeze()
        tree = self.file_tree
        for fr in ready:
            tree.update_file(fr)
            if fr is self.current:
                self.show_current()
        for fr in scanned:  # findings that came after the diff: the same diff, now with them
            tree.update_file(fr)
            if fr is self.current and self.diff.file is fr:
                self.diff.set_file(fr, keep_cursor=True)
                self.update_file_info()
                self.update_findings()
        self.update_summary()

    # ---- showing a file ----------------------------------------------------------
    def update_summary(self) -> None:
        p = self.project
        build = f"   build {p.build_arch}" if p.build_arch else ""
        if self.last_build:
            build = f"   build {self.last_build}"
        self.main.query_one("#summary", InfoBar).update(
            Text.assemble(("porter ", "bold"), (f"{p.root.name} → {self.output_label}   ", ""), (p.header(), "bold"),
                          (build, "")))

    @functools.cached_property
    def output_label(self) -> str:
        """Where the output goes, short: ./NAME-hip under the current directory,
        NAME-hip beside the source, else the full path."""
        out = self.project.output
        try:
            return "./" + out.relative_to(Path.cwd().resolve()).as_posix()
        except ValueError:
            pass
        return out.name if out.parent == self.project.root.parent else str(out)

    def open_file(self, rel: str) -> None:
        fr = self.project.by_rel.get(rel)
        if fr is None:
            return
        if fr is not self.current:
            self._asked_stale.discard(fr.rel)
            self._search_on = ""  # a search is of one file: n is the next hunk again
        self.current = fr
        if fr.changed_on_disk():
            self.read_again([fr])
            return
        if fr.status == S_WAITING:
            self._convert(fr)
            self.update_summary()
        self.show_current()

    def _convert(self, fr: FileReview) -> None:
        """Convert ``fr`` next: in the background, or here and now when the app converts nothing
        in the background (the tests' preloaded projects)."""
        self.converter.want(fr.rel, background=self.convert_in_background)
        if not self.convert_in_background:
            self.project.load_file(fr)
            self.file_tree.update_file(fr)

    def _watch_current(self) -> None:
        fr = self.current
        if fr is not None and fr.changed_on_disk():
            self.read_again([fr])

    def read_again(self, files: list[FileReview]) -> None:
        """Convert again the files whose source changed on disk since they were read (decisions
        kept, those of changed hunks stale; an edit goes stale and asks)."""
        for fr in files:
            fr.read_again()
            self._asked_stale.discard(fr.rel)
            self.file_tree.update_file(fr)
            self._convert(fr)
        names = ", ".join(fr.rel for fr in files[:3]) + (f" and {len(files) - 3} more" if len(files) > 3 else "")
        self.notify(f"{names} changed on disk: converted again (decisions on changed lines are stale)",
                    severity="warning", timeout=5)
        self.update_summary()
        if self.current in files:
            self.show_current()

    def read_changed_before_writing(self) -> int:
        """Before a write: the files changed on disk are converted again, so that they are not
        written from the old source (until converted and reviewed they are skipped)."""
        changed = self.project.changed_on_disk()
        if changed:
            self.read_again(changed)
        return len(changed)

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
            if fr.edit_stale and fr.rel not in self._asked_stale and isinstance(self.screen, MainScreen):
                self._asked_stale.add(fr.rel)  # once per visit: cancel leaves it pending
                self.ask_stale_edit(fr)
        self.update_file_info()
        self.update_findings()

    def update_file_info(self) -> None:
        fr = self.current
        info = self.main.query_one("#file-info", InfoBar)
        if fr is None:
            info.update("")
            return
        parts = [(fr.rel, "bold"), (f"  {shown_state(fr)}", "")]
        if fr.status == "ready":
            h = self.diff.current_hunk_at_cursor() if self.diff.file is fr else None
            decided = len(fr.hunks) - fr.pending_hunks
            rejected = sum(1 for x in fr.hunks if fr.decisions.get(x.key) == "rejected")
            parts.append((f"  {decided}/{len(fr.hunks)} hunks decided" + (f" ({rejected} rejected)" if rejected else ""),
                          ""))
            search = self.search_status()
            if search:
                parts.append((f"  {search}", "bold"))
            if h is not None:
                parts.append((f"  hunk {h + 1}: {fr.decision(h)}", "italic"))
            elif fr.hunks and self.diff.file is fr:
                parts.append(("  unchanged line (n: next hunk)", "dim italic"))
            if fr.edit_stale:
                parts.append(("  CUDA changed after your edit: keep it, re-convert or compare three ways (palette)",
                              "bold #ffaf00"))
            elif fr.stale_decisions or any(x.stale for x in fr.hunks):
                parts.append(("  source changed: hunks marked ! need review again", "#ffaf00"))
            if fr.warnings:
                parts.append((f"  {fr.warnings[0]}", "#ffaf00"))
        info.update(Text.assemble(*parts))

    def update_findings(self, keep: bool = False) -> None:
        """The findings pane for the current file; ``keep``: the same findings restyled (resolved
        by a fix), with the selection kept."""
        ol = self.findings_list
        if not keep:
            ol.set_items([])
        fr = self.current
        preview = self.main.query_one("#fix-preview", TextPane)
        if fr is None or fr.status != "ready" or not fr.findings:
            text = "" if fr is None or fr.status != "ready" else \
                "checking findings …" if fr.findings_pending else "no findings"
            preview.update(Text(text, style="dim"))
            self.update_finding_bar()
            return
        opts = []
        marks = {"error": ("E", self.palette.error), "warning": ("W", self.palette.warning),
                 "info": ("I", self.palette.info)}
        regraded = fr.regraded
        for f in fr.findings:
            key = finding_key(f)
            letter, style = marks.get(regraded.get(key, f.severity), ("?", ""))
            applied = key in fr.applied_fixes
            gone = not applied and key in fr.resolved
            note = " (fixed)" if applied else " (resolved by a fix)" if gone else \
                f" ({regraded[key]} after the fixes, was {f.severity})" if key in regraded else ""
            t = Text.assemble((letter + " ", style), (f"{f.rule} ", "bold"), (f"L{f.line} ", "dim"),
                              (f.message, "strike dim" if applied or gone else ""),
                              (note, self.palette.ok if applied or gone else "dim"))
            opts.append(t)
        for n in fr.introduced:  # after the findings of the file as read: their indexes stay
            letter, style = marks.get(n.severity, ("?", ""))
            opts.append(Text.assemble((letter + " ", style), (f"{n.rule} ", "bold"), (f"L{n.line} ", "dim"),
                                      (n.message, ""), (" (new after the fixes)", "dim")))
        if keep:
            ol.restyle(opts)
            self.update_finding_bar()
            return
        ol.set_items(opts)
        preview.update(Text("] / [ move through the findings; i shows one in full", style="dim"))
        self.update_finding_bar()

    @work(thread=True, exclusive=True, group="highlight", exit_on_error=False, description="highlight")
    def _highlight_worker(self, fr: FileReview) -> None:
        right_text = "".join(fr.right)
        key = (fr.rel, fr.source_hash, hash(right_text))
        cached = self._hl_cache.get(key)
        if cached is None:
            pool = self.converter.pool()
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

    # ---- messages up ---------------------------------------------------------------
    @on(FileTree.Selected)
    def _tree_selected(self, event: FileTree.Selected) -> None:
        self.open_file(event.rel)
        self.diff.focus()

    @on(FileTree.FilterAsked)
    def _filter_asked(self) -> None:
        line = self.main.query_one("#file-filter", FilterInput)
        line.set_class(True, "-shown")
        line.value = self.file_tree.filter
        line.focus()

    @on(Input.Changed, "#file-filter")
    def _filter_typed(self, event: Input.Changed) -> None:
        self.file_tree.set_filter(event.value)

    @on(Input.Submitted, "#file-filter")
    def _filter_kept(self, event: Input.Submitted) -> None:
        event.stop()
        line = self.main.query_one("#file-filter", FilterInput)
        line.set_class(bool(event.value), "-shown")  # the line stays while a filter holds
        self.file_tree.focus()
        n, total = self.file_tree.shown_files, len(self.project.files)
        if event.value:
            self.notify(f"{n} of {total} files match {event.value!r} (escape in the list clears it)", timeout=2)

    @on(FilterInput.Cleared)
    def _filter_cleared(self) -> None:
        line = self.main.query_one("#file-filter", FilterInput)
        line.value = ""
        line.set_class(False, "-shown")
        self.file_tree.set_filter("")
        if self.current is not None:
            self.file_tree.select_file(self.current.rel)
        self.file_tree.focus()

    @on(FindingsList.Opened)
    def _finding_opened(self) -> None:
        self.action_explain()

    @on(DiffView.CursorMoved)
    def _cursor_moved(self) -> None:
        self.update_file_info()

    @on(FindingsList.Highlighted)
    def _finding_highlighted(self, event: FindingsList.Highlighted) -> None:
        self.finding_highlighted(event.index)

    @on(EditorScreen.Saved)
    def _edit_saved(self, event: EditorScreen.Saved) -> None:
        self.edit_saved(event.rel, event.text)

    @on(FindingsList.PageKey)
    def _preview_page(self, event: FindingsList.PageKey) -> None:
        self.main.query_one("#fix-preview", TextPane).scroll_page(event.step)

    @on(OptionList.OptionSelected, "#diagnostics")
    def _diagnostic_selected(self, event: OptionList.OptionSelected) -> None:
        self.diagnostic_selected(event.option_index)

    # ---- changes -----------------------------------------------------------------
    def changed(self, fr: FileReview, rows_changed: bool = False) -> None:
        """A decision (or, with ``rows_changed``, a fix or an edit) changed ``fr``."""
        if self.diff.file is fr:
            if rows_changed:
                self.diff.refresh_file()
                self._highlight_worker(fr)  # the HIP side keeps its highlighting after a fix or an edit
            else:
                self.diff.redraw()
        if rows_changed:
            self.recheck_findings(fr)
        self.file_tree.update_file(fr)
        self.update_summary()
        self.update_file_info()
        self.save_session()

    def recheck_findings(self, fr: FileReview) -> None:
        """After a fix (or its undo), scan the fixed CUDA in a worker: the findings it no longer
        has are shown as resolved and leave the counts."""
        job = fr.recheck_job()
        if job is not None and self._rechecks_asked.get(fr.rel) != job.applied:
            self._rechecks_asked[fr.rel] = job.applied  # (one re-check per set of fixes)
            self._recheck_worker(fr, job)

    @work(thread=True, group="recheck", exit_on_error=False, description="re-check findings")
    def _recheck_worker(self, fr: FileReview, job) -> None:
        from porter.project.file_conversion import scan_fixed

        pool = self.converter.pool()
        try:
            found = pool.submit(scan_fixed, job).result() if pool is not None else scan_fixed(job)
        except Exception:
            return  # (the findings stay as they were: open)
        self.call_from_thread(self._rechecked, fr, job, found)

    def _rechecked(self, fr: FileReview, job: tuple, found: list) -> None:
        if not fr.take_recheck(job, found):
            return  # the fixes changed meanwhile: their own re-check follows
        self.file_tree.update_file(fr)
        self.update_summary()
        if fr is self.current:
            self.update_findings(keep=True)
            self.update_file_info()

    def save_session(self) -> None:
        """Save soon (changes within 0.2 s are saved together; quitting saves at once)."""
        self.saver.save_soon()

    def _goto_file(self, rel: str) -> None:
        self.open_file(rel)
        self.file_tree.select_file(rel)
        self.diff.focus()

    def _ready_file(self) -> FileReview | None:
        fr = self.current
        if fr is None or fr.status != "ready":
            self.notify("this file is not ready for review" if fr else "no file selected", severity="warning",
                        timeout=2)
            return None
        return fr

    # ---- the rest ----------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Once the app is quitting, the keys read with `q` (``q e`` in one read) do nothing: an
        editor opened on the way out was torn down half-built (NoMatches: TextArea)."""
        if getattr(self, "_exit", False):
            return False
        return super().check_action(action, parameters)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """The one place worker errors are reported."""
        if event.state == WorkerState.ERROR and event.worker.error is not None:
            err = event.worker.error
            self.notify(f"{event.worker.group or 'job'} failed: {type(err).__name__}: {err}", severity="error")

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        if isinstance(screen, MainScreen):
            for k in KEYS:
                if k.id == "quit":
                    continue
                # the palette reads its help as markup: "[test]" would vanish
                yield SystemCommand(f"{k.description} ({self.key_label(k)})", escape(k.help or k.description),
                                    functools.partial(screen.run_action, f"app.{k.action}"))
            for arch, what in COMPILE_ARCHS:
                yield SystemCommand(f"Compile for {arch} ({what})", f"build with --arch {arch} from now on "
                                    "(kept in the session)", functools.partial(self.compile_for, arch))
            yield SystemCommand("Compile for the default arch", "the local GPU, else gfx942",
                                functools.partial(self.compile_for, None))
            yield SystemCommand("Apply every safe fix in the project", "every converted file, after a count",
                                self.action_apply_project_safe_fixes)
            if len(self.project.files) <= GOTO_FILE_LIMIT:
                for f in self.project.files:
                    yield SystemCommand(f"Go to file {f.rel}", escape(f"open {f.rel} ({f.state})"),
                                        functools.partial(self._goto_file, f.rel))
            cur = self.current
            if cur is not None and cur.status == "ready":
                for i, f in enumerate(cur.findings[:500]):
                    yield SystemCommand(f"Go to finding {f.rule} line {f.line}", escape(f.message[:120]),
                                        functools.partial(setattr, self.findings_list, "highlighted", i))
            fr = self.current
            if fr is not None and fr.edit_stale:
                yield SystemCommand(f"Keep my edit or re-convert {fr.rel}", "its CUDA changed after the edit",
                                    functools.partial(self.ask_stale_edit, fr))
                yield SystemCommand(f"Three-way view of {fr.rel}", "the CUDA the edit was made against, the CUDA now, "
                                    "your edit; k keeps it, r re-converts", functools.partial(self.three_way, fr))
