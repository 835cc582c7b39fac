"""Inline PTX -> HIP: the idiom table (``ptx_idioms.toml``) and the helpers that
read an asm statement's template and operands and build the replacement."""

from __future__ import annotations

import codecs
import functools
import re
import warnings
from dataclasses import dataclass
from pathlib import Path

import tree_sitter as ts

from porter.mapping.cache import load_toml

IDIOMS_FILE = Path(__file__).with_name("ptx_idioms.toml")
_PLACEHOLDER = re.compile(r"\{([a-e])\}")
_OPERAND_OR_IMM = r"(%\d+|[-+]?(?:0[xX][0-9a-fA-F]+|\d+)[uU]?)"
_SIMPLE_EXPR = re.compile(r"^[A-Za-z_][\w.]*(?:\[[^\[\]]*\])?$|^[-+]?(?:0[xX][0-9a-fA-F]+|\d+)[uUlL]*$")


@dataclass(frozen=True)
class Idiom:
    asm: str
    regex: re.Pattern
    names: tuple[str, ...]
    replace: str | None = None
    builder: str | None = None
    safe: bool = True
    note: str = ""
    include: str = ""  # the CUDA header the replacement needs (the fix adds it when missing)
    replace_native: str | None = None  # the replacement in code written for the native wave (warpSize)


@dataclass(frozen=True)
class Hint:
    prefix: str
    regex: re.Pattern
    text: str


def _compile(pattern: str, anchored_end: bool) -> tuple[re.Pattern, tuple[str, ...]]:
    parts = []
    names = []
    pos = 0
    for m in _PLACEHOLDER.finditer(pattern):
        parts.append(re.escape(pattern[pos:m.start()]))
        if m.group(1) in names:
            parts.append(f"(?P={m.group(1)})")
        else:
            parts.append(f"(?P<{m.group(1)}>{_OPERAND_OR_IMM[1:-1]})")
            names.append(m.group(1))
        pos = m.end()
    parts.append(re.escape(pattern[pos:]))
    return re.compile("^" + "".join(parts) + ("$" if anchored_end else "")), tuple(names)


@functools.cache
def tables() -> tuple[tuple[Idiom, ...], tuple[Hint, ...]]:
    doc = load_toml(IDIOMS_FILE)
    idioms = []
    for raw in doc.get("idiom", []):
        regex, names = _compile(normalise(raw["asm"]), True)
        idioms.append(Idiom(raw["asm"], regex, names, raw.get("replace"), raw.get("builder"),
                            raw.get("safe", True), raw.get("note", ""), raw.get("include", ""),
                            raw.get("replace_native")))
    hints = []
    for raw in doc.get("hint", []):
        regex, _ = _compile(normalise(raw["prefix"]), False)
        hints.append(Hint(raw["prefix"], regex, raw["text"]))
    return tuple(idioms), tuple(hints)


def normalise(template: str) -> str:
    """One canonical spelling of a PTX template: escapes decoded, whitespace collapsed,
    no space around commas or brackets, ``%%`` -> ``%``, trailing ``;`` dropped."""
    t = template.replace("%%", "%")
    t = re.sub(r"\s+", " ", t).strip()
    t = re.sub(r"\s*([,\[\]])\s*", r"\1", t)
    t = re.sub(r"(?<=[,\[])\s+", "", t)
    t = t.rstrip("; ").strip()
    return t


def _string_value(text: str) -> str:
    inner = text[1:-1] if len(text) >= 2 and text[0] == '"' and text[-1] == '"' else text
    if "\\" not in inner:
        return inner  # no escape to decode
    try:
        with warnings.catch_warnings():  # PTX templates hold escapes C has and Python lacks ("\;")
            warnings.simplefilter("ignore", DeprecationWarning)
            return codecs.decode(inner.encode("latin-1", "backslashreplace"), "unicode_escape")
    except (UnicodeDecodeError, ValueError):
        return inner


def template_of(source: bytes, asm: ts.Node) -> str | None:
    """The assembler template (string literals joined), or None when it is not literal (e.g. a macro)."""
    code = asm.child_by_field_name("assembly_code")
    if code is None:
        for child in asm.named_children:
            if child.type in ("string_literal", "concatenated_string"):
                code = child
                break
    if code is None:
        return None
    pieces = [code] if code.type == "string_literal" else [c for c in code.named_children if c.type == "string_literal"]
    if not pieces:
        return None
    return "".join(_string_value(source[p.start_byte:p.end_byte].decode("utf-8", "replace")) for p in pieces)


def operands(source: bytes, asm: ts.Node) -> tuple[list[tuple[str, str]], list[tuple[str, str]], bool]:
    """(outputs, inputs, has_clobbers): each operand as (constraint, C++ expression)."""
    outs: list[tuple[str, str]] = []
    ins: list[tuple[str, str]] = []
    clobbers = False
    for child in asm.named_children:
        target = outs if child.type == "gnu_asm_output_operand_list" else ins if child.type == "gnu_asm_input_operand_list" else None
        if child.type == "gnu_asm_clobber_list":
            clobbers = any(c.type == "string_literal" for c in child.named_children)
        if target is None:
            continue
        for op in child.named_children:
            if op.type not in ("gnu_asm_output_operand", "gnu_asm_input_operand"):
                continue
            constraint = op.child_by_field_name("constraint")
            value = op.child_by_field_name("value")
            if constraint is None or value is None:
                strings = [c for c in op.named_children if c.type == "string_literal"]
                exprs = [c for c in op.named_children if c.type != "string_literal"]
                if not strings or not exprs:
                    continue
                constraint, value = strings[0], exprs[-1]
            ctext = _string_value(source[constraint.start_byte:constraint.end_byte].decode("utf-8", "replace"))
            vtext = source[value.start_byte:value.end_byte].decode("utf-8", "replace")
            target.append((ctext, vtext))
    return outs, ins, clobbers


@functools.lru_cache(maxsize=4096)
def instructions(template: str) -> tuple[str, ...]:
    """The instructions of a template, normalised (split at ';' and newlines).  Kept per template:
    several rules ask for the same asm statement, and a project repeats its asm idioms."""
    return tuple(n for n in (normalise(p) for p in re.split(r"[;\n]", template.replace("%%", "%"))) if n)


def is_ptx(template: str) -> bool:
    """True for PTX (dotted opcodes, %%registers, .reg blocks); False for an empty
    compiler barrier or AMDGCN assembly (s_*/v_*/ds_* mnemonics)."""
    insts = instructions(template)
    if not insts:
        return False
    for inst in insts:
        op = inst.split(" ", 1)[0].lstrip("{").strip()
        if not op or op in ("}",):
            continue
        if re.match(r"^(?:[svp]|ds|buffer|global|flat|scratch|exp|image)_\w+$", op):
            continue  # AMDGCN mnemonic
        return True
    return False


def _paren(expr: str) -> str:
    expr = expr.strip()
    return expr if _SIMPLE_EXPR.match(expr) else f"({expr})"


def lop3_expression(a: str, b: str, c: str, lut: int) -> str:
    """A bitwise C++ expression for PTX lop3 with truth table ``lut`` (a=0xF0, b=0xCC, c=0xAA)."""
    lut &= 0xFF
    if lut == 0:
        return "0u"
    if lut == 0xFF:
        return "0xffffffffu"
    known = {0xF0: "{a}", 0xCC: "{b}", 0xAA: "{c}", 0x0F: "~{a}", 0x33: "~{b}", 0x55: "~{c}",
             0x96: "{a} ^ {b} ^ {c}", 0x80: "{a} & {b} & {c}", 0xFE: "{a} | {b} | {c}",
             0xE8: "({a} & {b}) | ({a} & {c}) | ({b} & {c})", 0xCA: "({a} & {b}) | (~{a} & {c})",
             0xF8: "{a} | ({b} & {c})", 0xEA: "({a} & {b}) | {c}", 0x6A: "({a} & {b}) ^ {c}",
             0x78: "{a} ^ ({b} & {c})", 0x3C: "{a} ^ {b}", 0x5A: "{a} ^ {c}", 0x66: "{b} ^ {c}",
             0xC0: "{a} & {b}", 0xA0: "{a} & {c}", 0x88: "{b} & {c}", 0xFC: "{a} | {b}", 0xFA: "{a} | {c}",
             0xEE: "{b} | {c}", 0x1E: "{a} ^ ({b} | {c})", 0xB4: "{a} ^ ({b} & ~{c})", 0xD2: "{a} ^ (~{b} & {c})"}
    names = {"a": _paren(a), "b": _paren(b), "c": _paren(c)}
    if lut in known:
        return known[lut].format(**names)
    terms = []
    for i in range(8):
        if lut >> i & 1:
            bits = [(names["a"], i >> 2 & 1), (names["b"], i >> 1 & 1), (names["c"], i & 1)]
            terms.append("(" + " & ".join(v if on else f"~{v}" for v, on in bits) + ")")
    return " | ".join(terms)


def lop3_generic(a: str, b: str, c: str, lut: str) -> str:
    """lop3 with a truth table known only to the compiler (an "n" operand): each of the
    8 minterms is kept when its bit of ``lut`` is set."""
    names = [_paren(a), _paren(b), _paren(c)]
    lut = _paren(lut)
    terms = []
    for i in range(8):
        bits = [(names[0], i >> 2 & 1), (names[1], i >> 1 & 1), (names[2], i & 1)]
        minterm = " & ".join(v if on else f"~{v}" for v, on in bits)
        terms.append(f"((({lut}) >> {i} & 1) ? ({minterm}) : 0u)")
    return "(" + " | ".join(terms) + ")"


@dataclass
class Translation:
    replacement: str | None  # the C++ statement, or None (hint only)
    safe: bool
    advice: str  # what to use instead, for the message
    include: str = ""  # the CUDA header the replacement needs ("" = none beyond the runtime)
    native: str | None = None  # the replacement where the code follows the native wave (warpSize)


def translate_asm(template: str, outs: list[tuple[str, str]], ins: list[tuple[str, str]]) -> Translation | None:
    """The replacement for a one-instruction asm statement, or a hint, or None."""
    idioms, hints = tables()
    insts = instructions(template)
    if len(insts) == 1:
        inst = insts[0]
        ops = outs + ins
        for idiom in idioms:
            m = idiom.regex.match(inst)
            if not m:
                continue
            values: dict[str, str] = {}
            ok = True
            for name in idiom.names:
                token = m.group(name)
                if token.startswith("%"):
                    k = int(token[1:])
                    if k >= len(ops):
                        ok = False
                        break
                    constraint, expr = ops[k]
                    if name == "d":
                        if k >= len(outs) or not constraint.startswith("="):
                            ok = False
                            break
                        values[name] = expr.strip()
                    else:
                        if k < len(outs) and name != "d":
                            ok = False  # reading an output operand
                            break
                        values[name] = _paren(expr)
                else:
                    if name == "d":
                        ok = False
                        break
                    values[name] = token
            if not ok:
                break
            if "d" not in idiom.names and outs:
                break  # the asm writes something the idiom does not know about
            if idiom.builder == "lop3":
                lut = values.get("e", "")
                if not re.match(r"^(0[xX][0-9a-fA-F]+|\d+)[uU]?$", lut):
                    expr = lop3_generic(values["a"], values["b"], values["c"], lut)
                    return Translation(f"{values['d']} = {expr};", True,
                                       "a bitwise expression selected by the truth table (folded at compile time)")
                expr = lop3_expression(values["a"], values["b"], values["c"], int(lut.rstrip("uU"), 0))
                return Translation(f"{values['d']} = {expr};", True, f"the bitwise expression `{expr}`")
            replacement = idiom.replace.format(**values)
            advice = f"`{replacement}`" + (f" ({idiom.note})" if idiom.note else "")
            native = idiom.replace_native.format(**values) if idiom.replace_native else None
            return Translation(replacement, idiom.safe, advice, idiom.include, native)
    for inst in insts:
        for hint in hints:
            if hint.regex.match(inst):
                return Translation(None, False, hint.text)
    return None
