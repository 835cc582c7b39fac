"""C++ pieces the interpreter needs: errors, a line-preserving preprocessor, C scalar types with
their conversions and literal rules, and memory cells (``Buf``, ``Ptr``)."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import NamedTuple

from . import lanes as LN
from .lanes import UNDEFINED


class Located(Exception):
    def __init__(self, what, line=None):
        super().__init__(what)
        self.what, self.line = what, line

    def __str__(self):
        return f"{self.what} (line {self.line})" if self.line else str(self.what)


class Unsupported(Located):
    """A construct outside the modelled subset (node type or feature, source line)."""


class UndefinedBehaviour(Located):
    """C++ undefined behaviour met on a concrete lane (message, source line)."""


class CompileError(Located):
    """Code the platform's compiler would reject (e.g. a 32-bit mask to a ROCm ``_sync`` form)."""


def line_of(node):
    return node.start_point[0] + 1


# ------------------------------------------------------------------------------------ preprocessor

_COMMENT = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|//[^\n]*|/\*.*?\*/', re.S)
_TOK = re.compile(r'"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'|[A-Za-z_]\w*|\d[\w.]*')
_IDENT = re.compile(r"[A-Za-z_]\w*")


def _strip_comments(text):
    def blank(m):
        s = m.group()
        return s if s[0] in "\"'" else (" " if s.startswith("//") else re.sub(r"[^\n]", " ", s))
    return _COMMENT.sub(blank, text)


def _macro_args(text, j):
    """Arguments of a function-like macro call whose '(' is at ``j``; returns (args, end)."""
    depth, args, start, k = 0, [], j + 1, j
    while k < len(text):
        c = text[k]
        if c in "\"'" and (lit := _TOK.match(text, k)) is not None:
            k = lit.end()
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                args.append(text[start:k])
                return args, k + 1
        elif c == "," and depth == 1:
            args.append(text[start:k])
            start = k + 1
        k += 1
    raise CompileError("unterminated macro call")


def _expand(text, macros, hide=frozenset()):
    out, pos = [], 0
    while (m := _TOK.search(text, pos)) is not None:
        out.append(text[pos:m.start()])
        tok, pos = m.group(), m.end()
        if tok not in macros or tok in hide:
            out.append(tok)
            continue
        params, body = macros[tok]
        if body is None:
            raise Unsupported(f"preprocessor # or ## in macro {tok}")
        if params is None:
            out.append(_expand(body, macros, hide | {tok}))
            continue
        j = pos
        while j < len(text) and text[j].isspace():
            j += 1
        if j >= len(text) or text[j] != "(":
            out.append(tok)
            continue
        args, end = _macro_args(text, j)
        args = [_expand(a.replace("\n", " "), macros, hide).strip() for a in args]
        if params and params[-1] == "...":
            args = args[:len(params) - 1] + [", ".join(args[len(params) - 1:])]
            params = params[:-1] + ["__VA_ARGS__"]
        if args == [""] and not params:
            args = []
        if len(args) != len(params):
            raise CompileError(f"macro {tok} expects {len(params)} arguments")
        bind = dict(zip(params, args))
        body = _IDENT.sub(lambda x: bind.get(x.group(), x.group()), body)
        out.append(_expand(body, macros, hide | {tok}) + "\n" * text.count("\n", m.start(), end))
        pos = end
    out.append(text[pos:])
    return "".join(out)


def _pp_if(expr, macros):
    expr = re.sub(r"defined\s*\(\s*(\w+)\s*\)|defined\s+(\w+)", lambda m: "1" if (m[1] or m[2]) in macros else "0", expr)
    expr = _expand(expr, macros)
    expr = re.sub(r"\b(0[xX][0-9a-fA-F]+|\d+)[uUlL]+\b", r"\1", expr)
    expr = _IDENT.sub(lambda m: "1" if m.group() == "true" else "0", expr)
    expr = expr.replace("&&", " and ").replace("||", " or ").replace("/", "//")
    expr = re.sub(r"!(?!=)", " not ", expr)
    try:
        return bool(eval(expr, {"__builtins__": {}}))  # noqa: S307 - integers and operators only
    except Exception as exc:  # pragma: no cover - reported, not expected
        raise Unsupported(f"#if expression {expr!r}") from exc


def preprocess(text: str, predefined: dict[str, str] | None = None) -> str:
    """Textual preprocessing keeping line numbers: object-like and function-like ``#define``
    (no ``#``/``##``), ``#undef``, ``#if/#ifdef/#ifndef/#elif/#else/#endif``; ``#include``,
    ``#pragma`` and other directives become blank lines."""
    macros = {k: (None, str(v)) for k, v in (predefined or {}).items()}
    lines = _strip_comments(text).split("\n")
    out, chunk, stack = [], [], []  # stack: [this branch on, some branch taken, parent on]

    def on():
        return all(s[0] for s in stack)

    def flush():
        if chunk:
            out.extend(_expand("\n".join(chunk), macros).split("\n"))
            chunk.clear()

    i = 0
    while i < len(lines):
        line, n = lines[i], 1
        while line.endswith("\\") and i + n < len(lines):
            line, n = line[:-1] + " " + lines[i + n], n + 1
        i += n
        s = line.strip()
        if not s.startswith("#"):
            if on():
                chunk.extend([line] + [""] * (n - 1))
            else:
                out.extend([""] * n)
            continue
        flush()
        out.extend([""] * n)
        d = re.match(r"#\s*(\w*)\s*(.*)", s)
        word, rest = d[1], d[2].strip()
        if word in ("if", "ifdef", "ifndef"):
            parent = on()
            val = (rest.split()[0] in macros if word == "ifdef" else rest.split()[0] not in macros
                   if word == "ifndef" else parent and _pp_if(rest, macros)) if parent else False
            stack.append([val, val, parent])
        elif word == "elif":
            top = stack[-1]
            top[0] = top[2] and not top[1] and _pp_if(rest, macros)
            top[1] = top[1] or top[0]
        elif word == "else":
            top = stack[-1]
            top[0], top[1] = top[2] and not top[1], True
        elif word == "endif":
            stack.pop()
        elif not on():
            continue
        elif word == "define":
            m = re.match(r"(\w+)(\(([^)]*)\))?\s*(.*)", rest)
            params = None if m[2] is None else [p.strip() for p in m[3].split(",") if p.strip()]
            macros[m[1]] = (params, None if "#" in m[4] else m[4])  # stringising / pasting: refused if used
        elif word == "undef":
            macros.pop(rest.split()[0], None)
        elif word == "error":
            raise CompileError(f"#error {rest}")
    flush()
    return "\n".join(out)


# ------------------------------------------------------------------------------------ types

@dataclass(frozen=True)
class CType:
    kind: str  # "int" | "float" | "ptr" | "array" | "void" | "str" | "group" | "cgop" (groups.py)
    bits: int = 0
    signed: bool = False
    rank: int = 0
    name: str = ""
    elem: CType | None = None
    n: int = 0

    def __str__(self):
        if self.kind == "ptr":
            return f"{self.elem}*"
        if self.kind == "array":
            return f"{self.elem}[{self.n}]"
        return self.name


def _i(name, bits, signed, rank):
    return CType("int", bits, signed, rank, name)


BOOL = _i("bool", 1, False, 0)
CHAR, SCHAR, UCHAR = _i("char", 8, True, 1), _i("signed char", 8, True, 1), _i("unsigned char", 8, False, 1)
SHORT, USHORT = _i("short", 16, True, 2), _i("unsigned short", 16, False, 2)
INT, UINT = _i("int", 32, True, 3), _i("unsigned int", 32, False, 3)
LONG, ULONG = _i("long", 64, True, 4), _i("unsigned long", 64, False, 4)
LLONG, ULLONG = _i("long long", 64, True, 5), _i("unsigned long long", 64, False, 5)
FLOAT, DOUBLE = CType("float", 32, True, 0, "float"), CType("float", 64, True, 1, "double")
VOID, STR = CType("void", name="void"), CType("str", name="const char*")
_UNSIGNED_OF = {INT: UINT, LONG: ULONG, LLONG: ULLONG}
PRIMS = {
    "int": INT, "char": CHAR, "bool": BOOL, "float": FLOAT, "double": DOUBLE, "void": VOID, "short": SHORT,
    "unsigned": UINT, "signed": INT, "long": LONG,
    "size_t": ULONG, "ptrdiff_t": LONG, "int8_t": SCHAR, "uint8_t": UCHAR, "int16_t": SHORT, "uint16_t": USHORT,
    "int32_t": INT, "uint32_t": UINT, "int64_t": LONG, "uint64_t": ULONG, "intptr_t": LONG, "uintptr_t": ULONG,
}
SHFL_TYPES = (INT, UINT, LONG, ULONG, LLONG, ULLONG, FLOAT, DOUBLE)


def ptr(t):
    return CType("ptr", 64, elem=t)


def array(t, n):
    return CType("array", elem=t, n=n)


def sized_type(words):
    u, longs = "unsigned" in words, words.count("long")
    if "char" in words:
        return UCHAR if u else SCHAR if "signed" in words else CHAR
    if "double" in words:
        return DOUBLE
    if "short" in words:
        return USHORT if u else SHORT
    return [(INT, UINT), (LONG, ULONG), (LLONG, ULLONG)][longs][u]


def slots(t):
    """Size in memory cells: every scalar is one cell, an array n * its element's."""
    return t.n * slots(t.elem) if t.kind == "array" else 1


def sizeof(t):
    if t.kind == "array":
        return t.n * sizeof(t.elem)
    return 8 if t.kind == "ptr" else max(t.bits // 8, 1)


def promote(t):
    return INT if t.kind == "int" and t.rank < INT.rank else t


def common(a, b):
    """The usual arithmetic conversions."""
    if a.kind == "float" or b.kind == "float":
        return DOUBLE if DOUBLE in (a, b) else FLOAT
    if a.kind != "int" or b.kind != "int":
        raise CompileError(f"invalid operands {a} and {b}")
    a, b = promote(a), promote(b)
    if a == b:
        return a
    if a.signed == b.signed:
        return a if a.rank > b.rank else b
    u, s = (b, a) if a.signed else (a, b)
    if u.rank >= s.rank:
        return u
    return s if s.bits > u.bits else _UNSIGNED_OF[s]


def conv(v, t):
    """C conversion of one value to type ``t`` (UNDEFINED stays UNDEFINED)."""
    if v is UNDEFINED:
        return v
    k = t.kind
    if k == "int":
        if isinstance(v, Ptr):
            raise Unsupported(f"pointer to {t} conversion")
        if isinstance(v, float):
            if t is BOOL:
                return int(v != 0)
            if not math.isfinite(v):
                raise UndefinedBehaviour(f"conversion of {v} to {t}")
            v = int(v)
            lo = -(1 << (t.bits - 1)) if t.signed else 0
            if not lo <= v < lo + (1 << t.bits):
                raise UndefinedBehaviour(f"float value {v} out of range of {t}")
        if t.bits == 1:
            return int(v != 0)
        v &= (1 << t.bits) - 1
        return v - (1 << t.bits) if t.signed and v >> (t.bits - 1) else v
    if k == "float":
        if isinstance(v, Ptr):
            raise Unsupported("pointer to float conversion")
        try:
            v = float(v)
        except OverflowError:
            v = math.inf if v > 0 else -math.inf
        return LN.f32(v) if t.bits == 32 else v
    if k == "ptr":
        if isinstance(v, Ptr):
            return v
        raise Unsupported(f"conversion of {v!r} to pointer")
    if k == "void":
        return None
    if k in ("group", "cgop"):  # a cooperative group or a reduce operator: stateless, the same on every lane
        return v
    raise Unsupported(f"conversion to {t}")


def truth(x):
    return True if isinstance(x, Ptr) else x != 0


def idiv(x, y, mod):
    if y == 0:
        raise UndefinedBehaviour("integer division by zero")
    q = abs(x) // abs(y) * (1 if (x < 0) == (y < 0) else -1)
    return x - y * q if mod else q


def fdiv(x, y):
    try:
        return x / y
    except ZeroDivisionError:
        return math.nan if x == 0 or math.isnan(x) else math.copysign(math.inf, x) * math.copysign(1, y)


ARITH = {"+": lambda x, y: x + y, "-": lambda x, y: x - y, "*": lambda x, y: x * y,
          "&": lambda x, y: x & y, "|": lambda x, y: x | y, "^": lambda x, y: x ^ y}
CMP = {"<": lambda x, y: x < y, ">": lambda x, y: x > y, "<=": lambda x, y: x <= y,
        ">=": lambda x, y: x >= y, "==": lambda x, y: x == y, "!=": lambda x, y: x != y}


def literal_type(text):
    """(type, value) of a number literal, per [lex.icon] (long is 64-bit, as on LP64 Linux)."""
    neg = text.startswith("-")
    s = text.lstrip("-+").replace("'", "")
    low = s.lower()
    is_hex = low.startswith("0x")
    if not is_hex and ("." in s or "e" in low) or (is_hex and "p" in low):
        t = FLOAT if low.endswith("f") else DOUBLE
        v = float.fromhex(s) if is_hex else float(s.rstrip("fFlL"))
        return t, conv(-v if neg else v, t)
    m = re.fullmatch(r"(0[xX][0-9a-fA-F]+|0[bB][01]+|0[0-7]*|[1-9]\d*)([uUlL]*)", s)
    if not m:
        raise Unsupported(f"number literal {text}")
    digits, suf = m[1], m[2].lower()
    v = int(digits, 0) if not re.fullmatch(r"0[0-7]+", digits) else int(digits, 8)
    decimal = digits[0] != "0" or digits == "0"
    u, ls = "u" in suf, suf.count("l")
    cands = {0: [INT, LONG, LLONG] if decimal else [INT, UINT, LONG, ULONG, LLONG, ULLONG],
             1: [LONG, LLONG] if decimal else [LONG, ULONG, LLONG, ULLONG],
             2: [LLONG] if decimal else [LLONG, ULLONG]}[ls]
    if u:
        cands = [_UNSIGNED_OF.get(c, c) for c in cands]
    t = next((c for c in cands if v < (1 << (c.bits - c.signed))), ULLONG)
    return t, conv(-v, t) if neg else v


# ------------------------------------------------------------------------------------ memory

class Buf:
    """Memory cells: a per-lane local object, a per-block ``__shared__`` array, or a global array
    (for a kernel argument, the caller's own list)."""
    __slots__ = ("data", "name", "space")

    def __init__(self, data, name, space):
        self.data, self.name, self.space = data, name, space

    def __repr__(self):
        return f"<{self.space} {self.name}>"


class Ptr(NamedTuple):
    buf: Buf
    off: int


class Var:
    __slots__ = ("type", "addrs")

    def __init__(self, t, addrs):
        self.type, self.addrs = t, addrs


BAD_ADDR = (None, 0)
