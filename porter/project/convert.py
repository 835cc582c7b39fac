"""Convert a file or a whole project tree (headless: ``porter convert``).

Sources are translated, build files migrated (when ``porter.buildfiles`` is
present), other files copied; the tree is mirrored under the output folder
and a manifest records where every output file came from.  Files are streamed:
each worker reads, converts and writes one file and returns only its report.
"""

from __future__ import annotations

import os
import shutil
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from porter.project.atomic import atomic_write, atomic_write_text, atomic_writer
from porter.project.lock import FolderLocked, folder_lock
from porter.project.files import (ProjectFile, UnreadableText, classify, from_utf8, read_with_mode, to_utf8, walk,
                                  wide_encoding)
from porter.project.workers import job_count, run_per_file
from porter.translate import TranslateOptions, Translation, translate

MANIFEST = ".porter/manifest.json"
BACKUP_SUFFIX = ".prehip"
BINARY_SNIFF = 8192


class ConvertError(Exception):
    """A problem with the whole run (bad paths): one line for the user."""


@dataclass(frozen=True)
class ConvertOptions:
    translate: TranslateOptions = TranslateOptions()
    fix: bool = False  # apply every finding fix marked safe before translating
    annotate: bool = False  # write remaining findings as // PORTnnn: comments
    findings: bool = True  # run the findings rules (stats, --fix, --annotate)
    # place the "parse error here" warnings of a file whose text looks broken (a parse of the whole file,
    # which a port without the findings rules does not otherwise make): False where none is shown (-q)
    parse_warnings: bool = True
    write: bool = True  # False: --examine (statistics only)
    inplace: bool = False
    arch: str = "gfx942"  # for build-file migration
    jobs: int = 0  # 0: all cores


@dataclass
class FileReport:
    rel: str
    kind: str
    status: str  # converted | unchanged | copied | error
    message: str = ""
    stats: dict = field(default_factory=dict)
    unsupported: list[dict] = field(default_factory=list)
    leftovers: list[dict] = field(default_factory=list)
    defines: list[str] = field(default_factory=list)  # CUDA-looking macros the file defines itself
    warnings: list[str] = field(default_factory=list)
    findings: list[dict] = field(default_factory=list)
    fixes_applied: int = 0
    inserted_lines: list[tuple[int, int]] = field(default_factory=list)
    lines: int = 0

    def as_dict(self) -> dict:
        d = {k: v for k, v in self.__dict__.items() if v not in ("", [], {}, 0) or k in ("status", "rel", "kind")}
        return d


@dataclass
class ConvertReport:
    source: str
    output: str | None
    files: list[FileReport]
    # problems of the run rather than of one file (the manifest could not be written), one line each
    problems: list[str] = field(default_factory=list)

    @property
    def errors(self) -> list[FileReport]:
        return [f for f in self.files if f.status == "error"]

    @property
    def exit_code(self) -> int:
        return 1 if self.errors or self.problems else 0

    def totals(self) -> dict:
        by_name: Counter = Counter()
        by_cat: Counter = Counter()
        status: Counter = Counter()
        unsupported = leftovers = lines_changed = lines = findings = 0
        by_sev: Counter = Counter()
        for f in self.files:
            status[f.status] += 1
            by_name.update(f.stats.get("by_name", {}))
            by_cat.update(f.stats.get("by_category", {}))
            unsupported += len(f.unsupported)
            leftovers += len(f.leftovers)
            lines_changed += f.stats.get("lines_changed", 0)
            lines += f.lines
            findings += len(f.findings)
            by_sev.update(x["severity"] for x in f.findings)
        return {
            "files": dict(status), "lines": lines, "lines_changed": lines_changed,
            "converted": sum(by_name.values()), "unsupported": unsupported, "leftovers": leftovers,
            "findings": findings, "findings_by_severity": dict(by_sev),
            "by_category": dict(by_cat.most_common()), "by_name": dict(by_name.most_common()),
        }

    def as_dict(self) -> dict:
        doc = {"source": self.source, "output": self.output, "totals": self.totals(),
               "files": [f.as_dict() for f in self.files]}
        if self.problems:
            doc["problems"] = list(self.problems)
        return doc


# ---------------------------------------------------------------- one file

def _annotate(source: bytes, findings: list) -> tuple[bytes, list[tuple[int, int]]]:
    """Insert ``// PORTnnn: message`` above each finding's line; returns the new
    source and the inserted lines as (after source line, count)."""
    if not findings:
        return source, []
    nl = b"\r\n" if b"\r\n" in source[:4096] else b"\n"
    lines = source.splitlines(keepends=True)
    per_line: dict[int, list] = {}
    for f in findings:
        per_line.setdefault(f.line, [])
        if f.rule not in [g.rule for g in per_line[f.line]]:
            per_line[f.line].append(f)
    out: list[bytes] = []
    inserted = []
    for i, text in enumerate(lines, start=1):
        notes = per_line.get(i)
        if notes:
            indent = text[: len(text) - len(text.lstrip(b" \t"))]
            for f in notes:
                message = f.message.splitlines()[0] if f.message else ""
                out.append(indent + f"// {f.rule}: {message}".encode() + nl)
            inserted.append((i - 1, len(notes)))
        out.append(text)
    return b"".join(out), inserted


def _compose(first: list[tuple[int, int]], second: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Inserted lines of two successive steps, expressed in original source lines."""
    if not first:
        return list(second)
    result = list(first)
    for after, count in second:
        # `after` counts lines of the first step's output: map it back
        line, shift = after, 0
        for a, c in first:
            if a + shift < line:
                shift += c
        result.append((max(0, after - shift), count))
    return sorted(result)


def convert_bytes(source: bytes, rel: str, options: ConvertOptions,
                  file=None) -> tuple[bytes, FileReport, Translation | None]:
    """Convert one source file's bytes (no I/O but the findings reading the quoted #includes next to
    ``file``, where the file lies on disk, if given)."""
    report, result = _translated(source, rel, options, file)
    if result is None:
        return source, report, None
    report.status = "converted" if result.output != source else "unchanged"
    return result.output, report, result


def _translated(source: bytes, rel: str, options: ConvertOptions, file=None) -> tuple[FileReport, Translation | None]:
    """``convert_bytes`` but for the port itself and the report's status: the translation, whose
    port the caller reads (``output``) or streams (``write_output``); None for a binary file
    (the report says so)."""
    report = FileReport(rel, "source", "unchanged", lines=source.count(b"\n") + (0 if source.endswith(b"\n") else 1))
    if b"\0" in source[:BINARY_SNIFF]:
        report.status = "error"
        report.message = "binary file (NUL bytes), copied unchanged"
        return report, None
    findings_api = None
    if options.findings:  # the rules' engine is loaded only by a run that uses them
        from porter import findings as findings_api
    from porter.translate.source_index import index_source

    # one parse shared by the findings rules and the translator (the translator alone parses only when needed)
    index = index_source(source) if findings_api is not None else None
    work = source
    found = []
    inserted_annot: list[tuple[int, int]] = []
    if findings_api is not None:
        found = findings_api.scan(source, rel, index=index, options=options.translate, file=file)
        if options.fix:
            fixable = [f for f in found if f.fix is not None and f.fix.safe]
            if fixable:
                work = findings_api.apply_fixes(source, fixable, safe_only=True)
                report.fixes_applied = len(fixable)
                found = findings_api.scan(work, rel, options=options.translate, file=file) if work != source else found
        if options.annotate:
            work, inserted_annot = _annotate(work, found)
    result = translate(work, rel, options.translate, index=index if work is source else None,
                       parse_warnings=options.parse_warnings)
    report.stats = result.stats()
    report.unsupported = [r.as_dict() for r in result.unsupported]
    report.leftovers = [r.as_dict() for r in result.leftovers]
    report.defines = list(result.defines)
    report.warnings = list(result.warnings)
    report.findings = [f.as_dict() for f in found]
    report.inserted_lines = _compose(inserted_annot, result.inserted_lines)
    if report.fixes_applied:
        report.message = f"{report.fixes_applied} safe fix(es) applied"
    return report, result


def convert_build_file(text: bytes, rel: str, options: ConvertOptions) -> tuple[bytes, FileReport]:
    from porter import buildfiles

    report = FileReport(rel, "build", "copied", lines=text.count(b"\n"))
    try:
        decoded = text.decode("utf-8")
    except UnicodeDecodeError:
        report.status = "error"
        report.message = "build file is not UTF-8, copied unchanged"
        return text, report
    migration = buildfiles.migrate(rel, decoded, arch=options.arch)
    out = migration.output.encode("utf-8")
    report.status = "converted" if out != text else "unchanged"
    report.findings = [f.as_dict() for f in migration.findings]
    report.stats = {"lines_changed": len(migration.changes)}
    report.inserted_lines = migration.inserted_lines(decoded)
    return out, report


def convert_data(data: bytes, rel: str, kind: str, options: ConvertOptions, file=None) -> tuple[bytes, FileReport]:
    """Convert one file's bytes by its kind ("source", "build", "other": copied).  A UTF-16 or UTF-32
    text with a byte-order mark is converted as UTF-8 and written back in its own encoding (a warning
    says so); one that does not decode is an error, copied unchanged."""
    if kind == "other":
        return data, FileReport(rel, "other", "copied")
    try:
        text, encoding = to_utf8(data)
    except UnreadableText as exc:
        return data, FileReport(rel, kind, "error", f"{exc}, copied unchanged")
    if kind == "source":
        out, report, _ = convert_bytes(text, rel, options, file=file)
    else:
        out, report = convert_build_file(text, rel, options)
    if encoding is not None:
        report.warnings.insert(0, f"{rel}: read as {encoding} (byte-order mark), written back as {encoding}")
        out = data if report.status == "error" else from_utf8(out, encoding)
        if report.status == "unchanged" and out != data:
            report.status = "converted"
    return out, report


def convert_file(pf: ProjectFile, out_root: Path | None, options: ConvertOptions, dest: Path | None = None) -> FileReport:
    """Convert one file of a project and write it (worker entry point)."""
    try:
        data, mode = read_with_mode(pf.path)
    except OSError as exc:
        return FileReport(pf.rel, pf.kind, "error", f"cannot read: {exc.strerror or exc}")
    # a UTF-8 source converted to an output folder: its port goes to the file a piece at a time as
    # it is made (``Translation.write_output``), never whole in memory (a 200 MB file's port)
    streamed = options.write and not options.inplace and pf.kind == "source" and wide_encoding(data) is None
    try:
        if streamed:
            report, port = _translated(data, pf.rel, options, file=pf.path)
            if port is None or port.source is not data:  # binary, or changed by --fix/--annotate first
                streamed = False
                out = data if port is None else port.output
                if port is not None:
                    report.status = "converted" if out != data else "unchanged"
        else:
            out, report = convert_data(data, pf.rel, pf.kind, options, file=pf.path)
    except RecursionError:
        return FileReport(pf.rel, pf.kind, "error", "too deeply nested to convert, left unchanged")
    except Exception as exc:  # one file's failure never stops the run
        return FileReport(pf.rel, pf.kind, "error", f"internal error: {type(exc).__name__}: {exc}")
    if streamed:
        return _write_streamed(port, report, dest or (out_root / pf.rel), mode)
    if not options.write:
        return report
    if options.inplace and report.status == "copied":
        report.status = "unchanged"  # in place, a file that is not converted is left alone, not copied
    try:
        if options.inplace:
            if out != data:
                backup = pf.path.with_name(pf.path.name + BACKUP_SUFFIX)
                if not backup.exists():  # whole or absent (a full disk must not leave half a backup)
                    atomic_write(backup, data, mode)
                    shutil.copystat(pf.path, backup)
                atomic_write(pf.path, out, mode)
        else:
            target = dest or (out_root / pf.rel)
            atomic_write(target, out, mode)
            if pf.kind == "build" and out_root is not None:
                _warn_outside_paths(pf, out, target, out_root, report)
    except OSError as exc:
        report.status = "error"
        report.message = f"cannot write: {exc.strerror or exc}"
    return report


def _warn_outside_paths(pf: ProjectFile, out: bytes, target: Path, out_root: Path, report: FileReport) -> None:
    """A build file whose ``../`` paths leave the converted folder and are not beside the port (outside_paths)."""
    from porter.project.outside_paths import missing_beside_port, warning

    source_root = pf.path.parents[len(Path(pf.rel).parts) - 1]
    paths = missing_beside_port(out.decode("utf-8", "replace"), pf.path, source_root, target)
    if paths:
        report.warnings.append(warning(pf.rel, paths, out_root))


def _write_streamed(port: Translation, report: FileReport, target: Path, mode: int) -> FileReport:
    """Write ``port``'s output to ``target`` as it is made (atomic: whole or not at all)."""
    try:
        with atomic_writer(target, mode) as fh:
            changed = port.write_output(fh.write)
    except OSError as exc:
        report.status = "error"
        report.message = f"cannot write: {exc.strerror or exc}"
        return report
    except RecursionError:
        return FileReport(report.rel, report.kind, "error", "too deeply nested to convert, left unchanged")
    except Exception as exc:  # (as when the port is made whole: one file's failure never stops the run)
        return FileReport(report.rel, report.kind, "error", f"internal error: {type(exc).__name__}: {exc}")
    report.status = "converted" if changed else "unchanged"
    return report


# ---------------------------------------------------------------- a tree

def default_output(src: Path) -> Path:
    return src.with_name(src.name + "-hip")


def _check_paths(src: Path, out: Path | None, options: ConvertOptions) -> None:
    if not src.exists():
        raise ConvertError(f"{src}: no such file or folder")
    if options.inplace or not options.write:
        return
    if out is None:
        raise ConvertError("no output given (use -o OUT, --inplace or --examine)")
    if out.resolve() == src.resolve():
        raise ConvertError(f"output {out} is the input; use --inplace to convert in place (keeps .prehip backups)")
    from porter.project.output_path import overlap_problem

    problem = overlap_problem(src, out)
    if problem:
        raise ConvertError(problem)
    if src.is_dir() and out.exists() and not out.is_dir():
        raise ConvertError(f"output {out} exists and is not a folder")


def _convert_one(context: tuple[Path | None, ConvertOptions], pf: ProjectFile) -> FileReport:
    out_root, options = context
    return convert_file(pf, out_root, options)


def convert_tree(src: str | os.PathLike, out: str | os.PathLike | None, options: ConvertOptions = ConvertOptions(),
                 progress=None) -> ConvertReport:
    """Convert ``src`` (a file or a folder) into ``out``.

    ``progress(report)`` is called after each file.  Raises ConvertError for
    unusable paths; per-file problems are in the report."""
    src = Path(src)
    out_path = Path(out) if out is not None else None
    _check_paths(src, out_path, options)
    if src.is_file():
        kind = classify(src)
        pf = ProjectFile(src.resolve(), src.name, "source" if kind == "other" else kind)
        dest = out_path / src.name if out_path is not None and out_path.is_dir() else out_path
        report = convert_file(pf, None, options, dest=dest)
        if progress:
            progress(report)
        return ConvertReport(str(src), str(out_path) if out_path else None, [report])

    locked = src if options.inplace else out_path if options.write else None
    if locked is None:
        return _convert_folder(src, out_path, options, progress)
    try:
        with folder_lock(locked, "the source folder" if options.inplace else "output folder"):
            return _convert_folder(src, out_path, options, progress)
    except FolderLocked as exc:
        raise ConvertError(str(exc)) from None


def _convert_folder(src: Path, out_path: Path | None, options: ConvertOptions, progress) -> ConvertReport:
    exclude = [out_path] if out_path is not None else []
    walked = walk(src, exclude=exclude, follow_links=not options.inplace)
    files = _without_backups(walked.files)
    reports: list[FileReport] = []
    out_root = out_path.resolve() if out_path is not None else None
    # Ctrl-C stops the workers at once: every file already written is complete (atomic writes), the rest untouched
    for r in run_per_file(_convert_one, (out_root, options), files, job_count(options.jobs, len(files)),
                          name=lambda pf: pf.rel):
        reports.append(r)
        if progress:
            progress(r)
    for skip in walked.skipped:  # after the files, in walking order
        r = FileReport(skip.rel, "path", "error" if skip.error else "skipped", skip.reason)
        if not skip.error:
            r.warnings.append(f"{skip.rel}: skipped: {skip.reason}")
        reports.append(r)
        if progress:
            progress(r)
    _drop_project_macros(reports)
    report = ConvertReport(str(src), str(out_path) if out_path else None, reports)
    if options.write and not options.inplace and out_root is not None:
        try:
            write_manifest(src.resolve(), out_root, reports, options)
        except OSError as exc:
            report.problems.append(f"{out_root / MANIFEST}: cannot write: {exc.strerror or exc}")
    return report


def _without_backups(files: list[ProjectFile]) -> list[ProjectFile]:
    """The files less the ``.prehip`` backups of files beside them (an earlier ``--inplace`` run's)."""
    rels = {f.rel for f in files}
    return [f for f in files if not (f.rel.endswith(BACKUP_SUFFIX) and f.rel[:-len(BACKUP_SUFFIX)] in rels)]


def _drop_project_macros(reports: list[FileReport]) -> None:
    """A CUDA-looking macro one file of the project defines (CUDA_CHECK in a helper
    header) is the project's own name, not a leftover, in every file that uses it."""
    own = {name for r in reports for name in r.defines}
    if own:
        for r in reports:
            r.leftovers = [x for x in r.leftovers if x["name"] not in own]


def write_manifest(src_root: Path, out_root: Path, reports: list[FileReport],
                   options: ConvertOptions | None = None) -> None:
    manifest = {
        "source_root": str(src_root),
        "files": {
            r.rel: {"source": str(src_root / r.rel), "kind": r.kind, "status": r.status,
                    "inserted_lines": [list(x) for x in r.inserted_lines]}
            for r in reports if r.kind != "path"
        },
    }
    if options is not None:
        # what the port was converted for: porter build reads the target ROCm (--target-rocm or the project's
        # porter.toml, else the newest porter knows) when it is not told (porter/build/runner.py)
        manifest["convert"] = {"target_rocm": options.translate.target, "roc": options.translate.roc,
                               "arch": options.arch}
    import json  # here: converting one file writes no manifest

    atomic_write_text(out_root / MANIFEST, json.dumps(manifest, indent=1, sort_keys=True) + "\n")
