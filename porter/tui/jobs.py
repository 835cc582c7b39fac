"""Background jobs of the review app: the build and smoke-test subprocesses.

Output is streamed line by line from an asyncio subprocess in its own session
(process group), handed to the UI in batches, and the whole group is killed on
cancel or timeout.  Compiler diagnostics (``file:line:col: error: msg``, or the
JSON objects ``porter build --json`` prints) are parsed so the log can offer
them for jumping to the file and line.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import time
from dataclasses import dataclass
from typing import Awaitable, Callable

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


@dataclass(frozen=True, slots=True)
class Diagnostic:
    file: str
    line: int
    column: int
    severity: str
    message: str
    rule: str = ""  # the findings rule that fixes a known error (porter.build's known_errors.toml)
    hint: str = ""

    def label(self) -> str:
        rule = f" [{self.rule}]" if self.rule else ""
        if not self.file or self.line <= 0:  # a command-line or driver error: no place to point at
            return f"{self.file + ': ' if self.file else ''}{self.severity}: {self.message}{rule}"
        return f"{self.file}:{self.line}:{self.column}: {self.severity}: {self.message}{rule}"


def build_report(line: str) -> dict | None:
    """The ``porter build --json`` report on this output line, else None."""
    plain = ANSI.sub("", line).strip()
    if not plain.startswith("{") or '"toolchain"' not in plain:
        return None
    try:
        obj = json.loads(plain)
    except ValueError:
        return None
    return obj if isinstance(obj, dict) else None


def report_summary(rep: dict) -> list[str]:
    """The build report for people: verdict, arch and toolchain, counts, then each
    diagnostic with its hint, then the build's own messages."""
    diags = [d for d in rep.get("diagnostics") or [] if isinstance(d, dict)]
    counts: dict[str, int] = {}
    for d in diags:
        counts[str(d.get("severity", "error"))] = counts.get(str(d.get("severity", "error")), 0) + 1
    tally = ", ".join(f"{n} {sev}{'s' if n != 1 else ''}" for sev, n in sorted(counts.items())) or "no diagnostics"
    verdict = "ok" if rep.get("ok") else "failed"
    head = f"build {verdict}: {rep.get('arch', '?')}"
    if rep.get("toolchain"):
        head += f" with {rep['toolchain']}"
    out = [f"{head}; {tally}"]
    for d in diags:
        where = f"{d.get('file')}:{d.get('line')}: " if d.get("file") and d.get("line") else ""
        rule = f" [{d['rule']}]" if d.get("rule") else ""
        out.append(f"  {where}{d.get('severity', 'error')}: {d.get('message', '')}{rule}")
        if d.get("hint"):
            out.append(f"      hint: {d['hint']}")
    out += [f"  {m}" for m in rep.get("messages") or [] if isinstance(m, str)]
    # what the programs hold, as porter build prints it (a build for another GPU than its code is an error above)
    from porter.build.report import code_object_notes

    outputs = [o for o in rep.get("outputs") or [] if isinstance(o, str)]
    code = rep.get("code_objects") if isinstance(rep.get("code_objects"), dict) else {}
    code = {path: found for path, found in code.items() if isinstance(found, list)}
    out += [f"  note: {line}" for line in code_object_notes(outputs, code, str(rep.get("arch", "?")))]
    return out


def parse_diagnostics(line: str, cwd: str = ".") -> list[Diagnostic]:
    """Diagnostics in one output line: a JSON object of ``porter build --json``, or
    plain compiler text read by the build engine's own parser (porter.build.diagnostics)."""
    from porter.build.diagnostics import parse

    plain = ANSI.sub("", line).strip()
    if plain.startswith("{"):
        try:
            obj = json.loads(plain)
        except ValueError:
            obj = None
        if isinstance(obj, dict):
            return list(_json_diagnostics(obj))
    return [Diagnostic(d.file, d.line, d.column or 1, d.severity, d.message, d.rule or "", d.hint or "")
            for d in parse(plain, cwd=cwd, root=cwd) if d.line and d.severity in ("error", "warning", "note")]


def _json_diagnostics(obj, depth: int = 0):
    if depth > 4:
        return
    if isinstance(obj, dict):
        if "file" in obj and "line" in obj and ("message" in obj or "msg" in obj):
            try:
                yield Diagnostic(str(obj["file"]), int(obj["line"]), int(obj.get("column") or obj.get("col") or 1),
                                 str(obj.get("severity", "error")), str(obj.get("message", obj.get("msg", ""))),
                                 str(obj.get("rule") or ""), str(obj.get("hint") or ""))
                return
            except (TypeError, ValueError):
                return
        for v in obj.values():
            if isinstance(v, (dict, list)):
                yield from _json_diagnostics(v, depth + 1)
    elif isinstance(obj, list):
        for v in obj:
            yield from _json_diagnostics(v, depth + 1)


def _kill_group(proc: asyncio.subprocess.Process) -> None:
    if proc.returncode is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


async def stream(argv: list[str], on_batch: Callable[[list[str]], Awaitable[None] | None], *,
                 timeout: float = 900.0, cwd: str | None = None, batch_s: float = 0.05,
                 batch_lines: int = 2000) -> int | None:
    """Run ``argv`` (no shell), calling ``on_batch(lines)`` with output lines in batches.

    Returns the exit code, or None when it timed out.  Cancelling the task kills
    the process group and waits for the process to end."""
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    proc = await asyncio.create_subprocess_exec(
        *argv, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT, stdin=asyncio.subprocess.DEVNULL,
        cwd=cwd, env=env, start_new_session=True)
    batch: list[str] = []
    last = time.monotonic()
    deadline = last + timeout

    async def flush():
        nonlocal batch, last
        if batch:
            out, batch = batch, []
            r = on_batch(out)
            if asyncio.iscoroutine(r):
                await r
        last = time.monotonic()

    try:
        assert proc.stdout is not None
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                _kill_group(proc)
                await proc.wait()
                await flush()
                return None
            try:
                raw = await asyncio.wait_for(proc.stdout.readline(), timeout=min(left, max(batch_s, 0.01)))
            except asyncio.TimeoutError:
                await flush()
                continue
            if not raw:
                break
            batch.append(raw.decode("utf-8", "replace").rstrip("\r\n"))
            if len(batch) >= batch_lines or time.monotonic() - last >= batch_s:
                await flush()
        await flush()
        return await proc.wait()
    except asyncio.CancelledError:
        _kill_group(proc)
        await asyncio.shield(proc.wait())
        raise
    finally:
        _kill_group(proc)
