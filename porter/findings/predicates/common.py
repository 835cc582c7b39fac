"""Helpers shared by the predicates: reading calls, masks and fix edits, and library-call facts."""

from __future__ import annotations

import bisect
import functools
import re

import tree_sitter as ts

from porter.findings.model import Fix, FixEdit
from porter.findings.predicates import word_regions
from porter.parse.lexical import JOINS_BEFORE

FULL_MASK = re.compile(r"^(?:0[xX][fF]{8}(?:[uU][lL]{0,2}|[lL]{1,2}[uU]?)?|~0[uU]?[lL]{0,2}|-1|\(\s*unsigned(?:\s+int)?\s*\)\s*-1|0[xX][fF]{16}[uU]?[lL]{0,2}|~\s*0[uU]?)$")


# names that by convention mean all 32 lanes, when their definition is in another file
FULL_MASK_NAME = re.compile(r"^(?:FULL_(?:WARP_)?MASK|(?:WARP_)?FULL_MASK|ALL_LANES(?:_MASK)?|FULL_LANE_MASK|kFullMask|FINAL_MASK|full_mask)$")


def args_of(call: ts.Node) -> list[ts.Node]:
    arguments = call.child_by_field_name("arguments")
    if arguments is None:
        return []
    return [c for c in arguments.named_children if c.type != "comment"]


def function_name(ctx, call: ts.Node) -> str:
    return ctx.text(call.child_by_field_name("function"))


def is_full_mask(ctx, node: ts.Node) -> bool:
    text = ctx.macro_value(ctx.text(node))
    if FULL_MASK.match(text.replace(" ", "") if text.startswith("(") else text):
        return True
    name = text
    if not re.match(r"^[A-Za-z_]\w*$", name):
        return False
    from porter.findings.predicates.mask_variables import declares, full_mask_line

    fn = ctx.function_of(node)
    if fn is not None and declares(ctx, fn, name):
        # the function's own variable or parameter (it hides any of the file's): full only when its one
        # declaration sets the full mask and nothing changes it before the call
        call = ctx.enclosing(node, "call_expression")
        return call is not None and node.type == "identifier" and full_mask_line(ctx, call, node) is not None
    # a const/constexpr variable of the file's scope (not a local of another function) set to a full mask
    if "const_masks" not in ctx.cache:
        ctx.cache["const_masks"] = _const_masks(ctx)
    offsets = ctx.cache["const_masks"].get(name)
    if offsets:
        return any(_file_scope(ctx, at) for at in offsets)
    return trusted_mask_name(ctx, name)


def trusted_mask_name(ctx, name: str) -> bool:
    """``name`` (no macro of the file or of the project headers it includes) is the full 32-lane mask.

    A project header's own declaration of it decides (``constexpr unsigned FULL_MASK = 0xffffffff;`` yes,
    ``= 0x0000ffff`` or an ``unsigned short`` no).  With none, a conventional name (FULL_MASK in
    warp_utils.cuh, a header porter cannot read) is trusted as that header's macro, unless the file shows it
    is no macro: it declares the name (a variable, a member, an enumerator ...), a macro of the file
    declares or assigns it, or ``using ns::NAME;`` brings it in (a macro there would not compile)."""
    if name in ctx.macros or not re.match(r"^[A-Za-z_]\w*$", name):
        return False
    seen = ctx.cache.setdefault("trusted_mask_name", {})
    if name not in seen:
        if _declared_in_file(ctx, name) or _declared_by_macro(ctx, name):
            seen[name] = False
        elif in_headers := _header_declarations(ctx, name):  # (read only when the file leaves it open)
            seen[name] = all(in_headers)
        else:
            seen[name] = bool(FULL_MASK_NAME.match(name)) and not _brought_in_by_using(ctx, name)
    return seen[name]


_NARROW = re.compile(r"\b(?:short|char|u?int(?:8|16)_t|bool)\b")


def _header_declarations(ctx, name: str) -> list[bool]:
    """Whether each declaration of ``name`` (no macro) in the project headers the file includes sets the
    full 32-bit mask in a type that holds it (empty: no header porter read declares it)."""
    if not ctx.file or not ctx.index.includes:
        return []
    from porter.findings.values import header_code, unit_of

    unit = unit_of(ctx)
    found = []
    for c in unit.consts.get(name, ()):
        if c.pos >= 0 or c.kind == "define":
            continue
        full = bool(FULL_MASK.match(c.expr.replace(" ", "") if c.expr.startswith("(") else c.expr))
        if full and c.kind != "enum":
            path = dict(unit.header_paths).get(c.file)
            code = header_code(path) if path else None
            lines = code.decode("utf-8", "replace").splitlines() if code is not None else []
            head = lines[c.line - 1].split(name)[0] if 0 < c.line <= len(lines) else "short"
            full = not _NARROW.search(head)  # (a line porter cannot read again: not trusted)
        found.append(full)
    return found


def _declared_by_macro(ctx, name: str) -> bool:
    """A ``#define`` of the file declares ``name`` (after a type word) or assigns it."""
    pattern = re.compile(rb"#[ \t]*define\b(?:[^\n\\]|\\.)*?(?:\b(?:const|constexpr|unsigned|signed|int|long|short|char|"
                         rb"auto|\w+_t)\s+" + re.escape(name.encode()) + rb"(?!\w)|(?<![\w.>])" + re.escape(name.encode())
                         + rb"\s*=(?!=))", re.S)
    return pattern.search(ctx.source) is not None


def _brought_in_by_using(ctx, name: str) -> bool:
    return re.search(rb"\busing\s+[\w:\s]*::\s*" + re.escape(name.encode()) + rb"\s*;", ctx.source) is not None


def _file_scope(ctx, at: int) -> bool:
    node = ctx.index.node_at(at, at + 1)
    return node is not None and ctx.function_of(node) is None


def _declared_in_file(ctx, name: str) -> bool:
    """The file declares ``name`` itself (a variable, a parameter, a template parameter, a member, an
    enumerator, a function): then it is no macro of another header, and its value is not the name's to say."""
    from porter.findings.predicates.mask_variables import declared_in

    seen = ctx.cache.setdefault("declared_in_file", {})
    if name not in seen:
        seen[name] = declared_in(ctx, 0, len(ctx.source), name)
    return seen[name]


_WIDE = re.compile(r"^(?:0[xX][fF]{16}[uU]?[lL]{0,2}|~0(?:[uU][lL]{2}|[lL]{2}[uU]?)|\(\s*(?:unsigned\s+long\s+long|uint64_t)\s*\)\s*(?:-1|~0\w*)|(?:uint64_t|unsigned\s+long\s+long)\s*\(.*\))$")


def is_wide_mask(ctx, node) -> bool:
    """A 64-bit mask (``0xffffffffffffffff``, ``~0ull``, ``(uint64_t)-1``): code written for ROCm >= 6.2."""
    return bool(_WIDE.match(ctx.macro_value(ctx.text(node))))


_CONST_INIT = re.compile(r"\bconst(?:expr)?\b[^;=(){}]*?\b([A-Za-z_]\w*)\s*=\s*([^;]+);")
_PIECE = 1 << 20


def _const_masks(ctx) -> dict[str, list[int]]:
    """{name: the byte offsets of its const declarations set to a full mask}"""
    # a match holds no ';' but its last: the text is read a piece at a time, each cut after a ';' (an ASCII
    # byte, never inside a UTF-8 sequence), so that a big file is never decoded whole (up to 4 bytes a byte)
    source, names, pos, n = ctx.source, {}, 0, len(ctx.source)
    while pos < n:
        stop = source.find(b";", pos + _PIECE) + 1 if pos + _PIECE < n else 0
        stop = stop or n
        piece = source[pos:stop]
        text = piece.decode("utf-8", "replace")
        for m in _CONST_INIT.finditer(text):
            if FULL_MASK.match(m.group(2).strip()):
                at = pos + len(text[:m.start(1)].encode("utf-8")) if not piece.isascii() else pos + m.start(1)
                names.setdefault(m.group(1), []).append(at)
        pos = stop
    return names


def outermost_function(ctx, node):
    """The top-level function around ``node`` (through lambdas and local classes), or None at file scope."""
    fn = ctx.function_of(node)
    while fn is not None and ctx.function_of(fn) is not None:
        fn = ctx.function_of(fn)
    return fn


def bare(node):
    """``node`` without the parentheses around it (None where they hold more than one expression)."""
    while node is not None and node.type == "parenthesized_expression":
        inner = [c for c in node.named_children if c.type != "comment"]
        node = inner[0] if len(inner) == 1 else None
    return node


def last_place(code, key: bytes, start: int, end: int) -> int:
    """Where the identifier ``key`` last occurs whole (not inside a longer identifier: ``n`` in ``int``) in
    ``code[start:end]``; -1 where it does not."""
    at = code.rfind(key, start, end)
    while at >= 0 and ((at > 0 and code[at - 1] in JOINS_BEFORE)
                       or (at + len(key) < len(code) and code[at + len(key)] in JOINS_BEFORE)):
        at = code.rfind(key, start, at)
    return at


def places_back(code, key: bytes, start: int, end: int):
    """Each place the identifier ``key`` occurs whole in ``code[start:end]``, from the last one back."""
    at = last_place(code, key, start, end)
    while at >= 0:
        yield at
        at = last_place(code, key, start, at)


def matches_back(rx, code, key: bytes, start: int, end: int):
    """The matches of ``rx`` (a declaration pattern with a ``name`` group) named at each place the identifier
    ``key`` occurs whole in ``code[start:end]``, from the last place back (named_at's)."""
    for at in places_back(code, key, start, end):
        m = named_at(rx, code, at, len(key))
        if m is not None:
            yield m


# what is not namespace scope: a name declared inside one of these (a parameter, a local, a class member, a
# prototype's parameter) is not the file's; nodes of _FLAT hold none of them and are not walked
_INNER_SCOPES = frozenset({"function_definition", "lambda_expression", "parameter_list", "field_declaration_list",
                           "compound_statement", "template_parameter_list"})
_FLAT = frozenset({"initializer_list", "string_literal", "raw_string_literal", "char_literal", "comment",
                   "preproc_arg", "number_literal", "identifier"})


def _inner_scopes(root) -> tuple[list[int], list[int]]:
    """The starts and ends of the outermost _INNER_SCOPES nodes under ``root``, in order (they do not nest)."""
    spans = []
    stack = [root]
    while stack:
        for c in stack.pop().children:
            if c.type in _INNER_SCOPES:
                spans.append((c.start_byte, c.end_byte))
            elif c.child_count and c.type not in _FLAT:
                stack.append(c)
    spans.sort()
    return [s for s, _e in spans], [e for _s, e in spans]


def _inner_scope_start(ctx, at: int) -> int:
    """The start of the function, parameter list or class body that holds byte ``at``; -1 at namespace scope.
    Read from the tree that holds ``at`` (in a big file its region's, made once per scan for this)."""
    index = ctx.index
    k = index.region_index(at)
    scopes = ctx.cache.setdefault("common.inner_scopes", {})
    found = scopes.get(k)
    if found is None:
        found = scopes[k] = _inner_scopes(index.region_tree(k).root_node)
    starts, ends = found
    i = bisect.bisect_right(starts, at) - 1
    return starts[i] if i >= 0 and at < ends[i] else -1


def file_scope_places(ctx, code, key: bytes, end: int):
    """Each place the identifier ``key`` occurs in ``code[:end]`` at namespace scope (not in a function, a
    parameter list, a class body), from the last one back; such a span's places are passed over at once."""
    at = last_place(code, key, 0, end)
    while at >= 0:
        inner = _inner_scope_start(ctx, at)
        if inner >= 0:
            at = last_place(code, key, 0, inner)
            continue
        yield at
        at = last_place(code, key, 0, at)


def named_at(rx, code, at: int, size: int, reach: int = 240):
    """The match of ``rx`` (a pattern with a ``name`` group) whose name is the ``size`` bytes at ``at``, with
    at most ``reach`` bytes of it before: a declaration found from the name's place, not by running a
    pattern with no literal prefix over a whole file."""
    for m in rx.finditer(code, max(0, at - reach), at + size + 40):
        if m.start("name") == at:
            return m
    return None


def identifier_nodes(ctx, start: int, end: int, name: str, root=None, kinds=("identifier",)):
    """The nodes of ``name`` (of one of ``kinds``) in bytes [start, end) of the file: not in comments, literals
    or macro bodies, not a member after '.'.  ``root``: a node that spans them (a function), whose tree they
    are taken from; else each from ``ctx.index.node_at``."""
    raw = name.encode()
    for m in re.compile(rb"(?<![\w.])" + re.escape(raw) + rb"(?!\w)").finditer(ctx.source, start, end):
        at = m.start()
        if root is None and ctx.index.is_protected(at):
            continue  # a comment or a literal (no tree is asked for it)
        node = root.descendant_for_byte_range(at, at + len(raw)) if root is not None else \
            ctx.index.node_at(at, at + len(raw))
        if node is None or node.type not in kinds or node.start_byte != at or node.end_byte != at + len(raw):
            continue
        if node.parent is not None:
            yield node


def target_before(ctx, version: str) -> bool:
    """The conversion targets a ROCm older than ``version`` (``--target-rocm``; read once per file)."""
    key = ("target_before", version)
    older = ctx.cache.get(key)
    if older is None:
        from porter.mapping import version_key

        older = ctx.cache[key] = version_key(ctx.options.target) < version_key(version)
    return older


def edit(start: int, end: int, replacement: str) -> FixEdit:
    return FixEdit(start, end, replacement)


def fix(description: str, *edits: FixEdit, safe: bool = True) -> Fix:
    return Fix(safe, description, tuple(sorted(edits, key=lambda e: (e.start_byte, e.end_byte))))


def compact(text: str, limit: int = 60) -> str:
    text = re.sub(r"\s+", " ", text).strip()
    return text if len(text) <= limit else text[:limit - 1] + "…"


def library_calls(ctx, names, arguments: bool = True):
    """(start, end, word, argument spans) of each use of one of ``names`` (bytes) outside comments and
    literals that is neither a member nor a declaration of the name: a library call the argument rules
    (PORT179-182) look at.  With ``arguments``, only calls (a name followed by an argument list), with the
    byte spans of their arguments; otherwise every such use, with None."""
    from porter.translate.call_args import argument_spans
    from porter.translate.engine import occurrences

    index = ctx.index
    for pos, word in occurrences(ctx.source, frozenset(names)):
        if index.is_protected(pos):
            continue
        end = pos + len(word)
        spans = None
        if arguments:
            spans = argument_spans(index, end)
            if spans is None:
                continue  # not a call
        node = index.node_at(pos, end)
        if node is None or node.type == "field_identifier" or (
                node.parent is not None and node.parent.type == "function_declarator"):
            continue  # a member, or a declaration of the name
        yield pos, end, word, spans


def macro_arguments(count: int, expected: int, library: str) -> str:
    """What PORT179-181 say of a call whose visible argument count is not CUDA's (a macro supplies some):
    porter cannot fit them to the library's list and leaves the call as written."""
    return (f"the call passes {count} argument{'' if count == 1 else 's'} where CUDA's list has {expected} (a macro "
            f"supplies some), so porter cannot fit them to {library}'s list and leaves the call as written")


class LibraryFacts:
    """The facts a library-call rule reads, keyed by the CUDA names (bytes) it looks for, built on first use
    (``build``) and kept; ``applies(ctx)``: whether a file can hold such a call (a cheap test of its bytes and
    options); ``regions``: the rule's FILE_REGIONS hint, the regions whose text names one of the functions
    where the rule applies to the file (None where it does not); ``calls``: what the rule's check reads."""

    def __init__(self, build, applies):
        self._build = build
        self.applies = applies

    @functools.cached_property
    def facts(self) -> dict:
        return self._build()

    @functools.cached_property
    def _region_test(self):
        return word_regions(tuple(self.facts))

    def regions(self, ctx):
        return self._region_test if self.applies(ctx) else None

    def calls(self, ctx, arguments: bool = True):
        """(start, end, word, argument spans, fact) of each use ``library_calls`` finds of one of the names,
        in a file the rule applies to (none in another)."""
        if not self.applies(ctx):
            return
        facts = self.facts
        for pos, end, word, spans in library_calls(ctx, facts, arguments):
            yield pos, end, word, spans, facts[word]
