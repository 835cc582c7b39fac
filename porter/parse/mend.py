"""Same-length mends of preprocessor shapes tree-sitter cannot read, so that valid code parses.

Tree-sitter parses the text as written, before any preprocessing; the compiler sees it after.  Code
that only makes sense once expanded turns into ERROR nodes, and tree-sitter's error recovery often
swallows everything after it (a whole file, or a whole region of a big one).  A mend is a byte span
of the text and what tree-sitter reads there instead, of the same length (so every node keeps the
offsets and the line/column of the original text; what a rule reads of a node comes from the
original).  The mends model what the preprocessor makes of the file's own macros and conditionals:

* a conditional group one of whose branches leaves brackets open or closes more than it opens
  (``#ifdef X`` / ``void f(double a) {`` / ``#else`` / ``void f(float a) {`` / ``#endif`` / body /
  ``}``): read in its first configuration, as if its first condition held (the directives and the
  other branches blanked, line breaks kept);
* a conditional group each of whose branches ends a function's head, the body's ``{`` after its
  ``#endif`` (``#if defined(_WIN32)`` / ``DWORD WINAPI f(Job *j)`` / ``#else`` / ``void *f(Job *j)`` /
  ``#endif`` / ``{``): one head kept, the others and the directives blanked; the head kept is the first
  branch's unless its condition cannot hold where the port is built (``#ifdef _WIN32``: the macros of
  ``platform_macros.toml``), as the target's preprocessor keeps the ``#else`` head there;
* a macro whose body opens a function (``#define KERNEL_BEGIN(name) __global__ void name(...) {``):
  each invocation is read as that function's head, ``KERNEL_BEGIN(copy){`` (a blank after it
  carries the ``{``); a macro whose body only closes braces (``#define KERNEL_END }``): read as ``}``;
* a macro whose body pastes one identifier (``#define PASTE(a, b) a##b``): each one-line invocation
  is read as one identifier (``PASTE_helper___0_``), as it expands to one;
* a GNU attribute after a variable's declarator (``float a[64] __attribute__((aligned(1024)));``), which
  tree-sitter-cuda reads only before one: blanked;
* a line holding only an invocation of a file's macro that declares things or is whole statements
  (``FOR_EACH_TYPE(INSTANTIATE)`` in column 0, ``HANDLE_SWITCH_CASE(type)`` in a function: no ``;``
  follows, its body ends with ``;``/``}`` or calls macros): blanked, as its expansion holds whole
  declarations or statements.

Only the file's own ``#define``s are read; a macro from a header stays as tree-sitter sees it.
"""

from __future__ import annotations

import bisect
import functools
import re
from pathlib import Path

from porter.parse import lexical
from porter.parse.brackets import closing

# (start, end, text): tree-sitter reads ``text`` (len == end - start) instead of source[start:end]
Mend = tuple[int, int, bytes]

# a #define's name and whether it takes arguments, from its '#' (``lexical.directives`` checks that only
# blanks precede it on its line: the matches of ^[ \t]*#..., re.M, found 8x faster)
_DEFINE_FROM_HASH = re.compile(rb"#[ \t]*define[ \t]+([A-Za-z_][A-Za-z0-9_]*)(\()?")
_IDENT = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")
_FUNCTION_HEAD = re.compile(rb"\)\s*(?:(?:const|noexcept|override|final|volatile)\s*)*\{\s*\Z")
_PASTE = re.compile(rb"\A\s*[A-Za-z_0-9]+(?:\s*##\s*[A-Za-z_0-9]+)+\s*\Z")
_CALLS = re.compile(rb"\A(?:\s*[A-Za-z_][A-Za-z0-9_]*\s*\([^()]*\))+\s*\Z")
_DEVICE = re.compile(rb"\b__(?:global|device)__\b")
_CLOSER = re.compile(rb"\A[\s};]*\Z")
_NOT_NEWLINE = re.compile(rb"[^\n]")
_OPEN = {ord("("): 0, ord("["): 1, ord("{"): 2}
_CLOSE = {ord(")"): 0, ord("]"): 1, ord("}"): 2}
_WORD_BYTE = [chr(b).isalnum() or b == 95 for b in range(128)] + [False] * 128
_MAX_ARGS = 4096  # an invocation's argument list is looked for this far
# the end of a function's head (the branch's code before its #else/#endif, blanks stripped) and the start
# of a body after an #endif; how far back a branch's end is looked at for it
_HEAD_END = re.compile(rb"\)\s*(?:(?:const|noexcept|override|final|volatile)\b\s*)*\Z")
_BODY_START = re.compile(rb"\s*\{")
_HEAD_TAIL = 256
_IF_DEFINED = re.compile(rb"#[ \t]*(ifdef|ifndef|if|elifdef|elifndef|elif)\b(.*)", re.S)
_DEFINED = re.compile(rb"\s*(?:defined\s*\(\s*([A-Za-z_][A-Za-z0-9_]*)\s*\)|defined\s+([A-Za-z_][A-Za-z0-9_]*)|([A-Za-z_][A-Za-z0-9_]*))\s*\Z")


def mends(source: bytes, code: bytes | bytearray, conditionals, device_heads: list[int] | None = None) -> list[Mend]:
    """The mends of ``source`` (``code``: the source with comments and literals blanked, same
    offsets; ``conditionals``: its conditional directives in order, each with ``start_byte`` and
    ``keyword``), sorted, not overlapping.  ``device_heads``: gets where each invocation of a macro
    that opens a ``__global__``/``__device__`` function starts (its head says so only once expanded)."""
    out = _conditional_mends(source, code, conditionals) if conditionals else []
    if b"define" in source:
        out += _macro_mends(source, code, device_heads if device_heads is not None else [])
    if b"__attribute__" in source:
        out += _attribute_mends(source, code)
    if not out:
        return out
    out.sort(key=lambda m: (m[0], -m[1]))
    kept: list[Mend] = []
    for m in out:  # (a macro mend inside a blanked branch: the blank wins)
        if kept and m[0] < kept[-1][1]:
            continue
        kept.append(m)
    return kept


def apply(text: bytes, mends: list[Mend], offset: int = 0) -> bytes:
    """``text`` (the source from ``offset`` on) with the ``mends`` that lie in it applied."""
    if not mends:
        return text
    buf = bytearray(text)
    end = offset + len(text)
    for start, stop, repl in mends:
        if start >= offset and stop <= end:
            buf[start - offset:stop - offset] = repl
    return bytes(buf)


def within(mends: list[Mend], starts: list[int], start: int, end: int) -> list[Mend]:
    """The ``mends`` (``starts``: their start bytes) that lie in [start, end)."""
    i = bisect.bisect_left(starts, start)
    j = bisect.bisect_left(starts, end)
    return [m for m in mends[i:j] if m[1] <= end]


def _line_end(source: bytes, pos: int) -> int:
    """The end of the directive line holding ``pos`` (backslash continuations followed), before its newline."""
    end = source.find(b"\n", pos)
    while end > 0 and (source[end - 1] == 92 or source[end - 2:end] == b"\\\r"):
        end = source.find(b"\n", end + 1)
    return len(source) if end < 0 else end


def _blank(source: bytes, start: int, end: int) -> Mend:
    return start, end, _NOT_NEWLINE.sub(b" ", source[start:end])


def _conditional_mends(source: bytes, code, conditionals) -> list[Mend]:
    """Groups whose branches do not balance brackets, read in their first configuration.  A branch's
    count is its own text's plus the first branch of each group nested in it (what the preprocessor
    keeps when every first condition holds); counted between directives, so the cost is linear in
    the file however deep the nesting."""
    out: list[Mend] = []
    # per open group: [start, first alternative start or None, directive spans, branch net, first
    # branch net, unbalanced]
    stack: list[list] = []
    prev = 0
    top = [0, 0, 0]
    for c in conditionals:
        seg_start = prev
        brackets = code[prev:c.start_byte].translate(None, lexical.NOT_BRACKETS)  # (one pass, six over a few bytes)
        seg = [brackets.count(b"(") - brackets.count(b")"), brackets.count(b"[") - brackets.count(b"]"),
               brackets.count(b"{") - brackets.count(b"}")]
        net = stack[-1][3] if stack else top
        for i in range(3):
            net[i] += seg[i]
        line_end = _line_end(source, c.start_byte)
        prev = min(line_end + 1, len(source))
        kw = c.keyword
        if kw in ("if", "ifdef", "ifndef"):
            # (and whether each branch so far ends a function's head)
            stack.append([c.start_byte, None, [(c.start_byte, line_end)], [0, 0, 0], None, False, True])
        elif not stack:
            continue  # an #else / #endif with no #if (the rest of a cut file)
        elif kw == "endif":
            group = stack.pop()
            group[2].append((c.start_byte, line_end))
            unbalanced = group[5] or any(group[3])
            first = group[4] if group[4] is not None else group[3]
            if unbalanced:  # the #if line, and the other branches with their directives up to the #endif's end
                out.append(_blank(source, *group[2][0]))
                out.append(_blank(source, c.start_byte if group[1] is None else group[1], line_end))
            elif group[1] is not None and group[6] and _ends_head(code, seg_start, c.start_byte) \
                    and _BODY_START.match(code, prev):  # a head per branch, then its body
                out += _one_head(source, code, group[2])
            parent = stack[-1][3] if stack else top
            for i in range(3):
                parent[i] += first[i]
        else:  # elif / else / elifdef...
            group = stack[-1]
            if any(group[3]):
                group[5] = True
            if group[6]:
                group[6] = _ends_head(code, seg_start, c.start_byte)
            if group[4] is None:
                group[4] = group[3]
                group[1] = c.start_byte
            group[3] = [0, 0, 0]
            group[2].append((c.start_byte, line_end))
    if not out:
        return out
    # a blanked alternative holds the directives of the groups inside it: drop mends inside another
    out.sort(key=lambda m: (m[0], -m[1]))
    kept: list[Mend] = []
    for m in out:
        if kept and m[1] <= kept[-1][1]:
            continue
        kept.append(m)
    return kept


def _ends_head(code, start: int, end: int) -> bool:
    """The code in [start, end) (a branch's, after its last directive) ends as a function's head does."""
    return _HEAD_END.search(code, max(start, end - _HEAD_TAIL), end) is not None


def _one_head(source: bytes, code, directives: list[tuple[int, int]]) -> list[Mend]:
    """A group of function heads (``directives``: its directive lines, #if to #endif) read as one: the
    directives and every branch but the one kept blanked."""
    keep = next((i for i, (a, b) in enumerate(directives[:-1]) if not _false_on_target(bytes(code[a:b]))), 0)
    out = [_blank(source, directives[0][0], directives[keep][1])]
    out.append(_blank(source, directives[keep + 1][0], directives[-1][1]))
    return out


@functools.cache
def target_undefined() -> frozenset[bytes]:
    """The macros no compiler of the port's target defines (``platform_macros.toml``)."""
    import tomllib

    doc = tomllib.loads((Path(__file__).with_name("platform_macros.toml")).read_text(encoding="utf-8"))
    return frozenset(name.encode() for name in doc["undefined"]["names"])


def _false_on_target(directive: bytes) -> bool:
    """The condition of ``directive`` (``#ifdef _WIN32``, ``#if defined(WIN32) || defined(_WIN64)``)
    is false where the port is built: it only asks for macros of ``target_undefined``."""
    m = _IF_DEFINED.match(directive.replace(b"\\\r\n", b" ").replace(b"\\\n", b" "))
    if m is None:
        return False  # #else
    kw, rest = m.group(1), m.group(2)
    undefined = target_undefined()
    if kw in (b"ifdef", b"elifdef"):
        return rest.strip() in undefined
    if kw in (b"ifndef", b"elifndef"):
        return False
    parts = [_DEFINED.match(part) for part in rest.split(b"||")]
    return all(p is not None and (p.group(1) or p.group(2) or p.group(3)) in undefined for p in parts)


def _macro_mends(source: bytes, code, device_heads: list[int]) -> list[Mend]:
    """The mends of the invocations of the file's macros that open a function, close braces, paste an
    identifier or declare things (see the module's text)."""
    kinds: dict[bytes, str] = {}
    closes_by: dict[bytes, int] = {}
    device: set[bytes] = set()
    directives: list[tuple[int, int]] = []
    for line, m in lexical.directives(_DEFINE_FROM_HASH, lexical.BLANKS_BEFORE_HASH, code):
        end = _line_end(source, m.end())
        directives.append((line, end))
        name, function_like = m.group(1), m.group(2) is not None
        body_start = m.end()
        if function_like:
            close = code.find(b")", body_start, end)
            if close < 0:
                continue
            body_start = close + 1
        body = bytes(code[body_start:end]).replace(b"\\\n", b" ").replace(b"\\\r\n", b" ")
        opens, closes = body.count(b"{"), body.count(b"}")
        kind = None
        if opens == closes + 1 and function_like and _FUNCTION_HEAD.search(body):
            kind = "opener"
            if _DEVICE.search(body):
                device.add(name)
        elif closes > opens and _CLOSER.match(body):
            kind = "closer"
            closes_by[name] = closes - opens
        elif function_like and _PASTE.match(body):
            kind = "paste"
        elif function_like and opens == closes and (_CALLS.match(body) or body.rstrip().endswith((b";", b"}"))):
            kind = "declares"
        if kind is None:
            kinds.pop(name, None)  # (redefined as something else: left alone)
        else:
            kinds[name] = kind
    if not kinds:
        return []
    dir_starts = [s for s, _e in directives]
    # the invocations: one Aho-Corasick pass for every name at once (a regex alternation of a few thousand
    # names is quadratic in practice), whole words only
    import ahocorasick_rs

    words = list(kinds)
    text = code  # (read in place, bytes or bytearray: a big file's blanked text is not copied)
    out: list[Mend] = []
    n = len(source)
    closes = closes_by
    for w, start, end in ahocorasick_rs.BytesAhoCorasick(words).find_matches_as_indexes(text, overlapping=True):
        if (start > 0 and _WORD_BYTE[text[start - 1]]) or (end < n and _WORD_BYTE[text[end]]):
            continue
        name = words[w]
        i = bisect.bisect_right(dir_starts, start) - 1
        if i >= 0 and start < directives[i][1]:
            continue  # in a #define (its own or another macro's body)
        kind = kinds[name]
        if kind != "closer":
            end = _arguments_end(code, end)
            if end < 0:
                continue  # not an invocation (a function-like macro's name alone) or no closing ')'
        if kind == "closer":
            count = min(closes[name], end - start)
            out.append((start, end, b"}" * count + b" " * (end - start - count)))
        elif kind == "opener":
            j = end  # the first blank between the head and the next code carries its '{'
            while j < n and code[j] in b"\r\n":
                j += 1
            if j < n and code[j] in b" \t" and source[j] in b" \t":  # (not a blanked comment's byte)
                out.append((start, j + 1, bytes(source[start:j]) + b"{"))
                if name in device:
                    device_heads.append(start)
        elif kind == "paste":
            if source.find(b"\n", start, end) < 0:
                out.append((start, end, re.sub(rb"[^A-Za-z0-9_]", b"_", source[start:end])))
        elif kind == "declares":
            line = code.rfind(b"\n", 0, start) + 1
            if not code[line:start].strip(b" \t") and _alone(code, end):  # alone on its line (indented too)
                out.append(_blank(source, start, end))
    return out


_ATTRIBUTE = re.compile(rb"__attribute__")
_DECLARATOR_END = re.compile(rb"[A-Za-z0-9_\]]\s*\Z")


def _attribute_mends(source: bytes, code) -> list[Mend]:
    """A GNU attribute after a variable's declarator (``float a[64] __attribute__((aligned(1024)));``,
    ``int x __attribute__((unused)) = 0;``), which tree-sitter-cuda reads only before one: blanked (the
    compiler reads it as a property of the variable; no rule reads it)."""
    out = []
    for m in _ATTRIBUTE.finditer(code):
        start = m.start()
        if start == 0 or not _DECLARATOR_END.search(code, max(0, start - 64), start) \
                or _WORD_BYTE[code[start - 1]]:
            continue
        end = _arguments_end(code, m.end())
        if end < 0:
            continue
        j = end
        while j < len(code) and code[j] in b" \t\r\n":
            j += 1
        if j < len(code) and code[j] in b";=,":
            out.append(_blank(source, start, end))
    return out


def _arguments_end(code, pos: int) -> int:
    """The end of the ``(...)`` argument list that follows ``pos`` (blanks allowed before it), or -1."""
    n = len(code)
    while pos < n and code[pos] in b" \t":
        pos += 1
    if pos >= n or code[pos] != 40:
        return -1
    end = closing(code, pos, "(", ")", limit=_MAX_ARGS)
    return -1 if end is None else end + 1


def _alone(code, end: int) -> bool:
    """Only blanks follow ``end`` on its line, and the next code does not continue it (no ``;``, ``{``,
    ``,``, ``(``, operator: the next line starts a declaration or a directive)."""
    n = len(code)
    j = end
    while j < n and code[j] in b" \t\r":
        j += 1
    if j < n and code[j] != 10:
        return False
    while j < n and code[j] in b" \t\r\n":
        j += 1
    return j >= n or code[j] == 35 or code[j] == 95 or chr(code[j]).isalnum()
