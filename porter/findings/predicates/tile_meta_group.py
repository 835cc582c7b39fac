"""Where a thread_block_tile comes from: PORT032's fix for ``tile.meta_group_rank()`` / ``tile.meta_group_size()``
at a target ROCm that lacks them, and the block that PORT071's fix partitions in place of a tile (a tile of a
tile, below).

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
BLOCK_PARENT = "block"


def _partition(ctx, fn, body: str, tile: str, before: int) -> tuple[int, str, str, int] | None:
    """(N, the parent as written, BLOCK_PARENT or TILE_PARENT, where) for tile ``tile`` of function ``fn`` (its
    text ``body``): declared once there, before byte ``before``, as ``tiled_partition<N>(p)`` with
    cooperative_groups' names, N a constant power of two up to 64, and neither assigned again nor declared
    otherwise; BLOCK_PARENT where p is this_thread_block() or a thread_block of ``fn`` declared once (or a
    parameter) and never assigned, TILE_PARENT where p is declared in ``fn`` from tiled_partition too (a tile:
    the caller checks it).  None where the tile or its parent is not known for certain."""

    def position(m) -> int:
        return fn.start_byte + len(body[:m.start()].encode("utf-8"))

    declarations = [d for d in _tile_declarations(body, tile) if not ctx.index.is_protected(position(d[0]))]
    if len(declarations) != 1:
        return None
    m, sizes, parent, qualifiers = declarations[0]
    where = position(m)
    n = _size(ctx, sizes)
    if n is None or where >= before or not all(cg_scope(ctx, q) for q in qualifiers) \
            or _assigned(body, tile, [m]) or _declared_elsewhere(ctx, fn, tile, [where]):
        return None
    parent = re.sub(r"\s+", "", parent)
    if not parent.endswith("this_thread_block()"):  # a named parent: a thread_block of this function
        blocks = [(b, q) for b, q in _block_declarations(body, parent) if not ctx.index.is_protected(position(b))]
        if len(blocks) != 1:
            return (n, parent, TILE_PARENT, where) if next(_tile_declarations(body, parent), None) is not None else None
        b, qualifiers = blocks[0]
        if not all(cg_scope(ctx, q) for q in qualifiers) \
                or _assigned(body, parent, [b]) or _declared_elsewhere(ctx, fn, parent, [position(b)]):
            return None
    return n, parent, BLOCK_PARENT, where


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
    parted = _partition(ctx, fn, body, tile, call.start_byte)
    if parted is None:
        return None
    n, parent, kind, _where = parted
    if kind == TILE_PARENT:
        return TILE_PARENT
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


# ---------------------------------------------------------------- a tile partitioned from a tile (PORT071)
# CUDA Programming Guide, "tiled_partition": a tile of a thread_block_tile<M> is a row-major tiling of the
# parent's ranks, so sub-tile j of tile k (block ranks k*M .. k*M+M-1) holds block ranks k*M+j*N ..
# k*M+j*N+N-1: the threads of tile k*M/N+j of tiled_partition<N>(block), with the same thread_rank() (rank
# mod N), size() and shuffles, where N divides M.  Only meta_group_rank()/meta_group_size() differ: j and M/N
# under the tile, k*M/N+j and the block's count under the block.  HIP (every ROCm through 6.3) defines
# tiled_partition<N> for a thread_block parent only.
_MAX_DEPTH = 4


def _block_of(ctx, fn, body: str, tile: str, before: int, depth: int = 0) -> tuple[str, int] | None:
    """(the block as written, M) where tile ``tile`` is a tiled_partition<M> of that block, directly or
    through tiles of the function each of whose sizes divides its parent's (``_partition`` at every step)."""
    parted = _partition(ctx, fn, body, tile, before)
    if parted is None:
        return None
    m, parent, kind, where = parted
    if kind == BLOCK_PARENT:
        return parent, m
    up = _block_of(ctx, fn, body, parent, where, depth + 1) if depth < _MAX_DEPTH else None
    if up is None or up[1] % m:
        return None
    return up[0], m


_CG_CALL_BEFORE = re.compile(r"(?:(" + _NAME + r")\s*::\s*)?(?:reduce|sync)\s*\(\s*\Z")
_PARTITION_BEFORE = re.compile(r"(?:(" + _NAME + r")\s*::\s*)?tiled_partition\s*<[^<>()]*>\s*\(\s*\Z")


def _meta_group_unread(ctx, fn, call) -> bool:
    """Nothing reads meta_group_rank()/meta_group_size() of the tile ``call`` makes, for certain: the call is
    a member call's object (not those two), the group of a cooperative-groups reduce or sync, or the value of
    ``s = ...`` (a declaration or an assignment) whose name ``s`` the function uses only in member calls
    other than those two, as the group of a reduce or sync, or as the parent of a tiled_partition."""
    up = call.parent
    if up is not None and up.type == "field_expression" and up.child_by_field_name("argument") == call:
        field = up.child_by_field_name("field")
        return field is not None and ctx.text(field) not in MEMBERS
    before = ctx.source[fn.start_byte:call.start_byte].decode("utf-8", "replace")
    m = _CG_CALL_BEFORE.search(before)
    if m and cg_scope(ctx, m.group(1)):
        return True
    m = re.search(r"(?<![\w.>:])(" + _NAME + r")\s*=\s*\Z", before)
    if m is None:
        return False
    name, declared_at = m.group(1), m.start(1)
    body = ctx.source[fn.start_byte:fn.end_byte].decode("utf-8", "replace")
    for use in re.finditer(r"(?<![\w.])(?<!->)(?<!::)" + re.escape(name) + r"(?!\w)", body):
        if use.start() == declared_at or ctx.index.is_protected(fn.start_byte + len(body[:use.start()].encode("utf-8"))):
            continue
        member = re.match(r"\s*\.\s*(" + _NAME + r")\s*\(", body[use.end():])
        if member is not None and member.group(1) not in MEMBERS:
            continue
        head = body[:use.start()]
        group = _CG_CALL_BEFORE.search(head) or _PARTITION_BEFORE.search(head)
        if group is not None and cg_scope(ctx, group.group(1)) and re.match(r"\s*[,)]", body[use.end():]):
            continue
        return False
    return True


def block_partition(ctx, call, tile: str, n: int) -> tuple[str, int, bool] | None:
    """For ``tiled_partition<n>(tile)`` (``call``, in a function, not in a lambda or a macro), ``tile`` a tile
    of the function: (the block ``tile`` is partitioned from, as written, the tile's size M, whether nothing
    reads the new tile's meta_group_rank()/meta_group_size()) where n divides M, so that
    ``tiled_partition<n>(block)`` makes the same threads; None where the block or M is not certain."""
    scopes = scopes_of(ctx, call)
    if len(scopes) != 1 or scopes[0].type != "function_definition" or n < 1 or n & (n - 1):
        return None
    up = call.parent
    while up is not None:
        if up.type in ("preproc_def", "preproc_function_def"):
            return None
        up = up.parent
    fn = scopes[0]
    body = ctx.source[fn.start_byte:fn.end_byte].decode("utf-8", "replace")
    found = _block_of(ctx, fn, body, tile, call.start_byte)
    if found is None or found[1] % n:
        return None
    return found[0], found[1], _meta_group_unread(ctx, fn, call)
