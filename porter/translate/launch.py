"""Call-site surgery on the syntax tree: the n-th argument of a call, and
``<<<...>>>`` launches rewritten to ``hipLaunchKernelGGL``."""

from __future__ import annotations

import re

import tree_sitter as ts

from porter import parse
from porter.translate.source_index import SourceIndex


def call_argument(tree: ts.Tree, source: bytes, name_start: int, name_end: int, n: int) -> tuple[int, int] | None:
    """Byte span of argument ``n`` of the call whose callee name spans [name_start, name_end)."""
    node = tree.root_node.descendant_for_byte_range(name_start, name_end)
    while node is not None and node.type != "call_expression":
        if node.type in ("argument_list", "compound_statement", "translation_unit"):
            return None
        node = node.parent
    if node is None:
        return None
    args = node.child_by_field_name("arguments")
    if args is None:
        return None
    named = [c for c in args.named_children if c.type != "comment"]
    if n >= len(named):
        return None
    return named[n].start_byte, named[n].end_byte


def _call_of(tree: ts.Tree, name_start: int, name_end: int) -> ts.Node | None:
    """The call expression whose callee is the name at [name_start, name_end)."""
    node = tree.root_node.descendant_for_byte_range(name_start, name_end)
    if node is None or node.type == "call_expression":
        return node
    parent = node.parent
    while parent is not None and parent.type in ("qualified_identifier", "template_function"):
        node, parent = parent, parent.parent
    if parent is not None and parent.type == "call_expression" and parent.child_by_field_name("function") == node:
        return parent
    return None


def argument_count(tree: ts.Tree, name_start: int, name_end: int) -> int | None:
    call = _call_of(tree, name_start, name_end)
    args = call.child_by_field_name("arguments") if call is not None else None
    if args is None:
        return None
    return len([c for c in args.named_children if c.type != "comment"])


def enclosing_callee(tree: ts.Tree, source: bytes, start: int, end: int) -> str | None:
    """Name of the function whose argument list directly contains the token at [start, end)."""
    node = tree.root_node.descendant_for_byte_range(start, end)
    while node is not None and node.type != "argument_list":
        if node.type in ("compound_statement", "translation_unit", "lambda_expression"):
            return None
        node = node.parent
    if node is None or node.parent is None or node.parent.type != "call_expression":
        return None
    fn = node.parent.child_by_field_name("function")
    if fn is None:
        return None
    text = source[fn.start_byte:fn.end_byte].decode("utf-8", "replace")
    return text.rsplit("::", 1)[-1]


def _text(source: bytes, node: ts.Node, edits) -> bytes:
    """Source of ``node`` with the edits that fall inside it applied."""
    from porter.translate.engine import apply_edits

    inner = [e.__class__(e.start - node.start_byte, e.end - node.start_byte, e.replacement, e.kind, e.name)
             for e in edits if node.start_byte <= e.start and e.end <= node.end_byte]
    return apply_edits(source[node.start_byte:node.end_byte], inner)


def _is_template(node: ts.Node) -> bool:
    if node.type in ("template_function", "template_method"):
        return True
    if node.type == "qualified_identifier":
        name = node.child_by_field_name("name")
        return name is not None and _is_template(name)
    return False


_WRAP_HEAD = b"void __porter_macro_body__() {\n"
_WRAP_TAIL = b"\n;}\n"


def _launch_edits(tree: ts.Tree, source: bytes, base: int, edits: list, limit: tuple[int, int] | None = None):
    """Launch rewrites found in ``tree`` (parsed from ``source``), with offsets shifted by ``base``
    into the file; yields (new_edit, edits_it_replaces)."""
    from porter.translate.engine import Edit

    for _, caps in parse.matches(parse.load_query("launch"), tree.root_node):
        call, kernel, config, args = caps["launch"][0], caps["kernel"][0], caps["config"][0], caps["args"][0]
        if call.has_error:
            continue
        lo, hi = call.start_byte + base, call.end_byte + base
        if limit is not None and not (limit[0] <= lo and hi <= limit[1]):
            continue
        inside = [e for e in edits if lo <= e.start and e.end <= hi]
        local = [Edit(e.start - base, e.end - base, e.replacement, e.kind, e.name) for e in inside]
        cfg = [_text(source, c, local) for c in config.named_children if c.type != "comment"]
        if not 2 <= len(cfg) <= 4:
            continue
        name = _text(source, kernel, local)
        if _is_template(kernel):
            name = b"HIP_KERNEL_NAME(" + name + b")"
        grid, block = (c if c.lstrip().startswith(b"dim3") else b"dim3(" + c + b")" for c in cfg[:2])
        shmem = cfg[2] if len(cfg) > 2 else b"0"
        stream = cfg[3] if len(cfg) > 3 else b"0"
        params = [_text(source, a, local) for a in args.named_children if a.type != "comment"]
        text = b"hipLaunchKernelGGL(" + b", ".join([name, grid, block, shmem, stream, *params]) + b")"
        yield Edit(lo, hi, text, "launch", "<<<>>>"), inside


# a launch's chevrons with blanks inside (`k << <grid, block >> > (args)`, as Visual Studio's formatter writes
# them): nvcc reads `<<` `<` and `>>` `>` as the launch tokens, clang only `<<<` and `>>>` ("expected expression")
_SPACED = re.compile(rb"<<\s+<|>>\s+>")


def spaced_chevrons(index: SourceIndex) -> list:
    """Edits that close up a launch's spaced chevrons to ``<<<`` and ``>>>`` (the tokens of a kernel call
    tree-sitter-cuda reads, with blanks inside), in code only (not in comments, literals or an
    ``operator<< <T>`` specialisation)."""
    from porter.translate.engine import Edit

    source = index.source
    if not _SPACED.search(source):
        return []
    code = index.blanked()
    out = []
    for m in _SPACED.finditer(code):
        start, end = m.span()
        node = index.node_at(start, end)
        if node is None or node.type not in ("<<<", ">>>") or node.parent is None \
                or node.parent.type != "kernel_call_syntax" or (node.start_byte, node.end_byte) != (start, end):
            continue
        out.append(Edit(start, end, node.type.encode(), "launch", node.type))
    return out


def rewrite_launches(index: SourceIndex, edits: list) -> list:
    """Replace each launch by ``hipLaunchKernelGGL(kernel, dim3(g), dim3(b), shmem, stream, args...)``,
    in code and inside ``#define`` bodies.

    The renames already planned inside a launch are folded into its new text, so
    the result stays a list of non-overlapping edits."""
    source = index.source
    out = list(edits)
    found = list(_launch_edits(index.tree, source, 0, out))
    for body in index.macro_bodies:
        text = source[body.start_byte:body.end_byte]
        if b"<<<" not in text:
            continue
        # a macro body is unparsed text: parse it on its own as the body of a function
        # (line continuations blanked so the snippet keeps the body's byte offsets)
        snippet = _WRAP_HEAD + text.replace(b"\\\n", b"  ").replace(b"\\\r\n", b"   ") + _WRAP_TAIL
        tree = parse.parse(snippet)
        base = body.start_byte - len(_WRAP_HEAD)
        found.extend(_launch_edits(tree, snippet, base, out, (body.start_byte, body.end_byte)))
    for new, inside in found:
        out = [e for e in out if e not in inside]
        out.append(new)
    return out

