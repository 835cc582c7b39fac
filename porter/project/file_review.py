"""The review of one file: its CUDA and HIP lines aligned row by row
(``porter.project.alignment``), the hunks, the reviewer's decisions, fixes and edit, and
the file's state.  Pure Python, no UI.

A file is converted lazily (``FileReview.load``, or a worker process runs
``porter.project.file_conversion.convert_file`` and ``apply_result`` takes its answer).
A *hunk* is a run of rows that differ.  Decisions are kept per file in a dict
keyed by a hash of the hunk's old and new lines plus one line of context, so a
re-converted file picks up every decision whose hunk still matches.

    >>> fr = FileReview.from_text("a.cpp", "int x;\\ncudaFree(p);\\n")
    >>> [(h.old, h.new) for h in fr.hunks]
    [(('cudaFree(p);',), ('hipFree(p);',))]
    >>> fr.decide(0, ACCEPTED); fr.state
    'accepted'
"""

from __future__ import annotations

import bisect
import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from porter.project.alignment import (Row, Row3, align_by_diff, align_by_insertions, align_fixed, align_three,
                                      changed_lines, strip_eol)
from porter.project.file_conversion import (Recheck, ReviewError, apply_fix_edits, convert_file, finding_key,
                                            source_bytes, source_text,
                                            scan_fixed, text_hash)
from porter.project.merge import Merge, count_conflicts, merge3

PENDING, ACCEPTED, REJECTED = "pending", "accepted", "rejected"
EDITED = "edited"  # the decision of a hunk the user's edit touches
# file states
S_WAITING, S_PENDING, S_ACCEPTED, S_EDITED, S_UNCHANGED, S_ERROR = (
    "converting", "pending", "accepted", "edited", "unchanged", "error")


@dataclass(slots=True)
class Hunk:
    index: int
    start: int  # first row
    end: int  # one past the last row
    old: tuple[str, ...]
    new: tuple[str, ...]
    key: str
    stale: bool = False
    edited: bool = False  # the user's edit changed lines of this hunk: decided by the edit


def hunk_key(before: str, old: tuple[str, ...], new: tuple[str, ...], after: str) -> str:
    # each part followed by a NUL, hashed in one piece (the keys of saved sessions stay the same)
    text = "\x00".join((before, "\x02", *old, "\x01", *new, "\x02", after)) + "\x00"
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _unmapped(pos: int, spans) -> int:
    """Byte ``pos`` of the CUDA with the fixes ``spans`` applied, in the CUDA without them (inside
    a replacement: the start of what it replaced)."""
    shift = 0
    for s, e, k in spans:
        if pos < s + shift:
            break
        if pos < s + shift + k:
            return s
        shift += k - (e - s)
    return pos - shift


def _mapped(pos: int, spans, end_side: bool) -> int:
    """Byte ``pos`` of the CUDA in the CUDA with the fixes ``spans`` applied (start, end,
    replacement length each, in order); inside a replaced span: the start (or, for an end, the
    end) of its replacement."""
    shift = 0
    for s, e, k in spans:
        if pos <= s:
            break
        if pos < e:
            return s + shift + (k if end_side else 0)
        shift += k - (e - s)
    return pos + shift


class Introduced(NamedTuple):
    """A finding the scan of the fixed CUDA has and the original scan did not (a fix brought it,
    e.g. PORT017 once every shuffle has width 32); ``line``: where it is in the original CUDA."""

    rule: str
    severity: str
    message: str
    line: int


@dataclass(eq=False, repr=False)
class FileReview:
    rel: str
    path: Path | None = None
    kind: str = "source"
    status: str = S_WAITING  # converting | ready | error
    error: str = ""
    cuda: str = ""
    hip: str = ""  # proposed HIP (translation of the CUDA with the applied fixes)
    edited: str | None = None  # the user's HIP text, when edited
    edit_base: str = ""  # source_hash of the CUDA the edit was made against ("" = the current one)
    edit_base_cuda: str = ""  # that CUDA (with the fixes then applied) while the edit is stale; "" = not known
    left: list[str] = field(default_factory=list)  # CUDA lines with their line endings
    right: list[str] = field(default_factory=list)  # HIP (or edited) lines
    rows: list[Row] = field(default_factory=list)
    hunks: list[Hunk] = field(default_factory=list)
    row_hunk: dict[int, int] = field(default_factory=dict)
    findings: list = field(default_factory=list)
    decisions: dict[str, str] = field(default_factory=dict)
    applied_fixes: list[str] = field(default_factory=list)
    stale_decisions: int = 0
    restored: bool = False  # decisions came from a saved session
    source_hash: str = ""
    inserted_lines: list[tuple[int, int]] = field(default_factory=list)  # from the translator
    fixed: bool = False  # the HIP comes from the CUDA with fixes applied
    warnings: list[str] = field(default_factory=list)
    findings_pending: bool = False  # translated, the findings not scanned yet (``take_findings``)
    mode: int | None = None
    options: object = None  # the project's TranslateOptions (target ROCm, --roc); None: the defaults
    # the fixed CUDA the HIP was translated from and the fixes' edits in it (None: no fix applied)
    _fixed_cuda: tuple[str | None, list] | None = field(default=None, repr=False)
    # the re-check of the applied fixes: (their keys, keys resolved, {key: severity now}, introduced)
    _recheck: tuple[tuple, set[str], dict[str, str], list[Introduced]] | None = field(default=None, repr=False)
    _stat: tuple[int, int] | None = field(default=None, repr=False)  # (mtime_ns, size) of the file read
    # the lines without their endings, with the list they were made from: (left or right, stripped)
    _left_s: tuple[list[str], list[str]] | None = field(default=None, repr=False)
    _right_s: tuple[list[str], list[str]] | None = field(default=None, repr=False)
    _sev_cache: tuple | None = field(default=None, repr=False)  # (findings, applied, counts, re-check)
    # row of each left / right line (from the last alignment), for line -> row look-ups
    _left_row: list[int] = field(default_factory=list, repr=False)
    _right_row: list[int] = field(default_factory=list, repr=False)
    _decisions_version: int = field(default=0, repr=False)  # bumped by every change of ``decisions``
    _pending_cache: tuple | None = field(default=None, repr=False)  # (key, the hunks still to decide)
    _conflicts_cache: tuple | None = field(default=None, repr=False)  # (the edit, its merge conflicts)
    # a saved session's edit, until the file's conversion arrives: (text, its base hash, its base CUDA)
    _saved_edit: str | None = field(default=None, repr=False)
    _saved_edit_base: str = field(default="", repr=False)
    _saved_edit_base_cuda: str = field(default="", repr=False)

    def __repr__(self) -> str:  # short: workers and logs print it
        return f"FileReview({self.rel!r}, {self.state})"

    # ---- loading -------------------------------------------------------------
    @classmethod
    def from_text(cls, rel: str, cuda: str, kind: str = "source") -> "FileReview":
        fr = cls(rel=rel, kind=kind)
        fr.apply_result(convert_file(rel, None, kind, data=source_bytes(cuda), options=fr.options))
        return fr

    def load(self) -> None:
        """Read and convert the file here; errors become ``status == "error"`` with a message."""
        self.apply_result(convert_file(self.rel, self.path, self.kind, applied=tuple(self.applied_fixes),
                                       options=self.options))

    def apply_result(self, res: dict) -> None:
        """Take what ``convert_file`` computed (here or in a worker process)."""
        if res["status"] == "error":
            self.status, self.error = "error", res["error"]
            return
        new_hash = res["source_hash"]
        if self.source_hash and self.source_hash != new_hash and self.decisions:
            self.restored = True  # the source changed since the decisions were made
        self.source_hash = new_hash
        self.mode = res.get("mode")
        if res.get("stat") is not None:  # (read from the file; a result made from text keeps the last)
            self._stat = res["stat"]
        self.cuda = res["cuda"]
        self.left = self.cuda.splitlines(keepends=True)
        self.findings_pending = bool(res.get("findings_pending"))
        self._recheck = None  # (a re-check of other findings: this text is scanned anew)
        self._take_translation(res)
        self.status, self.error = "ready", ""
        found = res.get("recheck")
        if found is not None and self.fixed and res.get("effective") is not None:
            # read with fixes chosen (a restored session): the re-check came with the conversion
            self.take_recheck(Recheck(self.rel, source_bytes(res["effective"]), self.options,
                                      tuple(self.applied_fixes), res.get("fix_spans") or []), found)

    def changed_on_disk(self) -> bool:
        """The source file is no longer the one read (another editor saved it).  A file that is
        gone is not "changed": the app keeps the version read and says so when it is shown."""
        if self.status != "ready" or self.path is None or self._stat is None:
            return False
        try:
            st = self.path.stat()
        except OSError:
            return False
        if (st.st_mtime_ns, st.st_size) == self._stat:
            return False
        try:
            same = st.st_size == len(source_bytes(self.cuda)) and \
                text_hash(source_text(self.path.read_bytes())) == self.source_hash
        except (OSError, UnicodeError):
            return True  # unreadable now, or no longer UTF-8: converting it again says which
        if same:  # touched, saved unchanged, checked out again: nothing to convert
            self._stat = (st.st_mtime_ns, st.st_size)
        return not same

    def read_again(self) -> None:
        """Convert this file again from its changed source: its decisions are kept (those of
        hunks that changed go stale) and an edit keeps the CUDA it was made against, so that it
        goes stale and offers keep / re-convert / the three-way view."""
        if self.edited is not None and not self.edit_base:
            self.edit_base, self.edit_base_cuda = self.source_hash, self.effective_cuda()
        self.status = S_WAITING

    def take_findings(self, res: dict) -> bool:
        """Take the findings ``scan_file`` made for this file's translated text; False (and nothing
        taken) where they are not this text's or none were pending."""
        if not self.findings_pending or self.status != "ready" or res.get("status") != "ready" \
                or res.get("source_hash") != self.source_hash:
            return False
        self.findings = res["findings"]
        self.warnings = self.warnings + res["warnings"]
        self.findings_pending = False
        return True

    def _take_translation(self, res: dict) -> None:
        self.findings = res["findings"]
        self.warnings = res["warnings"]
        self.hip = res["hip"]
        self.inserted_lines = res["inserted"]
        self.fixed = res["fixed"]
        self._fixed_cuda = (res.get("effective"), res.get("fix_spans") or []) if self.fixed else None
        if not self.findings_pending:  # (a file is translated before its scan only with no fix chosen)
            known = {finding_key(f) for f in self.findings}
            self.applied_fixes = [k for k in self.applied_fixes if k in known]
        self._realign(inserted=self.inserted_lines)

    def _translate(self) -> None:
        """Re-translate the CUDA held in memory with the applied fixes: where the change allows,
        only the top-level declarations it touches (``translate.incremental``), else all of it."""
        if self.status == "ready" and self.kind == "source" and not self.warnings and self._retranslate():
            return
        # the findings are those of self.cuda (fixes are applied to a copy), so they are not scanned again
        res = convert_file(self.rel, self.path, self.kind, data=source_bytes(self.cuda),
                           applied=tuple(self.applied_fixes), options=self.options,
                           findings=self.findings if self.status == "ready" and self.kind == "source" else None)
        if res["status"] == "error":
            raise ReviewError(res["error"])
        self._take_translation(res)

    def _retranslate(self) -> bool:
        """The new HIP spliced from the current one around what the fixes changed; False where a
        whole translation is needed."""
        from porter.translate import TranslateOptions
        from porter.translate.incremental import retranslate

        data = source_bytes(self.cuda)
        fixed = self._fixed_cuda if self.fixed else None
        if self.fixed and (fixed is None or fixed[0] is None):
            return False
        old = source_bytes(fixed[0]) if fixed else data
        effective, spans = self.fixed_source() or (data, [])
        quick = retranslate(old, self.hip.splitlines(keepends=True), self.inserted_lines, effective, self.rel,
                            self.options or TranslateOptions())
        if quick is None:
            return False
        self._take_translation({
            "findings": self.findings, "warnings": [], "hip": "".join(quick.hip_lines),
            "inserted": quick.inserted_lines, "fixed": bool(spans),
            "effective": source_text(effective) if spans else None, "fix_spans": spans})
        return True

    def _realign(self, inserted: list[tuple[int, int]] | None) -> None:
        text = self.edited if self.edited is not None else self.hip
        self.right = text.splitlines(keepends=True)
        cached = self._left_s
        if cached is None or cached[0] is not self.left:  # the CUDA lines, without their endings, once per text
            cached = self._left_s = (self.left, [x.rstrip("\r\n") for x in self.left])
        self._right_s = (self.right, [x.rstrip("\r\n") for x in self.right])
        rows = None
        if inserted is not None and self.edited is None:
            fixed = self._fixed_cuda if self.fixed else None
            if fixed is None:
                rows = align_by_insertions(len(self.left), len(self.right), inserted)
            elif fixed[0] is not None:
                rows = align_fixed(self.left, fixed[0].splitlines(keepends=True), fixed[1], len(self.right), inserted,
                                   ascii=self.cuda.isascii() and fixed[0].isascii())
        if rows is None:
            rows = align_by_diff(cached[1], self._right_s[1])
        self.rows = rows
        n_left, n_right = len(self.left), len(self.right)
        lrow, rrow = [0] * n_left, [0] * n_right
        for i, (a, b) in enumerate(rows):
            if a is not None and a < n_left:
                lrow[a] = i
            if b is not None and b < n_right:
                rrow[b] = i
        self._left_row, self._right_row = lrow, rrow
        self._hunks()

    def _hunks(self) -> None:
        hunks: list[Hunk] = []
        row_hunk: dict[int, int] = {}
        seen: dict[str, int] = {}
        rows, left, right = self.rows, self._left_s[1], self._right_s[1]
        # the changed rows, in one pass: a row pairs two different lines, or has one side only
        changed = [i for i, (a, b) in enumerate(rows) if a is None or b is None or left[a] != right[b]]
        n, k, m = len(rows), 0, len(changed)
        while k < m:
            i = j = changed[k]
            while k < m and changed[k] == j:  # a run of consecutive changed rows
                j += 1
                k += 1
            block = rows[i:j]
            old = tuple(left[a] for a, _ in block if a is not None)
            new = tuple(right[b] for _, b in block if b is not None)
            before = self.left_text(i - 1) if i > 0 else ""
            after = self.left_text(j) if j < n else ""
            key = hunk_key(before or "", old, new, after or "")
            n_same = seen.get(key, 0)  # identical hunks (repeated code) are told apart by their order
            seen[key] = n_same + 1
            if n_same:
                key = f"{key}#{n_same}"
            idx = len(hunks)
            hunks.append(Hunk(idx, i, j, old, new, key))
            row_hunk.update(dict.fromkeys(range(i, j), idx))
        self.hunks, self.row_hunk = hunks, row_hunk
        if self.edited is not None:
            self._mark_edited_hunks()
        keys = {h.key for h in hunks}
        self.stale_decisions = sum(1 for k in self.decisions if k not in keys)
        if self.restored:
            for h in hunks:
                h.stale = h.key not in self.decisions and not h.edited

    def _mark_edited_hunks(self) -> None:
        """Mark the hunks whose HIP lines the edit changed against the proposed HIP."""
        hip = [strip_eol(x) for x in self.hip.splitlines()]
        touched = changed_lines(hip, self._right_s[1])  # 0-based lines of the edited text
        if not touched:
            return
        for h in self.hunks:
            rights = [r.right for r in self.rows[h.start:h.end] if r.right is not None]
            if not rights:  # a CUDA line the edit removed: look at the lines around the cut
                rights = [r.right for r in self.rows[max(0, h.start - 1):h.end + 1] if r.right is not None]
            h.edited = any(x in touched for x in rights)

    # ---- rows ------------------------------------------------------------------
    def row_changed(self, i: int) -> bool:
        r = self.rows[i]
        if r.left is None or r.right is None:
            return True
        return self.left_text(i) != self.right_text(i)

    def left_text(self, i: int) -> str | None:
        r = self.rows[i]
        if r.left is None:
            return None
        cached = self._left_s
        return cached[1][r.left] if cached is not None and cached[0] is self.left else strip_eol(self.left[r.left])

    def right_text(self, i: int) -> str | None:
        r = self.rows[i]
        if r.right is None:
            return None
        cached = self._right_s
        return cached[1][r.right] if cached is not None and cached[0] is self.right else strip_eol(self.right[r.right])

    def row_of_left_line(self, line: int) -> int:
        """Row showing 1-based CUDA line ``line`` (clamped to the file)."""
        return self._row_of(line - 1, self._left_row)

    def row_of_right_line(self, line: int) -> int:
        return self._row_of(line - 1, self._right_row)

    def _row_of(self, idx: int, table: list[int]) -> int:
        if not table:
            return 0
        return table[max(0, min(idx, len(table) - 1))]

    # ---- decisions -----------------------------------------------------------
    def decision(self, hunk: int) -> str:
        h = self.hunks[hunk]
        return self.decisions.get(h.key, EDITED if h.edited else PENDING)

    def is_decided(self, h: Hunk) -> bool:
        return h.edited or h.key in self.decisions

    def decide(self, hunk: int, decision: str) -> None:
        self._decisions_version += 1
        h = self.hunks[hunk]
        if decision == PENDING:
            self.decisions.pop(h.key, None)
        else:
            self.decisions[h.key] = decision
        h.stale = False

    def accept_all(self) -> None:
        for h in self.hunks:
            if h.key not in self.decisions:
                self.decisions[h.key] = ACCEPTED
            h.stale = False

    @property
    def pending_hunks(self) -> int:
        # cached on (hunks, number of decisions): decisions only change through decide/accept_all/restore
        key = (id(self.hunks), len(self.decisions), self._decisions_version)
        cached = self._pending_cache
        if cached is None or cached[0] != key:
            cached = (key, sum(1 for h in self.hunks if h.key not in self.decisions and not h.edited))
            self._pending_cache = cached
        return cached[1]

    @property
    def state(self) -> str:
        if self.status == "error":
            return S_ERROR
        if self.status != "ready":
            return S_WAITING
        if self.pending_hunks or self.edit_stale or self.edit_conflicts:
            return S_PENDING
        if self.edited is not None:
            return S_EDITED
        return S_ACCEPTED if self.hunks else S_UNCHANGED

    @property
    def needs_review(self) -> bool:
        return self.state in (S_PENDING, S_WAITING)

    def severity_counts(self) -> dict[str, int]:
        """Open findings by severity (a finding whose fix is applied, or that a scan of the fixed
        CUDA no longer finds, is not open), each at its severity in that scan, with the findings
        the fixes introduced."""
        applied = tuple(self.applied_fixes)
        cached = self._sev_cache
        if cached is not None and cached[0] is self.findings and cached[1] == applied and cached[3] is self._recheck:
            return cached[2]
        out = {"error": 0, "warning": 0, "info": 0}
        closed = set(self.applied_fixes) | self.resolved
        regraded = self.regraded
        for f in self.findings:
            k = finding_key(f) if closed or regraded else ""
            if closed and k in closed:
                continue
            sev = regraded.get(k, f.severity)
            out[sev] = out.get(sev, 0) + 1
        for n in self.introduced:
            out[n.severity] = out.get(n.severity, 0) + 1
        self._sev_cache = (self.findings, applied, out, self._recheck)
        return out

    # ---- findings the fixes resolved ---------------------------------------------
    @property
    def resolved(self) -> set[str]:
        """Keys of the findings (not fixed themselves) that a scan of the CUDA with the applied
        fixes no longer finds: a width-32 fix of a shuffle also answers the PORT012 warning on its
        loop.  Empty until ``take_recheck`` has the scan of exactly these fixes."""
        held = self._current_recheck()
        return held[1] if held else set()

    @property
    def regraded(self) -> dict[str, str]:
        """Finding key -> its severity in the scan of the fixed CUDA, where that differs: once every
        shuffle has width 32 the other warp-size warnings of the unit are infos."""
        held = self._current_recheck()
        return held[2] if held else {}

    @property
    def introduced(self) -> list[Introduced]:
        """The findings the scan of the fixed CUDA adds (a fix brought them)."""
        held = self._current_recheck()
        return held[3] if held else []

    def _current_recheck(self) -> tuple | None:
        """The re-check held, when it was made for the fixes applied now."""
        held = self._recheck
        return held if held is not None and held[0] == tuple(self.applied_fixes) else None

    def severity_of(self, finding) -> str:
        """The finding's severity after the re-check of the applied fixes (its own before one)."""
        return self.regraded.get(finding_key(finding), finding.severity)

    def recheck_job(self) -> Recheck | None:
        """What ``scan_fixed`` needs to re-check the findings after the applied fixes (None: no fix)."""
        fixed = self.fixed_source() if self.kind == "source" and self.status == "ready" else None
        if fixed is None:
            return None
        return Recheck(self.rel, fixed[0], self.options, tuple(self.applied_fixes), fixed[1])

    def take_recheck(self, job: Recheck, found: list[tuple[str, int, int, str, str]]) -> bool:
        """Take ``scan_fixed``'s answer for ``job``; False when the fixes changed meanwhile.  Each
        finding (not fixed itself) is still found (the same rule on a line its span maps to: its
        severity there counts), or resolved; what the fixed scan has besides is introduced."""
        applied, spans = job.applied, job.spans
        if applied != tuple(self.applied_fixes):
            return False
        newlines = [m.start() for m in re.finditer(b"\n", job.effective)]

        def lines(a: int, b: int) -> tuple[int, int]:
            return bisect.bisect_left(newlines, a), bisect.bisect_left(newlines, max(a, b - 1))

        by_rule: dict[str, list[tuple[int, int, int]]] = {}  # rule -> (first line, last line, index in found)
        for i, (rule, a, b, _sev, _msg) in enumerate(found):
            by_rule.setdefault(rule, []).append((*lines(a, b), i))
        done = set(applied)
        resolved: set[str] = set()
        regraded: dict[str, str] = {}
        claimed: set[int] = set()
        for f in self.findings:
            key = finding_key(f)
            lo, hi = lines(_mapped(f.start_byte, spans, False), _mapped(f.end_byte, spans, True))
            same = [i for x, y, i in by_rule.get(f.rule, ()) if x <= hi and lo <= y]
            claimed.update(same)  # (a fix's own finding found again where the fix is: not new either)
            if key in done:
                continue
            if not same:
                resolved.add(key)
            elif found[same[0]][3] != f.severity:
                regraded[key] = found[same[0]][3]
        cuda = source_bytes(self.cuda)
        introduced = [Introduced(rule, sev, msg, cuda.count(b"\n", 0, _unmapped(a, spans)) + 1)
                      for i, (rule, a, _b, sev, msg) in enumerate(found) if i not in claimed]
        self._recheck = (applied, resolved, regraded, introduced)
        return True

    def recheck(self) -> None:
        """Re-check the findings after the applied fixes here (the app does it in a worker)."""
        job = self.recheck_job()
        if job is not None:
            self.take_recheck(job, scan_fixed(job))

    # ---- edits and fixes -----------------------------------------------------
    def set_edited(self, text: str | None, prune: bool = True) -> None:
        """The user's HIP text (None: back to the proposed HIP).  The hunks it touches
        are decided by it; decisions of hunks that no longer differ are dropped.  When the edit
        goes (undone in an editor, re-converted), so do the decisions of the hunks only it made:
        they are not decisions the CUDA source left behind (``stale_decisions``)."""
        under_edit = {h.key for h in self.hunks} if self.edited is not None else set()
        self.edited = None if text is None or text == self.hip else text
        self.edit_base = self.edit_base_cuda = ""
        self._realign(None if self.edited is not None else self.inserted_lines)
        keys = {h.key for h in self.hunks}
        if self.edited is not None and prune:
            self.decisions = {k: v for k, v in self.decisions.items() if k in keys}
            self.stale_decisions = 0
        elif prune and under_edit - keys:
            gone = under_edit - keys
            self.decisions = {k: v for k, v in self.decisions.items() if k not in gone}
            self._decisions_version += 1
            self.stale_decisions = sum(1 for k in self.decisions if k not in keys)

    @property
    def edit_stale(self) -> bool:
        """The CUDA source changed after the edit was made: keep it or re-convert?"""
        return self.edited is not None and bool(self.edit_base) and self.edit_base != self.source_hash

    def keep_edit(self) -> None:
        """Keep the edit against the changed source (it is no longer stale)."""
        self.edit_base = self.edit_base_cuda = ""

    def edit_base_hip(self) -> str | None:
        """The conversion the edit was made on: the HIP of ``edit_base_cuda`` (the CUDA, with the
        fixes then applied, that the edit was made against).  None where that CUDA is not known (no
        stale edit, or a session saved before porter kept it)."""
        if self.edited is None or not self.edit_base_cuda:
            return None
        res = convert_file(self.rel, None, self.kind, data=source_bytes(self.edit_base_cuda),
                           options=self.options, findings=[])
        return res["hip"] if res["status"] == "ready" else None

    def edit_merge(self) -> Merge | None:
        """The edit re-applied onto the conversion of the CUDA now: a three-way merge of the old
        conversion (``edit_base_hip``), the edit and the new conversion (``self.hip``).  Where the
        edit's changes and the new conversion's do not overlap both are kept; where they do, the
        chunk is a conflict (``Merge.chunks``, marked in ``Merge.text``).  None where the old
        conversion is not known."""
        base = self.edit_base_hip()
        if base is None or self.edited is None:
            return None
        return merge3(base.splitlines(keepends=True), self.edited.splitlines(keepends=True),
                      self.hip.splitlines(keepends=True))

    def merge_edit(self) -> Merge | None:
        """Take ``edit_merge`` as the edit: it is no longer stale.  Its conflicts stay marked in
        the text and keep the file pending (``edit_conflicts``) until an edit resolves them.  None,
        and nothing changed, where no merge can be made."""
        merged = self.edit_merge()
        if merged is not None:
            self.set_edited(merged.text())
        return merged

    @property
    def edit_conflicts(self) -> int:
        """Conflicts of a merge (``merge_edit``) still marked in the edit: the file is not written
        while it has any."""
        text = self.edited
        if text is None:
            return 0
        cached = self._conflicts_cache
        if cached is None or cached[0] is not text:
            cached = self._conflicts_cache = (text, count_conflicts(text))
        return cached[1]

    def three_way_rows(self) -> list[Row3]:
        """The three-way view's columns side by side, aligned by lines: rows of (a line of the CUDA
        the edit was made against, of the CUDA now, of the edit), None where a column has none.
        The CUDA at the edit is the hub both others are diffed against (the CUDA now, where it is
        not known)."""
        base, new, mine = (t.splitlines() for t in (self.edit_base_cuda, self.effective_cuda(), self.edited or ""))
        return align_three((base, new, mine), hub=0 if self.edit_base_cuda else 1)

    def fixed_source(self) -> tuple[bytes, list[tuple[int, int, int]]] | None:
        """The CUDA with the applied fixes, and the fixes' edits (``apply_fixes_spans``); None when
        no fix is applied."""
        chosen = [f for f in self.findings if f.fix and finding_key(f) in self.applied_fixes]
        return apply_fix_edits(source_bytes(self.cuda), chosen) if chosen else None

    def effective_cuda(self) -> str:
        """The CUDA the proposed HIP is translated from: the source with the applied fixes."""
        fixed = self.fixed_source()
        return self.cuda if fixed is None else source_text(fixed[0])

    def apply_fix(self, finding) -> bool:
        """Apply ``finding``'s suggested fix to the CUDA source and re-translate."""
        return self.apply_fixes([finding]) == 1

    def safe_fixes(self) -> list:
        """The findings whose fix is marked safe and not applied yet."""
        applied = set(self.applied_fixes)
        return [f for f in self.findings if f.fix is not None and f.fix.edits and f.fix.safe
                and finding_key(f) not in applied]

    def apply_fixes(self, findings: list) -> int:
        """Apply several fixes and re-translate once; how many were new.  On a failure
        nothing is applied (ReviewError)."""
        keys = [finding_key(f) for f in findings if f.fix is not None and f.fix.edits]
        new = [k for k in dict.fromkeys(keys) if k not in self.applied_fixes]
        if not new:
            return 0
        before = list(self.applied_fixes)
        self.applied_fixes.extend(new)
        try:
            self._translate()
        except Exception:
            self.applied_fixes = before
            raise
        return len(new)

    def output_text(self) -> str:
        """The reviewed HIP text: accepted (and pending) hunks take the HIP line, rejected keep the CUDA line."""
        out: list[str] = []
        for i, r in enumerate(self.rows):
            h = self.row_hunk.get(i)
            rejected = h is not None and self.decisions.get(self.hunks[h].key) == REJECTED
            if rejected:
                if r.left is not None:
                    out.append(self.left[r.left])
            elif r.right is not None:
                out.append(self.right[r.right])
        return "".join(out)

    def output_line_to_source(self, line: int) -> int:
        """1-based HIP line of the written file -> 1-based CUDA line (approximate for edited files)."""
        if self.edited is None and not self.fixed:
            from porter.translate import Translation

            return Translation.output_line_to_source(self, line)  # only reads .inserted_lines
        row = self.row_of_right_line(line)
        for i in range(row, -1, -1):
            if self.rows[i].left is not None:
                return self.rows[i].left + 1
        return 1

    # ---- session -------------------------------------------------------------
    def to_session(self) -> dict:
        d: dict = {"source_hash": self.source_hash}
        if self.decisions:
            d["decisions"] = dict(self.decisions)
        if self.edited is not None:
            d["edited"] = self.edited
            d["edit_base"] = self.edit_base or self.source_hash
            if self.edit_base_cuda or not self.edit_stale:  # for the three-way view after the CUDA changes
                d["edit_base_cuda"] = self.edit_base_cuda or self.effective_cuda()
        if self.applied_fixes:
            d["fixes"] = list(self.applied_fixes)
        return d

    def restore(self, d: dict) -> None:
        """Take saved decisions; call before ``load`` (stale ones are found then)."""
        self.decisions = {str(k): str(v) for k, v in (d.get("decisions") or {}).items() if v in (ACCEPTED, REJECTED)}
        self.applied_fixes = [str(x) for x in d.get("fixes") or []]
        self.source_hash = str(d.get("source_hash") or "")
        self._saved_edit = d.get("edited") if isinstance(d.get("edited"), str) else None
        base = d.get("edit_base")
        self._saved_edit_base = base if isinstance(base, str) else self.source_hash
        base_cuda = d.get("edit_base_cuda")  # sessions saved before it was kept have none
        self._saved_edit_base_cuda = base_cuda if isinstance(base_cuda, str) else ""

    def after_restore_load(self) -> None:
        saved = self._saved_edit
        if self.status == "ready" and saved is not None:
            self.set_edited(saved, prune=False)
            base = self._saved_edit_base
            self.edit_base = base if base and base != self.source_hash else ""
            if self.edit_base:
                self.edit_base_cuda = self._saved_edit_base_cuda
        self._saved_edit = None
