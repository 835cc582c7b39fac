"""The translator: renames through the mapping database, header paths,
HIP_SYMBOL wrapping, optional hipLaunchKernelGGL launches, and the HIP runtime
include for device code.  Every byte not covered by an edit is kept as it was.
"""

from __future__ import annotations

import functools
import io
import re
from bisect import bisect_right
from collections import Counter
from dataclasses import dataclass, field
from operator import itemgetter
from pathlib import Path
from typing import NamedTuple

import ahocorasick_rs

from porter.mapping import NEWEST_ROCM, Database, Entry, load_database
from porter.mapping.cublas_legacy import legacy_functions, load_cublas_legacy
from porter.parse.lexical import BLANKS_BEFORE_HASH, IDENT_BYTES, JOINS_BEFORE, directives
from porter.translate import call_args, launch
from porter.translate.source_index import IDENTIFIER, IncludePath, SourceIndex, distinct_identifiers, index_source

_RULES_FILE = Path(__file__).with_name("rules.toml")
_IDENT = rb"[A-Za-z_][A-Za-z0-9_]*"


@functools.cache
def structure_rules() -> dict:
    from porter.mapping.cache import load_toml

    return load_toml(_RULES_FILE)


@functools.cache
def _arity_renames(_db_key: int) -> dict[str, dict[str, str]]:
    """{CUDA name: {argument count: HIP name}} where a call's count selects another CUDA function of
    the same meaning that HIP declares for it (cudaGraphInstantiate with 3 arguments is
    cudaGraphInstantiateWithFlags; cudaEventCreate with 2 is cudaEventCreateWithFlags)."""
    from porter.mapping import load_call_arities, load_database

    db = load_database()
    out: dict[str, dict[str, str]] = {}
    for cuda, fact in load_call_arities()[1].items():
        for counts, use, _why in fact.alternatives:
            entry = db.identifiers.get(use)
            if entry is not None and entry.renames:
                out.setdefault(cuda, {}).update({str(n): entry.hip for n in counts})
    return out


class Edit(NamedTuple):
    """Replace ``source[start:end]`` with ``replacement`` (immutable; a tuple, cheap to make by the thousand)."""

    start: int
    end: int
    replacement: bytes
    kind: str = "rename"  # rename | header | namespace | symbol | launch | include | define | drop (a duplicate #include)
    name: str = ""  # the CUDA name, when there is one


class Reference(NamedTuple):
    """A CUDA name found in the source (converted, unsupported or leftover)."""

    name: str
    line: int
    column: int
    category: str = ""
    status: str = ""
    hip: str | None = None
    why: str | None = None
    alternative: str | None = None
    since_hip: str | None = None

    def as_dict(self) -> dict:
        return {k: v for k, v in zip(self._fields, self) if v not in (None, "")}


@dataclass(frozen=True)
class TranslateOptions:
    roc: bool = False  # map libraries to roc* where a roc name exists
    kernel_launch_syntax: bool = False  # rewrite <<<...>>> to hipLaunchKernelGGL
    add_runtime_include: bool = True
    # the ROCm release the port must compile with (e.g. "6.1"; None: the newest the mapping data knows):
    # a HIP name added later, or removed by then, is reported (PORT032), not emitted
    target_rocm: str | None = None

    @property
    def target(self) -> str:
        return self.target_rocm or NEWEST_ROCM


@dataclass
class Translation:
    source: bytes
    # the port: None until ``output`` is first read (``write_output`` streams it without making it)
    _output: bytes | None
    edits: list[Edit]
    converted: list[Reference] = field(default_factory=list)
    unsupported: list[Reference] = field(default_factory=list)
    leftovers: list[Reference] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    # (source line after which lines were inserted, how many) -- for mapping output lines back
    inserted_lines: list[tuple[int, int]] = field(default_factory=list)
    index: SourceIndex | None = field(default=None, repr=False)
    # CUDA-looking names this file defines itself (#define CUDA_CHECK ...): the project's own, not leftovers
    defines: list[str] = field(default_factory=list)
    # the code itself relies on the HIP runtime (device code outside CUDA-only guards; in a .cu, a
    # runtime name emitted or device code at all): the includes decide the rest (``incremental``
    # compares a region's before and after a change)
    relies_on_runtime: bool = False
    _sorted_edits: bool = field(default=False, repr=False)  # ``edits`` are in _edit_order (the translator's)

    @property
    def output(self) -> bytes:
        """The port (made on first use and kept)."""
        if self._output is None:
            self._output = _apply_sorted(self.source, self._in_order())
        return self._output

    def _in_order(self) -> list[Edit]:
        return self.edits if self._sorted_edits else sorted(self.edits, key=_edit_order(self.source))

    def write_output(self, write) -> bool:
        """Hand the port to ``write`` a piece at a time (the kept source bytes and the edits'
        replacements, as ``output`` is made of them), without making it whole: a 200 MB file's
        port is never in memory.  Returns whether the port differs from the source
        (``changed``), found by comparing each piece with the source bytes at its place."""
        if self._output is not None:
            write(self._output)
            return self._output != self.source
        source = self.source
        view = memoryview(source)
        pos = out = 0  # where the next kept bytes start in the source, and the next piece in the port
        differs = False
        try:
            for e in self._in_order():
                start, end, text = e[0], e[1], e[2]
                if start < pos:
                    raise ValueError(f"overlapping edits at byte {start}")
                if start > pos:
                    write(view[pos:start])
                    if not differs and out != pos:  # (kept bytes at their own place are equal)
                        differs = view[out:out + start - pos] != view[pos:start]
                    out += start - pos
                if text:
                    write(text)
                    if not differs:
                        differs = view[out:out + len(text)] != text
                    out += len(text)
                pos = end
            if pos < len(source):
                write(view[pos:])
                if not differs and out != pos:
                    differs = view[out:out + len(source) - pos] != view[pos:]
                out += len(source) - pos
        finally:
            view.release()
        return differs or out != len(source)

    @property
    def changed(self) -> bool:
        return self.output != self.source

    @property
    def lines_changed(self) -> int:
        idx = self.index
        if idx is None:
            return 0
        # the edits are in source order: count each line once without a set of every changed line
        count = done = 0  # ``done``: the last line counted
        starts = idx.line_starts
        for start, end, *_rest in self._in_order():
            line = bisect_right(starts, start)  # (``line_of``)
            first = line if line > done else done + 1
            last = bisect_right(starts, end - 1) if end > start + 1 else line
            if last >= first:
                count += last - first + 1
                done = last
        return count

    def output_line_to_source(self, line: int) -> int:
        """Map a 1-based output line to the source line it came from (inserted lines map to the line before them)."""
        shift = 0
        for after, count in self.inserted_lines:
            if line - shift > after + count:
                shift += count
            elif line - shift > after:
                return max(after, 1)
        return line - shift

    def stats(self) -> dict:
        return {
            "converted": len(self.converted),
            "unsupported": len(self.unsupported),
            "leftovers": len(self.leftovers),
            "lines_changed": self.lines_changed,
            "by_category": dict(Counter(map(itemgetter(3), self.converted))),  # (Reference.category)
            "by_name": dict(Counter(map(itemgetter(0), self.converted))),
        }


def apply_edits(source: bytes, edits: list[Edit]) -> bytes:
    """Apply non-overlapping edits (insertions at a point come before a replacement starting there)."""
    return _apply_sorted(source, sorted(edits, key=_edit_order(source)))


def _edit_order(source: bytes):
    """Sort key of edits: by start, an insertion before a replacement that starts there, then by end
    (one integer per edit, not a tuple: a big file has hundreds of thousands of edits)."""
    span = len(source) + 1
    return lambda e: e[0] * span + e[1]


def _apply_sorted(source: bytes, edits: list[Edit]) -> bytes:
    """``apply_edits`` for edits already in ``_edit_order``: copies the kept bytes straight from
    ``source`` into the output, with no piece of it made on the way."""
    out = io.BytesIO()  # getvalue() hands over its buffer: the output exists once, not twice
    write = out.write
    view = memoryview(source)
    pos = 0
    for e in edits:
        start = e[0]
        if start < pos:
            raise ValueError(f"overlapping edits at byte {start}")
        write(view[pos:start])
        write(e[2])
        pos = e[1]
    write(view[pos:])
    view.release()
    return out.getvalue()


_IDENT_RE = IDENTIFIER


@functools.cache
def _keys(db_id: int) -> frozenset[bytes]:
    db = _DBS[db_id]
    return (frozenset(k.encode() for k in db.identifiers) | frozenset(k.encode() for k in db.namespaces)
            | _removable_keys() | frozenset(n.encode() for n in _qualified_inner()))


def _is_key(db: Database, word: bytes) -> bool:
    """``word in _keys(id(db))`` without building that set (a small file in a fresh process): the same
    four sources, looked up one by one."""
    return (word in _removable_keys() or (name := word.decode("ascii")) in db.identifiers
            or name in db.namespaces or name in _qualified_inner())


_DBS: dict[int, Database] = {}
_keys_built: set[int] = set()  # databases whose _keys set is made (then every file uses it)
_FEW_WORDS = 2000  # distinct identifiers under which a fresh process looks each one up instead


@functools.cache
def _device_words() -> frozenset[bytes]:
    return frozenset(w.encode() for w in structure_rules()["device_code"]["identifiers"])


@functools.cache
def _guard_regex() -> re.Pattern:
    words = structure_rules()["device_code"]["guard_macros"]
    return re.compile(b"|".join(re.escape(w.encode()) for w in words))


def _device_code(index: SourceIndex) -> bool:
    """A device-code word (or a launch) outside comments, literals and member names, and not
    inside an ``#ifdef __CUDACC__``-style block (or one that tests the runtime header's guard):
    there the author made the code compile without the GPU compiler or the runtime header, so
    the file needs no runtime include of its own."""
    source = index.source
    # (each step lazy: most files have device code outside every guard early on, and stop there)
    spots = (p for p in _device_positions(source) if not index.is_protected(p) and not _is_member(source, p))
    guard = _guard_regex()
    return any(not any(guard.search(head) for head in heads) for heads in index.iter_open_conditionals(spots))


def occurrences(source: bytes, words, end: int | None = None) -> list[tuple[int, bytes]]:
    """(position, word) of every whole-identifier occurrence of ``words`` in ``source`` (up to
    ``end``), in source order: the same places ``_IDENT_RE.finditer`` yields for those words.

    One Aho-Corasick pass over the text finds every word at once (leftmost-longest: a name is
    made of identifier bytes only, so no match can hide a whole-identifier occurrence of another),
    so the cost is the file's size plus the hits, whatever the number of words."""
    return list(iter_occurrences(source, words, end))


_PIECE = 1 << 20


def iter_occurrences(source: bytes, words, end: int | None = None):
    """``occurrences`` as they are found, a megabyte of text at a time (cut after a newline, which
    no name spans), so that the matches of a big file are never all held at once."""
    if not isinstance(words, frozenset):
        words = frozenset(words)
    if not words:
        return
    automaton, ordered = _automaton(words)
    size = len(source)
    n = size if end is None else min(end, size)
    view = memoryview(source)
    pos = 0
    try:
        while pos < n:
            stop = source.find(b"\n", pos + _PIECE, n) if pos + _PIECE < n else -1
            stop = n if stop < 0 else stop + 1
            for i, start, finish in automaton.find_matches_as_indexes(view[pos:stop]):
                start += pos
                finish += pos
                if ((start == 0 or source[start - 1] not in JOINS_BEFORE)  # (whole_identifier, inlined)
                        and (finish == size or source[finish] not in IDENT_BYTES)):
                    yield start, ordered[i]
            pos = stop
    finally:
        view.release()


@functools.lru_cache(maxsize=512)
def _automaton(words: frozenset[bytes]) -> tuple[ahocorasick_rs.BytesAhoCorasick, tuple[bytes, ...]]:
    ordered = tuple(words)
    return ahocorasick_rs.BytesAhoCorasick(list(ordered), matchkind=ahocorasick_rs.MATCHKIND_LEFTMOST_LONGEST), ordered


def _candidates(source: bytes, db: Database, words: frozenset[bytes] | None = None) -> tuple[list[bytes], bool]:
    """The identifiers of ``source`` the translator acts on (database names and
    leftover-looking names), and whether a device-code word or ``<<<`` occurs at all."""
    if words is None:
        words = distinct_identifiers(source)
    if len(words) < _FEW_WORDS and id(db) not in _keys_built:
        # a small file in a fresh process: a look-up per word, not the set of all 12k names (4 ms to build)
        keys = frozenset(w for w in words if _is_key(db, w))
    else:
        _keys_built.add(id(db))
        keys = _keys(id(db))
    hits = set(words.intersection(keys))
    leftover_re, leads = _prepared_rules()[0], _leftover_leads()
    hits.update(w for w in words.difference(keys) if w[:2] in leads and leftover_re.match(w.decode("ascii")))
    device = b"<<<" in source or not words.isdisjoint(_device_words())
    return list(hits), device


@functools.cache
def _leftover_leads() -> frozenset[bytes]:
    return frozenset(x.encode() for x in structure_rules()["leftover"]["leads"])


def _device_positions(source: bytes):
    """Where device-code words and ``<<<`` stand, in source order (the words found as they are read)."""
    launches = []
    pos = source.find(b"<<<")
    while pos >= 0:
        launches.append(pos)
        pos = source.find(b"<<<", pos + 3)
    k = 0
    for p, _ in iter_occurrences(source, _device_words()):
        while k < len(launches) and launches[k] < p:
            yield launches[k]
            k += 1
        yield p
    yield from launches[k:]


def solver_enum_types() -> dict:
    """rules.toml [solver_enums]: the cuBLAS enum types cuSOLVER calls take (PORT031's facts)."""
    return structure_rules()["solver_enums"]


@functools.cache
def _prepared_rules() -> tuple[re.Pattern, dict]:
    rules = structure_rules()
    wrappers = {fn: w for w in rules["wrap_argument"] for fn in w["functions"]}
    return re.compile(rules["leftover"]["pattern"]), wrappers


def _wraps(wrap: dict, text: str, source: bytes) -> bool:
    """Whether the argument ``text`` is one the rule ``wrap`` applies to: ``only`` (a regex the whole
    argument must match) and ``unless_declared`` (a regex, ``{name}`` the argument, that a declaration
    in the file matches when the argument is not to be wrapped)."""
    only = wrap.get("only")
    if only is None:
        return True
    text = text.strip()
    if not re.fullmatch(only, text):
        return False
    unless = wrap.get("unless_declared")
    if unless:
        name = re.escape(re.split(r"\s*::\s*", text)[-1]).encode()
        if re.search(unless.encode().replace(b"{name}", name), source):
            return False
    return True


# C++ keywords that may stand before a global qualification (`typedef ::cub::WarpReduce<T> R;`,
# `return ::cub::...`): the name after their `::` is a top-level namespace, not a nested one
_KEYWORDS_BEFORE_GLOBAL = frozenset(b"typedef using return new delete sizeof alignof decltype const volatile static "
                                    b"extern inline constexpr typename case throw co_return co_yield friend "
                                    b"virtual explicit mutable register thread_local struct class enum union "
                                    b"template operator else do goto".split())


@functools.cache
def _qualified_inner() -> frozenset[str]:
    """The last component of every namespace the rules rename by its qualified name."""
    return frozenset(q.rsplit("::", 1)[1] for q in structure_rules()["qualified"])


@functools.cache
def _removable_keys() -> frozenset[bytes]:
    return frozenset(k.encode() for k in structure_rules()["remove"])


_MEMBER_LEADS = frozenset(b" \t.>")  # the bytes a member name may follow directly


def _is_member(source: bytes, pos: int) -> bool:
    """The name at ``pos`` follows ``.`` or ``->``: a struct member, not an API name."""
    i = pos
    while i > 0 and source[i - 1] in b" \t":
        i -= 1
    return i > 0 and (source[i - 1] == 46 or (source[i - 1] == 62 and i > 1 and source[i - 2] == 45))


def _preceded_by(source: bytes, pos: int, token: bytes) -> bool:
    i = pos
    while i > 0 and source[i - 1] in b" \t":
        i -= 1
    return source[max(0, i - len(token)):i] == token


def _followed_by(source: bytes, pos: int, token: bytes) -> bool:
    i = pos
    n = len(source)
    while i < n and source[i] in b" \t":
        i += 1
    return source[i:i + len(token)] == token


def _line_bounds(source: bytes, pos: int) -> tuple[int, int]:
    start = source.rfind(b"\n", 0, pos) + 1
    if start == 0 and source.startswith(b"\xef\xbb\xbf"):
        start = 3  # the first line's text starts after a UTF-8 byte order mark
    end = source.find(b"\n", pos)
    return start, len(source) if end < 0 else end


_DEFINED_CONTEXT = re.compile(rb"^\s*#\s*(?:ifdef|ifndef|elifdef|elifndef|undef)\s+$|defined\s*\(?\s*$")


_LEADING_COMMENTS = re.compile(rb"(?:[ \t]|/\*.*?\*/)*", re.S)


def _directive_text_start(source: bytes, line_start: int, pos: int) -> int:
    """Where a directive on this line may start, read as the preprocessor reads it (a comment is one space):
    past block comments before it, including one that began on an earlier line whose text before the `/*`
    is blank (`/* note\n spans lines */#ifdef X` is a directive)."""
    start = line_start
    close = source.find(b"*/", line_start, pos)
    if close >= 0:
        opened = source.rfind(b"/*", 0, line_start)
        if opened >= 0 and source.find(b"*/", opened + 2, line_start) < 0 and \
                not source[source.rfind(b"\n", 0, opened) + 1:opened].strip():
            start = close + 2
    return _LEADING_COMMENTS.match(source, start, pos).end()


def _in_defined_context(source: bytes, pos: int, name: bytes) -> bool:
    """``name`` at ``pos`` is tested with #ifdef/#ifndef/defined(), and the same
    directive does not also compare it as a number (that line is a finding, left whole)."""
    line_start, line_end = _line_bounds(source, pos)
    if not _DEFINED_CONTEXT.search(source[_directive_text_start(source, line_start, pos):pos]):
        return False
    compared = re.compile(re.escape(name) + rb"\s*(?:[<>]=?|[=!]=)|(?:[<>]=?|[=!]=)\s*" + re.escape(name) + rb"\b")
    return not compared.search(source, line_start, line_end)


def _newline(source: bytes) -> bytes:
    return b"\r\n" if b"\r\n" in source[:4096] else b"\n"


def _version_why(entry: Entry, action: str, target: str, roc: bool) -> str:
    name = entry.target(roc)
    on_roc = roc and bool(entry.roc)  # the roc* name porter writes under --roc, dated by its own releases
    if action == "removed":
        return f"{name} was removed in ROCm {entry.removed_roc if on_roc else entry.removed_hip}; the target is ROCm {target}"
    since = entry.since_roc if on_roc else entry.since_hip
    when = f"a ROCm newer than {since[1:]}" if since.startswith(">") else f"ROCm {since}"
    return f"{name} needs {when}; the target is ROCm {target}"


class _Plan(NamedTuple):
    """What the translator does with one name wherever it stands (worked out once per process)."""

    name: str
    namespace: Entry | None  # the namespace entry, used where the name is followed by ``::``
    action: str | None  # remove | leftover | unsupported | too-new | removed | rename | None (nothing)
    entry: Entry | None = None
    target: str | None = None
    tail: tuple = ()  # Reference fields after name, line, column
    note: str | None = None


@functools.cache
def _plans(db_id: int, roc: bool, target: str) -> dict[bytes, _Plan]:
    return {}


def _ref_tail(entry: Entry, roc: bool) -> tuple:
    """A reference's facts: the name porter writes (the roc* one under --roc) and the release that brought it."""
    versions = entry._versions(roc)
    since = versions[0] if versions is not None else entry.since_hip
    return (entry.category, entry.status, entry.target(roc), entry.note, entry.alternative, since)


@functools.cache
def whole_file_names(roc: bool) -> tuple[bytes, ...]:
    """The CUDA names whose port depends on the whole file, which the review app's region splice
    declines: those of [complex_include]'s categories (they may need an include), those whose port is
    a name of a [[define_before_include]] (they may need a define) and, under --roc, those a
    [[roc_by_library]] table renames (their roc* name depends on the libraries the file calls)."""
    rules = structure_rules()
    names = {n for lib in rules.get("roc_by_library", ()) for n in lib["names"]} if roc else set()
    categories = set(rules["complex_include"]["categories"])
    defined = _define_rules()
    names |= {e.cuda for e in load_database().entries()
              if e.kind == "identifier" and (e.category in categories or e.target(roc) in defined)}
    return tuple(sorted(n.encode() for n in names))


@functools.cache
def _define_rules() -> dict[str, dict]:
    """rules.toml [[define_before_include]], by the HIP names that call for each one's macro."""
    return {name: rule for rule in structure_rules().get("define_before_include", ()) for name in rule["names"]}


def header_gets_define(rule: dict, source: bytes, path: str | None, port_headers) -> bool:
    """A [[define_before_include]] ``rule`` that a header wants whatever it calls: its extension is one of
    ``in_headers``, it mentions one of ``half_words`` and one of ``port_headers`` (the headers its port
    includes) is one of ``before`` (its includers, which it cannot see, may call the functions that want
    the macro).  Also read by PORT185, which asks it of the project headers a file includes."""
    return (path is not None and Path(path).suffix in rule.get("in_headers", ())
            and any(w.encode() in source for w in rule.get("half_words", ()))
            and any(name in rule["before"] for name in port_headers))


def _header_defines(source: bytes, path: str | None, included: list[tuple[IncludePath, str, bool]]) -> list[dict]:
    """The [[define_before_include]] rules this header wants whatever it calls (``header_gets_define``)."""
    port_headers = [name for _node, name, known in included if known]
    return [rule for rule in structure_rules().get("define_before_include", ())
            if header_gets_define(rule, source, path, port_headers)]


def _defines_macro(source: bytes, macro: str) -> bool:
    """Whether the file itself #defines ``macro`` (a line-start directive, wherever it stands)."""
    return any(m.group(1).decode() == macro for _line, m in directives(_DEFINE_FROM_HASH, BLANKS_BEFORE_HASH, source))


def _define_insertions(index: SourceIndex, included: list[tuple[IncludePath, str, bool]],
                       rules: list[dict]) -> list[tuple[int, bytes, str, int]]:
    """(byte, text, macro, lines added) for each [[define_before_include]] ``rules`` wants: its macro, guarded, at the line of
    the first #include of one of its ``before`` headers (the path the port includes), unless the file
    defines the macro itself or includes none of them."""
    source = index.source
    nl = _newline(source)
    out = []
    for rule in rules:
        macro = rule["define"]
        first = next((node for node, name, _known in included if name in rule["before"]), None)
        if first is None or _defines_macro(source, macro):
            continue
        directive = first.directive_byte
        line_start = source.rfind(b"\n", 0, directive) + 1
        at = line_start if not source[line_start:directive].strip() else directive
        text = b"".join(line.encode() + nl for line in (f"#ifndef {macro}", f"#define {macro}", "#endif"))
        out.append((at, text, macro, 3) if at == line_start else (at, nl + text, macro, 4))
    return out


def _roc_by_library(source: bytes) -> dict[str, str] | None:
    """rules.toml [[roc_by_library]]: the roc* names of the one library this file calls, where it
    names that library and none of the table's others."""
    for lib in structure_rules().get("roc_by_library", ()):
        if any(w.encode() in source for w in lib["words"]) and not any(w.encode() in source for w in lib["unless"]):
            return lib["names"]
    return None


def _plan(plans: dict, db: Database, word: bytes, roc: bool, target: str) -> _Plan:
    name = word.decode("ascii")
    ns = db.namespaces.get(name)
    removable = structure_rules()["remove"]
    entry = db.identifiers.get(name)
    if name in removable:
        plan = _Plan(name, ns, "remove", note=removable[name])
    elif entry is None:
        plan = _Plan(name, ns, "leftover" if _prepared_rules()[0].match(name) else None)
    elif roc and entry.roc and not entry.hip:
        # AMD's tables pair it with a roc* name alone (cublasGetStatusString -> rocblas_status_to_string):
        # no HIP name, but --roc asks for the roc* libraries, where it is declared (from the roc* name's release)
        missing = entry.available_in(target, roc)
        plan = _Plan(name, ns, missing or "rename", entry, None if missing else entry.roc, _ref_tail(entry, roc))
    elif not entry.renames:
        plan = _Plan(name, ns, "unsupported", entry, tail=_ref_tail(entry, roc))
    elif (missing := entry.available_in(target, roc)):  # under --roc, the roc* name's releases
        plan = _Plan(name, ns, missing, entry, tail=_ref_tail(entry, roc))
    else:
        plan = _Plan(name, ns, "rename", entry, entry.target(roc), _ref_tail(entry, roc))
    plans[word] = plan
    return plan


def _inert(plan: _Plan, qualified_inner, arity, wrappers, legacy_blas, arg_plans) -> bool:
    """A name the translator leaves as it is wherever it stands, once the port uses the runtime: a
    rename to itself (threadIdx, dim3) that no other rule (a namespace, an argument count, an argument
    to wrap, the legacy cuBLAS API, the library arguments of call_args.plans) looks at.  Its only effect, marking the
    port as using the runtime when its header is the runtime's, is had already."""
    name = plan.name
    return (plan.action == "rename" and plan.target == name and plan.namespace is None and name not in qualified_inner
            and name not in arity and name not in wrappers and name not in legacy_blas and name not in arg_plans)


def translate(source: bytes, path: str | None = None, options: TranslateOptions = TranslateOptions(),
              db: Database | None = None, index: SourceIndex | None = None,
              only: frozenset[bytes] | None = None, parse_warnings: bool = True) -> Translation:
    """Translate ``source``.  ``only``: look at these names alone (and the #include paths): the
    references to them come out as in a full translation, and no output is made (``output`` is
    empty): this is the look-up the findings rules use to list unsupported names without
    translating everything, and a port of a 40 MB file would be 40 MB more, kept in the memo.
    ``parse_warnings``: place the "parse error here" warnings of a text that looks broken, which
    takes a parse of the whole file (every region of a big one); False where no warning is shown
    (``porter convert -q`` into a file): the port is the same."""
    db = db or load_database()
    _DBS.setdefault(id(db), db)
    memo_key = ("translation", id(db), options, path, only, parse_warnings)
    if index is not None and memo_key in index.memo:
        return index.memo[memo_key]  # this exact text was translated with these options already
    if only is not None:
        hits, device_words = list(only), False
    else:
        hits, device_words = _candidates(source, db, index.words if index is not None else None)
    if index is None and not hits and not device_words:
        return Translation(source, source, [])  # host-only code with no CUDA name: not even parsed
    index = index or index_source(source)
    rules = structure_rules()
    edits: list[Edit] = []
    converted: list[Reference] = []
    unsupported: list[Reference] = []
    leftovers: list[Reference] = []
    warnings: list[str] = []
    leftover_re, wrappers = _prepared_rules()
    qualified_inner = _qualified_inner()

    def ref(entry: Entry | None, name: str, pos: int, status: str | None = None) -> Reference:
        line, col = index.line_col(pos)
        if entry is None:
            return Reference(name, line, col, status=status or "unknown")
        return Reference(name, line, col, *_ref_tail(entry, options.roc))

    # 1. #include paths
    # (the include, the path the port includes, whether the database knows the CUDA header), in order
    included: list[tuple[IncludePath, str, bool]] = []
    unconditional_above = _IncludedAbove(index, included)
    for node in index.includes:
        raw = source[node.start_byte:node.end_byte]
        inner = raw[1:-1].decode("utf-8", "replace")
        entry = db.headers.get(inner)
        if entry is None:
            if leftover_re.match(inner):
                leftovers.append(ref(None, inner, node.start_byte))
            included.append((node, inner, False))
            continue
        why = entry.available_in(options.target)
        if why:  # the target ROCm lacks the HIP header: the include stays as written (PORT032)
            unsupported.append(Reference(inner, *index.line_col(node.start_byte), entry.category, why,
                                         entry.target(options.roc), _version_why(entry, why, options.target, options.roc),
                                         entry.alternative, entry.since_hip))
            included.append((node, inner, True))
            continue
        included.append((node, entry.target(options.roc) or inner, True))
        if entry.renames:
            target = entry.target(options.roc)
            if target != inner:
                if target in unconditional_above(len(included) - 1):
                    # the port includes this HIP header above, whatever the conditions (cuda.h, then
                    # cuda_runtime.h): the second include is a no-op and goes, leaving its line empty
                    edits.append(Edit(node.directive_byte, node.end_byte, b"", "drop", inner))
                else:
                    edits.append(Edit(node.start_byte + 1, node.end_byte - 1, target.encode(), "header", inner))
                converted.append(ref(entry, inner, node.start_byte))
        else:
            unsupported.append(ref(entry, inner, node.start_byte))

    # 2. identifiers and namespaces
    has_device_code = device_words and _device_code(index)
    # cublas.h without cublas_v2.h: cublasSscal & co. are the legacy API, which no HIP name takes
    legacy_blas = legacy_functions(source[n.start_byte + 1:n.end_byte - 1].decode("utf-8", "replace")
                                   for n in index.includes) if b"cublas" in source else frozenset()

    target_rocm = options.target
    plans = _plans(id(db), options.roc, target_rocm)
    by_library = _roc_by_library(source) if options.roc else None  # {CUDA name: roc* name} for this file
    arity = _arity_renames(id(db))
    structural = not options.roc
    arg_calls: list[tuple[str, int]] = []  # calls whose library function takes other arguments (arg_plans)
    # the library calls whose arguments the port changes (call_args.plans: --roc's libraries, else hipSPARSE's;
    # MIOpen's in both)
    arg_plans = (call_args.plans(options.roc, target_rocm)
                 if options.roc or b"cusparse" in source or b"cudnn" in source else {})
    runtime = rules["device_code"]["runtime_header"]
    uses_runtime = False  # a name the HIP runtime header declares is emitted
    first_runtime_name: int | None = None  # where the first such name stands
    # a name of hip/hip_complex.h is emitted where the headers the port includes do not bring it in
    complex_include = rules["complex_include"]
    uses_complex = False
    # a HIP name whose library header wants a macro defined first ([[define_before_include]])
    define_rules = _define_rules()
    wanted_defines: list[dict] = _header_defines(source, path, included)
    encoded: dict[str, bytes] = {}  # one bytes object per HIP name, shared by its edits
    protected = index.protected_test()  # (index.is_protected without its look-ups: the hot loop's)
    line_col = index.line_col_function()  # (index.line_col without its per-call checks: the hot loop's)
    # names HIP keeps as they are (threadIdx, dim3, __syncthreads: a third of a big file's hits), with no
    # namespace, argument or legacy rule: once the port uses the runtime, such a name changes nothing
    kept_as_is: dict[bytes, bool] = {}
    for start, word in iter_occurrences(source, hits):
        if uses_runtime:
            inert = kept_as_is.get(word)
            if inert is None:
                inert = kept_as_is[word] = _inert(plans.get(word) or _plan(plans, db, word, options.roc, target_rocm),
                                                  qualified_inner, arity if structural else (), wrappers,
                                                  legacy_blas, arg_plans)
            if inert:
                continue
        if protected(start):
            continue
        plan = plans.get(word) or _plan(plans, db, word, options.roc, target_rocm)
        end = start + len(word)
        name = plan.name
        if name in qualified_inner and _preceded_by(source, start, b"::"):
            outer = re.search(rb"(" + _IDENT + rb")\s*::\s*$", source[max(0, start - 80):start])
            inner = outer and rules["qualified"].get(f"{outer.group(1).decode()}::{name}")
            if inner:  # a nested namespace known by its qualified name (thrust::cuda -> thrust::hip)
                edits.append(Edit(start, end, inner["hip"].rsplit("::", 1)[1].encode(), "namespace", name))
                line, col = line_col(start)
                converted.append(Reference(f"{outer.group(1).decode()}::{name}", line, col, inner["category"],
                                           "supported", inner["hip"], inner["note"]))
                continue
        ns = plan.namespace
        if ns is not None and (_followed_by(source, end, b"::") or _preceded_by(source, start, b"namespace")):
            outer = _preceded_by(source, start, b"::") and re.search(b"(" + _IDENT + rb")\s*::\s*$",
                                                                      source[max(0, start - 80):start])
            if outer and outer.group(1) not in _KEYWORDS_BEFORE_GLOBAL:
                continue  # a nested namespace of something else (e.g. thrust::cuda); `typedef ::cub::` is global
            if ns.renames:
                edits.append(Edit(start, end, ns.target(options.roc).encode(), "namespace", name))
                converted.append(ref(ns, name, start))
            else:
                unsupported.append(ref(ns, name, start))
            continue
        action = plan.action
        if action == "remove":
            stop = end
            while stop < len(source) and source[stop] in b" \t":
                stop += 1
            edits.append(Edit(start, stop, b"", "remove", name))
            line, col = line_col(start)
            converted.append(Reference(name, line, col, "preprocessor", "removed", "", plan.note))
            continue
        if action is None:
            continue
        entry = plan.entry
        member = entry is not None and entry.context == "member"
        before = source[start - 1] if start else 0  # (not after '.', '->' or a blank: no member, at once)
        if (before in _MEMBER_LEADS and _is_member(source, start)) != member:
            continue  # a struct member that happens to share the name, or a member name used as something else
        if action == "leftover":
            line, col = line_col(start)
            leftovers.append(Reference(name, line, col, status="unknown"))
            continue
        entry = plan.entry
        if entry.context == "defined" and not _in_defined_context(source, start, word):
            continue
        if action == "unsupported":
            unsupported.append(Reference(name, *line_col(start), *plan.tail))
            continue
        if action in ("too-new", "removed"):
            line, col = line_col(start)
            unsupported.append(Reference(name, line, col, entry.category, action, plan.tail[2],
                                         _version_why(entry, action, target_rocm, options.roc),
                                         entry.alternative, plan.tail[5]))
            continue
        target = plan.target
        tail = plan.tail
        if by_library and name in by_library:  # the roc* library this file calls has its own name for it
            target = by_library[name]
            tail = tail[:2] + (target,) + tail[3:]
        if name in legacy_blas:  # the call stays as written (PORT178 says what to do)
            line, col = line_col(start)
            legacy = load_cublas_legacy()
            unsupported.append(Reference(name, line, col, entry.category, "legacy", target,
                                         legacy.why.format(hip=target), legacy.alternative, entry.since_hip))
            continue
        if entry.category in complex_include["categories"]:
            uses_complex = True
        if entry.header == runtime:
            uses_runtime = True
            if first_runtime_name is None:
                first_runtime_name = start
        if structural and name in arity:
            n = launch.argument_count(index.tree_at(start), start, end)
            target = arity[name].get(str(n), target)
        if target != name:
            replacement = encoded.get(target)
            if replacement is None:
                replacement = encoded[target] = target.encode()
            rule = define_rules.get(target)
            if rule is not None and rule not in wanted_defines:
                wanted_defines.append(rule)
            edits.append(Edit(start, end, replacement, "rename", name))
            converted.append(Reference(name, *line_col(start), *tail))
            if name in arg_plans:
                arg_calls.append((name, end))
        if name in wrappers:
            # 3. arguments HIP wants wrapped: HIP_SYMBOL(sym), reinterpret_cast<const void*>(kernel)
            # (here, in source order, so that a big file's regions are each parsed once)
            wrap = wrappers[name]
            positions = wrap["functions"][name]
            for position in positions if isinstance(positions, list) else (positions,):
                arg = launch.call_argument(index.tree_at(start), source, start, end, position)
                if arg is None:
                    continue
                a_start, a_end = arg
                text = source[a_start:a_end].decode("utf-8", "replace")
                if _wraps(wrap, text, source) and not any(re.match(p, text) for p in wrap["already"]):
                    edits.append(Edit(a_start, a_start, wrap["open"].encode(), wrap["kind"], name))
                    edits.append(Edit(a_end, a_end, wrap["close"].encode(), wrap["kind"], name))

    if arg_calls:  # the arguments the library's signature wants (call_args.py)
        edits = call_args.rewrite_calls(index, arg_calls, edits, arg_plans)

    # 4. a launch's spaced chevrons (`<< <`, `>> >`: nvcc reads them, clang does not) closed up; <<<...>>> ->
    #    hipLaunchKernelGGL
    if only is None:
        edits.extend(launch.spaced_chevrons(index))
    if options.kernel_launch_syntax:
        edits = launch.rewrite_launches(index, edits)

    # 5. the HIP runtime header, where the CUDA code had the runtime without including it
    relies = _code_relies_on_runtime(index, path, has_device_code, device_words, uses_runtime)
    inserted: list[tuple[int, int]] = []
    headers = []
    if options.add_runtime_include and only is None and _needs_runtime_include(path, included, relies):
        headers.append(runtime)
    if options.add_runtime_include and uses_complex and only is None and not any(name in complex_include["provided_by"] for _n, name, _k in included):
        headers.append(complex_include["header"])
    if headers:
        pos = _include_position(index, lambda at: _runtime_used_before(index, first_runtime_name, at))
        nl = _newline(source)
        text = b"".join(b"#include <" + h.encode() + b">" + nl for h in headers)
        if pos > 0 and source[pos - 1:pos] not in (b"\n", b"\xbf"):
            text = nl + text
        edits.append(Edit(pos, pos, text, "include", headers[0]))
        after = index.line_of(pos) - 1 if pos == 0 or source[pos - 1:pos] == b"\n" else index.line_of(pos)
        inserted.append((after, len(headers)))
    if options.add_runtime_include and wanted_defines and only is None:
        for pos, text, macro, count in _define_insertions(index, included, wanted_defines):
            edits.append(Edit(pos, pos, text, "define", macro))
            after = index.line_of(pos) - 1 if pos == 0 or source[pos - 1:pos] == b"\n" else index.line_of(pos)
            inserted.append((after, count))
        inserted.sort()

    if only is None and parse_warnings and index.looks_broken:  # an unterminated comment or literal, or unbalanced brackets: ask the parser where
        regions = index.parse_errors() or [(pos, pos) for pos, _ in index.unterminated]
        for start, end in regions:
            line, col = index.line_col(start)
            warnings.append(f"{path or '<input>'}:{line}:{col}: parse error here; names in this region were still mapped, review it")

    own = {m.group(1).decode() for _line, m in directives(_DEFINE_FROM_HASH, BLANKS_BEFORE_HASH, source)}
    own = {n for n in own if leftover_re.match(n)}
    leftovers = [r for r in leftovers if r.name not in own]
    edits.sort(key=_edit_order(source))
    output = None if only is None else b""  # the port is made when it is read (or streamed: write_output)
    if index.big:
        index.forget_trees()  # the last region's tree goes; the findings rules parse again if they run
    result = Translation(source, output, edits, converted, unsupported, leftovers, warnings, inserted, index,
                         sorted(own), relies, _sorted_edits=True)
    index.memo[memo_key] = result
    return result


# a #define's name (the directive found from its '#', the line's start checked after: ``directives``)
_DEFINE_FROM_HASH = re.compile(rb"#[ \t]*define[ \t]+([A-Za-z_][A-Za-z0-9_]*)")


def _is_cuda_unit(path: str | None) -> bool:
    """A file nvcc compiles as a CUDA translation unit, with cuda_runtime.h included implicitly."""
    return path is not None and path.endswith(".cu")


@functools.cache
def _include_roles() -> tuple[frozenset[str], frozenset[str], frozenset[str], tuple[str, ...]]:
    dc = structure_rules()["device_code"]
    return (frozenset(dc["runtime_headers"]), frozenset(dc["needs_runtime_first"]), frozenset(dc["host_headers"]),
            tuple(dc["host_header_prefixes"]))


def _runtime_used_before(index: SourceIndex, first_name: int | None, at: int) -> bool:
    """Whether the code needs the runtime before byte ``at``: a device-code word or launch (outside
    comments, literals and member names) or a name the runtime declares (``first_name``: the first)."""
    if first_name is not None and first_name < at:
        return True
    source = index.source
    return any(not index.is_protected(p) and not _is_member(source, p) for p in _device_positions(source[:at]))


def _code_relies_on_runtime(index: SourceIndex, path: str | None, has_device_code: bool, device_words: bool,
                            uses_runtime: bool) -> bool:
    """The code itself (not its includes) relies on the runtime: device code outside CUDA-only
    guards, or, being a .cu, a name the runtime declares or device code at all: nvcc includes
    cuda_runtime.h implicitly there, so even guarded device code and host-only runtime calls count."""
    return bool(has_device_code or (_is_cuda_unit(path) and (uses_runtime or (device_words and _any_device_code(index)))))


def _needs_runtime_include(path: str | None, included: list[tuple[IncludePath, str, bool]], code_relies: bool) -> bool:
    """The port needs ``#include <hip/hip_runtime.h>`` inserted ahead of its first #include.

    The file relies on the runtime when its code does (``_code_relies_on_runtime``) or it
    includes a HIP header that compiles only after the runtime (hip_cooperative_groups.h).  It
    gets the include unless one that provides the runtime already comes before every include
    that needs it (a needs-first HIP header; in a .cu, any header other than the C/C++/POSIX
    ones, since nvcc's implicit include preceded it)."""
    providers, needs_first, host, host_prefixes = _include_roles()
    cu = _is_cuda_unit(path)
    if not (code_relies or any(name in needs_first for _, name, _ in included)):
        return False
    first_provider = first_needing = None
    for k, (_node, name, known) in enumerate(included):
        if first_provider is None and name in providers:
            first_provider = k
        elif first_needing is None and (name in needs_first or (
                cu and not known and name not in host and not name.startswith(host_prefixes))):
            first_needing = k
    return first_provider is None or (first_needing is not None and first_needing < first_provider)


def _any_device_code(index: SourceIndex) -> bool:
    """A device-code word or a launch outside comments, literals and member names, guarded or not."""
    source = index.source
    return any(not index.is_protected(p) and not _is_member(source, p) for p in _device_positions(source))


_GUARD = re.compile(rb"[ \t]*#[ \t]*ifndef[ \t]+(\w+)[^\n]*\n[ \t]*#[ \t]*define[ \t]+(\w+)[^\n]*\n")
_PRAGMA_ONCE = re.compile(rb"[ \t]*#[ \t]*pragma[ \t]+once[^\n]*\n")


def _outside_conditionals(index: SourceIndex, pos: int) -> int:
    """``pos``, or the start of the outermost conditional group (``#if``/``#ifdef`` line) enclosing
    it that is not the file's include guard: an include inserted there is seen whatever the
    conditions say (the first include of a file may sit in ``#ifdef _WIN32``)."""
    source = index.source
    stack: list[tuple[int, bool]] = []  # (line start of the #if, is an include guard)
    for c in index.conditionals:
        if c.start_byte >= pos:
            break
        if c.keyword in ("if", "ifdef", "ifndef"):
            guard = _GUARD.match(source, c.start_byte)
            stack.append((c.start_byte, bool(guard) and guard.group(1) == guard.group(2)))
        elif c.keyword == "endif" and stack:
            stack.pop()
    outer = next((start for start, guard in stack if not guard), None)
    return pos if outer is None else source.rfind(b"\n", 0, outer) + 1


class _IncludedAbove:
    """The paths the includes before one bring in outside every conditional group but the file's
    include guard (an include in ``#ifdef X`` may not be seen): called with the count of includes
    before the one at hand, never fewer than the last time, as ``included`` grows.  One walk of the
    conditionals for the whole file, where looking back from each include walked them all again
    (5,379 includes of a 1M-line file: 1.06 s of a profiled convert)."""

    def __init__(self, index: SourceIndex, included: list[tuple[IncludePath, str, bool]]) -> None:
        self.index, self.included = index, included
        self.paths: set[str] = set()
        self.done = 0  # includes looked at
        self.k = 0  # conditionals walked
        self.stack: list[bool] = []  # per open group: whether it is an include guard

    def __call__(self, count: int) -> set[str]:
        source, conds = self.index.source, self.index.conditionals
        stack, k = self.stack, self.k
        while self.done < count:
            node, name, _known = self.included[self.done]
            pos = node.directive_byte
            while k < len(conds) and conds[k].start_byte < pos:
                c = conds[k]
                if c.keyword in ("if", "ifdef", "ifndef"):
                    guard = _GUARD.match(source, c.start_byte)
                    stack.append(bool(guard) and guard.group(1) == guard.group(2))
                elif c.keyword == "endif" and stack:
                    stack.pop()
                k += 1
            if all(stack):  # (_outside_conditionals(index, pos) == pos)
                self.paths.add(name)
            self.done += 1
        self.k = k
        return self.paths


def _include_position(index: SourceIndex, used_before=None) -> int:
    """Where to insert the runtime include: before the first #include (before the conditional
    group holding it, if any), else after an include guard / #pragma once, else after the
    leading comments.  ``used_before(at)``: whether the code needs the runtime before byte ``at``
    (device code, a runtime name); when it does before the first #include (a kernel written above the
    includes of a .cu, which nvcc's implicit include covered), the include goes to the top instead."""
    source = index.source
    for inc in index.includes:  # the first #include line that is not inside a block comment
        directive = inc.directive_byte
        line_start = source.rfind(b"\n", 0, directive) + 1
        if line_start == 0 and source.startswith(b"\xef\xbb\xbf"):
            line_start = 3  # the byte order mark stays first
        if not source[line_start:directive].strip() and not (line_start and index.is_protected(line_start - 1)):
            at = _outside_conditionals(index, line_start)
            if used_before is None or not used_before(at):
                return at
            break
    return _top_position(index)


def _top_position(index: SourceIndex) -> int:
    """The first place of the file for an include: after an include guard / #pragma once, else after the
    leading comments."""
    source = index.source
    pos = 3 if source.startswith(b"\xef\xbb\xbf") else 0
    # skip leading blank space and comments
    while True:
        nxt = pos + re.match(rb"[ \t\r\n]*", source[pos:]).end()
        if source[nxt:nxt + 2] in (b"//", b"/*") and index.is_protected(nxt):
            pos = next(e for s, e in index.protected if s <= nxt < e)
            continue
        pos = nxt
        break
    line_start = source.rfind(b"\n", 0, pos) + 1
    if line_start > 0 and index.is_protected(line_start - 1):
        return pos  # code follows a comment on the same line: insert right there
    pos = max(line_start, 3 if source.startswith(b"\xef\xbb\xbf") else 0)
    for pattern in (_PRAGMA_ONCE, _GUARD):
        m = pattern.match(source, pos)
        if m and (pattern is _PRAGMA_ONCE or m.group(1) == m.group(2)):
            return m.end()
    return pos
