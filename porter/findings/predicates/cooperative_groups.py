"""Cooperative groups: what HIP's cooperative groups lack or do differently (grid-wide sync without a
cooperative launch, reduce/scan/invoke_one and the other names HIP has no counterpart of, 32-thread tiles),
the rewrite of cg::reduce into tile shuffles, and the helpers that read the file's names of the
cooperative_groups namespace (also used by the cluster and tile checks)."""

from __future__ import annotations

import re

from porter.findings.engine import Hit
from porter.findings.predicates import node_check
from porter.findings.predicates.common import compact, edit, fix

INT_LITERAL = re.compile(r"^(\d+)[uUlL]*$")  # a decimal integer literal, its value in group 1


# ---------------------------------------------------------------- the file's names of cooperative_groups
_CG_ALIAS = re.compile(rb"\bnamespace\s+([A-Za-z_]\w*)\s*=\s*(?:::)?cooperative_groups\s*;")
_CG_USING = re.compile(rb"\busing\s+(?:namespace\s+(?:::)?([A-Za-z_]\w*)\s*;|(?:::)?([A-Za-z_]\w*)\s*::\s*(?:cluster_group|this_cluster)\s*;)")


def cg_names(ctx) -> tuple[frozenset[str], bool]:
    """The names of the cooperative_groups namespace in the file (``cooperative_groups``, ``cg``, its
    aliases), and whether unqualified cluster names reach it (a using-directive or -declaration)."""
    found = ctx.cache.get("cg_names")
    if found is None:
        names = {"cooperative_groups", "cg"}
        names.update(m.group(1).decode() for m in _CG_ALIAS.finditer(ctx.source))
        using = any((m.group(1) or m.group(2)).decode() in names for m in _CG_USING.finditer(ctx.source))
        found = ctx.cache["cg_names"] = (frozenset(names), using)
    return found


def is_cg_name(ctx, node) -> bool:
    """``node`` (a name, maybe qualified) names something of cooperative_groups."""
    names, using = cg_names(ctx)
    text = re.sub(r"\s+", "", ctx.text(node)).lstrip(":")
    if "::" not in text:
        return using
    scope = text.rsplit("::", 1)[0].split("::")
    return scope[0] in names


def scopes_of(ctx, node) -> list:
    """The functions (and lambdas) around ``node``, innermost first."""
    out = []
    fn = ctx.function_of(node)
    while fn is not None:
        out.append(fn)
        fn = ctx.function_of(fn)
    return out


def declared_name(ctx, decl) -> str | None:
    """The name a declarator (``*p``, ``&r``, ``x = ...``) declares."""
    while decl is not None and decl.type not in ("identifier",):
        inner = decl.child_by_field_name("declarator")
        if inner is None:
            inner = next((c for c in decl.named_children if c.type in ("identifier", "pointer_declarator", "reference_declarator")), None)
        decl = inner
    return ctx.text(decl) if decl is not None else None


def cg_scope(ctx, scope: str | None) -> bool:
    """A namespace qualifier written before a name (None: none written) reaches cooperative_groups."""
    names, using = cg_names(ctx)
    return using if scope is None else re.sub(r"[\s:]", "", scope) in names


# ---------------------------------------------------------------- cooperative-groups
@node_check("PORT070")
def grid_sync(ctx, node, caps):
    cooperative = ctx.cache.get("cooperative_launch")
    if cooperative is None:
        source = ctx.source
        cooperative = ctx.cache["cooperative_launch"] = bool(
            re.search(rb"\b(?:cuda|hip)LaunchCooperativeKernel\b", source) and re.search(rb"CooperativeLaunch\b", source))
    if cooperative:
        return None  # launched cooperatively after checking the attribute, in this file
    syncs = _grid_syncs(ctx, node)
    if syncs:  # the barrier is where a non-cooperative launch deadlocks: report it there
        return [Hit(c.start_byte, c.end_byte, {"call": compact(ctx.text(c), 40)}) for c in syncs]
    return Hit(node.start_byte, node.end_byte, {"call": compact(ctx.text(node), 40)})


def _sync_call_of(ctx, call, var: str | None) -> bool:
    """``var.sync()`` (``this_grid().sync()`` when var is None: checked by the caller) or ``cg::sync(var)``."""
    fn = call.child_by_field_name("function")
    if fn is None:
        return False
    if fn.type == "field_expression":
        arg, field = fn.child_by_field_name("argument"), fn.child_by_field_name("field")
        return field is not None and ctx.text(field) == "sync" and arg is not None and ctx.text(arg) == var
    if re.fullmatch(r"(?:(?:cg|cooperative_groups)::)?sync", ctx.text(fn)):
        args = [a for a in call.child_by_field_name("arguments").named_children if a.type != "comment"]
        return len(args) == 1 and ctx.text(args[0]) == var
    return False


def _grid_syncs(ctx, node) -> list:
    """The grid-wide sync() calls on the grid that ``this_grid()`` (``node``) returns, in its function."""
    parent = node.parent
    if parent is not None and parent.type == "field_expression" and parent.parent is not None and \
            parent.parent.type == "call_expression" and ctx.text(parent.child_by_field_name("field")) == "sync":
        return [parent.parent]  # this_grid().sync()
    var = None
    if parent is not None and parent.type == "init_declarator":
        var = ctx.text(parent.child_by_field_name("declarator"))
    elif parent is not None and parent.type == "assignment_expression":
        var = ctx.text(parent.child_by_field_name("left"))
    fn = ctx.function_of(node)
    if not var or fn is None or not re.fullmatch(r"[A-Za-z_]\w*", var):
        return []
    found, stack = [], [fn]
    while stack:
        n = stack.pop()
        if n.type == "call_expression" and n.start_byte > node.end_byte and _sync_call_of(ctx, n, var):
            found.append(n)
        stack.extend(n.named_children)
    return sorted(found, key=lambda n: n.start_byte)


_CG_CHECKED = "checked against HIP 5.2's amd_hip_cooperative_groups.h"
# what HIP's cooperative-groups guide (ROCm 6.2 on, "Unsupported NVIDIA CUDA features") says too
_CG_UNSUPPORTED_LATER = {"reduce", "scan", "invoke_one", "operator"}
_CG_ADVICE = {
    "reduce": "write the reduction with the tile's shfl_down in a loop",
    "scan": "write the scan with the tile's shfl_up in a loop",
    "invoke_one": "`if (g.thread_rank() == 0)`, with a tile shuffle to broadcast a result",
    "partition": "a ballot of the label and __popcll of the lanes below",
    "operator": "pass a lambda or write the operation out in the shuffle loop",
    "experimental": ("HIP has no experimental namespace: write the name without `experimental::` (HIP's "
                     "tiled_partition<N> of a thread_block takes N up to the wavefront, 64 on gfx942; a larger tile "
                     "becomes block-wide code with __shared__ memory and __syncthreads())"),
    "tile_memory": ("drop it and call this_thread_block() without an argument: HIP's tiles need no scratch, but a "
                    "thread_block_tile holds at most a wavefront (64 threads on gfx942), so a larger tile becomes "
                    "block-wide code with __shared__ memory and __syncthreads()"),
}


def _cg_what(name: str) -> str:
    if name.endswith(("reduce", "reduce.h")) or name == "cooperative_groups/reduce.h":
        return "reduce"
    if "scan" in name:
        return "scan"
    if "invoke_one" in name:
        return "invoke_one"
    if "partition" in name:
        return "partition"
    if "block_tile_memory" in name or "this_thread_block" in name:
        return "tile_memory"
    return "operator"


@node_check("PORT071")
def cg_unsupported(ctx, node, caps):
    if "exp" in caps:
        return _experimental_hit(ctx, node)
    if node.type == "qualified_identifier" and node.parent is not None and node.parent.type == "call_expression":
        return None  # reported as a call
    if "part" in caps:
        return _tile_of_tile_hit(ctx, node, caps["part"][0])
    what = ctx.text(caps["path"][0]) if "path" in caps else ctx.text(caps["fn"][0])
    start, end = node.start_byte, node.end_byte
    if "path" in caps and what.strip("<>\"") == "cooperative_groups/reduce.h":
        return _reduce_header_hit(ctx, node, what)
    if node.type == "call_expression" and re.search(r"(^|::)\s*reduce$", what):
        return _reduce_hit(ctx, node, what)
    if node.type == "template_type":  # cg::block_tile_memory<256>: the whole qualified type
        outer = node
        while outer.parent is not None and outer.parent.type == "qualified_identifier":
            outer = outer.parent
        if outer is node and not cg_names(ctx)[1]:
            return None  # an unqualified block_tile_memory with no using-directive: someone else's
        if outer is not node and not is_cg_name(ctx, outer):
            return None
        start, end, what = outer.start_byte, outer.end_byte, compact(ctx.text(outer), 50)
    elif what.endswith("this_thread_block"):  # this_thread_block(scratch): HIP's takes no argument
        fn = caps["fn"][0]
        if not is_cg_name(ctx, fn):
            return None
        what = compact(ctx.text(node), 50)
    kind = _cg_what(what)
    checked = _CG_CHECKED + ("; HIP's cooperative-groups guide lists it as unsupported in ROCm 6" if kind in _CG_UNSUPPORTED_LATER
                             else "")
    return Hit(start, end, {"what": what, "checked": checked, "advice": _CG_ADVICE[kind]})


def _experimental_hit(ctx, node):
    """``cg::experimental::NAME`` (or a namespace alias to cooperative_groups::experimental): HIP's
    cooperative groups have no experimental namespace.  block_tile_memory and this_thread_block(scratch) in it
    are reported by their own patterns (the same advice, once)."""
    if node.type == "namespace_alias_definition":
        spec = next(c for c in node.named_children if c.type == "nested_namespace_specifier")
        if not is_cg_name(ctx, spec):
            return None
    else:
        if not is_cg_name(ctx, node):
            return None
        last = re.sub(r"\s+", "", ctx.text(node)).rsplit("::", 1)[-1]
        call = node.parent if node.parent is not None and node.parent.type == "call_expression" else None
        if last.startswith("block_tile_memory") or last == "this_thread_block" and call is not None and _args(call):
            return None
        node = call or node
    return Hit(node.start_byte, node.end_byte, {"what": compact(ctx.text(node), 50), "checked": _CG_CHECKED,
                                                 "advice": _CG_ADVICE["experimental"]})


# ---------------------------------------------------------------- cooperative-groups: cg::reduce
# cg::reduce(group, value, op) (CUDA 11+, <cooperative_groups/reduce.h>; CUDA Programming Guide,
# "cooperative_groups::reduce"): every thread of the group gets op folded over the values of all the
# group's threads, of type T (the operator's argument type; the value is converted to T).  HIP has no
# reduce (no ROCm release through 6.3); it has thread_block_tile<N>::shfl_xor / shfl / size() and
# thread_rank() and coalesced_group::shfl / size() (amd_hip_cooperative_groups.h), which the rewrite uses:
# an immediately-invoked lambda evaluating the value once.
#   * the group is a variable declared thread_block_tile<N> (or initialised from tiled_partition<N>) in
#     the function, N a power of two <= 64: a butterfly, shfl_xor with offsets N/2 .. 1.  Each step
#     combines the lower rank's value with the higher rank's (the order less/greater need for NaN and
#     signed zeros), so every lane holds the same value after each step;
#   * any other group (a template parameter, a coalesced group): a fold over the ranks, r = 0 .. size()-1
#     of g.shfl(v, r), the same on every lane; it accepts every group CUDA's reduce accepts (a tile or a
#     coalesced group: both have shfl and size in HIP).
# No fix for another operator (a user's functor or lambda), an operator without a plain type argument,
# a group that is not a plain name, or a tile whose size is not a power of two up to 64.
_CG_OPS = {  # operator -> (how the butterfly combines lo and hi, how the rank fold combines r and w)
    "plus": "+", "bit_and": "&", "bit_or": "|", "bit_xor": "^", "less": "min", "greater": "max"}
_CG_OP = re.compile(r"^(?:((?:::)?\s*[A-Za-z_]\w*)\s*::\s*)?(plus|less|greater|bit_and|bit_or|bit_xor)\s*<\s*"
                    r"((?:(?:const|unsigned|signed|long|short|int|char|float|double)\b\s*)+|[A-Za-z_]\w*(?:\s*::\s*[A-Za-z_]\w*)*)"
                    r"\s*>\s*(?:\(\s*\)|\{\s*\})$")
_OWN_NAMES = ("porter_v", "porter_w", "porter_o", "porter_k", "porter_r", "porter_a", "porter_b", "porter_hi")


def _args(call) -> list:
    args = call.child_by_field_name("arguments")
    return [a for a in args.named_children if a.type != "comment"] if args is not None else []


def tile_sizes(ctx, call, name: str) -> set | None:
    """The sizes N (an int, or None for one that is no integer constant) with which ``name`` is declared
    in the function around ``call`` (a variable or a parameter) as a thread_block_tile<N>, or as ``auto``
    from tiled_partition<N>(...): an empty set where it is declared neither way, None where it has another
    declaration there (an int warp, a thread_group warp) or its type is not cooperative_groups'.
    Read from the text: tree-sitter parses ``cg::thread_block_tile<32> t = ...;`` as a comparison."""
    scopes = scopes_of(ctx, call)
    if not scopes:
        return None
    fn = scopes[-1]
    body = ctx.source[fn.start_byte:fn.end_byte].decode("utf-8", "replace")
    word = re.escape(name)
    tile = re.compile(r"(?:\b([A-Za-z_]\w*)\s*::\s*)?\bthread_block_tile\s*<\s*([^<>,]+?)\s*(?:,[^<>]*)?>\s*(?:const\b\s*)?&?\s*"
                      + word + r"\s*[=;,)({]")
    auto = re.compile(r"\bauto\s*(?:const\s*)?&?\s*" + word + r"\s*=\s*(?:([A-Za-z_]\w*)\s*::\s*)?tiled_partition\s*<\s*([^<>,]+?)\s*>\s*\(")
    sizes, where = set(), []
    for pattern in (tile, auto):
        for m in pattern.finditer(body):
            pos = fn.start_byte + len(body[:m.start()].encode("utf-8"))
            if ctx.index.is_protected(pos):
                continue
            if not cg_scope(ctx, m.group(1)):
                return None
            size = INT_LITERAL.match(ctx.macro_value(m.group(2)))
            sizes.add(int(size.group(1)) if size else None)
            where.append(pos)
    stack = [fn]
    while stack:  # any other declaration of the name (an int warp, a thread_group warp) rules the tile out
        n = stack.pop()
        stack.extend(n.named_children)
        if n.type in ("declaration", "parameter_declaration") and not any(n.start_byte <= w < n.end_byte for w in where):
            if any(declared_name(ctx, d) == name for d in n.children_by_field_name("declarator")):
                return None
    return sizes


def _tile_size_of(ctx, call, name: str) -> int | None:
    """N where ``name`` is declared in the function around ``call`` only as a thread_block_tile<N> (or as
    ``auto`` from tiled_partition<N>), N a power of two up to 64 (``tile_sizes``)."""
    sizes = tile_sizes(ctx, call, name)
    if not sizes or len(sizes) != 1:
        return None
    n = sizes.pop()
    return n if n is not None and 1 <= n <= 64 and n & (n - 1) == 0 else None


def _reduce_rewrite(ctx, call) -> tuple[str, str] | None:
    """(replacement, what it is) for ``cg::reduce(g, v, op)``, or None where no safe rewrite exists."""
    cache = ctx.cache.setdefault("cg_reduce", {})
    key = call.start_byte
    if key in cache:
        return cache[key]
    cache[key] = None
    args = _args(call)
    if len(args) != 3 or call.has_error:
        return None
    g, v = ctx.text(args[0]).strip(), ctx.text(args[1]).strip()
    m = _CG_OP.match(re.sub(r"\s+", " ", ctx.text(args[2])).strip())
    if not re.fullmatch(r"[A-Za-z_]\w*", g) or g in _OWN_NAMES or m is None or not cg_scope(ctx, m.group(1)):
        return None
    op, t = _CG_OPS[m.group(2)], m.group(3).strip()
    n = _tile_size_of(ctx, call, g)
    if n is not None:  # a butterfly over the tile's N lanes
        if op in ("min", "max"):
            pick = "porter_b < porter_a ? porter_b : porter_a" if op == "min" else "porter_a < porter_b ? porter_b : porter_a"
            step = (f"{{ {t} porter_w = {g}.shfl_xor(porter_v, porter_o); bool porter_hi = ({g}.thread_rank() & porter_o) != 0; "
                    f"{t} porter_a = porter_hi ? porter_w : porter_v; {t} porter_b = porter_hi ? porter_v : porter_w; "
                    f"porter_v = {pick}; }}")
        else:
            step = f"porter_v = porter_v {op} {g}.shfl_xor(porter_v, porter_o);"
        text = (f"[&]({t} porter_v) -> {t} {{ for (unsigned int porter_o = {n // 2}; porter_o > 0; porter_o /= 2) {step} "
                f"return porter_v; }}({v})")
        what = f"a butterfly over the {n}-thread tile ({g}.shfl_xor with offsets {n // 2} .. 1)" if n > 1 else "the value itself (a 1-thread tile)"
    else:  # a fold over the ranks, for a group whose kind is not known here
        combine = {"min": "porter_w < porter_r ? porter_w : porter_r", "max": "porter_r < porter_w ? porter_w : porter_r"}.get(
            op, f"porter_r {op} porter_w")
        text = (f"[&]({t} porter_v) -> {t} {{ {t} porter_r = {g}.shfl(porter_v, 0); "
                f"for (unsigned int porter_k = 1; porter_k < {g}.size(); ++porter_k) {{ {t} porter_w = {g}.shfl(porter_v, porter_k); "
                f"porter_r = {combine}; }} return porter_r; }}({v})")
        what = f"a fold over the ranks of {g} ({g}.shfl(v, r) for r = 0 .. {g}.size() - 1)"
    cache[key] = (text, what)
    return cache[key]


def _reduce_calls(ctx) -> list:
    """The cooperative-groups reduce calls of the file (cg::reduce, an alias's, an unqualified one under
    a using-directive), and any reduce.h name it uses outside them (reduce_update_async ...)."""
    found = ctx.cache.get("cg_reduce_calls")
    if found is None:
        found, stack = [], list(ctx.index.roots(lambda text: b"reduce" in text))
        while stack:
            n = stack.pop()
            stack.extend(n.named_children)
            if n.type != "call_expression":
                continue
            fn = n.child_by_field_name("function")
            if fn is None or fn.type not in ("identifier", "qualified_identifier"):
                continue
            m = re.fullmatch(r"(?:(.+?)\s*::\s*)?(reduce\w*)", ctx.text(fn).strip(), re.S)
            if m and cg_scope(ctx, m.group(1)) and (m.group(1) is not None or len(_args(n)) == 3):
                found.append(n)
        ctx.cache["cg_reduce_calls"] = found
    return found


def _reduce_hit(ctx, node, what):
    fn = node.child_by_field_name("function")
    names, using = cg_names(ctx)
    if "::" in what:
        if not is_cg_name(ctx, fn):
            return None
    elif not using or len(_args(node)) != 3:
        return None  # someone else's reduce
    checked = _CG_CHECKED + "; HIP's cooperative-groups guide lists it as unsupported in ROCm 6"
    rewrite = _reduce_rewrite(ctx, node)
    if rewrite is None:
        return Hit(node.start_byte, node.end_byte, {"what": what, "checked": checked, "advice": _CG_ADVICE["reduce"]})
    text, how = rewrite
    return Hit(node.start_byte, node.end_byte,
               {"what": what, "checked": checked, "advice": f"--fix writes it as a lambda computing {how}"},
               fix(f"an immediately-invoked lambda: {how}, the result on every thread of the group",
                   edit(node.start_byte, node.end_byte, text)))


def _reduce_header_hit(ctx, node, what):
    checked = _CG_CHECKED + "; HIP's cooperative-groups guide lists it as unsupported in ROCm 6"
    params = {"what": what, "checked": checked, "advice": _CG_ADVICE["reduce"]}
    calls = _reduce_calls(ctx)
    fixed = [c for c in calls if re.search(r"(^|::)\s*reduce$", ctx.text(c.child_by_field_name("function")))
             and _reduce_rewrite(ctx, c) is not None]
    if len(fixed) != len(calls):
        return Hit(node.start_byte, node.end_byte, params)  # a use --fix leaves: the header stays reported
    names, using = cg_names(ctx)
    spans = [(c.start_byte, c.end_byte) for c in fixed]
    ops = r"(?:(?:%s)\s*::\s*)%s(?:plus|less|greater|bit_and|bit_or|bit_xor)\s*<" % (
        "|".join(map(re.escape, sorted(names))), "?" if using else "")
    for m in re.finditer(ops.encode(), ctx.source):
        if not any(s <= m.start() < e for s, e in spans) and not ctx.index.is_protected(m.start()):
            return Hit(node.start_byte, node.end_byte, params)  # an operator used elsewhere (scan.h, a user's code)
    path = node.child_by_field_name("path")
    directive_end = path.end_byte if path is not None else node.end_byte
    has_cg = re.search(rb'#\s*include\s*[<"]cooperative_groups\.h[>"]', ctx.source) is not None
    replacement = "" if has_cg else "#include <cooperative_groups.h>"
    params["advice"] = "--fix " + ("drops it: every cg::reduce of the file is rewritten" if has_cg else
                                    "includes <cooperative_groups.h> instead: every cg::reduce of the file is rewritten")
    return Hit(node.start_byte, directive_end, params,
               fix("drop the include (every cg::reduce of the file is rewritten)" if has_cg else
                   "include <cooperative_groups.h> instead (every cg::reduce of the file is rewritten)",
                   edit(node.start_byte, directive_end, replacement)))


# ---------------------------------------------------------------- cooperative-groups: a tile of a tile
# tiled_partition<N>(t), t a thread_block_tile: HIP's impl::tiled_partition_internal<N, Parent> is specialised
# for a thread_block parent only (HIP 5.2's amd_hip_cooperative_groups.h, and every ROCm through 6.3: hipcc
# says "implicit instantiation of undefined template"; AMD's nested tiles came in late 2025).  The fix
# partitions the block t was partitioned from (tile_meta_group.block_partition: the same threads, ranks and
# shuffles); safe where nothing reads the new tile's meta_group_rank()/meta_group_size(), which would then
# count the block's tiles, a suggestion otherwise.
_PARTITION = re.compile(r"^(?:(.+?)\s*::\s*)?tiled_partition\s*<\s*([^<>]+?)\s*>$", re.S)
_TILE_CHECKED = ("a tile of the tile {}: HIP 5.2's amd_hip_cooperative_groups.h, like every ROCm release through 6.3, "
                 "defines tiled_partition<N> for a thread_block parent only (impl::tiled_partition_internal), so hipcc "
                 "reports an undefined template")


def _tile_of_tile_hit(ctx, node, part):
    """PORT071 at ``tiled_partition<N>(parent)`` where the parent is a tile: a thread_block_tile variable of
    the function (declared thread_block_tile<M> or from tiled_partition<M>), or a tiled_partition call."""
    from porter.findings.predicates import tile_meta_group  # it reads this module's helpers

    m = _PARTITION.match(ctx.text(part).strip())
    args = _args(node)
    if m is None or not cg_scope(ctx, m.group(1)) or len(args) != 1 or node.has_error:
        return None
    arg, size = args[0], INT_LITERAL.match(ctx.macro_value(m.group(2)))
    tile = "the parent tile" if arg.type == "call_expression" else ctx.text(arg)
    n = int(size.group(1)) if size else None
    if arg.type == "call_expression":
        inner = arg.child_by_field_name("function")
        im = _PARTITION.match(ctx.text(inner).strip()) if inner is not None else None
        if im is None or not cg_scope(ctx, im.group(1)):
            return None
        parent, sizes = compact(ctx.text(arg), 40), None
    elif arg.type == "identifier":
        parent, sizes = ctx.text(arg), tile_sizes(ctx, node, ctx.text(arg))
        if not sizes:
            return None  # no tile of the function's (a thread_block, a template parameter)
    else:
        return None
    what, checked = compact(ctx.text(node), 40), _TILE_CHECKED.format(parent)
    m_text = str(next(iter(sizes))) if sizes and len(sizes) == 1 and None not in sizes else "M"
    n_text = str(n) if n is not None else "N"
    found = tile_meta_group.block_partition(ctx, node, parent, n) if n is not None and arg.type == "identifier" else None
    if found is None:
        advice = (f"partition the thread_block that {tile} comes from, tiled_partition<{n_text}>(block) (in a "
                  f"function that only gets the tile, cg::this_thread_block()): where {n_text} divides {m_text} it holds "
                  f"the same threads with the same thread_rank(), size() and shuffles; only meta_group_rank() and "
                  f"meta_group_size() then count the block's tiles, so write CUDA's values for them: "
                  f"{tile}.thread_rank() / {n_text} and {m_text} / {n_text}")
        return Hit(node.start_byte, node.end_byte, {"what": what, "checked": checked, "advice": advice})
    block, m_size, unread = found
    same = (f"tiled_partition<{n}>({block}) holds the same {n} threads, with the same thread_rank(), size() and "
            f"shuffles ({parent} is a tile of {m_size} threads of {block}, and {n} divides {m_size})")
    change = edit(arg.start_byte, arg.end_byte, block)
    if unread:
        return Hit(node.start_byte, node.end_byte,
                   {"what": what, "checked": checked, "advice": f"--fix partitions {block} instead: {same}"},
                   fix(f"partition {block} instead of {parent}: {same}", change))
    meta = (f"but its meta_group_rank() / meta_group_size() would count {block}'s tiles, where CUDA's are "
            f"{parent}.thread_rank() / {n} and {m_size // n}: write those")
    return Hit(node.start_byte, node.end_byte,
               {"what": what, "checked": checked, "advice": f"partition {block} instead (suggested fix): {same}; {meta}"},
               fix(f"partition {block} instead of {parent} (review: meta_group_rank() / meta_group_size()): {same}; {meta}",
                   change, safe=False))


@node_check("PORT072")
def tile_size(ctx, node, caps):
    size = ctx.macro_value(ctx.text(caps["size"][0]))
    if size not in ("32", "32u", "32U", "warpSize"):
        return None
    return Hit(node.start_byte, node.end_byte, {"what": compact(ctx.text(node), 40)})
