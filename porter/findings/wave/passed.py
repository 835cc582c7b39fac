"""The largest slot a callee reaches in a __shared__ array passed to it, with ``warpSize`` = 32 and = 64.

``__shared__ int s[64]`` sized for two 32-lane warps (``2 * (1024 / 32)``) can be handed to a
helper that indexes it by lane (``warp_scan(v, s)`` with ``idx = 2 * threadIdx.x - (threadIdx.x &
(warpSize - 1)) + warpSize``): within 64 slots when ``warpSize`` is 32, up to 127 when it is 64 on
gfx942.  Found by running the helper: for every thread the call site lets in (an enclosing
``if (t < B)`` on ``threadIdx.x`` bounds it; otherwise a block's 1024 threads), the helper's
straight-line statements are evaluated in order (a declaration or assignment of a local sets it,
``+=`` and ``-=`` change it) and each index of the parameter is taken at its place.  A helper with
loops, branches or anything porter cannot evaluate is left alone (unknown, never a guess).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from porter.findings import values
from porter.findings.wave.model import code_of, header_code, model_of
from porter.findings.wave.name_regex import name_at
from porter.findings.wave.offsets import lookup_for

MAX_THREADS = 1024  # the largest block on both platforms
_CONTROL = re.compile(r"(?<![\w.])(?:for|while|if|switch|goto|do|return\s+[^;]*\?)\b|\?")
_THREAD = re.compile(r"threadIdx\s*\.\s*x")
_LANE_ID = re.compile(r"__lane_id\s*\(\s*\)")  # HIP's lane in the wave: the thread number mod warpSize


def _threads(text: str) -> str:
    return _LANE_ID.sub("(__thread % warpSize)", _THREAD.sub("__thread", text))
_LOCAL = re.compile(r"^(?:(?:const|volatile|unsigned|signed|int|long|short|auto|size_t|uint32_t|int32_t|uint)\s+)*"
                    r"([A-Za-z_]\w*)\s*(=|\+=|-=)\s*(.+)$", re.S)
_GUARD = re.compile(r"^\s*\(?\s*([A-Za-z_][\w.\s]*?)\s*(<=|<)\s*(.+?)\s*\)?\s*$", re.S)


@dataclass(frozen=True)
class Reach:
    callee: str
    index: str  # the parameter's index expression, as written
    line: int  # where the callee indexes it (in the callee's file)
    file: str  # the callee's file as shown ('' for the scanned file)
    wide: int  # the largest slot with warpSize 64
    narrow: int  # ... with warpSize 32


def through_calls(ctx, fn_node, name: str, extent: int) -> Reach | None:
    """A call in ``fn_node`` that passes the array ``name`` to a helper of the unit which indexes it at
    ``extent`` or beyond when ``warpSize`` is 64, and below ``extent`` when it is 32."""
    model = model_of(ctx)
    unit = values.unit_of(ctx)
    arg = re.compile(r"^\s*" + re.escape(name) + r"\s*$")
    stack = [fn_node]
    while stack:
        n = stack.pop()
        stack.extend(n.named_children)
        if n.type != "call_expression":
            continue
        callee = n.child_by_field_name("function")
        args = n.child_by_field_name("arguments")
        if callee is None or args is None or callee.type != "identifier":
            continue
        positions = [k for k, a in enumerate(args.named_children) if arg.match(ctx.text(a))]
        if not positions:
            continue
        bound = _thread_bound(ctx, n, fn_node, unit)
        for i in model.index.by_name.get(ctx.text(callee), ()):
            f = model.index.functions[i]
            if f.macro:
                continue
            got = _run(ctx, f, positions[0], bound, unit, extent)
            if got is not None:
                return got
    return None


def _thread_bound(ctx, call, fn_node, unit) -> dict[int, int]:
    """The number of threads that reach ``call``, per warp width: an enclosing ``if (t < B)`` where ``t``
    is ``threadIdx.x`` (or a local defined as it) bounds it; otherwise a whole block."""
    body = ctx.text(fn_node)
    n = call
    while n is not None and n != fn_node:
        parent = n.parent
        if parent is not None and parent.type == "if_statement" and parent.child_by_field_name("consequence") == n:
            m = _GUARD.match(ctx.text(parent.child_by_field_name("condition")))
            if m is not None and _is_thread(body, m.group(1).strip()):
                out = {}
                for warp in (32, 64):
                    b = values.evaluate(m.group(3), lookup_for(unit, warp))
                    if b is None:
                        break
                    out[warp] = min(MAX_THREADS, b + 1 if m.group(2) == "<=" else b)
                else:
                    return out
        n = parent
    return {32: MAX_THREADS, 64: MAX_THREADS}


def _is_thread(body: str, text: str) -> bool:
    if _THREAD.fullmatch(text):
        return True
    if not re.fullmatch(r"[A-Za-z_]\w*", text):
        return False
    defs = re.findall(name_at([text]) + r"\s*(?:[-+*/%&|^]|<<|>>)?=(?!=)\s*([^;]*);", body)
    return len(defs) == 1 and _THREAD.fullmatch(defs[0].strip()) is not None


def _run(ctx, f, k: int, bound: dict[int, int], unit, extent: int) -> Reach | None:
    code = code_of(ctx) if f.file == "" else _header(ctx, f.file)
    if code is None or f.paren < 0:
        return None
    head = bytes(code[f.paren + 1:f.body_start]).decode("utf-8", "replace")
    params = _param_names(head[:head.rfind(")")])
    if k >= len(params) or params[k] is None:
        return None
    param = params[k]
    body = bytes(code[f.body_start + 1:f.body_end - 1]).decode("utf-8", "replace")
    if _CONTROL.search(body) or not re.search(name_at([param]) + r"\s*\[", body):
        return None
    # each statement read once (its reads of the parameter, what it assigns), then run once per thread
    reads_of = re.compile(name_at([param]) + r"\s*\[([^\[\]]+)\]")
    steps = []
    for text, pos in _statements(body, f.body_start + 1):
        reads = [(values.tokenized(_threads(m.group(1))), m.group(1).strip(), pos + len(text[:m.start()].encode()))
                 for m in reads_of.finditer(text)]
        a = _LOCAL.match(text.strip())
        sets = (a.group(1), a.group(2), values.tokenized(_threads(a.group(3)))) \
            if a is not None and "[" not in a.group(1) else None
        steps.append((reads, sets))
    evaluate = values.evaluate_tokens
    worst: dict[int, tuple[int, str, int]] = {}
    for warp in (32, 64):
        consts = lookup_for(unit, warp)
        best = None
        for t in range(bound[warp]):
            env: dict[str, int | None] = {}

            def lookup(n, env=env, t=t):
                if n == "__thread":
                    return t
                if n in env:
                    return env[n]
                return consts(n)
            for reads, sets in steps:
                for expr, shown, at in reads:
                    v = evaluate(expr, lookup)
                    if v is None:
                        return None  # an index porter cannot follow: no answer rather than half of one
                    if best is None or v > best[0]:
                        best = (v, shown, at)
                if sets is not None:
                    var, op, expr = sets
                    v = evaluate(expr, lookup)
                    if op != "=":
                        old = env.get(var)
                        v = None if v is None or old is None else old + v if op == "+=" else old - v
                    env[var] = v
        if best is None:
            return None
        worst[warp] = best
    wide, narrow = worst[64], worst[32]
    if wide[0] < extent or narrow[0] >= extent:
        return None
    line = code.count(b"\n", 0, wide[2]) + 1
    return Reach(f.name, wide[1], line, f.file, wide[0], narrow[0])


def _header(ctx, shown: str):
    for s, path in values.unit_of(ctx).header_paths:
        if s == shown:
            return header_code(path)
    return None


def _param_names(text: str) -> list[str | None]:
    out: list[str | None] = []
    for p in text.split(","):
        m = re.search(r"([A-Za-z_]\w*)\s*(?:\[[^\]]*\])?\s*$", p.split("=")[0])
        out.append(m.group(1) if m and ("*" in p or "[" in p) else None)  # only pointers and arrays
    return out


def _statements(body: str, base: int) -> list[tuple[str, int]]:
    out = []
    start = 0
    offset = base
    for m in re.finditer(r";", body):
        text = body[start:m.start()]
        out.append((text, offset))
        offset += len(body[start:m.end()].encode())
        start = m.end()
    return out
