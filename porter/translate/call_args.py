"""Argument edits for cuSPARSE calls whose rocSPARSE counterpart (``--roc``) takes other arguments
(``porter/mapping/data/calls/roc_sparse_args.json``, made by scripts/gen_roc_sparse_args.py).

A call's arguments are found by a bracket matcher over the source that skips comments and
literals (the index's protected spans); a call whose argument count is not the CUDA signature's
(a macro, another overload) is left as it is.  The edits are byte spans: an insertion after an
argument, a deletion of ``, argument``, a wrapping around an argument (``format``; the complex
pointers' ``reinterpret_cast`` to rocSPARSE's or rocBLAS's complex type, a null pointer constant left
unwrapped where the data says ``keep_null``), so that the renames planned inside the arguments
stay as they are; and a move (the index arrays rocSPARSE takes in another order): the argument
written where another one goes is replaced by that one's text, its renames applied, and the
renames planned inside the replaced span are dropped (``rewrite_calls``).

Without ``--roc`` the same edits serve the cuSPARSE calls renamed to a hipSPARSE function that declares
another parameter count (``porter/mapping/data/calls/hip_sparse_args.json``, made by
scripts/gen_hip_sparse_args.py): the edit of the target ROCm's release, where the data has one
(``plans``).

With and without ``--roc``, the cuDNN calls renamed to a MIOpen function that takes another list get the
edits of ``porter/mapping/data/calls/miopen_args.json`` (scripts/gen_miopen_args.py) where MIOpen's
documentation makes one keep the meaning; an argument passed twice (``pure``) must have no side effect.

Under ``--roc`` the cuBLAS and cuSOLVER calls renamed to rocBLAS and rocSOLVER get the edits of
``porter/mapping/data/calls/roc_blas_args.json`` (scripts/gen_roc_blas_args.py) the same way, with two
conditions (``unfit``): an argument dropped or passed twice (the data's ``pure``) must have no side
effect, an argument with ``values`` (cuBLAS's compute type) must be one of those constants, which
replaces it, and one marked ``not_null`` (cuSOLVER getrf's devIpiv) must not be a null pointer constant; otherwise the call is left as written (PORT181 reports it)."""

from __future__ import annotations

import bisect
import functools
import re

from porter.mapping.hip_sparse_args import load_hip_call_args
from porter.mapping.miopen_args import load_miopen_call_args
from porter.mapping.roc_sparse_args import load_roc_call_args as load_call_args  # rocSPARSE, rocBLAS and rocSOLVER facts
from porter.translate.source_index import SourceIndex

_OPEN, _CLOSE = b"([{", b")]}"
_SPACE = b" \t\r\n"
_NULLS = frozenset((b"nullptr", b"NULL", b"0"))  # reinterpret_cast<T*>(nullptr) does not compile
# an increment, an assignment or a call (not sizeof or a named cast): evaluated once more, or not at all,
# if the argument is passed twice or dropped
_SIDE_EFFECT = re.compile(rb"\+\+|--|<<=|>>=|(?<![=!<>])=(?!=)"
                          rb"|\b(?!(?:sizeof|alignof|static_cast|reinterpret_cast|const_cast)\b)[A-Za-z_]\w*\s*\(")


def unfit(source: bytes, spans: list[tuple[int, int]], fact) -> str:
    """'' when the data's edit of ``fact`` applies to the call whose arguments are ``spans``, else why it
    does not (the call is then left as written): an argument it drops or passes twice has a side effect,
    an argument with ``values`` is not one of those constants, or one marked ``not_null`` is a null
    pointer constant."""
    for i in fact.pure:
        text = source[spans[i][0]:spans[i][1]]
        if _SIDE_EFFECT.search(text):
            return (f"argument {i + 1} (`{text.decode('utf-8', 'replace')}`) would be "
                    f"{'passed twice' if sum(a.get('arg') == i for a in fact.args) > 1 else 'dropped'}, "
                    "and it has a side effect")
    for a in fact.args:
        if a.get("not_null"):
            text = b"".join(source[spans[a["arg"]][0]:spans[a["arg"]][1]].split())
            while text.startswith(b"(") and text.endswith(b")"):
                text = text[1:-1]
            if text in _NULLS:
                return (f"argument {a['arg'] + 1} is a null pointer, which cuSOLVER takes (no pivoting) and "
                        f"{fact.roc} does not ({fact.roc}_npvt factors without pivoting)")
        if "values" in a:
            text = b"".join(source[spans[a["arg"]][0]:spans[a["arg"]][1]].split()).decode("utf-8", "replace")
            if text not in a["values"]:
                return (f"argument {a['arg'] + 1} (`{text}`) is not one of {', '.join(sorted(a['values']))}, "
                        "whose value porter knows")
    return ""


def argument_spans(index: SourceIndex, name_end: int) -> list[tuple[int, int]] | None:
    """The byte spans of the arguments of the call whose callee name ends at ``name_end`` (blanks
    around each left out), or None when no '(' follows or the list does not close."""
    source = index.source
    n = len(source)
    pos = name_end
    while pos < n and source[pos] in _SPACE:
        pos += 1
    if pos >= n or source[pos] != 40:  # '('
        return None
    spans: list[tuple[int, int]] = []
    depth = 0
    start = pos + 1
    i = pos + 1
    starts, ends = index.protected.starts, index.protected.ends
    k = bisect.bisect_right(starts, i)
    while i < n:
        if k < len(starts) and starts[k] <= i:
            i = ends[k]  # a comment or literal: its brackets and commas are not the call's
            k += 1
            continue
        c = source[i]
        if c in _OPEN:
            depth += 1
        elif c in _CLOSE:
            if depth == 0:
                spans.append((start, i))
                break
            depth -= 1
        elif c == 44 and depth == 0:  # ','
            spans.append((start, i))
            start = i + 1
        i += 1
    else:
        return None
    out = []
    for a, b in spans:
        while a < b and source[a] in _SPACE:
            a += 1
        while b > a and source[b - 1] in _SPACE:
            b -= 1
        out.append((a, b))
    if out == [(out[0][0], out[0][0])] and len(out) == 1:
        return []  # f()
    return out


def _text(source: bytes, span: tuple[int, int], edits) -> bytes:
    from porter.translate.engine import apply_edits

    a, b = span
    inner = [e._replace(start=e.start - a, end=e.end - a) for e in edits if a <= e.start and e.end <= b]
    return apply_edits(source[a:b], inner)


def call_edits(index: SourceIndex, name: str, name_end: int, edits, plans: dict) -> list | None:
    """The edits that give the call of ``name`` (its name ending at ``name_end``) the arguments of
    ``plans`` (``plans(roc, target)``); [] when nothing is to change, None when the call is left as
    written (no plan, or the argument count is not CUDA's).  ``edits``: those already planned (renames
    inside the arguments, copied into a duplicated argument)."""
    from porter.translate.engine import Edit

    plan = plans.get(name)
    if plan is None:
        return None
    cuda_args, args, fact = plan
    spans = argument_spans(index, name_end)
    if spans is None or len(spans) != cuda_args:
        return None
    source = index.source
    if fact is not None and unfit(source, spans, fact):
        return None
    out: list = []
    # the k-th argument rocSPARSE takes first from the call goes into the k-th kept argument's place:
    # itself, or, where the data moves arguments (the index arrays rocSPARSE takes in another order),
    # another one's text, which replaces the one written there
    firsts = list(dict.fromkeys(a["arg"] for a in args if "arg" in a))
    place = dict(zip(firsts, sorted(firsts)))
    # an inserted or duplicated argument goes after the kept argument before it
    last = None  # the span of the last kept argument written
    pending: list[bytes] = []
    seen: set[int] = set()

    def wrapped(a: dict, i: int) -> bool:
        if "format" not in a:
            return False
        if a.get("keep_null"):  # a null pointer constant converts to rocSPARSE's pointer as it is
            text = b"".join(source[spans[i][0]:spans[i][1]].split())
            while text.startswith(b"(") and text.endswith(b")"):
                text = text[1:-1]
            return text not in _NULLS
        return True

    def flush(at: int | None) -> None:
        if not pending:
            return
        if at is None:  # before the first argument
            first = spans[0][0] if spans else name_end
            out.append(Edit(first, first, b", ".join(pending) + (b", " if spans else b""), "arguments", name))
        else:
            out.append(Edit(at, at, b"".join(b", " + p for p in pending), "arguments", name))
        pending.clear()

    for a in args:
        if "text" in a and "replaces" in a:  # a constant written over an argument (in its place, its layout kept)
            flush(last[1] if last else None)
            at = spans[a["replaces"]]
            seen.add(a["replaces"])
            out.append(Edit(at[0], at[1], a["text"].encode(), "arguments", name))
            last = at
            continue
        if "text" in a:
            pending.append(a["text"].encode())
            continue
        i = a["arg"]
        if i in seen:  # a duplicate: the argument's text again, with its renames (and its own wrapping)
            text = _text(source, spans[i], edits)
            if wrapped(a, i):
                head, tail = a["format"].encode().split(b"{}")
                text = head + text + tail
            pending.append(text)
            continue
        flush(last[1] if last else None)
        seen.add(i)
        at = spans[place[i]]
        if place[i] != i:  # moved: its text (with its renames, and its wrapping) replaces the one there
            text = _text(source, spans[i], edits)
            if wrapped(a, i):
                head, tail = a["format"].encode().split(b"{}")
                text = head + text + tail
            out.append(Edit(at[0], at[1], text, "arguments", name))
        elif "values" in a:  # a constant replaced by its value (unfit checked that it is one)
            text = b"".join(source[at[0]:at[1]].split()).decode("utf-8", "replace")
            out.append(Edit(at[0], at[1], a["values"][text].encode(), "arguments", name))
        elif wrapped(a, i):
            head, tail = a["format"].encode().split(b"{}")
            out.append(Edit(at[0], at[0], head, "arguments", name))
            out.append(Edit(at[1], at[1], tail, "arguments", name))
        last = at
    flush(last[1] if last else None)
    # the arguments rocSPARSE does not take go with the comma before them
    for i, (a, b) in enumerate(spans):
        if i in seen:
            continue
        lo = spans[i - 1][1] if i > 0 else a
        hi = b if i > 0 else (spans[i + 1][0] if i + 1 < len(spans) else b)
        out.append(Edit(lo, hi, b"", "arguments", name))
    return out


@functools.cache
def plans(roc: bool, target: str) -> dict[str, tuple[int, tuple, object]]:
    """{CUDA function: (CUDA's argument count, the library's arguments, the fact ``unfit`` checks or None)}
    of the calls that get argument edits: under --roc the rocSPARSE, rocBLAS and rocSOLVER facts; without
    it hipSPARSE's at the target ROCm ``target``; in both the cuDNN calls renamed to MIOpen (miopen_args.json)."""
    miopen = {n: (f.cuda_args, f.args, f) for n, f in load_miopen_call_args().items() if f.args is not None}
    if roc:
        return {**{n: (f.cuda_args, f.args, f) for n, f in load_call_args().items() if f.args is not None}, **miopen}
    out = dict(miopen)
    for name, fact in load_hip_call_args().items():
        release = fact.at(target)
        if release is not None and release.args is not None:
            out[name] = (fact.cuda_args, release.args, None)
    return out


def rewrite_calls(index: SourceIndex, calls: list[tuple[str, int]], edits: list, arg_plans: dict) -> list:
    """``edits`` with each call's argument edits added ((CUDA name, end of its name) in ``calls``, its plan
    in ``arg_plans``: ``plans(roc, target)``); the planned edits inside an argument that goes, or that
    another argument's text replaces, are dropped with it."""
    added: list = []
    for name, end in calls:
        new = call_edits(index, name, end, edits, arg_plans)
        if new:
            added.extend(new)
    if not added:
        return edits
    gone = [(e.start, e.end) for e in added if e.end > e.start]
    if gone:
        edits = [e for e in edits if not any(a <= e.start and e.end <= b for a, b in gone)]
    return edits + added
