"""PORT032's fix for ``tile.meta_group_rank()`` / ``tile.meta_group_size()`` at a target ROCm that lacks them.

HIP's thread_block_tile has the two members after ROCm 5.2 only (``porter query meta_group_rank``; absent from
HIP 5.2's amd_hip_cooperative_groups.h).  CUDA Programming Guide, "thread_block_tile": meta_group_rank() is the
linear rank of the tile within the set of tiles its parent was partitioned into, meta_group_size() the number of
those tiles, both ``unsigned long long``.  For ``t = tiled_partition<N>(p)`` that is p.thread_rank() / N and
(p.size() + N - 1) / N (a last partial tile counts), and HIP 5.2's thread_block has thread_rank() and size().

The fix is offered where nothing else can be meant: the receiver is a plain name declared once in the function
of the call, as ``[cg::]thread_block_tile<N> t = [cg::]tiled_partition<N>(p);`` or ``auto t = ...``, N a constant
power of two up to 64, and p either ``[cg::]this_thread_block()`` or a plain name declared once in that function
(or its parameter list) as a thread_block (``[cg::]thread_block p = [cg::]this_thread_block();``, ``auto p =
...``, a ``thread_block`` parameter); neither t nor p is assigned again, and the call is not in a lambda or a
macro.  The replacement reads only those names (nothing with a side effect is evaluated, nothing twice) and keeps
CUDA's type: ``((unsigned long long)p.thread_rank() / N)``.  A tile partitioned from a tile gets no fix: HIP 5.2
cannot make it (tiled_partition<N>(tile) instantiates an undefined template), so the port needs rewriting there.
"""

from __future__ import annotations

import re

from porter.findings.predicates.common import edit, fix
from porter.findings.predicates.cooperative_groups import INT_LITERAL, cg_scope, declared_name, scopes_of

MEMBERS = ("meta_group_rank", "meta_group_size")

_NAME = r"[A-Za-z_]\w*"
_QUAL = r"(?:(" + _NAME + r")\s*::\s*)?"  # an optional namespace qualifier, captured
_THIS_BLOCK = _QUAL + r"this_thread_block\s*\(\s*\)"


def _tile_declarations(body: str, name: str):
    """(match, size texts, parent text, namespace qualifiers written) of each declaration of tile ``name``
    from tiled_partition<N>(...) in ``body``.  Read from the text: tree-sitter parses
    ``cg::thread_block_tile<32> t = ...;`` as a comparison."""
    word = re.escape(name)
    partition = _QUAL + r"tiled_partition\s*<\s*([^<>,]+?)\s*>\s*\(\s*(" + _THIS_BLOCK + r"|" + _NAME + r")\s*\)\s*;"
    typed = re.compile(_QUAL + r"\bthread_block_tile\s*<\s*([^<>,]+?)\s*(?:,[^<>]*)?>\s*(?:const\s+)?&?\s*" + word
                       + r"\s*=\s*" + partition)
    auto = re.compile(r"\bauto\s*(?:const\s*)?&?\s*" + word + r"\s*=\s*" + partition)
    for m in typed.finditer(body):
        # groups: 1 the type's namespace, 2 its N, 3 tiled_partition's namespace, 4 its N, 5 the parent,
        # 6 this_thread_block's namespace
        yield m, (m.group(2), m.group(4)), m.group(5), _written(m, (1, 3), 5)
    for m in auto.finditer(body):
        yield m, (m.group(2),), m.group(3), _written(m, (1,), 3)


def _written(m, groups, parent: int) -> list:
    """The namespace qualifiers of the cooperative-groups names in match ``m`` (None for a name written
    unqualified): groups ``groups``, and the group after ``parent`` where the parent is this_thread_block()."""
    names = [m.group(g) for g in groups]
    if re.sub(r"\s+", "", m.group(parent)).endswith("this_thread_block()"):
        names.append(m.group(parent + 1))
    return names


def _block_declarations(body: str, name: str):
    """(match, namespace qualifiers written) of each declaration of ``name`` as a thread_block in ``body``
    (a variable or a parameter)."""
    word = re.escape(name)
    typed = re.compile(_QUAL + r"\bthread_block\s*(?:const\s*)?&?\s*" + word + r"\s*(?:=\s*" + _THIS_BLOCK
                       + r"\s*;|(?=[,)]))")
    auto = re.compile(r"\bauto\s*(?:const\s*)?&?\s*" + word + r"\s*=\s*" + _THIS_BLOCK + r"\s*;")
    for m in typed.finditer(body):
        yield m, [m.group(1)] + ([m.group(2)] if m.group(0).rstrip().endswith(";") else [])
    for m in auto.finditer(body):
        yield m, [m.group(1)]


def _assigned(body: str, name: str, declarations) -> bool:
    """``name`` is assigned somewhere in ``body`` other than in one of ``declarations`` (matches)."""
    for m in re.finditer(r"(?<![\w.>:])" + re.escape(name) + r"\s*=(?!=)", body):
        if not any(d.start() <= m.start() < d.end() for d in declarations):
            return True
    return False


def _declared_elsewhere(ctx, fn, name: str, positions) -> bool:
    """A declaration node of ``name`` in ``fn`` (a variable, a parameter, a for-init) that holds none of
    ``positions``: another ``name`` that a replacement could end up reading."""
    stack = [fn]
    while stack:
        n = stack.pop()
        stack.extend(n.named_children)
        if n.type in ("declaration", "parameter_declaration", "optional_parameter_declaration") \
                and not any(n.start_byte <= p < n.end_byte for p in positions):
            if any(declared_name(ctx, d) == name for d in n.children_by_field_name("declarator")):
                return True
    return False


def _size(ctx, texts) -> int | None:
    sizes = set()
    for text in texts:
        m = INT_LITERAL.match(ctx.macro_value(text))
        if m is None:
            return None
        sizes.add(int(m.group(1)))
    if len(sizes) != 1:
        return None
    n = sizes.pop()
    return n if 1 <= n <= 64 and n & (n - 1) == 0 else None


def _call_of(ctx, start: int, end: int):
    """(call, receiver name) of ``t.member()`` where the member's name spans [start, end)."""
    node = ctx.index.node_at(start, end)
    if node is None or node.type != "field_identifier":
        return None
    field = node.parent
    if field is None or field.type != "field_expression" or field.child_by_field_name("field") != node:
        return None
    op = field.child_by_field_name("operator")
    receiver = field.child_by_field_name("argument")
    call = field.parent
    if op is None or op.type != "." or receiver is None or receiver.type != "identifier" \
            or call is None or call.type != "call_expression" or call.child_by_field_name("function") != field:
        return None
    args = call.child_by_field_name("arguments")
    if args is None or any(c.type != "comment" for c in args.named_children) or call.has_error:
        return None
    up = call.parent
    while up is not None:
        if up.type in ("preproc_def", "preproc_function_def", "lambda_expression"):
            return None
        up = up.parent
    return call, ctx.text(receiver)


TILE_PARENT = "tile"


def rewrite(ctx, name: str, start: int, end: int) -> tuple[str, str, int, int] | str | None:
    """(replacement, parent text, start, end of the call) for ``t.meta_group_rank()`` or
    ``t.meta_group_size()`` whose member name spans [start, end); TILE_PARENT where t is partitioned from
    a tile; None where the tile's parent is not known for certain."""
    found = _call_of(ctx, start, end)
    if found is None:
        return None
    call, tile = found
    scopes = scopes_of(ctx, call)
    if len(scopes) != 1 or scopes[0].type != "function_definition":
        return None
    fn = scopes[0]
    body = ctx.source[fn.start_byte:fn.end_byte].decode("utf-8", "replace")

    def position(m) -> int:
        return fn.start_byte + len(body[:m.start()].encode("utf-8"))

    declarations = [d for d in _tile_declarations(body, tile) if not ctx.index.is_protected(position(d[0]))]
    if len(declarations) != 1:
        return None
    m, sizes, parent, qualifiers = declarations[0]
    where = position(m)
    n = _size(ctx, sizes)
    if n is None or where >= call.start_byte or not all(cg_scope(ctx, q) for q in qualifiers) \
            or _assigned(body, tile, [m]) or _declared_elsewhere(ctx, fn, tile, [where]):
        return None
    parent = re.sub(r"\s+", "", parent)
    if not parent.endswith("this_thread_block()"):  # a named parent: a thread_block of this function
        blocks = [(b, q) for b, q in _block_declarations(body, parent) if not ctx.index.is_protected(position(b))]
        if len(blocks) != 1:
            return TILE_PARENT if next(_tile_declarations(body, parent), None) is not None else None
        b, qualifiers = blocks[0]
        if not all(cg_scope(ctx, q) for q in qualifiers) \
                or _assigned(body, parent, [b]) or _declared_elsewhere(ctx, fn, parent, [position(b)]):
            return None
    if name == "meta_group_rank":
        text = f"((unsigned long long){parent}.thread_rank() / {n})" if n > 1 else f"((unsigned long long){parent}.thread_rank())"
    else:
        text = f"(((unsigned long long){parent}.size() + {n - 1}) / {n})" if n > 1 else f"((unsigned long long){parent}.size())"
    return text, parent, call.start_byte, call.end_byte


def meta_group_fix(ctx, name: str, start: int, end: int):
    """(the fix, a note for the message) for PORT032's ``name`` at [start, end): the fix where ``rewrite`` finds
    the tile's parent, else None and what to write by hand."""
    found = rewrite(ctx, name, start, end)
    formula = "p.thread_rank() / N" if name == "meta_group_rank" else "(p.size() + N - 1) / N"
    if found == TILE_PARENT:
        return None, "; no fix: this tile is partitioned from a tile, which HIP 5.2 cannot do either (tiled_partition<N>(tile))"
    if found is None:
        return None, f"; for a tile made by tiled_partition<N>(p) from a thread_block p, {name}() is {formula}"
    text, parent, call_start, call_end = found
    what = "the tile's rank among" if name == "meta_group_rank" else "the number of"
    return (fix(f"write {text}: {what} the tiles {parent} was partitioned into, as CUDA computes it "
                f"(unsigned long long)", edit(call_start, call_end, text)),
            f"; --fix writes {text}")
