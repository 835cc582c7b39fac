"""Rules for GPU features HIP lacks or spells differently: launch bounds, tensor cores,
asynchronous copies, cooperative groups, texture references, dynamic parallelism,
__CUDA_ARCH__, timing, managed memory, fp8 formats."""

from __future__ import annotations

import functools
import re

from porter.findings import ptx
from porter.findings.engine import Hit
from porter.findings.predicates import node_check
from porter.findings.predicates.common import compact, edit, fix

_INT = re.compile(r"^(\d+)[uUlL]*$")
WALL_CLOCK = "((long long)__builtin_amdgcn_s_memrealtime())"


def _first_in_scope(ctx, node, key: str) -> bool:
    """True the first time ``key`` is seen in the function (or file scope) around ``node``."""
    fn = ctx.function_of(node)
    scope = (key, fn.start_byte if fn is not None else -1)
    seen = ctx.cache.setdefault("first_in_scope", set())
    if scope in seen:
        return False
    seen.add(scope)
    return True


# ---------------------------------------------------------------- launch-bounds
def waves_per_eu(max_threads: int, min_blocks: int) -> int:
    """CUDA min blocks per SM -> HIP min waves per execution unit on gfx942:
    blocks x waves per block (64 lanes) spread over the 4 SIMDs of a CU, rounded up."""
    waves_per_block = -(-max_threads // 64)
    return max(1, -(-(min_blocks * waves_per_block) // 4))


@node_check("PORT040")
def launch_bounds(ctx, node, caps):
    args = [c for c in node.named_children if c.type != "comment"]
    if len(args) < 2:
        return None
    t_text, b_text = ctx.text(args[0]), ctx.text(args[1])
    t_val, b_val = ctx.macro_value(t_text), ctx.macro_value(b_text)
    if _INT.match(t_val) and _INT.match(b_val):
        n = waves_per_eu(int(_INT.match(t_val).group(1)), int(_INT.match(b_val).group(1)))
        waves = str(n)
    else:
        n = None
        waves = f"((({b_text}) * ((({t_text}) + 63) / 64) + 3) / 4)"
    attr = "" if n == 1 else f" __attribute__((amdgpu_waves_per_eu({waves})))"
    replacement = f"__launch_bounds__({t_text}){attr}"
    extra = ", and the third argument (max blocks per cluster) has no HIP meaning" if len(args) > 2 else ""
    params = {"threads": t_text, "blocks": b_text, "waves": waves if n is not None else "ceil(B * ceil(T / 64) / 4)",
              "extra": extra}
    if node.has_error:  # the arguments do not parse: report, but rewriting them would only compound the damage
        return Hit(node.start_byte, node.end_byte, params)
    return Hit(node.start_byte, node.end_byte, params,
               fix(f"`{compact(replacement, 90)}` (min {params['waves']} waves per EU)",
                   edit(node.start_byte, node.end_byte, replacement)))


# ---------------------------------------------------------------- tensor-core / async-copy asm
_MMA_PTX = re.compile(r"^(?:mma\.|wgmma\.|ldmatrix|stmatrix|tcgen05\.|wmma\.)")
_ASYNC_PTX = re.compile(r"^(?:cp\.async|cp\.reduce\.async|mbarrier\.|fence\.proxy\.async|cp\.async\.bulk)")


def _asm_match(ctx, node, pattern):
    template = ptx.template_of(ctx.source, node)
    if not template:
        return None
    for inst in ptx.instructions(template):
        if pattern.match(inst.lstrip("{ ")):
            return inst.split(" ", 1)[0]
    return None


@node_check("PORT052")
def mma_ptx(ctx, node, caps):
    op = _asm_match(ctx, node, _MMA_PTX)
    return Hit(node.start_byte, node.end_byte, {"op": op}) if op else None


@node_check("PORT061")
def async_ptx(ctx, node, caps):
    op = _asm_match(ctx, node, _ASYNC_PTX)
    return Hit(node.start_byte, node.end_byte, {"op": op}) if op else None


@node_check("PORT050")
def mma_header(ctx, node, caps):
    return Hit(node.start_byte, node.end_byte, {"header": ctx.text(caps["path"][0])})


@node_check("PORT051")
def wmma_use(ctx, node, caps):
    name = ctx.text(caps["ns"][0])
    if name == "wmma" and ctx.mentions(b"rocwmma"):
        return None  # namespace wmma = rocwmma;
    if node.type == "namespace_identifier" and node.parent is not None and node.parent.type == "qualified_identifier":
        outer = node.parent.parent
        if name == "wmma" and outer is not None and outer.type == "qualified_identifier" and \
                ctx.text(outer).startswith("nvcuda::"):
            return None  # reported at nvcuda
    if not _first_in_scope(ctx, node, "wmma"):
        return None
    return Hit(node.start_byte, node.end_byte, {"name": compact(ctx.text(node.parent if node.type == "namespace_identifier" else node), 50)})


# ---------------------------------------------------------------- async-copy
@node_check("PORT060")
def async_copy(ctx, node, caps):
    if "path" in caps:
        what = ctx.text(caps["path"][0])
    elif "fn" in caps:
        what = ctx.text(caps["fn"][0])
    else:
        what = compact(ctx.text(node), 40)
        if node.parent is not None and node.parent.type == "qualified_identifier":
            return None  # the outer name is reported
    return Hit(node.start_byte, node.end_byte, {"what": what})


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
    if node.type == "qualified_identifier" and node.parent is not None and node.parent.type == "call_expression":
        return None  # reported as a call
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
        if outer is node and not _cg_names(ctx)[1]:
            return None  # an unqualified block_tile_memory with no using-directive: someone else's
        if outer is not node and not _is_cg_name(ctx, outer):
            return None
        start, end, what = outer.start_byte, outer.end_byte, compact(ctx.text(outer), 50)
    elif what.endswith("this_thread_block"):  # this_thread_block(scratch): HIP's takes no argument
        fn = caps["fn"][0]
        if not _is_cg_name(ctx, fn):
            return None
        what = compact(ctx.text(node), 50)
    kind = _cg_what(what)
    checked = _CG_CHECKED + ("; HIP's cooperative-groups guide lists it as unsupported in ROCm 6" if kind in _CG_UNSUPPORTED_LATER
                             else "")
    return Hit(start, end, {"what": what, "checked": checked, "advice": _CG_ADVICE[kind]})


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


def _cg_scope(ctx, scope: str | None) -> bool:
    names, using = _cg_names(ctx)
    return using if scope is None else re.sub(r"[\s:]", "", scope) in names


def _args(call) -> list:
    args = call.child_by_field_name("arguments")
    return [a for a in args.named_children if a.type != "comment"] if args is not None else []


def _tile_size_of(ctx, call, name: str) -> int | None:
    """N where ``name`` is declared in the function around ``call`` (a variable or a parameter) only
    as a thread_block_tile<N>, or as ``auto`` from tiled_partition<N>(...), N a power of two up to 64.
    Read from the text: tree-sitter parses ``cg::thread_block_tile<32> t = ...;`` as a comparison."""
    scopes = _scopes_of(ctx, call)
    if not scopes:
        return None
    fn = scopes[-1]
    body = ctx.source[fn.start_byte:fn.end_byte].decode("utf-8", "replace")
    word = re.escape(name)
    tile = re.compile(r"(?:\b([A-Za-z_]\w*)\s*::\s*)?\bthread_block_tile\s*<\s*([^<>,]+?)\s*(?:,[^<>]*)?>\s*(?:const\s+)?&?\s*"
                      + word + r"\s*[=;,)({]")
    auto = re.compile(r"\bauto\s*(?:const\s*)?&?\s*" + word + r"\s*=\s*(?:([A-Za-z_]\w*)\s*::\s*)?tiled_partition\s*<\s*([^<>,]+?)\s*>\s*\(")
    sizes, where = set(), []
    for pattern in (tile, auto):
        for m in pattern.finditer(body):
            pos = fn.start_byte + len(body[:m.start()].encode("utf-8"))
            if ctx.index.is_protected(pos):
                continue
            if not _cg_scope(ctx, m.group(1)):
                return None
            size = _INT.match(ctx.macro_value(m.group(2)))
            sizes.add(int(size.group(1)) if size else None)
            where.append(pos)
    stack = [fn]
    while stack:  # any other declaration of the name (an int warp, a thread_group warp) rules the tile out
        n = stack.pop()
        stack.extend(n.named_children)
        if n.type in ("declaration", "parameter_declaration") and not any(n.start_byte <= w < n.end_byte for w in where):
            if any(_declared_name(ctx, d) == name for d in n.children_by_field_name("declarator")):
                return None
    if len(sizes) != 1:
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
    if not re.fullmatch(r"[A-Za-z_]\w*", g) or g in _OWN_NAMES or m is None or not _cg_scope(ctx, m.group(1)):
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
            if m and _cg_scope(ctx, m.group(1)) and (m.group(1) is not None or len(_args(n)) == 3):
                found.append(n)
        ctx.cache["cg_reduce_calls"] = found
    return found


def _reduce_hit(ctx, node, what):
    fn = node.child_by_field_name("function")
    names, using = _cg_names(ctx)
    if "::" in what:
        if not _is_cg_name(ctx, fn):
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
    names, using = _cg_names(ctx)
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


@node_check("PORT072")
def tile_size(ctx, node, caps):
    size = ctx.macro_value(ctx.text(caps["size"][0]))
    if size not in ("32", "32u", "32U", "warpSize"):
        return None
    return Hit(node.start_byte, node.end_byte, {"what": compact(ctx.text(node), 40)})



# ---------------------------------------------------------------- cooperative-groups: thread-block clusters
# Thread-block clusters (sm_90+: __cluster_dims__, cg::this_cluster(), distributed shared memory,
# cluster launch attributes) exist on no AMD GPU.  Facts: CUDA Programming Guide, "Thread Block
# Clusters" and "Distributed Shared Memory"; HIPIFY's tables (no HIP counterpart of any cluster API);
# HIP's headers through ROCm 6.2 declare none of these names (a recent HIP declares hip* spellings of
# the launch attributes and occupancy queries: porter's mapping database).
_BLOCK_ADVICE = ("make the cluster one larger block that shares its data in LDS (64 KiB at most), or split the "
                 "work into blocks that exchange data through global memory")
_MEMBERS = {  # member of cluster_group -> (what it does, what to write instead)
    "map_shared_rank": ("maps an address into the shared memory of another block of the cluster",
                        "keep the data other blocks read in global memory, or merge the cluster into one block and read LDS"),
    "query_shared_rank": ("asks which block of the cluster owns a shared-memory address",
                          "with one block per cluster it is always 0; across blocks, use global memory"),
    "sync": ("waits for every block of the cluster",
             "use __syncthreads() once the cluster is one block, or a cooperative launch and grid.sync() between blocks"),
    "barrier_arrive": ("arrives at the cluster-wide barrier",
                       "use __syncthreads() once the cluster is one block, or a cooperative launch and grid.sync() between blocks"),
    "barrier_wait": ("waits at the cluster-wide barrier",
                     "use __syncthreads() once the cluster is one block, or a cooperative launch and grid.sync() between blocks"),
    "block_rank": ("numbers the blocks of the cluster", "with one block per cluster it is 0; otherwise compute it from blockIdx"),
    "block_index": ("gives the block's position in the cluster", "with one block per cluster it is dim3(0, 0, 0); otherwise compute it from blockIdx"),
    "num_blocks": ("counts the blocks of the cluster", "with one block per cluster it is 1"),
    "dim_blocks": ("gives the cluster's shape in blocks", "with one block per cluster it is dim3(1, 1, 1)"),
    "thread_rank": ("numbers the threads of the whole cluster", "use the block's thread_rank() once the cluster is one block"),
    "thread_index": ("gives the thread's position in the cluster", "use threadIdx once the cluster is one block"),
    "num_threads": ("counts the threads of the whole cluster", "use the block's num_threads() once the cluster is one block"),
    "dim_threads": ("gives the cluster's shape in threads", "use blockDim once the cluster is one block"),
}
_LAUNCH_ADVICE = "launch without the cluster attribute (<<<>>> or hipLaunchKernelGGL) and restructure the kernel: " + _BLOCK_ADVICE
_CLUSTER_DIM_ATTR = re.compile(rb"\b(?:(?:cuda|hip)LaunchAttribute(?:Preferred)?ClusterDimension|CU_LAUNCH_ATTRIBUTE_(?:PREFERRED_)?CLUSTER_DIMENSION)\b")
_CG_ALIAS = re.compile(rb"\bnamespace\s+([A-Za-z_]\w*)\s*=\s*(?:::)?cooperative_groups\s*;")
_CG_USING = re.compile(rb"\busing\s+(?:namespace\s+(?:::)?([A-Za-z_]\w*)\s*;|(?:::)?([A-Za-z_]\w*)\s*::\s*(?:cluster_group|this_cluster)\s*;)")


def _cg_names(ctx) -> tuple[frozenset[str], bool]:
    """The names of the cooperative_groups namespace in the file (``cooperative_groups``, ``cg``, its
    aliases), and whether unqualified cluster names reach it (a using-directive or -declaration)."""
    found = ctx.cache.get("cg_names")
    if found is None:
        names = {"cooperative_groups", "cg"}
        names.update(m.group(1).decode() for m in _CG_ALIAS.finditer(ctx.source))
        using = any((m.group(1) or m.group(2)).decode() in names for m in _CG_USING.finditer(ctx.source))
        found = ctx.cache["cg_names"] = (frozenset(names), using)
    return found


def _is_cg_name(ctx, node) -> bool:
    """``node`` (a name, maybe qualified) names something of cooperative_groups."""
    names, using = _cg_names(ctx)
    text = re.sub(r"\s+", "", ctx.text(node)).lstrip(":")
    if "::" not in text:
        return using
    scope = text.rsplit("::", 1)[0].split("::")
    return scope[0] in names


def _scopes_of(ctx, node) -> list:
    out = []
    fn = ctx.function_of(node)
    while fn is not None:
        out.append(fn)
        fn = ctx.function_of(fn)
    return out


def _declared_name(ctx, decl) -> str | None:
    while decl is not None and decl.type not in ("identifier",):
        inner = decl.child_by_field_name("declarator")
        if inner is None:
            inner = next((c for c in decl.named_children if c.type in ("identifier", "pointer_declarator", "reference_declarator")), None)
        decl = inner
    return ctx.text(decl) if decl is not None else None


def _is_cluster_type(ctx, node) -> bool:
    return node is not None and re.search(r"(^|::)\s*cluster_group$", ctx.text(node).strip()) is not None and _is_cg_name(ctx, node)


def _is_this_cluster(ctx, node) -> bool:
    if node is None or node.type != "call_expression":
        return False
    fn = node.child_by_field_name("function")
    return fn is not None and re.search(r"(^|::)this_cluster$", ctx.text(fn)) is not None and _is_cg_name(ctx, fn)


def _cluster_vars(ctx, fn) -> frozenset[str]:
    """The variables and parameters of a function (or lambda) that hold a cluster group: declared
    with the cluster_group type or initialised from this_cluster()."""
    cache = ctx.cache.setdefault("cluster_vars", {})
    key = (fn.start_byte, fn.end_byte)
    found = cache.get(key)
    if found is None:
        names = set()
        stack = [fn]
        while stack:
            n = stack.pop()
            if n.type in ("declaration", "parameter_declaration", "optional_parameter_declaration"):
                cluster_type = _is_cluster_type(ctx, n.child_by_field_name("type"))
                for d in n.children_by_field_name("declarator"):
                    value = d.child_by_field_name("value") if d.type == "init_declarator" else None
                    if cluster_type or _is_this_cluster(ctx, value):
                        name = _declared_name(ctx, d.child_by_field_name("declarator") if d.type == "init_declarator" else d)
                        if name:
                            names.add(name)
            stack.extend(n.named_children)
        found = cache[key] = frozenset(names)
    return found


def _holds_cluster(ctx, obj) -> bool:
    """``obj`` is a cluster group: this_cluster() itself, or a variable of the functions around it that holds one."""
    if _is_this_cluster(ctx, obj):
        return True
    if obj is None or obj.type != "identifier":
        return False
    name = ctx.text(obj)
    return any(name in _cluster_vars(ctx, fn) for fn in _scopes_of(ctx, obj))


def _cluster_member_call(ctx, call) -> str | None:
    """The member name when ``call`` is ``obj.member(...)`` on a cluster group (a member of _MEMBERS)."""
    if call is None or call.type != "call_expression":
        return None
    fn = call.child_by_field_name("function")
    if fn is None or fn.type != "field_expression":
        return None
    field = fn.child_by_field_name("field")
    member = ctx.text(field).split("<", 1)[0].strip() if field is not None else ""
    if member in _MEMBERS and _holds_cluster(ctx, fn.child_by_field_name("argument")):
        return member
    return None


def _api_outcome(name: str) -> str:
    """What HIP makes of a cluster API name: a recent HIP declares some (hip* spellings)."""
    hip = name if name.startswith(("hip", "HIP_")) else None
    if hip is None:
        from porter.mapping import load_database

        entry = load_database().identifiers.get(name)
        hip = entry.hip if entry is not None and entry.status == "supported" and entry.hip else None
    if hip:
        return (f"older HIP releases do not declare `{hip}`, and a HIP that declares it compiles this but the GPU "
                "still has no clusters (the call fails or the cluster has one block)")
    return "HIP has no such name, so this does not compile"


def _api_kind(name: str) -> tuple[str, str]:
    """(what a cluster API name does, what to write instead)."""
    if re.search(r"OccupancyMax|OCCUPANCY", name) or name.startswith(("cuOccupancy", "hipOccupancy")):
        return ("asks how many clusters fit", "size the grid in blocks with hipOccupancyMaxActiveBlocksPerMultiprocessor")
    if re.search(r"ClusterLaunch|CLUSTER_LAUNCH", name):
        return ("asks whether the device launches clusters", "the answer on AMD is no: take the path without clusters")
    if re.search(r"FuncAttribute|FUNC_ATTRIBUTE", name):
        return ("sets a cluster attribute of the kernel", "drop it and restructure the kernel: " + _BLOCK_ADVICE)
    if re.search(r"SchedulingPolicy|SCHEDULING_POLICY", name):
        return ("chooses how clusters are scheduled", "drop it with the cluster launch")
    if name.startswith("__"):
        if "map_shared" in name or "isClusterShared" in name or "query_shared" in name:
            return ("reaches the shared memory of another block of the cluster (distributed shared memory)",
                    _MEMBERS["map_shared_rank"][1])
        if "barrier" in name or "threadfence" in name:
            return ("synchronises the blocks of the cluster", _MEMBERS["sync"][1])
        return ("describes the block's cluster", "with one block per cluster use blockIdx, gridDim and constants")
    return ("asks for a cluster launch", _LAUNCH_ADVICE)


@node_check("PORT073")
def thread_block_cluster(ctx, node, caps):
    start, end = node.start_byte, node.end_byte
    if "body" in caps:  # #define CLUSTER __cluster_dims__(2, 1, 1)
        text = re.sub(r"//[^\n]*|/\*.*?\*/", " ", ctx.text(node), flags=re.S)
        return Hit(start, end, {"what": compact(text, 60), "does": "gives a kernel thread-block clusters",
                                "outcome": "HIP has no __cluster_dims__, so the kernel does not compile",
                                "advice": _BLOCK_ADVICE})
    if "member" in caps:  # cluster.sync(), cg::this_cluster().block_rank()
        member = _cluster_member_call(ctx, node)
        if member is None:
            return None
        does, advice = _MEMBERS[member]
        return Hit(start, end, {"what": compact(ctx.text(node), 50), "does": does,
                                "outcome": "HIP's cooperative groups have no cluster group, so this does not compile",
                                "advice": advice})
    if "obj" in caps:  # cg::sync(cluster)
        if not _is_cg_name(ctx, caps["fn"][0]) or not _holds_cluster(ctx, caps["obj"][0]):
            return None
        does, advice = _MEMBERS["sync"]
        return Hit(start, end, {"what": compact(ctx.text(node), 50), "does": does,
                                "outcome": "HIP's cooperative groups have no cluster group, so this does not compile",
                                "advice": advice})
    if "fn" in caps:
        fn_text = ctx.text(caps["fn"][0])
        if fn_text.endswith("this_cluster"):
            if not _is_this_cluster(ctx, node):
                return None
            parent = node.parent
            if parent is not None and parent.type == "field_expression" and _cluster_member_call(ctx, parent.parent):
                return None  # cg::this_cluster().sync(): reported as the member call
            if parent is not None and parent.type == "init_declarator":
                decl = parent.parent
                if decl is not None and decl.type == "declaration" and _is_cluster_type(ctx, decl.child_by_field_name("type")):
                    return None  # cg::cluster_group c = cg::this_cluster(): reported at the type
            return Hit(start, end, {"what": compact(ctx.text(node), 50), "does": "makes the cluster group of this block",
                                    "outcome": "HIP's cooperative groups have no cluster group, so this does not compile",
                                    "advice": _BLOCK_ADVICE})
        static = re.search(r"^(.*?)cluster_group\s*::\s*(\w+)$", re.sub(r"\s+", "", fn_text))
        if static:  # cg::cluster_group::block_rank(): the static members
            scope = static.group(1).strip(":").split("::")[0]
            names, using = _cg_names(ctx)
            if static.group(2) not in _MEMBERS or not (scope in names if scope else using):
                return None
            does, advice = _MEMBERS[static.group(2)]
            return Hit(start, end, {"what": compact(ctx.text(node), 50), "does": does,
                                    "outcome": "HIP's cooperative groups have no cluster group, so this does not compile",
                                    "advice": advice})
        # cudaLaunchKernelEx(&config, k, ...): reported where its function sets a cluster dimension
        scopes = _scopes_of(ctx, node)
        if not scopes:
            return None
        outer = scopes[-1]
        attr = next((m for m in _CLUSTER_DIM_ATTR.finditer(ctx.source, outer.start_byte, outer.end_byte)
                     if not ctx.index.is_protected(m.start())), None)
        if attr is None:
            return None
        line = ctx.line_col(attr.start())[0]
        return Hit(start, end, {"what": compact(ctx.text(node), 50),
                                "does": f"launches with a cluster dimension (the launch attribute set at line {line})",
                                "outcome": "a HIP that declares the cluster launch attribute compiles this, but the GPU "
                                           "still has no clusters (the launch fails or the cluster has one block)",
                                "advice": _LAUNCH_ADVICE})
    name = ctx.text(node)
    if name == "__cluster_dims__":
        parent = node.parent
        if parent is not None and parent.type in ("call_expression", "init_declarator") and parent.named_children \
                and parent.named_children[0].start_byte == node.start_byte:
            start, end = parent.start_byte, parent.end_byte
        return Hit(start, end, {"what": compact(ctx.source[start:end].decode("utf-8", "replace"), 50),
                                "does": "gives the kernel thread-block clusters",
                                "outcome": "HIP has no __cluster_dims__, so the kernel does not compile",
                                "advice": _BLOCK_ADVICE})
    if name == "cluster_group":
        type_node = node
        while type_node.parent is not None and type_node.parent.type == "qualified_identifier":
            type_node = type_node.parent
        if not _is_cg_name(ctx, type_node):
            return None
        decl = type_node.parent
        span = type_node
        decl_type = decl.child_by_field_name("type") if decl is not None and decl.type == "declaration" else None
        if decl_type is not None and decl_type.start_byte == type_node.start_byte and decl_type.end_byte == type_node.end_byte:
            span = decl  # cg::cluster_group cluster = cg::this_cluster();
        text = ctx.text(span).rstrip(";").strip()
        return Hit(span.start_byte, span.end_byte, {"what": compact(text, 50), "does": "is a cluster group",
                                                    "outcome": "HIP's cooperative groups have no cluster group, so this does not compile",
                                                    "advice": _BLOCK_ADVICE})
    does, advice = _api_kind(name)
    return Hit(start, end, {"what": name, "does": does, "outcome": _api_outcome(name), "advice": advice})


# ---------------------------------------------------------------- texture / dynamic parallelism
@node_check("PORT080")
def texture_reference(ctx, node, caps):
    if "fn" in caps:  # cudaBindTexture(...) and the other texture-reference runtime calls
        what = f"`{compact(ctx.text(node), 50)}` works on a texture reference"
        return Hit(node.start_byte, node.end_byte, {"what": what, "decl": compact(ctx.text(node), 60), "kind": "texture"})
    if ctx.function_of(node) is not None:
        return None  # texture references are file-scope objects
    kind = ctx.text(caps["t"][0])
    return Hit(node.start_byte, node.end_byte, {"what": f"`{compact(ctx.text(node), 60)}` declares a {kind} reference",
                                                "decl": compact(ctx.text(node), 60), "kind": kind})


@node_check("PORT081")
def texture_fetch(ctx, node, caps):
    if not ctx.in_device_code(node):
        return None
    return Hit(node.start_byte, node.end_byte, {"call": compact(ctx.text(node), 50)})


@node_check("PORT090")
def device_launch(ctx, node, caps):
    if not ctx.in_device_code(node):
        return None
    fn = ctx.text(caps["fn"][0]) if caps.get("fn") else ""  # no @fn: a <<<...>>> launch
    launch = not fn or "Launch" in fn
    return Hit(node.start_byte, node.end_byte, {"call": compact(ctx.text(node), 50),
                                                "what": "launches work" if launch else "calls the device runtime"})


# ---------------------------------------------------------------- arch-macro
@node_check("PORT100")
def cuda_arch_value(ctx, node, caps):
    parent = node.parent
    if parent is None or parent.type in ("preproc_defined", "preproc_ifdef", "preproc_def", "preproc_function_def"):
        return None
    the_fix = None
    shown = "__CUDA_ARCH__"
    if parent.type == "binary_expression":
        op = parent.child_by_field_name("operator")
        other = parent.child_by_field_name("right")
        op_text = ctx.text(op) if op is not None else ""
        shown = compact(ctx.text(parent), 40)
        if other is not None and other.type == "number_literal" and ctx.text(parent.child_by_field_name("left")) == "__CUDA_ARCH__":
            newer = op_text in (">=", ">")  # true on a recent NVIDIA device: MI300X counts as one
            target = "defined(__HIP_DEVICE_COMPILE__)" if newer else "!defined(__HIP_DEVICE_COMPILE__)"
            span = parent
            outer = parent.parent
            if op_text in (">=", ">", "<", "<=") and outer is not None and outer.type == "binary_expression" \
                    and ctx.text(outer.child_by_field_name("operator")) == "&&":
                left, right = outer.child_by_field_name("left"), outer.child_by_field_name("right")
                sibling = left if right is not None and right.start_byte == parent.start_byte else right
                if sibling is not None and sibling.type == "preproc_defined" and "__CUDA_ARCH__" in ctx.text(sibling):
                    # `defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= N` is one test (device code of a recent
                    # arch): rewritten whole, not into `defined(X) && defined(X)` once translated; with `<`
                    # it asks for an old NVIDIA device, which an AMD device never is
                    span = outer
                    target = "defined(__HIP_DEVICE_COMPILE__)" if newer else "0"
                    shown = compact(ctx.text(outer), 40)
            directive = _directive_of(span)
            if op_text in (">=", ">", "<", "<=") and directive is not None \
                    and not _fix_selects_ptx(ctx, directive, device_takes_branch=(target != "0" and newer),
                                             device_leaves_branch=(target != "0" and not newer)):
                the_fix = fix(f"treat MI300X as the newest architecture: `{target}` (check the guarded code uses nothing NVIDIA-only)",
                              edit(span.start_byte, span.end_byte, target), safe=False)
    return Hit(node.start_byte, node.end_byte, {"expr": shown}, the_fix)


def _directive_of(node):
    """The #if / #elif whose condition holds ``node``, or None."""
    n = node.parent
    while n is not None and n.type not in ("preproc_if", "preproc_elif"):
        if n.type not in ("binary_expression", "parenthesized_expression", "unary_expression"):
            return None
        n = n.parent
    return n


def _holds_ptx(ctx, nodes) -> bool:
    source = ctx.source
    # an asm statement's node starts with its keyword (asm, __asm, __asm__): no such text, no walk
    stack = [n for n in nodes if source.find(b"asm", n.start_byte, n.end_byte) >= 0]
    while stack:
        n = stack.pop()
        if n.type == "gnu_asm_expression":
            template = ptx.template_of(ctx.source, n)
            if template is None or ptx.is_ptx(template):
                return True
        stack.extend(n.children)
    return False


def _fix_selects_ptx(ctx, directive, device_takes_branch: bool, device_leaves_branch: bool) -> bool:
    """Whether the rewritten test would send AMD device code into inline PTX that it does not
    reach today (an unset __CUDA_ARCH__ reads 0: `>= N` is false there, `< N` true).  A guarded
    `asm("nanosleep.u32 ...")` under `__CUDA_ARCH__ >= 700` must stay unreached on AMD."""
    cond = directive.child_by_field_name("condition")
    alt = directive.child_by_field_name("alternative")
    if device_takes_branch:  # the branch under this test
        body = [c for c in directive.children if cond is not None and c.start_byte >= cond.end_byte
                and (alt is None or c.end_byte <= alt.start_byte)]
        return _holds_ptx(ctx, body)
    if device_leaves_branch:  # the #elif / #else branches after it
        return alt is not None and _holds_ptx(ctx, [alt])
    return False


# ---------------------------------------------------------------- arch-macro: CUDA version macros
# cuda_runtime_api.h defines CUDART_VERSION, cuda.h CUDA_VERSION, nvcc __CUDACC_VER_MAJOR__ & co.; no HIP
# header or hipcc defines them (HIP 5.2 headers; hip-header-names.tsv, ROCm 5.6 to 6.3: absent).  The
# translator renames presence tests only (#ifdef CUDART_VERSION -> HIP_VERSION: porter query CUDART_VERSION),
# so a comparison stays, and in #if an undefined name reads 0.
_CUDA_VERSION_MACROS = frozenset({"CUDART_VERSION", "CUDA_VERSION", "__CUDACC_VER_MAJOR__", "__CUDACC_VER_MINOR__",
                                  "__CUDACC_VER_BUILD__"})
# a test that names one of these already chooses a branch for HIP itself
_HIP_MACROS = re.compile(r"\b(?:__HIP_PLATFORM_AMD__|__HIP_PLATFORM_HCC__|__HIPCC__|__HIP__|HIP_VERSION\w*|__HIP_DEVICE_COMPILE__|USE_ROCM|__HIP_PLATFORM_NVIDIA__)\b")
# names whose definedness under HIP the translation fixes: CUDA's version macros stay undefined; __CUDACC__
# and __NVCC__ become __HIPCC__, which hipcc defines; hip_common.h defines __HIP_PLATFORM_AMD__ for every AMD
# GPU target (what porter ports to), so a test the fix below wrote is read as HIP reads it
_DEFINED_UNDER_HIP = {**{n: 0 for n in _CUDA_VERSION_MACROS}, "__CUDACC__": 1, "__NVCC__": 1,
                      "__HIP_PLATFORM_AMD__": 1}
# The oldest CUDA whose meaning porter translates: its calls are read with CUDA 12's signatures and meaning
# (cudaGraphInstantiate(exec, graph, flags): mapping/sources/conventions.toml).  A comparison of a version
# macro with a number has the same value in every release from this one on when the number is at most the
# release's own value (CUDART_VERSION / CUDA_VERSION 12000 = 12.0, __CUDACC_VER_MAJOR__ 12): the comparison
# is monotonic, so `>= 2020`, `> 11000` are true there and `< 4000`, `<= 11080` false.  Treating HIP as that
# CUDA then keeps the branch every such CUDA build compiles, and the fix is safe.  __CUDACC_VER_MINOR__ /
# _BUILD__ restart with each major release: never.
_CUDA_FLOOR = {"CUDART_VERSION": 12000, "CUDA_VERSION": 12000, "__CUDACC_VER_MAJOR__": 12}
_DEFINED = re.compile(r"\bdefined\s*(?:\(\s*([A-Za-z_]\w*)\s*\)|([A-Za-z_]\w*))")


def _hip_value(ctx, condition: str) -> int | None:
    """The value of an #if condition under HIP, when it depends only on names whose HIP meaning is known."""
    from porter.findings.values import evaluate

    text = re.sub(r"//[^\n]*|/\*.*?\*/", " ", condition, flags=re.S).replace("\\\n", " ")

    def defined(m):
        name = m.group(1) or m.group(2)
        return str(_DEFINED_UNDER_HIP[name]) if name in _DEFINED_UNDER_HIP else m.group(0)

    text = _DEFINED.sub(defined, text)
    unknown = sorted({m.group(1) or m.group(2) for m in _DEFINED.finditer(text)})
    if len(unknown) > 4:
        return None
    values = set()
    for bits in range(1 << len(unknown)):  # a defined() test of another name is 0 or 1: the value holds for both?
        case = {n: (bits >> i) & 1 for i, n in enumerate(unknown)}
        values.add(evaluate(_DEFINED.sub(lambda m: str(case[m.group(1) or m.group(2)]), text),
                            lambda n: 0 if n in _CUDA_VERSION_MACROS else None))
    return values.pop() if len(values) == 1 else None


def _branch_line(ctx, node) -> int:
    return ctx.index.line_of(node.start_byte)


def _compiled_under_hip(ctx, node) -> bool:
    """Whether code at ``node`` (a use in code, not in a directive's test) is compiled under HIP, as far as
    the enclosing #if / #elif / #else tell: a use in the branch HIP takes (or one whose test porter cannot
    evaluate) counts; one in a branch HIP skips (`#if CUDART_VERSION >= N`'s body: 0 >= N) does not, nor one
    inside a directive porter does not read (a macro body, a test that calls a macro)."""
    start = node.start_byte
    n = node.parent
    while n is not None:
        if n.type in ("preproc_arg", "preproc_params"):
            return False
        if n.type in ("preproc_if", "preproc_elif"):
            cond = n.child_by_field_name("condition")
            alt = n.child_by_field_name("alternative")
            if cond is not None and cond.start_byte <= start < cond.end_byte:
                return False  # a test porter does not read (a macro call): its use is reported, not here
            value = _hip_value(ctx, ctx.text(cond)) if cond is not None else None
            in_alt = alt is not None and alt.start_byte <= start < alt.end_byte
            if value is not None and bool(value) == in_alt:
                return False  # the body of a false test, or the #else / #elif of a true one
        n = n.parent
    return True


def _integer(text: str) -> int | None:
    """A C integer literal's value (12000, 0x2EE0, 12000L); None for a floating or unreadable one."""
    m = re.fullmatch(r"(0[xX][0-9a-fA-F]+|[0-9]+)[uUlL]*", text.replace("'", ""))
    if m is None:
        return None
    digits = m.group(1)
    if digits[:2] in ("0x", "0X"):
        return int(digits, 16)
    return int(digits, 8) if digits.startswith("0") and len(digits) > 1 else int(digits)


_INCLUDE = re.compile(rb"^[ \t]*#[ \t]*include[ \t]*<([^>\n]+)>", re.M)


@functools.cache
def _lacked(target: str | None, roc: bool) -> tuple[frozenset[bytes], frozenset[str]]:
    """CUDA names and headers whose HIP counterpart HIP lacks, or ROCm ``target`` does."""
    from porter.findings.predicates.api import _unavailable, _unsupported_names

    names, headers = _unsupported_names()
    if target:
        too_new, new_headers = _unavailable(target, roc)
        names, headers = names | frozenset(too_new), headers | new_headers
    return names, headers


def _without_tests(text: bytes, nodes) -> bytes:
    """``text`` (the span of ``nodes``) with the tests of the #if / #elif / #ifdef directives in it blanked: a
    name there is read by the preprocessor (an undefined one is 0), never compiled."""
    base = nodes[0].start_byte
    out = bytearray(text)
    stack = list(nodes)
    while stack:
        n = stack.pop()
        if n.type in ("preproc_if", "preproc_elif", "preproc_ifdef", "preproc_elifdef"):
            test = n.child_by_field_name("condition") or n.child_by_field_name("name")
            if test is not None:
                out[test.start_byte - base:test.end_byte - base] = b" " * (test.end_byte - test.start_byte)
        stack.extend(n.children)
    return bytes(out)


def _lacks_under_target(ctx, directive, newer: bool) -> str:
    """What the code the fixed test would newly send through HIP uses that the target ROCm lacks: inline PTX,
    a name HIP has no counterpart of, or one the target ROCm is too old for ("" when none).  HeCBench's bscan:
    `#if CUDART_VERSION >= 9000` guards `__ballot_sync`, which ROCm 5.2 lacks, and its #else's `__ballot` builds:
    choosing the first branch there would break a port that compiles."""
    cond = directive.child_by_field_name("condition")
    alt = directive.child_by_field_name("alternative")
    if newer:  # the body under this test
        nodes = [c for c in directive.children if cond is not None and c.start_byte >= cond.end_byte
                 and (alt is None or c.end_byte <= alt.start_byte)]
    else:  # the #elif / #else after it
        nodes = [alt] if alt is not None else []
    if not nodes:
        return ""
    if _holds_ptx(ctx, nodes):
        return "inline PTX"
    text = ctx.source[nodes[0].start_byte:nodes[-1].end_byte]
    words = set(re.findall(rb"[A-Za-z_]\w*", _without_tests(text, nodes)))
    target = ctx.options.target
    lacked, lacked_headers = _lacked(target, ctx.options.roc)
    names = sorted(w.decode() for w in words & lacked)
    headers = sorted(h.decode().strip() for h in _INCLUDE.findall(text) if h.decode().strip() in lacked_headers)
    if not names and not headers:
        return ""
    what = ", ".join(f"`{n}`" for n in (names + [f"<{h}>" for h in headers])[:3])
    return f"{what}, which HIP{f' {target}' if target else ''} lacks"


@node_check("PORT173")
def cuda_version_value(ctx, node, caps):
    parent = node.parent
    if parent is None or parent.type in ("preproc_defined", "preproc_ifdef", "preproc_def", "preproc_function_def",
                                         "preproc_call"):
        return None
    name = ctx.text(node)
    directive = _directive_of(node)
    expr = parent if parent.type == "binary_expression" else node
    shown = compact(ctx.text(expr), 40)
    if directive is None:
        if not _compiled_under_hip(ctx, node):
            return None
        return Hit(node.start_byte, node.end_byte,
                   {"expr": shown, "name": name, "outcome": "this code does not compile (an undeclared identifier)"},
                   severity="error")
    condition = directive.child_by_field_name("condition")
    cond_text = ctx.text(condition)
    if _HIP_MACROS.search(cond_text):
        return None  # the test chooses HIP's branch itself
    if not _first_in_scope(ctx, node, f"version-test:{directive.start_byte}"):
        return None  # one finding per directive
    value = _hip_value(ctx, cond_text)
    alt = directive.child_by_field_name("alternative")
    kind = "#elif" if directive.type == "preproc_elif" else "#if"
    if value is None:
        outcome = f"it reads 0 in this {kind}, and which branch HIP compiles depends on the other names of the test"
    elif value:
        outcome = f"it reads 0 in this {kind}: the test is true, so HIP compiles this branch (line {_branch_line(ctx, directive)})"
    elif alt is not None:
        other = "#else" if alt.type == "preproc_else" else "#elif"
        outcome = f"it reads 0 in this {kind}: the test is false, so HIP skips this branch and compiles the {other} at line {_branch_line(ctx, alt)}"
    else:
        outcome = f"it reads 0 in this {kind}: the test is false, so HIP compiles nothing of this block"
    the_fix = None
    if parent.type == "binary_expression" and ctx.text(parent.child_by_field_name("left")) == name:
        op = ctx.text(parent.child_by_field_name("operator"))
        right = parent.child_by_field_name("right")
        number = _integer(ctx.text(right)) if right is not None and right.type == "number_literal" else None
        if op in (">=", ">", "<", "<=") and number is not None:
            newer = op in (">=", ">")
            test = ctx.text(parent)
            target = (f"(defined(__HIP_PLATFORM_AMD__) || {test})" if newer
                      else f"(!defined(__HIP_PLATFORM_AMD__) && {test})")
            floor = _CUDA_FLOOR.get(name)
            settled = floor is not None and (number <= floor if op in (">=", "<") else number < floor)
            lacking = _lacks_under_target(ctx, directive, newer) if settled else ""
            if settled and not lacking:
                the_fix = fix(f"treat HIP as the CUDA 12 and later porter translates, where `{compact(test, 40)}` is "
                              f"{'true' if newer else 'false'} in every release: `{compact(target, 70)}`",
                              edit(parent.start_byte, parent.end_byte, target))
            elif lacking:
                the_fix = fix(f"treat HIP as a recent CUDA: `{compact(target, 70)}`; the branch HIP then compiles "
                              f"uses {lacking}, so this is a suggestion", edit(parent.start_byte, parent.end_byte, target),
                              safe=False)
            else:
                the_fix = fix(f"treat HIP as a recent CUDA: `{compact(target, 70)}` (check that the branch HIP then "
                              "compiles uses nothing NVIDIA-only)", edit(parent.start_byte, parent.end_byte, target),
                              safe=False)
    return Hit(node.start_byte, node.end_byte, {"expr": shown, "name": name, "outcome": outcome}, the_fix)


# ---------------------------------------------------------------- timing
@node_check("PORT110")
def device_clock(ctx, node, caps):
    if caps["args"][0].named_child_count or not ctx.in_device_code(node):
        return None
    name = ctx.text(caps["fn"][0])
    # wall_clock64() reads s_memrealtime; HIP 5.2 declares it for the device pass only, so the
    # builtin itself is what compiles everywhere
    return Hit(node.start_byte, node.end_byte, {"name": name},
               fix("the constant-rate counter behind wall_clock64() (ticks at hipDeviceAttributeWallClockRate kHz), "
                   "for wall time", edit(node.start_byte, node.end_byte, WALL_CLOCK), safe=False))


# ---------------------------------------------------------------- managed memory
@node_check("PORT120")
def managed(ctx, node, caps):
    what = ctx.text(caps["fn"][0]) if "fn" in caps else "__managed__"
    if what == "__managed__" and not _first_in_scope(ctx, node, "managed-" + str(ctx.index.line_of(node.start_byte))):
        return None
    return Hit(node.start_byte, node.end_byte, {"what": what})


# ---------------------------------------------------------------- numeric-format
@node_check("PORT130")
def fp8(ctx, node, caps):
    name = ctx.text(caps["path"][0]) if "path" in caps else ctx.text(caps["t"][0])
    if "path" not in caps and not _first_in_scope(ctx, node, "fp8:" + name):
        return None
    return Hit(node.start_byte, node.end_byte, {"name": name})
