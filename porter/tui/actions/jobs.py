"""Job actions: compile (porter build) and smoke test (porter smoke) as
subprocesses streamed to the log; their diagnostics jump to the file and line.
The subprocess runner itself is porter.tui.jobs."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from rich.text import Text
from textual.widgets import OptionList, RichLog
from textual.widgets.option_list import Option
from textual.worker import Worker, WorkerCancelled, WorkerFailed, WorkerState

from porter.tui.jobs import Diagnostic, build_report, parse_diagnostics, report_summary, stream
from porter.tui.screens.dialogs import ChoiceScreen
from porter.tui.trust import ask_then, build_piece, smoke_piece, test_piece

BUILD_TIMEOUT_S = 900.0
SMOKE_TIMEOUT_S = 1800.0
TEST_TIMEOUT_S = 1800.0
SMOKE_STEPS = 20
# porter smoke --project exits 3 when it ran but none of the project's own ops could run here
SMOKE_NOT_EXERCISED = 3
# the palette's "Compile for ..." commands
COMPILE_ARCHS = (("gfx942", "MI300X"), ("gfx90a", "MI250X / MI210"), ("gfx950", "MI355X"))


# c / T with reviewed work not written yet: write it first, or build the output on disk as it is (asked once,
# the answer kept for the rest of the session)
STALE_CHOICES = [("w", "write first, then compile", "write"), ("b", "compile what is on disk", "disk")]

SEVERITY_RANK = {"error": 0, "warning": 1, "note": 2}
DIAG_STYLE = {"error": "#ff8787", "warning": "#ffaf00"}


def _holds_port(output: Path) -> bool:
    """Whether the output folder holds any written file (not only porter's own .porter folder)."""
    try:
        return any(p.name != ".porter" for p in output.iterdir())
    except OSError:
        return False


class JobActions:
    _job_worker: Worker | None = None
    _error_pos: int | None = None  # the diagnostic } / { are at
    stale_build: str | None = None  # "write" / "disk": what c and T do with work not written (STALE_CHOICES)

    def build_argv(self, project: str | None = None) -> list[str] | None:
        """porter build for the output folder and the target arch; None (and said) when not installed.
        ``project``: a file of the port, whose project alone is built in a folder of several."""
        if importlib.util.find_spec("porter.cli.build") is None:
            self.notify("compile: not available yet (porter build is not installed)", severity="warning")
            return None
        argv = [sys.executable, "-m", "porter", "build", str(self.project.output), "--json"]
        if project:
            argv += ["--project", project]
        if self.project.build_arch:
            argv += ["--arch", self.project.build_arch]
        target = getattr(self.project.options, "target_rocm", None)
        if target:  # the release the port was converted for (--target-rocm or porter.toml)
            argv += ["--target-rocm", target]
        return argv

    smoke_label = ""  # which smoke test the last smoke_argv runs (the project's, or the built-in one)

    def smoke_argv(self) -> list[str] | None:
        """porter smoke for the written port: with the project's ops in the loop when its porter.toml
        declares [smoke] (porter.smoke.smoke_command), else the built-in fine-tune."""
        if importlib.util.find_spec("porter.cli.smoke") is None:
            self.notify("smoke test: not available yet (porter smoke is not installed)", severity="warning")
            return None
        from porter.smoke import smoke_command

        output = self.project.output
        argv, self.smoke_label = smoke_command(output if output.is_dir() else None, steps=SMOKE_STEPS)
        return argv

    def _compile_scope(self, write: bool) -> str | None:
        """The open file (or its folder) when the output holds it (or will, once written): porter build
        --project builds its project."""
        from porter.project.session import unwritten

        fr = getattr(self, "current", None)
        if fr is None:
            return None
        if write and fr.rel in unwritten(self.project):
            return fr.rel
        for rel in (fr.rel, Path(fr.rel).parent.as_posix()):
            if rel not in ("", ".") and (self.project.output / rel).exists():
                return rel
        return None

    def action_compile(self) -> None:
        if self.build_argv() is None:  # (not installed: said)
            return
        from porter.project.session import unwritten

        if not unwritten(self.project) and not _holds_port(self.project.output):
            self._nothing_written()  # (said before asking to run the project's build files: nothing would run)
            return
        ask_then(self, "compile", [build_piece(self.project)],  # the project's Makefile may run anything
                 lambda: self.before_build(lambda choice: self._compile(choice == "write"), ask=True))

    def _compile(self, write: bool) -> None:
        argv = self.build_argv(project=self._compile_scope(write))
        if argv is None:
            return
        if write:
            self._start(self._run_job("build", argv, BUILD_TIMEOUT_S, self._job_worker, write=True))
        elif not _holds_port(self.project.output):  # (the app's lock folder alone is no port)
            self._nothing_written()
        else:
            self.start_job("build", argv, BUILD_TIMEOUT_S)

    def _nothing_written(self) -> None:
        self.notify("nothing written yet: accept files (a, A) and w writes them, then c compiles",
                    severity="warning")

    def before_build(self, then, ask: bool) -> None:
        """c and T with reviewed work the output folder does not hold yet: write it first, or build what
        is on disk and say so, as the user chose (asked once with ``ask``, else T's default, write; the
        answer is kept in the session file, so a restart does not ask again).  ``then(choice)`` goes on: "write", "disk", or None when the output
        holds all the reviewed work."""
        from porter.project.session import unwritten

        files = unwritten(self.project)
        if not files:
            then(None)
            return

        def go(choice: str | None, chosen: bool = True) -> None:
            if choice is None:
                return
            if chosen:
                self.stale_build = choice
                self.save_session()  # the answer is kept for the next start too
            if choice == "disk":
                more = f" and {len(files) - 1} more" if len(files) > 1 else ""
                self.notify(f"compiling the output on disk: {files[0]}{more} not written yet, its errors may be "
                            "on lines already changed here (w writes)", severity="warning", timeout=6)
            then(choice)

        if self.stale_build is None and ask:
            more = f" and {len(files) - 1} more" if len(files) > 1 else ""
            self.push_screen(ChoiceScreen(f"Reviewed work is not written to the output folder yet ({files[0]}{more}): "
                                          "the build would compile the older files on disk. Kept in the session:",
                                          STALE_CHOICES), go)
            return
        go(self.stale_build or "write", chosen=False)

    def compile_for(self, arch: str | None) -> None:
        """The palette's "Compile for ARCH": kept for this session, then compiled."""
        self.project.build_arch = arch
        self.last_build = ""
        self.update_summary()
        self.save_session()
        self.notify(f"compiling for {arch or 'the default arch (local GPU, else gfx942)'}", timeout=3)
        self.action_compile()

    def _build_report(self, rep: dict) -> None:
        """The header shows the arch and toolchain of the last build (its --json report)."""
        if rep.get("arch"):
            verdict = "ok" if rep.get("ok") else "failed"
            self.last_build = f"{rep['arch']}" + (f" with {rep['toolchain']}" if rep.get("toolchain") else "") + f": {verdict}"
            self.update_summary()

    def action_smoke(self) -> None:
        argv = self.smoke_argv()
        if argv is not None:
            ask_then(self, "smoke test", [smoke_piece(self.project.root)],  # the project's module is imported
                     lambda: self._smoke(argv))

    def _smoke(self, argv: list[str]) -> None:
        if self.smoke_label:
            self.notify(f"smoke: {self.smoke_label}", timeout=3)
        self.start_job("smoke", argv, SMOKE_TIMEOUT_S)

    def start_job(self, title: str, argv: list[str], timeout: float) -> None:
        self._start(self._run_job(title, argv, timeout, self._job_worker))

    def _start(self, job) -> None:
        self.main.query_one("#log-panel").display = True
        self._job_worker = self.run_worker(job, group="job", exit_on_error=False)

    async def _begin(self, prev: Worker | None) -> RichLog:
        """Stop the previous job, clear its diagnostics; the log."""
        log = self.main.query_one("#log", RichLog)
        if prev is not None and prev.state in (WorkerState.PENDING, WorkerState.RUNNING):
            log.write(Text("stopping the previous job …", style="dim"))
            prev.cancel()
            try:
                await prev.wait()
            except (WorkerCancelled, WorkerFailed):
                pass
        self.diagnostics = []  # the previous job's diagnostics are not this one's
        self._error_pos = None
        self.show_diagnostics()
        return log

    async def _run_job(self, title: str, argv: list[str], timeout: float, prev: Worker | None,
                       write: bool = False) -> None:
        log = await self._begin(prev)
        failed = await self._write_step(log) if write else None
        if failed:
            log.write(Text(f"{title} stopped at the write: {failed}", style="bold red"))
            self.notify(f"{title} stopped at the write: {failed}", severity="error", timeout=6)
            return
        rc = await self._step(log, title, argv, timeout, str(self.project.output.parent))
        if title == "smoke" and rc == SMOKE_NOT_EXERCISED:
            self.notify("smoke: not exercised, the project's ops cannot run on this machine (l shows why)",
                        severity="warning", timeout=6)
        elif rc is not None and rc >= 0:
            self.notify(f"{title} {'passed' if rc == 0 else 'failed'} (l shows the log)",
                        severity="information" if rc == 0 else "error", timeout=4)

    def action_compile_and_test(self) -> None:
        """T: write what is decided, compile, run the project's [test] command, then the
        smoke test; stop at the first failure and say where."""
        build = self.build_argv()
        if build is None:
            return
        from porter.project.settings import SettingsError, load_settings

        try:
            test = load_settings(self.project.root).test_argv()
        except SettingsError:
            test = None  # (the run stops at the test command and says why)
        pieces = [build_piece(self.project), test_piece(test), smoke_piece(self.project.root)]
        ask_then(self, "compile and test", pieces,
                 lambda: self.before_build(lambda choice: self._start(self._compile_and_test(
                     build, self._job_worker, write=choice != "disk")), ask=False))

    async def _write_step(self, log: RichLog) -> str | None:
        """Write what is decided into the output folder (the log says what); why it failed, else None."""
        import asyncio

        if self.read_changed_before_writing():
            log.write(Text("write: files changed on disk since they were read are converted again, not written",
                           style="yellow"))
        rep = await asyncio.to_thread(self.project.write)
        log.write(Text(f"write: {rep.summary()} → {self.project.output}", style="bold red" if rep.errors else "bold"))
        self.update_summary()
        self.save_session()
        return rep.errors[0] if rep.errors else None

    async def _compile_and_test(self, build: list[str], prev: Worker | None, write: bool = True) -> None:
        from porter.project.settings import SettingsError, load_settings

        log = await self._begin(prev)
        log.write(Text("== compile and test: write, build, [test] command, smoke test", style="bold"))

        def stop(step: str, why: str) -> None:
            log.write(Text(f"compile and test stopped at {step}: {why}", style="bold red"))
            self.notify(f"compile and test stopped at {step}: {why}", severity="error", timeout=6)

        if not write:
            log.write(Text("write: skipped (kept for this session: compile what is on disk); the output folder "
                           "does not hold all the reviewed work", style="#ffaf00"))
        else:
            failed = await self._write_step(log)
            if failed:
                stop("write", failed)
                return
        rc = await self._step(log, "build", build, BUILD_TIMEOUT_S, str(self.project.output.parent))
        if rc != 0:
            n = sum(1 for d in self.diagnostics if d.severity == "error")
            stop("the build", f"{n} error{'s' if n != 1 else ''}, }} jumps to the first" if n else "see the log")
            return
        try:
            test = load_settings(self.project.root).test_argv()
        except SettingsError as exc:
            stop("the test command", str(exc))
            return
        if test is None:
            log.write(Text("test: no test command (porter.toml [test] command = \"...\"); nothing to run",
                           style="#ffaf00"))
        else:
            rc = await self._step(log, "test", test, TEST_TIMEOUT_S, str(self.project.output))
            if rc != 0:
                stop("the test command", f"{' '.join(test)} {'timed out' if rc is None else f'exited {rc}'}")
                return
        smoke = self.smoke_argv()
        if smoke is not None:
            if self.smoke_label:
                log.write(Text(f"smoke: {self.smoke_label}", style="dim"))
            rc = await self._step(log, "smoke", smoke, SMOKE_TIMEOUT_S, str(self.project.output.parent))
            if rc == SMOKE_NOT_EXERCISED:
                stop("the smoke test", "not exercised: the project's ops cannot run on this machine (see the log)")
                return
            if rc != 0:
                stop("the smoke test", "see the log")
                return
        done = "build" + (", test" if test else "") + (", smoke test" if smoke else "")
        log.write(Text(f"compile and test passed: {done}", style="bold green"))
        self.notify(f"compile and test passed: {done}", timeout=5)

    async def _step(self, log: RichLog, title: str, argv: list[str], timeout: float, cwd: str) -> int | None:
        """Run one subprocess into the log and the diagnostics: its exit code, None when
        it ran out of time, -1 when it could not start."""
        log.write(Text(f"$ {' '.join(argv)}" if title == "test" else f"$ porter {title}", style="bold"))
        reported = False
        if title == "build":  # the header says a build runs, not the last one's verdict
            self.last_build = f"{self.project.build_arch or 'default arch'}: running …"
            self.update_summary()

        def batch(lines: list[str]) -> None:
            nonlocal reported
            shown: list[str] = []
            for line in lines:
                rep = build_report(line)
                if rep is None:
                    shown.append(line)
                    continue
                reported = True
                self._build_report(rep)  # the JSON report, for people: a summary, not one long line
                shown += report_summary(rep)
            log.write(Text.from_ansi("\n".join(shown)))
            found = [d for line in lines for d in parse_diagnostics(line)]
            if found:
                self.diagnostics = sorted(self.diagnostics + found, key=lambda d: SEVERITY_RANK.get(d.severity, 3))
                self.show_diagnostics()

        try:
            rc = await stream(argv, batch, timeout=timeout, cwd=cwd)
        except OSError as exc:
            log.write(Text(f"{title}: could not start: {exc}", style="bold red"))
            return -1
        if rc is None:
            log.write(Text(f"{title}: stopped after {timeout:.0f} s", style="bold red"))
        else:
            log.write(Text(f"{title}: exit code {rc}", style="bold green" if rc == 0 else "bold red"))
        if title == "build":
            self._build_verdict(rc, reported)
        return rc

    def _build_verdict(self, rc: int | None, reported: bool) -> None:
        """The header after a build: its verdict (from the --json report when there was
        one, else from the exit code) and its error count; a pass shows no errors."""
        if not reported:
            verdict = "ok" if rc == 0 else "stopped (time limit)" if rc is None else "failed"
            self.last_build = f"{self.project.build_arch or 'default arch'}: {verdict}"
        n = sum(1 for d in self.diagnostics if d.severity == "error")
        if n:
            self.last_build += f", {n} error{'s' if n != 1 else ''}"
        self.update_summary()

    def show_diagnostics(self) -> None:
        """The diagnostics list, errors first, with the counts as its title."""
        diag_list = self.main.query_one("#diagnostics", OptionList)
        diag_list.clear_options()
        diag_list.add_options([Option(Text(d.label(), style=DIAG_STYLE.get(d.severity, ""))) for d in self.diagnostics])
        counts = {}
        for d in self.diagnostics:
            counts[d.severity] = counts.get(d.severity, 0) + 1
        parts = [f"{counts[sev]} {sev}{'s' if counts[sev] != 1 else ''}" for sev in ("error", "warning", "note")
                 if counts.get(sev)]
        title = ", ".join(parts) if parts else "no diagnostics"
        self.main.query_one("#diag-title").update(Text(title, style="bold #ff8787" if counts.get("error") else ""))
        per_file: dict[str, int] = {}  # the file list's build-error badges: this job's errors, none after a pass
        for d in self.diagnostics:
            if d.severity == "error" and d.file:
                rel = self._rel_of(d.file)
                if rel in self.project.by_rel:
                    per_file[rel] = per_file.get(rel, 0) + 1
        self.file_tree.set_build_errors(per_file)

    def diagnostic_selected(self, index: int) -> None:
        if index < len(self.diagnostics):
            self._error_pos = index
            self.jump_to(self.diagnostics[index])

    def action_error(self, step: int) -> None:
        """} / {: the next / previous error of the last job (warnings when there is no error)."""
        errors = [i for i, d in enumerate(self.diagnostics) if d.severity == "error"]
        pool = errors or list(range(len(self.diagnostics)))
        if not pool:
            self.notify("no errors from the last compile or smoke test", timeout=2)
            return
        pos = self._error_pos
        if pos is None or pos not in pool:
            pos = pool[0] if step > 0 else pool[-1]
        else:
            pos = pool[(pool.index(pos) + step) % len(pool)]
        self._error_pos = pos
        diag_list = self.main.query_one("#diagnostics", OptionList)
        diag_list.highlighted = pos
        self.jump_to(self.diagnostics[pos])

    def jump_to(self, d: Diagnostic) -> bool:
        rel = self._rel_of(d.file)
        fr = self.project.by_rel.get(rel) if rel else None
        if fr is None:
            self.notify(f"{d.file} is not a file of this project", severity="warning", timeout=2)
            return False
        self.open_file(fr.rel)
        self.file_tree.select_file(fr.rel)
        if fr.status == "ready":
            cuda_line = fr.output_line_to_source(d.line)
            self.diff.move_to_row(fr.row_of_right_line(d.line))
            at = next((i for i, f in enumerate(fr.findings) if f.line == cuda_line), None)
            if at is not None:  # the findings cursor on the finding there: f fixes it, ] goes on from it
                self.findings_list.highlighted = at
                self.diff.move_to_row(fr.row_of_right_line(d.line))
            self.update_file_info()
            hint = f"\n{d.rule}: {d.hint}" if d.hint else ""
            self.notify(f"{fr.rel}:{d.line} (CUDA line {cuda_line}): {d.message}{hint}", timeout=6 if hint else 4)
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
