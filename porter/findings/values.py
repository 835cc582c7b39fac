"""A small value analysis for the warp-size rules: which named constants of a translation
unit hold a warp width of 32 (or 31, 16, 5 derived from it), and where they come from.

A translation unit is the scanned file plus the project headers it includes with
``#include "..."`` (found next to the including file, read from disk, cached per process).
Constants are read from the text with comments and literals blanked out:

* ``#define NAME expr`` (object-like macros),
* ``const`` / ``constexpr`` integer variables (``static constexpr int kWarpSize = 32;``),
* enum values (``enum { WARP = 32, HALF = WARP / 2 }``),
* integer template and function parameter defaults (``template <int kWarpSize = 32>``),

and evaluated with integer arithmetic (``WARP_SIZE - 1``, ``8 * WARP_SIZE``, ``1 << LOG_WARP``).
A *warp root* is a constant whose name says warp or lane (WARP_SIZE, kWarpSize, LANE_MASK,
LOG_WARP_SIZE, HALF_WARP) and whose value is 32, 31, 16 or 5, or a warp-named constant
computed with ``/ 32`` or ``>> 5``; a constant whose expression uses a root is *derived* from
it (``TILE_N = 8 * WARP_SIZE``).  A name defined more than once with different values
(``#if __HIP_PLATFORM_AMD__ ... 64 #else ... 32``) is left out: it is already ported.

The same pass answers whether the unit keeps *32-lane logical warps*: it shuffles, every
shuffle (direct, or inside a macro that wraps it) has an explicit width of 32, and no ballot
or vote spans the whole wave.
"""

from __future__ import annotations

import array
import bisect
import functools
import operator
import os
import re
from dataclasses import dataclass, field

from porter.translate.source_index import index_source
from porter.parse.brackets import call_arguments, closing, top_level_pieces

WARP_VALUES = (32, 31, 16, 5)
_WARPISH = re.compile(r"[Ww][Aa][Rr][Pp]|[Ll][Aa][Nn][Ee]")
_NOT_A_WIDTH = re.compile(r"(?i)^full|warps?_?per|per_?warp|num_?warps|n_?warps|warps$|count|id$|idx$|index$")

# (each starts with a literal so that the regex engine can skip to it: the scan's speed depends on it)
_DEFINE = re.compile(r"#[ \t]*define[ \t]+([A-Za-z_]\w*)(?![\w(])[ \t]*((?:[^\n\\]|\\\n|\\)*)")
_INT_TYPE = r"(?:unsigned|signed|int|long|short|char|size_t|uint|uint8_t|uint16_t|uint32_t|uint64_t|int8_t|int16_t|int32_t|int64_t|index_t|auto)"
_CONST_WORD = re.compile(r"const(?:expr)?\b")
_CONST = re.compile(r"(?:\s+(?:static|inline|__device__|__host__|__constant__|constexpr|const))*\s+"
                    r"(?:" + _INT_TYPE + r"\s+)+([A-Za-z_]\w*)\s*(?:=\s*|\{\s*|\(\s*)([^;{}()]*(?:\([^;{}()]*\)[^;{}()]*)*)[;})]")
_ENUM = re.compile(r"enum\b(?:\s+(?:class|struct))?(?:\s+[A-Za-z_]\w*)?(?:\s*:\s*[\w\s]+?)?\s*\{([^{}]*)\}")
# template <int kWarpSize, ...> followed by a function (its name before the '(') or a class
_TEMPLATE_HEAD = re.compile(r"template\s*<([^<>{};]*(?:<[^<>{};]*>[^<>{};]*)*)>\s*(?:(?:struct|class)\s+([A-Za-z_]\w*)|"
                            r"[\w\s:*&<>,]*?\b([A-Za-z_]\w*)\s*\()")
_INT_PARAM = re.compile(r"\s*(?:unsigned\s+int|unsigned|int|size_t|uint32_t|int32_t|long)\s+([A-Za-z_]\w*)\s*$")
_DEFAULT = re.compile(r"=\s*([0-9][0-9a-fA-FxXuUlL]*)\s*(?=[,>)])")
_INT_TYPES = frozenset(_INT_TYPE[3:-1].split("|"))
_IDENT = re.compile(r"[A-Za-z_]\w*$")
_WORD_SPLIT = re.compile(r"[\s<(,]+")
_FN_MACRO_HEAD = re.compile(r"[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)\(")
_NAME_AT_END = re.compile(r"(?<![\w])([A-Za-z_]\w*)\s*$")
_INCLUDE = re.compile(r'#[ \t]*include[ \t]*"([^"\n]+)"')
_SHUFFLE = re.compile(r"(__shfl(?:_up|_down|_xor)?(?:_sync)?)\s*\(")
_VOTE = re.compile(r"(__ballot(?:_sync)?|__any(?:_sync)?|__all(?:_sync)?|__activemask|__match_(?:any|all)_sync)\s*\(")
_TOKEN = re.compile(r"\s*(?:(0[xX][0-9a-fA-F]+|0[bB][01]+|\d+)([uUlL]*)(?![\w.])|((?:std::|::)?[A-Za-z_]\w*)"
                    r"|(<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^~()<>?:,!]))")
_CONSTANT_CHARS = re.compile(r"[\w\s+\-*/%<>&|^~()?:,=!]*")
_MIN_MAX = {"min": min, "max": max, "std::min": min, "std::max": max, "::min": min, "::max": max}
_NAME = re.compile(r"[A-Za-z_]\w*")
_PER_32 = re.compile(r"/\s*32[uU]?\b|>>\s*5\b")
# a name in a lane role: `threadIdx.x % N`, `lane / N`, `tid & (N - 1)`, `lane & MASK`, `tid >> LOG`
_LANE_SOURCE = (r"(?:threadIdx\s*\.\s*[xyz]|(?<![\w.])(?:tid|ltid|lid|thread_?[Ii]d\w*|threadId\w*|local_?tid|\w*_tid"
                r"|\w*[Ll]ane\w*|LANE\w*)(?![\w(]))")
_LANE_ROLE = re.compile(_LANE_SOURCE + r"\s*\)?\s*(?:[%/]|>>|&)\s*(?:\(\s*([A-Za-z_]\w*)\s*-\s*1\s*\)|([A-Za-z_]\w*)(?![\w(]))")
# the same, found from the operator (a regular expression that starts with the lane source is tried at
# every identifier of the file: several times slower)
# (each branch starts with a literal, so that the regex engine can skip to it: 7x faster than `[%/]|...`)
_ROLE_OP = re.compile(r"(?:%|/|>>|&(?<!&&)(?!&))\s*(?:\(\s*([A-Za-z_]\w*)\s*-\s*1\s*\)|([A-Za-z_]\w*)(?![\w(]))")
_LANE_BEFORE = re.compile(_LANE_SOURCE + r"\s*\)?\s*$")
# the values a lane role gives a warp width: the width, its mask and its log2
ROLE_VALUES = (32, 31, 5)
MAX_HEADER_BYTES = 2_000_000
MAX_DEPTH = 6


@dataclass(frozen=True, slots=True)
class Const:
    """One definition of a named constant (slots: a big file defines tens of thousands, most of them
    const locals, and an instance dictionary each would cost more than its fields)."""

    name: str
    expr: str
    file: str  # as shown: relative to the scanned file's folder, joined to its path
    line: int
    kind: str  # define | const | enum | default
    pos: int = -1  # byte offset of the name in the scanned file (-1: in a header)


@dataclass
class Value:
    """What a name evaluates to: its value (None: not a constant porter can compute) and the warp
    root it comes from (None: not warp-related)."""

    const: Const
    value: int | None
    root: Const | None = None


@dataclass
class Unit:
    consts: dict[str, list[Const]] = field(default_factory=dict)
    values: dict[str, Value] = field(default_factory=dict)
    shuffles: int = 0
    width32: int = 0
    votes: int = 0
    headers: tuple[str, ...] = ()
    own: FileFacts | None = None  # the scanned file's own facts
    warp_params: dict = field(default_factory=dict)  # template -> (index, parameter, file, line): FileFacts.warp_params
    wrappers: dict[str, bool] = field(default_factory=dict)  # shuffle wrapper -> passes width 32
    counts: set = field(default_factory=set)  # roots that count warps (BLOCK / 32), not their width
    lane_roles: frozenset = frozenset()  # names used in lane roles anywhere in the unit (FileFacts.lane_roles)
    header_paths: tuple = ()  # (shown, path on disk) of each project header, in include order

    @property
    def warp_names(self) -> dict[str, Value]:
        """The warp roots and the constants derived from them, by name."""
        return {n: v for n, v in self.values.items() if v.root is not None}

    @property
    def logical32(self) -> bool:
        """Every shuffle of the unit has width 32 and no vote spans the wave."""
        return self.shuffles > 0 and self.width32 == self.shuffles and self.votes == 0

    def value_of(self, text: str) -> int | None:
        return evaluate(text, self.lookup)

    def lookup(self, name: str) -> int | None:
        v = self.values.get(name)
        if v is None and name in self.consts:
            v = _value(self, name, 0)  # evaluated on first use: most constants are never asked for
        return v.value if v is not None else None

    def root_of(self, text: str) -> Const | None:
        """The warp root an expression uses (through any of its names).  Every name that can have
        a root is evaluated when the unit is built (``build_unit``)."""
        for m in re.finditer(r"[A-Za-z_]\w*", text):
            v = self.values.get(m.group())
            if v is not None and v.root is not None:
                return v.root
        return None


# ------------------------------------------------------------------------ evaluation
def evaluate(text: str, lookup, depth: int = 0) -> int | None:
    """Integer value of a C constant expression of literals, names (``lookup``), + - * / % << >>
    & | ^ ~ and parentheses; None when it is not one."""
    return evaluate_tokens(tokenized(text), lookup)


class _Name(str):
    """A name in a ``tokenized`` expression: looked up when the expression is evaluated."""

    __slots__ = ()


@functools.lru_cache(maxsize=4096)
def tokenized(text: str) -> tuple[tuple, bool]:
    """``text`` read into tokens once, for ``evaluate_tokens`` (an expression evaluated many times, say
    once per thread of a block, is read once): literals as ints, operators as strings, names as
    ``_Name`` (looked up at evaluation, in order), min/max calls as ("call", fn); and whether the
    whole text was read (the tokens stop where a character is not part of a constant expression)."""
    tokens: list = []
    pos = 0
    text = text.strip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            if text[pos:].strip() == "":
                break
            return tuple(tokens), False
        pos = m.end()
        if m.group(1):
            lit = m.group(1)
            tokens.append(int(lit, 16) if lit[:2] in ("0x", "0X") else int(lit[2:], 2) if lit[:2] in ("0b", "0B")
                          else int(lit, 8) if len(lit) > 1 and lit[0] == "0" else int(lit))
        elif m.group(3):
            if m.group(3) in _MIN_MAX and text[pos:].lstrip().startswith("("):
                tokens.append(("call", _MIN_MAX[m.group(3)]))  # min(a, b) / std::max(a, b): a cap like min(kWarpSize, 32)
                continue
            tokens.append(_Name(m.group(3)))
        else:
            tokens.append(m.group(4))
    return tuple(tokens), True


def evaluate_tokens(expr: tuple[tuple, bool], lookup) -> int | None:
    """``evaluate`` of an expression read by ``tokenized``: its names are looked up in order (none after
    the first that has no value), then the arithmetic."""
    items, whole = expr
    tokens = []
    for t in items:
        if type(t) is _Name:
            v = lookup(str(t))
            if v is None:
                return None
            tokens.append(v)
        else:
            tokens.append(t)
    if not whole or not tokens:
        return None
    try:
        value, rest = _parse(tokens, 0, 0)
    except (IndexError, ValueError, ZeroDivisionError, TypeError):
        return None
    return value if rest == len(tokens) else None


# C's precedences, lowest first; the conditional operator binds below all of them
_BINARY = {"||": 1, "&&": 2, "|": 3, "^": 4, "&": 5, "==": 6, "!=": 6, "<": 7, "<=": 7, ">": 7, ">=": 7,
           "<<": 8, ">>": 8, "+": 9, "-": 9, "*": 10, "/": 10, "%": 10}


def _parse(tokens, i, min_prec):
    lhs, i = _unary(tokens, i)
    while i < len(tokens) and isinstance(tokens[i], str) and tokens[i] in _BINARY and _BINARY[tokens[i]] >= min_prec:
        op = tokens[i]
        rhs, i = _parse(tokens, i + 1, _BINARY[op] + 1)
        lhs = _apply(op, lhs, rhs)
    if min_prec == 0 and i < len(tokens) and tokens[i] == "?":  # cond ? a : b (right-associative)
        then, i = _parse(tokens, i + 1, 0)
        if i >= len(tokens) or tokens[i] != ":":
            raise ValueError
        other, i = _parse(tokens, i + 1, 0)
        lhs = then if lhs else other
    return lhs, i


def _unary(tokens, i):
    t = tokens[i]
    if t == "(":
        v, i = _parse(tokens, i + 1, 0)
        if tokens[i] != ")":
            raise ValueError
        return v, i + 1
    if isinstance(t, tuple):  # ("call", min | max) ( a , b )
        if tokens[i + 1] != "(":
            raise ValueError
        args = []
        i += 2
        while True:
            v, i = _parse(tokens, i, 0)
            args.append(v)
            if tokens[i] == ",":
                i += 1
                continue
            if tokens[i] != ")" or len(args) != 2:
                raise ValueError
            return t[1](args), i + 1
    if t in ("-", "+", "~", "!"):
        v, i = _unary(tokens, i + 1)
        return (-v if t == "-" else v if t == "+" else int(not v) if t == "!" else ~v & 0xFFFFFFFF), i
    if isinstance(t, int):
        return t, i + 1
    raise ValueError


def _apply(op, a, b):
    if op in ("/", "%"):
        if b == 0:
            raise ZeroDivisionError
        q = abs(a) // abs(b) * (1 if (a >= 0) == (b >= 0) else -1)
        return q if op == "/" else a - q * b
    if op in ("<<", ">>") and not 0 <= b < 64:
        raise ValueError  # a negative or too wide shift: undefined in C++, no value
    return _OPERATORS[op](a, b)


_OPERATORS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "<<": operator.lshift, ">>": operator.rshift,
              "&": operator.and_, "|": operator.or_, "^": operator.xor,
              "<": lambda a, b: int(a < b), "<=": lambda a, b: int(a <= b), ">": lambda a, b: int(a > b),
              ">=": lambda a, b: int(a >= b), "==": lambda a, b: int(a == b), "!=": lambda a, b: int(a != b),
              "&&": lambda a, b: int(bool(a and b)), "||": lambda a, b: int(bool(a or b))}


# ------------------------------------------------------------------------ reading definitions
def blanked_code(ctx) -> bytearray:
    """The scanned file's source with comments and literals blanked (same offsets, same lines; the
    paths of #include lines stay): made once per scan and shared (cached in the context) by the
    constants read here and the wave model, not copied (a 200 MB file's copy is 200 MB more).
    Read it, never change it."""
    code = ctx.cache.get("values.code")
    if code is None:
        code = ctx.cache["values.code"] = ctx.index.blanked(keep_includes=True, keep_newlines=True)
    return code


@dataclass
class FileFacts:
    consts: list[Const]
    includes: list[str]
    shuffles: int
    votes: int
    shuffle_spans: list[tuple[int, int, str | None]]  # (start, end, width argument) of every shuffle call
    wrappers: dict[str, str | None] = field(default_factory=dict)  # macro/function that shuffles -> its width argument
    # a template with an integer parameter that is a warp width (by its name or its uses) or a block size
    # counted in waves: name -> (parameter index, parameter name, where shown, line, "width" | "block")
    warp_params: dict[str, tuple[int, str, str, int, str]] = field(default_factory=dict)
    # names used where a warp width goes: `threadIdx.x % N`, `lane / N`, `tid & (N - 1)`, a shuffle's width
    lane_roles: frozenset[str] = frozenset()
    code: bytes | None = None  # a header's code (comments and literals blanked), for porter.findings.wave


def read_facts(text: str, shown: str, in_scanned_file: bool, line_of=None) -> FileFacts:
    """The constants, includes, shuffles, votes and shuffle wrappers of one file's code text.
    Each search runs only where its keyword occurs (the scan's speed depends on it).  ``line_of``:
    the 1-based line of a position of ``text``, where the caller knows it already (the scanned
    file's index, when each character of the text is one byte of the source)."""
    newlines: list[int] | None = None

    def line(pos):  # a bisect over the newlines, found once: counting from the start per hit is quadratic
        nonlocal newlines
        if line_of is not None:
            return line_of(pos)
        if newlines is None:
            newlines = array.array("q", (m.start() for m in re.finditer("\n", text)))  # 8 bytes a line
        return bisect.bisect_left(newlines, pos) + 1

    def where(pos):
        return pos if in_scanned_file else -1

    consts: list[Const] = []
    if "define" in text:
        for m in _DEFINE.finditer(text):
            if not _line_head(text, m.start()):
                continue
            body = m.group(2).replace("\\\n", " ").strip()
            consts.append(Const(m.group(1), body, shown, line(m.start(1)), "define", where(m.start(1))))
    if "const" in text:
        for k in _CONST_WORD.finditer(text):
            if k.start() and (text[k.start() - 1].isalnum() or text[k.start() - 1] == "_"):
                continue
            m = _CONST.match(text, k.end())
            if m:
                consts.append(Const(m.group(1), m.group(2).strip(), shown, line(m.start(1)), "const", where(m.start(1))))
    if "enum" in text:
        for m in _ENUM.finditer(text):
            prev = None
            for item, base in _split_commas(m.group(1), m.start(1)):
                name_m = re.match(r"\s*([A-Za-z_]\w*)\s*(?:=\s*(.*))?$", item, re.S)
                if not name_m:
                    prev = None
                    continue
                expr = name_m.group(2).strip() if name_m.group(2) else (f"({prev}) + 1" if prev else "0")
                at = base + name_m.start(1)
                consts.append(Const(name_m.group(1), expr, shown, line(at), "enum", where(at)))
                prev = name_m.group(1)
    for m in _DEFAULT.finditer(text):
        if m.start() and text[m.start() - 1] in "=!<>+-*/%&|^":
            continue  # ==, <=, +=: not a default
        words = _WORD_SPLIT.split(text[max(0, m.start() - 64):m.start()].rstrip())
        if len(words) >= 2 and words[-2] in _INT_TYPES and _IDENT.match(words[-1]):
            at = text.rfind(words[-1], 0, m.start())
            consts.append(Const(words[-1], m.group(1), shown, line(at), "default", where(at)))
    includes = [m.group(1) for m in _INCLUDE.finditer(text) if _line_head(text, m.start())] if "include" in text else []
    spans = []
    wrappers: dict[str, str | None] = {}
    if "__shfl" in text:
        for m in _SHUFFLE.finditer(text):
            args, end = _call_args(text, m.end())
            width = _pending_width(m.group(1), args)
            spans.append((m.start(), end, width))
            owner = _owner(text, m.start())
            if owner is not None:
                wrappers.setdefault(owner, width)
    votes = 0
    if "__ballot" in text or "__any" in text or "__all" in text or "__activemask" in text or "__match_" in text:
        votes = sum(1 for m in _VOTE.finditer(text) if not _half_wave(text, m))
    warp_params = {}
    if "template" in text:
        for m in _TEMPLATE_HEAD.finditer(text):
            params = [p for p, _ in _split_commas(m.group(1), 0)]
            body = None
            for i, param in enumerate(params):
                pm = _INT_PARAM.match(param)
                if not pm or _NOT_A_WIDTH.search(pm.group(1)):
                    continue
                name = pm.group(1)
                role = "width" if _WARPISH.search(name) else None
                if role is None:
                    if body is None:
                        body = _template_body(text, m.end())
                    role = _param_role(body, name)
                if role is not None:
                    warp_params.setdefault(m.group(2) or m.group(3), (i, name, shown, line(m.start()), role))
                    break
    roles = set()
    if spans or votes or "__syncwarp" in text:
        for m in _ROLE_OP.finditer(text):
            name = m.group(1) or m.group(2)
            at = m.start()
            if name in roles or _LANE_BEFORE.search(text, at - 48 if at > 48 else 0, at) is None:
                continue
            if _near_warp_intrinsics(text, m.start()):
                roles.add(name)
        for _s, _e, width in spans:
            if width is not None and _IDENT.match(width):
                roles.add(width)
    return FileFacts(consts, includes, len(spans), votes, spans, wrappers, warp_params, frozenset(roles))


def _template_body(text: str, pos: int, limit: int = 20000) -> str:
    """The body that follows a template head at ``pos`` (to its matching brace), or ''."""
    brace = text.find("{", pos, pos + 2000)
    semi = text.find(";", pos, brace if brace >= 0 else pos + 2000)
    if brace < 0 or 0 <= semi < brace and "(" not in text[pos:semi]:
        return ""
    end = closing(text, brace, "{", "}", limit=limit)
    return text[brace:end + 1] if end is not None else text[brace:min(len(text), brace + limit)]


def _param_role(body: str, name: str) -> str | None:
    """What an integer template parameter is to the warp code of its template: a warp width
    (``threadIdx.x % N``, a shuffle's width, a shuffle loop from ``N / 2`` or to ``N``) or a block size
    counted in hardware waves (``N / warpSize``)."""
    if not body or name not in body:
        return None
    n = re.escape(name)
    if _WARP_INTRINSIC.search(body) and re.search(_LANE_SOURCE + r"\s*\)?\s*(?:[%/]|&)\s*\(?\s*" + n + r"\b", body):
        return "width"
    if "__shfl" in body:
        if re.search(r"__shfl\w*\s*\([^;]*,\s*" + n + r"\s*\)", body) or \
                re.search(r"=\s*\(?\s*" + n + r"\s*(?:/\s*2|>>\s*1)\s*\)?\s*;", body) or \
                re.search(r"for\s*\([^;]*;\s*\w+\s*<\s*" + n + r"\s*;", body):
            return "width"
    if re.search(r"(?<![\w.])" + n + r"\s*/\s*warpSize\b", body):
        return "block"
    if "<<<" in body:  # the block size of a launch, directly or through a variable: `dim3 blocks(N)`
        names = {name} | set(re.findall(r"(?:dim3|int|unsigned|size_t)\s+([A-Za-z_]\w*)\s*[({=]\s*" + n + r"\s*[)};,]",
                                        body))
        for m in re.finditer(r"([A-Za-z_]\w*)\s*(?:<[^<>;()]*>)?\s*<<<[^;]*?,\s*([A-Za-z_]\w*)\s*(?:,[^;]*?)?>>>", body):
            if m.group(2) in names:
                return "launch:" + m.group(1)
    return None


_WARP_INTRINSIC = re.compile(r"__shfl|__ballot|__any|__all|__activemask|__match_|__syncwarp|__reduce_\w+_sync")


def warpish(name: str) -> bool:
    """The name says warp or lane (WARP_SIZE, kLaneMask): a width by its name, not only by its uses."""
    return bool(_WARPISH.search(name))


def _near_warp_intrinsics(text: str, pos: int) -> bool:
    """A warp intrinsic in the function around ``pos`` (from the last `}` in column 0 before it to the
    next): `threadIdx.x % TILE` in a tiling kernel is no warp width."""
    start = text.rfind("\n}", 0, pos)
    end = text.find("\n}", pos)
    return _WARP_INTRINSIC.search(text, max(0, start), len(text) if end < 0 else end) is not None


def _line_head(text: str, pos: int) -> bool:
    """Only blanks stand between the start of the line and ``pos`` (a directive's #)."""
    start = text.rfind("\n", 0, pos) + 1
    return start == pos or not text[start:pos].strip(" \t")


def _owner(text: str, pos: int) -> str | None:
    """The function-like macro or the function whose body holds the shuffle at ``pos`` directly
    (not inside a nested block), i.e. a wrapper that other code calls instead of the shuffle."""
    line_start = text.rfind("\n", 0, pos) + 1
    m = _FN_MACRO_HEAD.match(text, line_start)
    if m is not None:
        return m.group(1)
    brace = text.rfind("{", 0, pos)
    if brace < 0 or "}" in text[brace:pos]:
        return None
    head = text[max(0, brace - 400):brace].rstrip()
    if head.endswith("const"):
        head = head[:-5].rstrip()
    if not head.endswith(")"):
        return None
    depth = 0
    for i in range(len(head) - 1, -1, -1):
        ch = head[i]
        if ch == ")":
            depth += 1
        elif ch == "(":
            depth -= 1
            if depth == 0:
                m = _NAME_AT_END.search(head, 0, i)
                if m is None or m.group(1) in ("if", "for", "while", "switch", "return", "sizeof"):
                    return None
                return m.group(1)
        elif ch in ";{}":
            return None
    return None


def _half_wave(text: str, vote) -> bool:
    """A ballot or vote that porter's lane-mask fix split per 32 lanes: ``(__ballot(p) >> (__lane_id() & 32))``."""
    if vote.group(1).startswith("__activemask"):
        return False
    _args, end = _call_args(text, vote.end())
    return bool(re.match(r"\s*>>\s*\(\s*__lane_id\s*\(\s*\)\s*&\s*32\s*\)", text[end:end + 40]))


def _pending_width(fn: str, args: list[str]) -> str | None:
    """The width argument's text of a shuffle (None: the default width)."""
    width_index = 3 if fn.endswith("_sync") else 2
    return args[width_index].strip() if len(args) > width_index else None


def _split_commas(text: str, base: int) -> list[tuple[str, int]]:
    pieces = top_level_pieces(text)
    if not text[pieces[-1][0]:].strip():
        pieces.pop()
    return [(text[s:e], base + s) for s, e in pieces]


def _call_args(text: str, pos: int) -> tuple[list[str], int]:
    """Top-level arguments of a call whose '(' ends just before ``pos``."""
    spans, end = call_arguments(text, pos, limit=4000)
    return [text[s:e] for s, e in spans], end


# ------------------------------------------------------------------------ headers
_HEADER_CACHE: dict[str, tuple[tuple[int, int], FileFacts | None]] = {}


def header_code(path: str) -> bytes | None:
    """A project header's code text (comments and literals blanked), as read for its facts."""
    cached = _HEADER_CACHE.get(path)
    if cached is None:
        facts = _header_facts(path, path)
    else:
        facts = cached[1]
    return facts.code if facts is not None else None


def _header_facts(path: str, shown: str) -> FileFacts | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    key = (st.st_mtime_ns, st.st_size)
    cached = _HEADER_CACHE.get(path)
    if cached is not None and cached[0] == key:
        facts = cached[1]
        if facts is not None and facts.consts and facts.consts[0].file != shown:
            facts = FileFacts([Const(c.name, c.expr, shown, c.line, c.kind) for c in facts.consts], facts.includes,
                              facts.shuffles, facts.votes, facts.shuffle_spans, facts.wrappers,
                              {k: (i, n, shown, ln, r) for k, (i, n, _s, ln, r) in facts.warp_params.items()},
                              facts.lane_roles, facts.code)
        return facts
    facts = None
    if st.st_size <= MAX_HEADER_BYTES and os.path.isfile(path):
        try:
            with open(path, "rb") as f:
                data = f.read(MAX_HEADER_BYTES + 1)
        except OSError:
            data = None
        if data is not None and b"\0" not in data[:4096]:
            code = bytes(index_source(data).blanked(keep_includes=True, keep_newlines=True))
            facts = read_facts(code.decode("utf-8", "replace"), shown, False)
            facts.code = code  # the wave model reads the header's functions from it
    _HEADER_CACHE[path] = (key, facts)
    return facts


def _resolve(include: str, folder: str) -> str | None:
    """A quoted include found next to the including file or in one of the folders above it."""
    if os.path.isabs(include):
        return None
    d = folder
    for _ in range(4):
        candidate = os.path.normpath(os.path.join(d, include))
        if os.path.isfile(candidate):
            return candidate
        parent = os.path.dirname(d)
        if parent == d:
            break
        d = parent
    return None


def headers_of(file: str, includes: list[str], shown_path: str) -> list[tuple[str, FileFacts]]:
    """The project headers a file includes (recursively, each once), in include order, as
    (shown path, facts).  ``shown_path``: how the scanned file is named in findings."""
    return [(shown, facts) for shown, _path, facts in header_files(file, includes, shown_path)]


def header_files(file: str, includes: list[str], shown_path: str) -> list[tuple[str, str, FileFacts]]:
    """``headers_of`` with each header's path on disk: (shown path, path, facts)."""
    root_dir = os.path.dirname(os.path.abspath(file))
    shown_dir = os.path.dirname(shown_path)
    out: list[tuple[str, str, FileFacts]] = []
    seen = {os.path.abspath(file)}

    def visit(incs, folder, depth):
        if depth > MAX_DEPTH:
            return
        for inc in incs:
            path = _resolve(inc, folder)
            if path is None or path in seen:
                continue
            seen.add(path)
            rel = os.path.relpath(path, root_dir)
            shown = os.path.normpath(os.path.join(shown_dir, rel)) if shown_dir else rel
            facts = _header_facts(path, shown)
            if facts is None:
                continue
            visit(facts.includes, os.path.dirname(path), depth + 1)  # what a header includes comes first
            out.append((shown, path, facts))

    visit(includes, root_dir, 0)
    return out


# ------------------------------------------------------------------------ the unit
def build_unit(own: FileFacts, headers: list[tuple[str, FileFacts]], roles: frozenset = frozenset()) -> Unit:
    """The unit of a file's facts and its headers'; ``roles``: lane-role names its includers use."""
    unit = Unit(headers=tuple(s for s, _ in headers))
    for _shown, facts in headers:
        for c in facts.consts:
            unit.consts.setdefault(c.name, []).append(c)
    for c in own.consts:
        unit.consts.setdefault(c.name, []).append(c)
    unit.lane_roles = frozenset().union(own.lane_roles, roles, *(f.lane_roles for _s, f in headers))
    for name in _may_have_root(unit.consts, unit.lane_roles):
        _value(unit, name, 0)  # the others are evaluated when asked for (Unit.lookup)
    all_facts = [f for _s, f in headers] + [own]
    for facts in all_facts:
        for k, v in facts.warp_params.items():
            unit.warp_params.setdefault(k, v)
        unit.shuffles += facts.shuffles
        unit.votes += facts.votes
        for _s, _e, width in facts.shuffle_spans:
            if width is not None and unit.value_of(width) == 32:
                unit.width32 += 1
        for name, width in facts.wrappers.items():
            unit.wrappers[name] = width is not None and unit.value_of(width) == 32
    return unit


def _may_have_root(consts: dict[str, list[Const]], roles: frozenset = frozenset()) -> list[str]:
    """The names that can hold a warp root, in definition order: warp or lane names, names used in
    lane roles, and the names whose expressions use one of those (transitively).  A root comes from
    nowhere else (_value)."""
    found = {n for n in consts if _WARPISH.search(n) or n in roles}
    if not found:
        return []
    uses = {n: {m.group() for c in defs for m in _NAME.finditer(c.expr)} for n, defs in consts.items() if n not in found}
    grew = True
    while grew:
        grew = False
        for n, names in uses.items():
            if n not in found and not names.isdisjoint(found):
                found.add(n)
                grew = True
    return [n for n in consts if n in found]


def _value(unit: Unit, name: str, depth: int) -> Value | None:
    if name in unit.values:
        return unit.values[name]
    defs = unit.consts.get(name)
    if not defs or depth > 16:
        return None
    unit.values[name] = Value(defs[-1], None)  # a cycle guard while evaluating

    def lookup(n):
        r = _value(unit, n, depth + 1)
        return r.value if r is not None else None

    # an expression with a member, call, index or literal of another kind is no constant (most
    # const locals: `const int lane = threadIdx.x & 31`): not worth tokenising
    results = [evaluate(c.expr, lookup) if _CONSTANT_CHARS.fullmatch(c.expr) else None for c in defs]
    const = defs[-1]
    value = results[0] if all(v == results[0] for v in results) else None
    root = None
    if value is not None:  # only compile-time constants carry a warp width on to their uses
        for m in _NAME.finditer(const.expr):
            dep = unit.values.get(m.group())
            if dep is not None and dep.root is not None:
                root = dep.root
                break
        if root is None and name in unit.lane_roles and value in ROLE_VALUES and not _NOT_A_WIDTH.search(name):
            root = const  # any name, used where a warp width goes (threadIdx.x % N, a shuffle's width)
        if root is None and _WARPISH.search(name):
            if not _NOT_A_WIDTH.search(name) and value in WARP_VALUES:
                root = const  # the width itself (or 31, 16, 5 of it)
            elif _PER_32.search(const.expr):
                root = const  # a warp count computed with 32 lanes
                unit.counts.add(name)
    result = Value(const if len(defs) == 1 else defs[-1], value, root)
    unit.values[name] = result
    return result


def unit_of(ctx) -> Unit:
    """The translation unit of the file a scan context holds (cached in the context)."""
    unit = ctx.cache.get("values.unit")
    if unit is None:
        text = blanked_code(ctx).decode("utf-8", "replace")
        # (blanked code keeps every newline where it is: in an ASCII file its lines are the index's)
        own = read_facts(text, ctx.path, True, ctx.index.line_of if ctx.source.isascii() else None)
        files = []
        disk = ctx.file
        if disk and own.includes:
            found = ctx.cache.get("values.header_files")  # (includes, files): found already (wave.unit_headers)
            files = list(found[1]) if found is not None and found[0] == own.includes else \
                header_files(disk, own.includes, ctx.path)
        headers = [(shown, facts) for shown, _path, facts in files]
        roles = frozenset()
        if disk and disk.endswith(HEADER_SUFFIXES) and any(
                _ROLE_LITERAL.match(c.expr) and not _WARPISH.search(c.name) for c in own.consts):
            roles = includer_roles(disk)  # a header that defines WS = 32: do the files that include it use it so?
        unit = build_unit(own, headers, roles)
        unit.own = own
        unit.header_paths = tuple((shown, path) for shown, path, _facts in files)
        ctx.cache["values.unit"] = unit
    return unit


HEADER_SUFFIXES = (".h", ".cuh", ".hpp", ".hh", ".inl", ".cuinl")
_ROLE_LITERAL = re.compile(r"^\(?\s*(?:32|31|5|0[xX]1[fF])[uU]?\s*\)?$")
_SOURCE_SUFFIXES = (".cu", ".cpp", ".cc", ".cxx", ".c", ".h", ".cuh", ".hpp", ".hh")
MAX_INCLUDERS = 64


def includers_beside(path: str, suffixes: tuple[str, ...]):
    """(file name, full path) of the files beside ``path`` with one of ``suffixes`` (at most MAX_INCLUDERS, by
    name), and the pattern of an ``#include "...name"`` of it: what a check of its includers reads."""
    folder, name = os.path.split(os.path.abspath(path))
    try:
        entries = sorted(e for e in os.listdir(folder) if e.endswith(suffixes) and e != name)
    except OSError:
        entries = []
    pattern = re.compile(r'#[ \t]*include[ \t]*"(?:[^"\n]*/)?' + re.escape(name) + '"')
    return [(e, os.path.join(folder, e)) for e in entries[:MAX_INCLUDERS]], pattern


def includer_roles(path: str) -> frozenset:
    """The lane-role names (``threadIdx.x % WS``) of the files beside a header that include it: a
    header that only defines ``WS = 32`` is read as a warp width when its includers use it so."""
    beside, pattern = includers_beside(path, _SOURCE_SUFFIXES)
    roles: set[str] = set()
    for entry, full in beside:
        facts = _header_facts(full, entry)
        if facts is None or facts.code is None or not facts.lane_roles:
            continue
        if pattern.search(facts.code.decode("utf-8", "replace")):
            roles |= facts.lane_roles
    return frozenset(roles)


def describe(v: Value) -> str:
    """'32, defined at warp.cuh:11' or '256 = 8 * WARP_SIZE, WARP_SIZE defined at warp.cuh:11'."""
    root = v.root
    where = f"{root.file}:{root.line}"
    if root is v.const:
        shown = v.value if v.value is not None else root.expr
        return f"{shown}, defined at {where}"
    value = f"{v.value} = " if v.value is not None else ""
    return f"{value}{_compact(v.const.expr)}, `{root.name}` defined at {where}"


def _compact(text: str, limit: int = 40) -> str:
    text = re.sub(r"\s+", " ", text).strip()
    return text if len(text) <= limit else text[:limit - 1] + "…"
