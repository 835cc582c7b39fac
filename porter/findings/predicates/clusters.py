"""Thread-block clusters (sm_90+: __cluster_dims__, cg::this_cluster(), distributed shared memory,
cluster launch attributes) exist on no AMD GPU.  Facts: CUDA Programming Guide, "Thread Block
Clusters" and "Distributed Shared Memory"; HIPIFY's tables (no HIP counterpart of any cluster API);
HIP's headers through ROCm 6.2 declare none of these names (a recent HIP declares hip* spellings of
the launch attributes and occupancy queries: porter's mapping database)."""

from __future__ import annotations

import re

from porter.findings.engine import Hit
from porter.findings.predicates import node_check
from porter.findings.predicates.common import compact
from porter.findings.predicates.cooperative_groups import cg_names, declared_name, is_cg_name, scopes_of

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


def _is_cluster_type(ctx, node) -> bool:
    return node is not None and re.search(r"(^|::)\s*cluster_group$", ctx.text(node).strip()) is not None and is_cg_name(ctx, node)


def _is_this_cluster(ctx, node) -> bool:
    if node is None or node.type != "call_expression":
        return False
    fn = node.child_by_field_name("function")
    return fn is not None and re.search(r"(^|::)this_cluster$", ctx.text(fn)) is not None and is_cg_name(ctx, fn)


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
                        name = declared_name(ctx, d.child_by_field_name("declarator") if d.type == "init_declarator" else d)
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
    return any(name in _cluster_vars(ctx, fn) for fn in scopes_of(ctx, obj))


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
        if not is_cg_name(ctx, caps["fn"][0]) or not _holds_cluster(ctx, caps["obj"][0]):
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
            names, using = cg_names(ctx)
            if static.group(2) not in _MEMBERS or not (scope in names if scope else using):
                return None
            does, advice = _MEMBERS[static.group(2)]
            return Hit(start, end, {"what": compact(ctx.text(node), 50), "does": does,
                                    "outcome": "HIP's cooperative groups have no cluster group, so this does not compile",
                                    "advice": advice})
        # cudaLaunchKernelEx(&config, k, ...): reported where its function sets a cluster dimension
        scopes = scopes_of(ctx, node)
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
        if not is_cg_name(ctx, type_node):
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
