"""The scan engine: one parse, one index and one query pass shared by every rule.

All ``grammars/rules/*.scm`` files are joined into one query; each pattern
names the node it reports with a ``@PORTnnn`` capture.  A match goes to the
rule's predicate when one is registered (``porter.findings.predicates``), else
it is reported as is with the rule's message.  Adding a rule never touches
this module: it is a catalogue entry, a query pattern and maybe a predicate.
"""

from __future__ import annotations

import bisect
import functools
import os
import re
from dataclasses import dataclass, field

import ahocorasick_rs
import tree_sitter as ts

from porter import parse
from porter.findings.catalogue import Rule, catalogue
from porter.findings.model import Finding, Fix
from porter.findings.served_checks import ServedChecks
from porter.translate.source_index import SourceIndex, index_source

INTERNAL_ERROR = "PORT900"
PARSE_ERROR = "PORT901"
_RULE_CAPTURE = re.compile(r"^PORT\d{3}$")
_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)


@dataclass
class Hit:
    """What a predicate reports: a byte span, message fields and an optional fix."""

    start: int
    end: int
    params: dict = field(default_factory=dict)
    fix: Fix | None = None
    severity: str | None = None  # overrides the rule's default (rarely)
    rule: str | None = None  # a sibling rule this hit is reported under (a file check that finds its places too)


@functools.cache
def rule_files() -> tuple[str, ...]:
    folder = parse.grammars_dir() / "rules"
    return tuple(sorted(p.stem for p in folder.glob("*.scm")))


def split_patterns(text: str) -> list[str]:
    """The top-level patterns of a query file (comments dropped), each with its predicates."""
    out: list[str] = []
    depth = 0
    buf: list[str] = []
    i = 0
    n = len(text)
    in_string = False
    while i < n:
        ch = text[i]
        if in_string:
            buf.append(ch)
            if ch == "\\" and i + 1 < n:
                buf.append(text[i + 1])
                i += 2
                continue
            if ch == '"':
                in_string = False
        elif ch == ";":
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        elif ch == '"':
            in_string = True
            buf.append(ch)
        else:
            buf.append(ch)
            if ch in "([":
                depth += 1
            elif ch in ")]":
                depth -= 1
                if depth == 0:
                    # a trailing capture after the closing paren belongs to this pattern
                    m = re.match(r"(\s*@[\w.]+)+", text[i + 1:])
                    if m:
                        buf.append(m.group())
                        i += m.end()
                    out.append("".join(buf).strip())
                    buf = []
        i += 1
    return [p for p in out if p]


@functools.cache
def file_patterns(name: str) -> tuple[str, ...]:
    """The patterns of grammars/rules/<name>.scm (split_patterns), read once per process."""
    return tuple(split_patterns(parse.query_text(f"rules/{name}")))


@functools.cache
def rule_patterns() -> dict[str, tuple[str, ...]]:
    """Query patterns by the rule id they report (the @PORTnnn capture in each)."""
    found: dict[str, list[str]] = {}
    for name in rule_files():
        for pattern in file_patterns(name):
            ids = set(re.findall(r"@(PORT\d{3})\b", pattern))
            if len(ids) != 1:
                raise ValueError(f"grammars/rules/{name}.scm: a pattern must name exactly one @PORTnnn: {pattern[:80]}")
            found.setdefault(ids.pop(), []).append(pattern)
    return {k: tuple(v) for k, v in found.items()}


@functools.cache
def combined_query() -> ts.Query:
    """Every rule's patterns in one ts.Query (used to check the query files)."""
    text = "\n".join(p for rid in sorted(rule_patterns()) for p in rule_patterns()[rid])
    return ts.Query(parse.language(), text)


@functools.cache
def _query_files() -> dict[str, str]:
    """The query file (grammars/rules/<name>.scm) that holds each rule's patterns, by rule id."""
    where: dict[str, str] = {}
    for name in rule_files():
        for pattern in file_patterns(name):
            for rid in set(re.findall(r"@(PORT\d{3})\b", pattern)):
                if where.setdefault(rid, name) != name:
                    raise ValueError(f"grammars/rules: {rid} has patterns in {where[rid]}.scm and {name}.scm")
    return where


def _file_query(name: str) -> tuple[ts.Query, tuple[str, ...]]:
    """The patterns of one query file compiled as one ts.Query, and the rule id each of its patterns
    reports, by pattern index.  Compiled on each call: queries_for keeps what it returns (_COMPILED)."""
    patterns = file_patterns(name)
    query = ts.Query(parse.language(), "\n".join(patterns))
    if query.pattern_count != len(patterns):  # a pattern string holding two patterns would shift the ids
        raise ValueError(f"grammars/rules/{name}.scm: a pattern string holds more than one pattern")
    return query, tuple(re.search(r"@(PORT\d{3})\b", p).group(1) for p in patterns)


# the compiled queries of the query files, the one place where they are kept (each file's patterns are
# compiled once a process): by file name, (the query that holds the file's patterns, rule id by pattern
# index, first and past-last index of this file's patterns in it), filled by queries_for.  The small
# query files a scan needs are compiled together as one query: compiling costs 9 ms a query with this
# grammar before any pattern, and patterns that share node types share their analysis.  But a query
# runs all its patterns over the ranges it is given, so a file with many patterns (warp_size's 19,
# lane_mask's 12: rules whose trigger words occur all over real code) is compiled alone (_file_query),
# or every other file's ranges would carry them.
# Measured on a 10k-line HeCBench file, which needs 9 of the 13 files (benchmarks/bench_scan_instructions.py):
# its first scan in a process (--cold) runs 8,028,817,037 instructions with one query per file, 7,397,741,172
# so; its warm scan 185,841 instructions a line with one query per file, 186,546 so, and 207,975 with every
# file in one query (warp_size's patterns run over lane_mask's ranges and the reverse).
_COMPILED: dict[str, tuple[ts.Query, tuple[str, ...], int, int]] = {}
_ALONE_FROM = 12  # patterns: a query file with this many or more is compiled alone


def queries_for(names) -> None:
    """Compile the query files of ``names`` (names in grammars/rules) not compiled yet: those with fewer
    than _ALONE_FROM patterns as one query, the others one query each; kept in _COMPILED."""
    missing = [n for n in rule_files() if n in names and n not in _COMPILED]
    if not missing:
        return
    texts = {n: file_patterns(n) for n in missing}
    together = [n for n in missing if len(texts[n]) < _ALONE_FROM]
    for n in missing if len(together) < 2 else [n for n in missing if n not in together]:
        query, pattern_rule = _file_query(n)
        _COMPILED[n] = (query, pattern_rule, 0, len(pattern_rule))
    if len(together) < 2:
        return
    try:
        query = ts.Query(parse.language(), "\n".join(p for n in together for p in texts[n]))
        whole = query.pattern_count == sum(len(texts[n]) for n in together)
    except Exception:
        whole = False
    if not whole:  # a broken file: each compiled alone, so that the error is that file's own
        for n in together:
            query, pattern_rule = _file_query(n)
            _COMPILED[n] = (query, pattern_rule, 0, len(pattern_rule))
        return
    pattern_rule = tuple(re.search(r"@(PORT\d{3})\b", p).group(1) for n in together for p in texts[n])
    start = 0
    for n in together:
        _COMPILED[n] = (query, pattern_rule, start, start + len(texts[n]))
        start += len(texts[n])


def _compiled(name: str) -> tuple[ts.Query, tuple[str, ...], int, int]:
    if name not in _COMPILED:
        queries_for((name,))
    return _COMPILED[name]


def _has_patterns(rule_ids: tuple[str, ...]) -> bool:
    patterns = rule_patterns()
    return any(patterns.get(rid) for rid in rule_ids)


def _meets(caps: dict[str, list[ts.Node]], spans: list[tuple[int, int]], ends: list[int]) -> bool:
    """Whether a node of the match lies in or crosses one of ``spans`` (sorted, disjoint; ``ends``
    their ends): what a query cursor limited to those spans returns."""
    for nodes in caps.values():
        for node in nodes:
            a, b = node.start_byte, node.end_byte
            k = bisect.bisect_right(ends, a)  # the first span that ends after a
            if k < len(spans) and spans[k][0] < max(b, a + 1):
                return True
    return False


@functools.cache
def _triggers() -> dict[str, tuple[bytes, ...]]:
    return {r.id: r.triggers for r in catalogue().values() if r.scope == "source"}


_DEVICE_HEAD = re.compile(rb"\b__(?:global|device)__\b")


class _TopLevel:
    """The top-level nodes of a tree, for mapping a byte position to its declaration."""

    def __init__(self, source: bytes, tree: ts.Tree, index: SourceIndex | None = None):
        self.source = source
        self.index = index  # (its macros that open device functions)
        self.nodes = tree.root_node.children
        self.starts = [n.start_byte for n in self.nodes]
        self._device: dict[int, bool] = {}

    def at(self, pos: int) -> int:
        i = bisect.bisect_right(self.starts, pos) - 1
        return i if i >= 0 and pos < self.nodes[i].end_byte else -1

    def is_host_function(self, i: int) -> bool:
        if i not in self._device:
            node = self.nodes[i]
            host = False
            if node.type == "function_definition":
                body = node.child_by_field_name("body")
                head_end = body.start_byte if body is not None else node.end_byte
                host = not _DEVICE_HEAD.search(self.source, node.start_byte, head_end) \
                    and not (self.index is not None and self.index.device_head_in(node.start_byte, head_end))
            self._device[i] = host
        return self._device[i]


def trigger_matches(source: bytes, words: tuple[bytes, ...]) -> list[tuple[int, int, int]]:
    """(word index, start, end) of every occurrence of ``words`` in ``source``: one Aho-Corasick pass."""
    return _searcher(words).find_matches_as_indexes(source, overlapping=True) if words else []


def trigger_hits(tops: _TopLevel, words: tuple[bytes, ...], matches: list[tuple[int, int, int]]) -> dict[bytes, set[int]]:
    """For each of ``words`` that occurs (``matches`` from ``trigger_matches``): the top-level
    declarations holding it (an occurrence outside every declaration still counts as present)."""
    hits: dict[bytes, set[int]] = {}
    for i, start, _end in matches:
        found = hits.get(words[i])
        if found is None:
            found = hits[words[i]] = set()
        k = tops.at(start)
        if k >= 0:
            found.add(k)
    return hits


@functools.cache
def _searcher(words: tuple[bytes, ...]) -> ahocorasick_rs.BytesAhoCorasick:
    return ahocorasick_rs.BytesAhoCorasick(list(words))


# The word lists file checks look for in every file (callables that return a tuple of distinct words),
# registered by their predicates: ``Context.occurrences`` finds them and the rules' trigger words in one
# Aho-Corasick pass over the file instead of one pass per list.
SHARED_WORDS: list = []


class _SharedWords:
    """The union of the trigger words and the registered lists, its searcher, and per list (by
    identity) the index in the list of each union word (-1: not in it)."""

    def __init__(self, lists):
        self.words = tuple(sorted({w for words in lists for w in words}))
        self.searcher = ahocorasick_rs.BytesAhoCorasick(list(self.words))
        self._local: dict[int, tuple[tuple, list[int] | None]] = {}

    def local(self, words: tuple[bytes, ...]) -> list[int] | None:
        """Where each union word stands in ``words``, or None when ``words`` is not part of the union."""
        got = self._local.get(id(words))
        if got is None or got[0] is not words:
            at = {w: k for k, w in enumerate(words)}
            ok = len(at) == len(words) and sum(1 for w in self.words if w in at) == len(words)
            if len(self._local) > 64:  # (lists are module-level tuples: a few)
                self._local.clear()
            got = self._local[id(words)] = (words, [at.get(w, -1) for w in self.words] if ok else None)
        return got[1]


@functools.cache
def _shared_words(registered: int) -> _SharedWords:
    return _SharedWords([_all_triggers(rule_groups()), *(f() for f in SHARED_WORDS[:registered])])


def rule_ranges(source: bytes, tops: _TopLevel, words: tuple[bytes, ...], device_only: bool,
                hits: dict[bytes, set[int]]):
    """Byte ranges worth querying for a rule: the top-level declarations that contain one of
    its trigger ``words`` (every match of a rule contains one of its triggers, so none is
    lost); host functions are skipped for a ``device_only`` rule.  Returns None when no
    trigger occurs (the rule is inactive), the whole file when the rule has no triggers.
    ``hits``: ``trigger_hits`` of the file."""
    if not words:
        return [(0, len(source))]
    chosen: set[int] = set()
    seen_any = False
    for w in words:
        found = hits.get(w)
        if found is not None:
            seen_any = True
            chosen |= found
    if not seen_any:
        return None
    if device_only:
        chosen = {k for k in chosen if not tops.is_host_function(k)}
    return _merge_spans([(tops.nodes[k].start_byte, tops.nodes[k].end_byte) for k in chosen])


@functools.cache
def root_types(rule_ids: tuple[str, ...]) -> frozenset[str] | None:
    """The node types the patterns of ``rule_ids`` are rooted at, or None when one of them has no
    single named root (a wildcard, an alternation)."""
    types = set()
    for rid in rule_ids:
        for pattern in rule_patterns().get(rid, ()):
            m = re.match(r"\(+\s*([a-z_][a-z0-9_]*)", pattern)
            if m is None or m.group(1) == "_":
                return None
            types.add(m.group(1))
    return frozenset(types)


@functools.cache
def _all_root_types() -> frozenset[str]:
    """Every node type some source rule's patterns are rooted at (what ``_Narrower`` looks for)."""
    types: set[str] = set()
    for ids, _words, _dev, _req in rule_groups():
        types.update(root_types(ids) or ())
    return frozenset(types)


class _Narrower:
    """Shrinks a rule group's query ranges from whole top-level declarations to the nodes its
    patterns can be rooted at.  Every match of a group contains one of its trigger words, so it is
    rooted at an ancestor of that occurrence with one of the group's root types: the outermost such
    ancestor covers every match that contains the occurrence (and its whole span is queried, so no
    match is cut short)."""

    def __init__(self, tree: ts.Tree, words: tuple[bytes, ...], matches: list[tuple[int, int, int]],
                 limit: int = 1 << 62):
        self.tree = tree
        self.by_word: dict[bytes, list[tuple[int, int]]] = {}
        for i, start, end in matches:
            self.by_word.setdefault(words[i], []).append((start, end))
        self.limit = limit
        self.too_deep: set[tuple[int, int]] = set()  # occurrences more than ``limit`` nodes deep: left out
        self._outer: dict[tuple[int, int], tuple[tuple[str, tuple[int, int]], ...]] = {}
        self._depth: dict[tuple[int, int], int] = {}

    def _place(self, spans) -> None:
        """For each occurrence of ``spans`` not placed yet: (type, (start, end)) of the outermost node
        of each type (of those rules are rooted at) that contains it, outermost first, the translation
        unit left out, and how many nodes contain it.  The nodes that contain an occurrence are those
        a cursor passes going down from the root towards its first byte, as long as they contain the
        whole occurrence; the occurrences are visited in file order with one cursor that only climbs
        back as far as the next one needs, so a nesting N deep costs N once, not N per occurrence
        (10,000 nested ``#ifdef``s)."""
        outer, depth = self._outer, self._depth
        todo = sorted({span for span in spans if span not in outer})
        if not todo:
            return
        wanted = _all_root_types()
        cursor = self.tree.walk()
        down, up = cursor.goto_first_child_for_byte, cursor.goto_parent
        path: list[tuple[str, int, int]] = []  # the nodes the cursor stands under, root's children first
        first: dict[str, int] = {}  # per wanted type: its outermost place in ``path`` (in path order)
        snapshot: tuple | None = ()  # ``first`` as outer's values are (None: to be made again)
        for span in todo:
            start, end = span
            while path and (path[-1][1] > start or path[-1][2] < end):
                kind = path.pop()[0]
                if first.get(kind) == len(path):
                    del first[kind]
                    snapshot = None
                up()
            while down(start) is not None:
                node = cursor.node
                node_start, node_end = node.start_byte, node.end_byte
                if node_start > start or node_end < end:
                    up()
                    break  # the span starts between children, or runs past this one
                kind = node.type
                if kind in wanted and kind not in first:
                    first[kind] = len(path)
                    snapshot = None
                path.append((kind, node_start, node_end))
            if snapshot is None:
                snapshot = tuple((kind, path[i][1:]) for kind, i in first.items())
            outer[span] = snapshot
            depth[span] = len(path)

    def ranges(self, ids: tuple[str, ...], words: tuple[bytes, ...], ranges: list[tuple[int, int]]):
        types = root_types(ids)
        if types is None or not words:
            return ranges
        starts = [r[0] for r in ranges]
        wanted = []
        for w in words:
            for span in self.by_word.get(w, ()):
                i = bisect.bisect_right(starts, span[0]) - 1
                if i < 0 or span[0] >= ranges[i][1]:
                    continue  # outside the declarations this group looks at (a host function, say)
                wanted.append(span)
        self._place(wanted)
        outer, depth, limit = self._outer, self._depth, self.limit
        out = []
        for span in wanted:
            if depth[span] > limit:
                self.too_deep.add(span)
                continue
            for kind, place in outer[span]:
                if kind in types:  # the outermost one
                    out.append(place)
                    break
        return _merge_spans(out)


def _merge_spans(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


@functools.cache
def _all_triggers(groups: tuple) -> tuple[bytes, ...]:
    """Every trigger word and every word of a ``requires`` condition: one Aho-Corasick pass finds them all."""
    return tuple(sorted({w for _ids, words, _dev, requires in groups for w in (*words, *(w for r in requires for w in r))}))


@functools.cache
def _source_rules() -> dict[str, Rule]:
    """The rules a query capture can name (@PORTnnn of a source rule), by id."""
    return {rid: r for rid, r in catalogue().items() if _RULE_CAPTURE.match(rid) and r.scope == "source"}


@functools.cache
def rule_groups() -> tuple[tuple[tuple[str, ...], tuple[bytes, ...], bool, tuple[tuple[bytes, ...], ...]], ...]:
    """Source rules with the same triggers, scope and file conditions share one query (one tree walk):
    (rule ids, trigger words, device only, requires)."""
    groups: dict[tuple, list[str]] = {}
    for r in catalogue().values():
        if r.scope == "source":
            groups.setdefault((r.triggers, r.device_only, r.requires), []).append(r.id)
    return tuple((tuple(ids), trig, dev, req) for (trig, dev, req), ids in groups.items())


def prepare() -> None:
    """Compile every rule query and load the tables now (a UI can call this in the background
    so that the first scan does not pay for it)."""
    from porter.findings import predicates, ptx  # noqa: F401

    queries_for(rule_files())
    ptx.tables()


class Reported:
    """The (start, end, rule) spans of the findings reported so far, asked "does one cover
    [start, end)?" once per candidate: kept sorted by start, so that a question looks only at the
    spans that begin within the longest short span before it (a scan over every span reported so
    far, per candidate, was quadratic on a big file).  Spans longer than _LONG bytes (a whole
    kernel) are few and kept apart."""

    _LONG = 1 << 16

    def __init__(self):
        self._starts: list[int] = []
        self._spans: list[tuple[int, int, str]] = []
        self._long: list[tuple[int, int, str]] = []
        self._reach = 0  # the longest short span so far

    def add(self, start: int, end: int, rule: str) -> None:
        if end - start > self._LONG:
            self._long.append((start, end, rule))
            return
        i = bisect.bisect_right(self._starts, start)
        self._starts.insert(i, start)
        self._spans.insert(i, (start, end, rule))
        self._reach = max(self._reach, end - start)

    def covering(self, start: int, end: int, rules=None):
        """The spans that hold [start, end) (of ``rules`` only, if given)."""
        for s, e, rule in self._long:
            if s <= start and end <= e and (rules is None or rule in rules):
                yield s, e, rule
        i = bisect.bisect_right(self._starts, start)
        low = start - self._reach
        while i > 0 and self._starts[i - 1] >= low:
            i -= 1
            s, e, rule = self._spans[i]
            if end <= e and (rules is None or rule in rules):
                yield s, e, rule

    def covered(self, start: int, end: int, rules=None) -> bool:
        return next(self.covering(start, end, rules), None) is not None


class _ServedReported(Reported):
    """The findings reported so far, as a file check served beside the region loop reads them: it
    waits until the loop has reported the region it asks about (``ServedChecks.wait_reported``)."""

    def __init__(self, reported: Reported, served):
        self.__dict__.update(reported.__dict__)
        self._served = served

    def covering(self, start: int, end: int, rules=None):
        self._served.wait_reported(start)
        return super().covering(start, end, rules)


class Context:
    """What predicates see: the source, its index, and cached per-file facts."""

    def __init__(self, source: bytes, index: SourceIndex, path: str, options=None, file: str | None = None):
        from porter.translate.engine import TranslateOptions

        self.source = source
        self.index = index
        self.path = path
        self.file = file  # where the file lies on disk (its quoted #includes are read from there), or None
        self.options = options or TranslateOptions()  # the conversion's options: --roc, the target ROCm
        self._macros: dict[str, str] | None = None
        self.cache: dict = {}  # per-file scratch space for predicates
        self.reported = Reported()  # the findings' spans found so far

    def occurrences(self, words: tuple[bytes, ...], searcher=None) -> list[tuple[int, int, int]]:
        """(index in ``words``, start, end) of every occurrence of ``words`` in the file, overlapping
        ones too, by where they end: what ``trigger_matches`` (or ``searcher``, an Aho-Corasick
        searcher of ``words``) finds.  The rules' trigger words and each list in SHARED_WORDS are
        found in one pass over the file (made once per scan); other words, and a big file (read a
        region at a time), get a pass of their own."""
        if not words:
            return []
        shared = _shared_words(len(SHARED_WORDS))
        local = None if self.index.big else shared.local(words)
        if local is None:
            if searcher is not None:
                return searcher.find_matches_as_indexes(self.source, overlapping=True)
            return trigger_matches(self.source, words)
        found = self.cache.get("_occurrences")
        if found is None:
            found = self.cache["_occurrences"] = shared.searcher.find_matches_as_indexes(self.source, overlapping=True)
        return [(k, s, e) for i, s, e in found if (k := local[i]) >= 0]

    def mentions(self, word: bytes) -> bool:
        """Whether ``word`` appears anywhere in the file (searched once per file)."""
        seen = self.cache.setdefault("_mentions", {})
        if word not in seen:
            seen[word] = word in self.source
        return seen[word]

    def text(self, node: ts.Node | None) -> str:
        if node is None:
            return ""
        return self.source[node.start_byte:node.end_byte].decode("utf-8", "replace")

    @property
    def macros(self) -> dict[str, str]:
        """Object-like #define NAME body, by name (last definition wins); those of the project
        headers the file includes (when it is scanned from disk) come first."""
        if self._macros is None:
            found: dict[str, str] = {}
            if self.file and self.index.includes:
                from porter.findings.values import unit_of

                for consts in unit_of(self).consts.values():
                    for c in consts:
                        if c.kind == "define" and c.pos < 0:
                            found[c.name] = c.expr
            source, index = self.source, self.index
            if index.big and not index.parsed:  # by the text: no region is parsed for this
                for n_start, n_end, b_start, b_end in index.object_macros():
                    value = _COMMENT.sub(" ", source[b_start:b_end].decode("utf-8", "replace")).strip()
                    if value:  # (a body that is only a comment is no body)
                        found[source[n_start:n_end].decode("utf-8", "replace")] = value
            else:
                for body in index.macro_bodies:
                    if body.directive == "preproc_def" and body.name is not None:
                        text = source[body.start_byte:body.end_byte].decode("utf-8", "replace")
                        name = source[body.name[0]:body.name[1]].decode("utf-8", "replace")
                        found[name] = _COMMENT.sub(" ", text).strip()
            self._macros = found
        return self._macros

    def macro_value(self, text: str, depth: int = 4) -> str:
        """``text`` with object-like macros expanded (a few levels), outer parentheses stripped."""
        text = text.strip()
        for _ in range(depth):
            while len(text) > 1 and text[0] == "(" and text[-1] == ")" and _balanced(text[1:-1]):
                text = text[1:-1].strip()
            if text in self.macros:
                text = self.macros[text]
                continue
            break
        return text

    @staticmethod
    def enclosing(node: ts.Node, *types: str) -> ts.Node | None:
        n = node.parent
        while n is not None:
            if n.type in types:
                return n
            n = n.parent
        return None

    def function_of(self, node: ts.Node) -> ts.Node | None:
        return self.enclosing(node, "function_definition", "lambda_expression")

    def is_device_function(self, fn: ts.Node | None) -> bool:
        """A function marked __global__ or __device__ (the qualifier is an anonymous token)."""
        while fn is not None:
            if fn.type == "function_definition":
                head_end = (fn.child_by_field_name("body") or fn).start_byte
                if _DEVICE_HEAD.search(self.source, fn.start_byte, head_end) or \
                        self.index.device_head_in(fn.start_byte, head_end):
                    return True
                # a template<...> or a lambda inside a device function
            fn = self.enclosing(fn, "function_definition")
        return False

    def in_device_code(self, node: ts.Node) -> bool:
        return self.is_device_function(self.function_of(node))

    def line_col(self, pos: int) -> tuple[int, int]:
        return self.index.line_col(pos)

    def offset(self, line: int, column: int) -> int:
        """Byte offset of a 1-based line and 1-based character column."""
        starts = self.index.line_starts
        start = starts[min(max(line, 1), len(starts)) - 1]
        end = self.source.find(b"\n", start)
        text = self.source[start:len(self.source) if end < 0 else end].decode("utf-8", "replace")
        return start + len(text[:column - 1].encode("utf-8"))

    def covered(self, start: int, end: int) -> bool:
        """True when a finding already reported covers [start, end)."""
        return self.reported.covered(start, end)


def _balanced(text: str) -> bool:
    depth = 0
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth < 0:
                return False
    return depth == 0


def _finding(rule: Rule, ctx: Context, hit: Hit, path: str) -> Finding:
    line, col = ctx.line_col(hit.start)
    end_line, end_col = ctx.line_col(max(hit.start, hit.end))
    return Finding(rule.id, rule.category, hit.severity or rule.severity, path, line, col, end_line, end_col,
                   rule.render_message(hit.params), hit.fix, hit.start, hit.end, dict(hit.params))


def _internal_error(ctx: Context, path: str, rule_id: str, exc: BaseException, pos: int = 0) -> Finding:
    rules = catalogue()
    meta = rules[INTERNAL_ERROR]
    line, col = ctx.line_col(pos)
    msg = meta.render_message({"rule": rule_id, "error": f"{type(exc).__name__}: {exc}"[:200]})
    return Finding(INTERNAL_ERROR, meta.category, meta.severity, path, line, col, line, col, msg, None, pos, pos,
                   {"failed_rule": rule_id})


# occurrences of trigger words nested deeper than this many syntax nodes are not analysed (tree-sitter's
# query cursor walks down from the root for every range it is given, and a predicate's walk up to the
# enclosing function is as long: 10,000 nested ``#ifdef``s would cost depth squared).  Real code stays far
# below: the deepest trigger occurrence in the samples, the tests' fixtures and 32 outside CUDA programs
# (HeCBench, wave64) is 26 nodes deep; tests/parse/test_deep_nesting.py checks the guard and its note
MAX_DEPTH = 1000


def _query_pass(source: bytes, tree: ts.Tree, triggers: tuple[bytes, ...], matches: list[tuple[int, int, int]],
                queried: list[tuple[tuple[str, ...], tuple[bytes, ...], bool]], active: set[str],
                too_deep: list | None = None, index: SourceIndex | None = None, expected=None) -> list:
    """The query matches of the live rule groups ``queried`` in ``tree`` (the whole file's, or one
    region's), around the trigger occurrences ``matches`` that lie in it; adds the groups whose
    triggers occur here to ``active``.

    Every live group's ranges (rule_ranges, narrowed), then one pass of each query file's query over
    the union of its live rules' ranges; a match counts for its rule where it meets one of that
    rule's own ranges (what a query of that rule alone over its ranges returns).  Occurrences more
    than MAX_DEPTH nodes deep are left out of the narrowed ranges, and added to ``too_deep`` as
    (start, end).  ``expected``: the query files the next calls will need too (a big file's later
    regions), compiled now with those this call needs (queries_for)."""
    tops = _TopLevel(source, tree, index)
    hits = trigger_hits(tops, triggers, matches)
    narrow = _Narrower(tree, triggers, matches, MAX_DEPTH)
    rule_spans: dict[str, tuple[list[tuple[int, int]], list[int]]] = {}
    for ids, words, device_only in queried:
        ranges = rule_ranges(source, tops, words, device_only, hits)
        if ranges is None:
            continue
        active.update(ids)
        if not ranges:
            continue
        ranges = narrow.ranges(ids, words, ranges)
        for rid in ids:
            rule_spans[rid] = (ranges, [e for _s, e in ranges])
    if narrow.too_deep and too_deep is not None:
        too_deep.extend(sorted(narrow.too_deep))
    by_file: dict[str, list[tuple[int, int]]] = {}
    files = _query_files()
    for rid, (spans, _ends) in rule_spans.items():
        if rid in files:
            by_file.setdefault(files[rid], []).extend(spans)
    found = []
    queries_for(by_file.keys() | (expected or ()))
    for name, spans in by_file.items():
        query, pattern_rule, first, end = _compiled(name)
        cursor = ts.QueryCursor(query)
        for start, stop in _merge_spans(spans):
            cursor.set_byte_range(start, stop)
            for match in cursor.matches(tree.root_node):
                # (a query compiled with other files' patterns: only this file's count here, in the order
                # its own query would give them)
                if first <= match[0] < end:
                    own = rule_spans.get(pattern_rule[match[0]])
                    if own is not None and _meets(match[1], *own):
                        found.append(match)
    return found


def scan(source: bytes, path: str = "<input>", index: SourceIndex | None = None, options=None,
         file: str | os.PathLike | None = None, notes: list[str] | None = None) -> list[Finding]:
    """Every finding in one source file, sorted by position.  Never raises on odd input.

    ``options``: the conversion's ``TranslateOptions`` (the target ROCm release decides which
    names are too new for it; default: the newest release porter knows).  ``file``: where the
    file lies on disk, so that the project headers it includes (``#include "..."``) are read
    for their constants and macros (default: ``path`` when that names an existing file).
    ``notes``: where a one-line note goes when part of the file is not analysed (code nested
    deeper than MAX_DEPTH syntax nodes); the findings of the rest are returned as usual."""
    from porter.findings import predicates  # registers the predicates

    if isinstance(source, str):
        source = source.encode("utf-8")
    rules = catalogue()
    if index is None:
        index = index_source(source)
    if file is None and path != "<input>" and any(source[i.start_byte:i.start_byte + 1] == b'"' for i in index.includes):
        try:  # only a file that includes a project header needs its place on disk
            file = path if os.path.isfile(path) else None
        except (OSError, ValueError):  # a name with a NUL byte, say
            file = None
    ctx = Context(source, index, path, options, os.fspath(file) if file is not None else None)
    # a big file holds one region's tree at a time (its file checks are served the tree the region loop
    # holds: served_checks); SCAN_KEEPS_BYTES, a knob, keeps them all up to that size
    index.keep_bytes = SCAN_KEEPS_BYTES
    try:
        too_deep: list[tuple[int, int]] = []
        found = _scan(ctx, rules, predicates, too_deep)
        if too_deep and notes is not None:
            first, last = index.line_of(min(too_deep)[0]), index.line_of(max(too_deep)[0])
            notes.append(f"not analysed: {len(too_deep)} place{'s' if len(too_deep) > 1 else ''} nested deeper "
                         f"than {MAX_DEPTH} syntax levels (lines {first}-{last}); the rest of the file was scanned")
        return found
    finally:
        index.keep_bytes = 0
        index.keep_regions = frozenset()
        index.forget_trees()  # a big file's region trees (up to 150 MB of them) go with the scan


def _scan(ctx: Context, rules: dict, predicates, too_deep: list | None = None) -> list[Finding]:
    source, index, path = ctx.source, ctx.index, ctx.path
    out: list[Finding] = []
    failed: set[str] = set()
    seen: set[tuple[str, int, int]] = set()

    def report(rule: Rule, hits) -> None:
        if hits is None:
            return
        if isinstance(hits, Hit):
            hits = (hits,)
        for hit in hits:
            meta = rules[hit.rule] if hit.rule is not None else rule
            key = (meta.id, hit.start, hit.end)
            if key in seen:
                continue
            seen.add(key)
            ctx.reported.add(*key[1:], meta.id)
            out.append(_finding(meta, ctx, hit, path))

    # 1. the query pass: a rule group is live where one of its trigger words occurs and each of its
    #    file conditions (requires) holds; its query runs around those occurrences only
    #    (rule_ranges, then _Narrower).  A file in which no rule with a query is live cannot
    #    have a query finding: it is not parsed.
    active: set[str] = set()
    found = []
    groups = rule_groups()
    triggers = _all_triggers(groups)
    by_region = index.big and not index.parsed
    if by_region:  # a big file's occurrences are found again per region, not kept for the whole file
        matches = []
        present = set()
        for r_start, r_end in index.regions:
            present.update(triggers[i] for i, _s, _e in trigger_matches(source[r_start:r_end], triggers))
    else:
        matches = ctx.occurrences(triggers)
        present = {triggers[i] for i, _s, _e in matches}
    live = [g for g in groups if (not g[1] or not present.isdisjoint(g[1]))
            and all(not present.isdisjoint(r) for r in g[3])]
    queried = []
    for ids, _words, _dev, _req in live:
        if not _has_patterns(ids):
            active.update(ids)  # a file rule: it runs (and parses only if it needs the tree)
        else:
            queried.append((ids, _words, _dev))
    source_rules = _source_rules()
    files = _query_files()  # (a big file's regions need the query files of the live rules: compiled at once)
    expected = {files[rid] for ids, _w, _d in queried for rid in ids if rid in files} if by_region else None

    def check_matches(found) -> None:
        for _pattern, caps in found:
            for name, nodes in caps.items():
                rule = source_rules.get(name)  # helper captures (@fn, @args...) are not rules
                if rule is None or name in failed:
                    continue
                check = predicates.REGISTRY.get(name)
                for node in nodes:
                    try:
                        hits = check(ctx, node, caps) if check else Hit(node.start_byte, node.end_byte)
                        report(rule, hits)
                    except Exception as exc:
                        failed.add(name)
                        out.append(_internal_error(ctx, path, name, exc, node.start_byte))
                        break

    # A big file is queried a region (a run of whole top-level declarations) at a time, each with
    # the tree of that region alone, and its matches are checked before the next region is parsed:
    # the whole file's tree is never held (25 bytes per source byte).
    live_ids = {rid for g in live for rid in g[0]}
    # the file checks that ask for trees at places (those with a region hint) run beside the region loop
    # and are served each region's tree while the loop holds it (served_checks): no region parsed twice
    served = None
    if by_region and len(source) > index.keep_bytes:
        chosen = [(rid, fn) for rid, fn in predicates.FILE_REGISTRY.items()
                  if rid in predicates.FILE_REGIONS and rid not in predicates.REGION_CHECKS
                  and rid in active and rid in rules]
        if chosen:
            served = ServedChecks(index, chosen, ctx)
            index.keep_regions = _regions_for_file_checks(ctx, predicates, {rid for rid, _fn in chosen})
            ctx.reported = _ServedReported(ctx.reported, served)
    try:
        # the file checks that read the tree a region at a time (predicates.REGION_CHECKS): a big file's regions
        # are served to them in the region loop below, with the tree the query pass parses there
        region_checks: dict[str, tuple] = {}
        region_failed: dict[str, BaseException] = {}
        if by_region:
            for rule_id in predicates.REGION_CHECKS:
                if rule_id in live_ids and rule_id in rules:
                    try:
                        started = predicates.FILE_REGISTRY[rule_id](ctx)
                    except Exception as exc:
                        region_failed[rule_id] = exc
                        continue
                    if started is not None:
                        region_checks[rule_id] = started
        if served is not None:
            served.start()  # (each runs up to the first region it asks for)
        if queried or region_checks or served is not None:
            whole = not by_region
            for k, (r_start, r_end) in enumerate([(0, len(source))] if whole else index.regions):
                if whole:
                    here = matches
                else:  # (an identifier never spans two regions: they are cut at line ends)
                    here = [(i, s + r_start, e + r_start) for i, s, e in trigger_matches(source[r_start:r_end], triggers)] \
                        if queried else []
                visitors = [(rid, c[1]) for rid, c in region_checks.items()
                            if rid not in region_failed and c[1] is not None and c[0](source[r_start:r_end])] \
                    if region_checks else ()
                if not here and not whole and not visitors and not (served is not None and served.needs_tree(k)):
                    if served is not None:
                        served.served(k, None)
                    continue  # nothing to query or visit here: the region is not parsed
                tree = index.tree if whole else index.tree_at(r_start)
                if here or whole:
                    try:
                        found = _query_pass(source, tree, triggers, here, queried, active, too_deep, index,
                                            None if whole else expected)
                    except Exception as exc:  # pragma: no cover - a broken query file
                        out.append(_internal_error(ctx, path, queried[0][0][0], exc))
                        found = []
                    check_matches(found)
                    del found
                for rid, visit in visitors:
                    try:
                        visit(tree.root_node)
                    except Exception as exc:
                        region_failed[rid] = exc
                if served is not None:
                    served.served(k, tree)
                del tree
        if served is not None:
            served.finish()

        # 2. rules that look at the whole file (macro bodies, database look-ups)
        for rule_id, check in predicates.FILE_REGISTRY.items():
            rule = rules.get(rule_id)
            if rule is None or rule_id in failed or rule_id not in active:
                continue
            try:
                if rule_id in region_failed:
                    raise region_failed[rule_id]
                if served is not None and rule_id in served.by_id:  # (it ran beside the region loop)
                    report(rule, served.outcome(rule_id))
                elif rule_id in region_checks:  # (its regions were visited in the region loop)
                    report(rule, region_checks[rule_id][2]())
                elif rule_id in predicates.REGION_CHECKS:
                    started = check(ctx)
                    if started is not None:
                        test, visit, finish = started
                        for root in index.roots(test):
                            visit(root)
                        report(rule, finish())
                else:
                    report(rule, check(ctx))
            except Exception as exc:
                out.append(_internal_error(ctx, path, rule_id, exc))
    finally:
        if served is not None:
            served.stop()
            served.release()
        if index.keep_regions:
            index.keep_regions = frozenset()
            index.forget_trees()  # (scan's ``keep_bytes`` is below this file's size: every kept tree goes)

    # 3. where parsing failed: in a file some rule parsed, or whose text looks broken (an unterminated
    #    comment or literal, unbalanced brackets); a parse nothing needed is not made just to report it
    if index.parsed or not index.big:
        parsed = index.parsed or index.looks_broken
        errors = index.parse_errors() if parsed and index.tree.root_node.has_error else []
    else:  # the regions some rule parsed; every region when the text looks broken
        errors = index.parse_errors() if index.looks_broken else index.known_parse_errors()
    for start, end in errors[:1]:
        meta = rules[PARSE_ERROR]
        count = len(errors)
        more = f" ({count - 1} more region{'s' if count > 2 else ''} further down)" if count > 1 else ""
        start = min(start, len(source))  # a MISSING node at the end of the file
        report(meta, Hit(start, max(start, min(end, len(source))), {"more": more}))

    if IGNORE_MARK in source:
        out = _drop_ignored(source, index, out)
    out.sort(key=lambda f: (f.start_byte, f.end_byte, f.rule))
    return out


# a big file whose source is at most this keeps every region tree for the whole scan (a knob for tests
# and measurements): 0, so that a region's tree goes once the query pass and the region checks are done
# with it (the file checks that ask for trees are served them in the region loop: served_checks).  Keeping
# them all (up to 6 MB, as before issue 34) cost about 28 bytes of tree per source byte for no speed:
# a 4 MB slice of a corpus.py HeCBench file's port adds 153 MB to the RSS in its scan keeping all, 45 MB
# now, in 3.3 s either way (4.18 MB parsed instead of 4.00: the re-parsed regions of its file checks).
SCAN_KEEPS_BYTES = 0
# the most source (in bytes) whose region trees a scan keeps for the file checks served beside its region
# loop (served_checks) that ask again for a region the loop has passed (PORT015 asks for each warp-size
# constant's definition after walking every use); about 29 bytes of tree per source byte: 7.5 MB.  The
# regions past it are parsed again when asked for.
# Measured on a 1M-line HeCBench file: 1 MB kept: 1.13x the bytes parsed, 300 MB peak; 256 kB: 1.15x,
# 278 MB, as fast (the region hints, not the kept trees, removed most re-parsing); none: 1.17x, 272 MB
FILE_CHECK_KEEPS_BYTES = 256 << 10


def _regions_for_file_checks(ctx: Context, predicates, live: set[str]) -> frozenset[int]:
    """The regions of a big file whose trees the file checks of the ``live`` rules will ask for, as
    their region hints say (``predicates.FILE_REGIONS``), in file order up to FILE_CHECK_KEEPS_BYTES
    of source.  A hint that fails counts as none (a region left out is only parsed again)."""
    tests = []
    for rule_id, hint in predicates.FILE_REGIONS.items():
        if rule_id not in live or rule_id in predicates.REGION_CHECKS:
            continue  # (a check served a region at a time needs no tree kept for it)
        try:
            test = hint(ctx)
        except Exception:  # noqa: BLE001 - the check itself reports its failure
            test = None
        if test is not None:
            tests.append(test)
    if not tests:
        return frozenset()
    source, keep, total = ctx.source, set(), 0
    for k, (start, end) in enumerate(ctx.index.regions):
        if total + end - start > FILE_CHECK_KEEPS_BYTES:
            break
        text = source[start:end]
        if any(test(text) for test in tests):
            keep.add(k)
            total += end - start
    return frozenset(keep)


IGNORE_MARK = b"porter: ignore"
_IGNORE = re.compile(rb"porter: ignore(?:\[?\s*((?:PORT\d{3}[\s,]*)+)\]?)?")


def _drop_ignored(source: bytes, index: SourceIndex, findings: list[Finding]) -> list[Finding]:
    """Findings on a line with a ``// porter: ignore`` comment (all rules) or
    ``// porter: ignore PORT011, PORT020`` (those rules) are dropped."""
    by_line: dict[int, set[str] | None] = {}
    starts = [s for s, _ in index.protected]
    for m in _IGNORE.finditer(source):
        i = bisect.bisect_right(starts, m.start()) - 1
        if i < 0 or m.start() >= index.protected[i][1] or \
                source[index.protected[i][0]:index.protected[i][0] + 2] not in (b"//", b"/*"):
            continue  # only inside a comment
        line = index.line_of(m.start())
        ids = set(re.findall(r"PORT\d{3}", (m.group(1) or b"").decode())) or None
        prev = by_line.get(line, set())
        by_line[line] = None if ids is None or prev is None else prev | ids
    kept = []
    for f in findings:
        if f.line in by_line and f.rule not in (INTERNAL_ERROR,):
            ids = by_line[f.line]
            if ids is None or f.rule in ids:
                continue
        kept.append(f)
    return kept
