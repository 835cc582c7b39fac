"""PORT181 rocBLAS/rocSOLVER arguments: under ``--roc``, a cuBLAS or cuSOLVER call that is renamed to a
rocBLAS or rocSOLVER function whose parameters are not the ones the port passes, so the port does not
compile.

The facts are ``porter/mapping/data/calls/roc_blas_args.json`` (scripts/gen_roc_blas_args.py, from
NVIDIA's cublas_api.h / cusolverDn.h and rocBLAS / rocSOLVER 5.5's headers), read through
``porter.mapping.roc_sparse_args.load_blas_call_args``:

- ``differs``: the roc* parameter list is not CUDA's and porter writes no edit, so the call keeps
  CUDA's arguments; ``complex`` among them: the same list but for rocBLAS's complex class, where the
  port passes HIP's ``hipFloatComplex`` / ``hipDoubleComplex`` (no conversion);
- an edit the call does not fit (``porter.translate.call_args.unfit``): an argument porter would drop or
  pass twice has a side effect, or cuBLAS's compute type is not a constant porter knows the value of;
  the translator then leaves the call as written.

A call whose argument count is not CUDA's (a macro that supplies arguments) is left alone, as the
translator leaves it."""

from __future__ import annotations

import functools
import re

from porter.findings.engine import Hit
from porter.findings.predicates import file_check, word_regions

_ROC_COMPLEX = re.compile(r"\brocblas_(float|double)_complex\b")


@functools.cache
def _facts() -> dict:
    """{CUDA name (bytes): fact} of the cuBLAS/cuSOLVER functions whose roc* function takes other arguments."""
    from porter.mapping.roc_sparse_args import load_blas_call_args

    return {name.encode(): fact for name, fact in load_blas_call_args().items()}


@functools.cache
def _region_test():
    return word_regions(tuple(_facts()))


def _regions(ctx):
    return _region_test() if ctx.options.roc and (b"cublas" in ctx.source or b"cusolver" in ctx.source) else None


def _problem(fact, why_unfit: str) -> str:
    library = "rocSOLVER" if fact.roc.startswith("rocsolver_") else "rocBLAS"
    if why_unfit:
        return (f"porter writes {library}'s arguments for this function ({fact.why.split(':')[0]}) only when the "
                f"call allows it, and here {why_unfit}: the call keeps CUDA's {fact.cuda_args} arguments and does "
                "not compile, so write its arguments from this list")
    if fact.differs == "complex":
        m = _ROC_COMPLEX.search(" ".join(fact.roc_params))
        roc_type = m.group(0) if m else "rocblas_float_complex"
        hip_type = "hipDoubleComplex" if "double" in roc_type else "hipFloatComplex"
        return (f"its complex arguments are `{roc_type}`, and the port's `{hip_type}` does not convert to it: pass "
                f"`reinterpret_cast<const {roc_type}*>(p)` (without const for an output; the same layout, two "
                f"{roc_type.split('_')[1]}s), or declare the data as `{roc_type}`")
    return (f"porter keeps CUDA's {fact.cuda_args} arguments, which are not these, so the call does not compile: "
            f"write its arguments from this list ({library}'s documentation of the function says what each means)")


@file_check("PORT181", regions=_regions)
def rocblas_argument_mismatch(ctx):
    from porter.translate.call_args import argument_spans, unfit
    from porter.translate.engine import occurrences

    source = ctx.source
    if not ctx.options.roc or (b"cublas" not in source and b"cusolver" not in source):
        return []
    facts = _facts()
    index = ctx.index
    hits = []
    for pos, word in occurrences(source, frozenset(facts)):
        if index.is_protected(pos):
            continue
        end = pos + len(word)
        fact = facts[word]
        spans = argument_spans(index, end)
        if spans is None or len(spans) != fact.cuda_args:
            continue  # not a call, or not CUDA's signature (a macro's arguments): left as written
        node = index.node_at(pos, end)
        if node is None or node.type == "field_identifier" or (
                node.parent is not None and node.parent.type == "function_declarator"):
            continue  # a member, or a declaration of the name
        why_unfit = "" if fact.args is None else unfit(source, spans, fact)
        if fact.args is not None and not why_unfit:
            continue  # porter writes the roc* function's arguments
        hits.append(Hit(pos, end, {"name": word.decode(), "roc": fact.roc, "params": ", ".join(fact.roc_params),
                                   "problem": _problem(fact, why_unfit)}))
    return hits
