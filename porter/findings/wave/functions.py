"""The functions of a translation unit and who calls whom, read from the code text.

The wave model (porter.findings.wave.model) decides per kernel and what it calls, so it needs
the functions of the scanned file and of the project headers it includes, their bodies, and
the calls between them.  Headers are never parsed, and a big file is parsed a region at a time,
so this reads the text with comments and literals blanked (the same offsets as the source):

* a function is a ``{`` at namespace or class scope that follows ``NAME(...)`` (and qualifiers
  such as ``const`` or ``noexcept``): a definition, whose body runs to the matching ``}``;
  lambdas and macro-made loops (``FOR_EACH(i, n) {``) inside a body belong to that body;
* a function-like macro (``#define REDUCE(v) ...``) is a function too: code that uses it
  takes on what its body does;
* a call is ``NAME(`` or ``NAME<...>(`` in a body where NAME is a function or a function-like
  macro of the unit; a launch ``NAME<<<`` links host code to the kernel it starts.
"""

from __future__ import annotations

import array
import bisect
import re
from dataclasses import dataclass

from porter.parse.brackets import top_level_pieces

_DIRECTIVE = re.compile(rb"(?m)^[ \t]*#(?:[^\n\\]|\\\n|\\)*")
_FN_MACRO = re.compile(rb"[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)\(([^)\n]*)\)")
_NOT_NEWLINE = re.compile(rb"[^\n]")
_NOT_FUNCTIONS = frozenset({b"if", b"for", b"while", b"switch", b"catch", b"return", b"sizeof", b"decltype",
                            b"alignof", b"__launch_bounds__", b"__attribute__", b"__declspec", b"alignas",
                            b"static_assert", b"defined", b"do", b"else"})
_CALL = re.compile(rb"(?<![\w.>])([A-Za-z_]\w*)\s*(<(?:[^<>;{}()]|<[^<>;{}()]*>)*>)?\s*(\(|<<<)")
_HEAD_START = re.compile(rb"[;{}]")


@dataclass(slots=True)
class Function:
    """One function definition (or function-like macro) of the unit (slots: a big file has tens of
    thousands, and an instance dictionary each would cost more than its fields)."""

    name: str
    file: str  # as shown in findings ('' for the scanned file)
    head: int  # where its declaration starts (after the previous ; { or })
    body_start: int  # its '{' (a macro: the start of its body)
    body_end: int  # after its '}'
    kernel: bool
    device: bool  # __device__ or __global__ (a macro counts as both host and device)
    macro: bool = False
    params: tuple[str, ...] = ()  # a function-like macro's parameter names
    # (position, callee, b'(' or b'<<<'): a list where it calls any (link_calls), else one shared empty tuple
    calls: list[tuple[int, str, bytes]] | tuple = ()
    paren: int = -1  # where a function's parameter list opens


def _blank_directives(code: bytes) -> tuple[bytearray, list[tuple[int, int]]]:
    out = bytearray(code)
    spans = []
    if b"#" not in code:
        return out, spans
    for m in _DIRECTIVE.finditer(code):
        s, e = m.span()
        spans.append((s, e))
        out[s:e] = _NOT_NEWLINE.sub(b" ", code[s:e])
    return out, spans


def _matching_open(code: bytes | bytearray, close: int) -> int:
    """The '(' that the ')' at ``close`` closes, or -1."""
    depth = 0
    i = close
    low = max(0, close - 20000)
    while i >= low:
        ch = code[i]
        if ch == 0x29:  # )
            depth += 1
        elif ch == 0x28:  # (
            depth -= 1
            if depth == 0:
                return i
        elif ch in (0x7B, 0x7D, 0x3B) and depth > 0:  # { } ; inside a parameter list: not one
            return -1
        i -= 1
    return -1


_QUALIFIERS = frozenset({b"const", b"noexcept", b"override", b"final", b"mutable", b"volatile"})
_SPACE = frozenset(b" \t\r\n&")


def _skip_back(code, i: int) -> int:
    """The position after the last character before ``i`` that is no blank (or 0)."""
    while i > 0 and code[i - 1] in _SPACE:
        i -= 1
    return i


def _word_before(code, i: int) -> tuple[int, bytes]:
    j = i
    while j > 0 and (chr(code[j - 1]).isalnum() or code[j - 1] == 0x5F):
        j -= 1
    return j, bytes(code[j:i])


def _function_head(code: bytearray, brace: int):
    """(name, '(' position, name start) when the '{' at ``brace`` opens a function body, else None.
    Read backwards by hand: a regular expression anchored at the brace is tried at every start."""
    end = _skip_back(code, brace)
    while end > 0:  # qualifiers after the parameter list: const, noexcept, override ...
        start, word = _word_before(code, end)
        if word not in _QUALIFIERS:
            break
        end = _skip_back(code, start)
    # a trailing `noexcept(...)` or `-> type` is rare in CUDA kernels: not followed
    if end == 0 or code[end - 1] != 0x29:
        return None
    open_ = _matching_open(code, end - 1)
    if open_ <= 0:
        return None
    i = _skip_back(code, open_)
    if i > 0 and code[i - 1] == 0x3E:  # f<T>(...): a specialisation's template arguments
        depth = 0
        k = i - 1
        while k >= max(0, i - 300):
            if code[k] == 0x3E:
                depth += 1
            elif code[k] == 0x3C:
                depth -= 1
                if depth == 0:
                    break
            elif code[k] in (0x3B, 0x7B, 0x7D, 0x28, 0x29):
                return None
            k -= 1
        if depth != 0:
            return None
        i = _skip_back(code, k)
    start, name = _word_before(code, i)
    if not name or name[:1].isdigit() or name in _NOT_FUNCTIONS:
        return None
    return name, open_, start


def _params(text: bytes) -> tuple[str, ...]:
    out = []
    pieces = [text[s:e] for s, e in top_level_pieces(text)]
    for p in pieces:
        p = p.split(b"=")[0]
        m = re.search(rb"([A-Za-z_]\w*)\s*(?:\[[^\]]*\])?\s*$", p)
        if m and m.group(1) not in (b"void", b"int", b"float", b"double", b"unsigned", b"char", b"bool"):
            out.append(m.group(1).decode())
    return tuple(out)


def read_functions(code: bytes, shown: str = "") -> list[Function]:
    """The function definitions and function-like macros of one file's code text (comments and
    literals blanked), in file order."""
    functions: list[Function] = []
    for m in _FN_MACRO.finditer(code):
        line_end = code.find(b"\n", m.end())
        end = m.end()
        # the body runs over backslash continuations
        while True:
            if line_end < 0:
                end = len(code)
                break
            if code[line_end - 1:line_end] == b"\\":
                line_end = code.find(b"\n", line_end + 1)
                continue
            end = line_end
            break
        functions.append(Function(m.group(1).decode(), shown, m.start(), m.end(), end, False, True, True,
                                  _params(m.group(2))))
    text, _spans = _blank_directives(code)
    if b"{" not in text:
        return _finish(functions, code)
    depth = 0
    inside = -1  # depth at which the current function's body opened, -1 outside
    current: Function | None = None
    for m in re.finditer(rb"[{}]", text):
        pos = m.start()
        if text[pos] == 0x7B:
            depth += 1
            if inside >= 0:
                continue
            head = _function_head(text, pos)
            if head is None:
                continue
            name, open_, name_start = head
            hm = None
            for hm in _HEAD_START.finditer(text, max(0, name_start - 600), name_start):
                pass
            head_start = hm.end() if hm else max(0, name_start - 600)
            head_text = bytes(text[head_start:name_start])
            kernel = b"__global__" in head_text
            device = kernel or b"__device__" in head_text
            current = Function(name.decode(), shown, head_start, pos, pos, kernel, device, False)
            current.paren = open_
            inside = depth
        else:
            if inside >= 0 and depth == inside and current is not None:
                current.body_end = pos + 1
                functions.append(current)
                current = None
                inside = -1
            depth = max(0, depth - 1)
    return _finish(functions, code)


def _finish(functions: list[Function], code: bytes) -> list[Function]:
    functions.sort(key=lambda f: f.body_start)
    return functions


def link_calls(functions: list[Function], codes: dict[str, bytes]) -> None:
    """Fill each function's ``calls`` with the calls in its body of functions of the unit."""
    # each callee's name and each kind is one shared object (a big file has tens of thousands of calls)
    names = {f.name.encode(): f.name for f in functions}
    kinds = {b"(": b"(", b"<<<": b"<<<"}
    for f in functions:
        code = codes[f.file]
        calls = []
        for m in _CALL.finditer(code, f.body_start, f.body_end):
            name = names.get(m.group(1))
            if name is not None and (name != f.name or m.group(3) == b"<<<"):
                calls.append((m.start(), name, kinds[m.group(3)]))
        if calls:
            f.calls = calls


class FunctionIndex:
    """The unit's functions, looked up by name and by position in the scanned file."""

    def __init__(self, functions: list[Function]):
        self.functions = functions
        by_name: dict[str, list[int]] = {}
        for i, f in enumerate(functions):
            by_name.setdefault(f.name, []).append(i)
        self.by_name: dict[str, tuple[int, ...]] = {name: tuple(found) for name, found in by_name.items()}
        del by_name
        own = sorted((f.body_start, f.body_end, i) for i, f in enumerate(functions) if f.file == "" and not f.macro)
        # machine integers (a tuple and three int objects per function would cost ~130 bytes)
        self._starts = array.array("q", [s for s, _e, _i in own])
        self._ends = array.array("q", [e for _s, e, _i in own])
        self._which = array.array("q", [i for _s, _e, i in own])
        del own
        self._macros = sorted((f.head, f.body_end, i) for i, f in enumerate(functions) if f.file == "" and f.macro)

    def at(self, pos: int) -> int | None:
        """The index of the scanned file's function (or function-like macro) whose body holds ``pos``."""
        k = bisect.bisect_right(self._starts, pos) - 1
        if k >= 0 and self._starts[k] <= pos < self._ends[k]:
            return self._which[k]
        for s, e, i in self._macros:
            if s <= pos < e:
                return i
        return None

    def callees(self, i: int) -> list[int]:
        out = []
        for _pos, name, _kind in self.functions[i].calls:
            out.extend(self.by_name.get(name, ()))
        return out
