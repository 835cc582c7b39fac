"""PORT181 rocBLAS/rocSOLVER arguments: under ``--roc``, a cuBLAS or cuSOLVER call that is renamed to a
rocBLAS or rocSOLVER function whose parameters are not the ones the port passes, so the port does not
compile.

The facts are ``porter/mapping/data/calls/roc_blas_args.json`` (scripts/gen_roc_blas_args.py, from
NVIDIA's cublas_api.h / cusolverDn.h and rocBLAS / rocSOLVER 5.5's headers), read through
``porter.mapping.roc_sparse_args.load_blas_call_args``:

- ``differs``: the roc* parameter list is not CUDA's and porter writes no edit, so the call keeps
  CUDA's arguments (the complex pointers, which rocBLAS takes as its own complex type, porter casts:
  an edit, not reported);
- an edit the call does not fit (``porter.translate.call_args.unfit``): an argument porter would drop or
  pass twice has a side effect, or cuBLAS's compute type is not a constant porter knows the value of;
  the translator then leaves the call as written.

A call whose argument count is not CUDA's (a macro that supplies arguments) is left as written by the
translator, and reported: the port does not compile there.

PORT182 hipSOLVER names under --roc: the cuSOLVER dense functions AMD's tables give no rocSOLVER name
(the ``_bufferSize`` queries, the batched and 64-bit API, the Jacobi parameter objects, ...) keep their
hipSOLVER name, while ``cusolverDnHandle_t`` becomes rocSOLVER's ``rocblas_handle`` and the include
``rocsolver/rocsolver.h``, which declares no hipSOLVER name: such a call does not compile.  The names
are porter's mapping database (a ``cusolverDn`` function whose ``--roc`` target is a ``hipsolver`` one);
a workspace-size query whose compute function becomes a rocSOLVER one (which takes no workspace) is
reported with the advice to remove it."""

from __future__ import annotations

import re

from porter.findings.engine import Hit
from porter.findings.predicates import file_check
from porter.findings.predicates.common import LibraryFacts, macro_arguments

_ROC_COMPLEX = re.compile(r"\brocblas_(float|double)_complex\b")


def _load() -> dict:
    """{CUDA name (bytes): fact} of the cuBLAS/cuSOLVER functions whose roc* function takes other arguments."""
    from porter.mapping.roc_sparse_args import load_blas_call_args

    return {name.encode(): fact for name, fact in load_blas_call_args().items()}


_CALLS = LibraryFacts(_load, lambda ctx: ctx.options.roc and (b"cublas" in ctx.source or b"cusolver" in ctx.source))


def _problem(fact, why_unfit: str) -> str:
    library = "rocSOLVER" if fact.roc.startswith("rocsolver_") else "rocBLAS"
    if why_unfit:
        return (f"porter writes {library}'s arguments for this function ({fact.why.split(':')[0]}) only when the "
                f"call allows it, and here {why_unfit}: the call keeps CUDA's {fact.cuda_args} arguments and does "
                "not compile, so write its arguments from this list")
    cast = ""
    m = _ROC_COMPLEX.search(" ".join(fact.roc_params))
    if m:  # the complex pointers still need the cast porter writes where it rewrites a call
        cast = (f"; pass complex data as `reinterpret_cast<const {m.group(0)}*>(p)` (no const for an output: the "
                f"port's {'hipDoubleComplex' if m.group(1) == 'double' else 'hipFloatComplex'} has its layout but "
                "does not convert)")
    return (f"porter keeps CUDA's {fact.cuda_args} arguments, which are not these, so the call does not compile: "
            f"write its arguments from this list ({library}'s documentation of the function says what each means)"
            + cast)


@file_check("PORT181", regions=_CALLS.regions)
def rocblas_argument_mismatch(ctx):
    from porter.translate.call_args import unfit

    hits = []
    for pos, end, word, spans, fact in _CALLS.calls(ctx):
        library = "rocSOLVER" if fact.roc.startswith("rocsolver_") else "rocBLAS"
        if len(spans) != fact.cuda_args:  # a macro supplies arguments: the translator leaves the call as written
            problem = macro_arguments(len(spans), fact.cuda_args, library) + ": write its arguments from this list"
        else:
            why_unfit = "" if fact.args is None else unfit(ctx.source, spans, fact)
            if fact.args is not None and not why_unfit:
                continue  # porter writes the roc* function's arguments
            problem = _problem(fact, why_unfit)
        hits.append(Hit(pos, end, {"name": word.decode(), "roc": fact.roc, "params": ", ".join(fact.roc_params),
                                   "problem": problem}))
    return hits


_BUFFER_SIZE = "_bufferSize"


def _kept_hip() -> dict[bytes, tuple[str, str, bool]]:
    """{cuSOLVER dense function (bytes): (the hipSOLVER name --roc keeps, the rocSOLVER function its compute
    call becomes ("" when it is no _bufferSize query or its compute function has no rocSOLVER name), whether
    porter rewrites that compute call without its workspace)} from porter's mapping database."""
    from porter.mapping import load_database
    from porter.mapping.roc_sparse_args import load_blas_call_args

    ids = load_database().identifiers
    facts = load_blas_call_args()
    out = {}
    for name, entry in ids.items():
        hip = entry.target(True)
        if not name.startswith("cusolverDn") or name.endswith("_t") or not hip or not hip.startswith("hipsolver"):
            continue
        compute = name[:-len(_BUFFER_SIZE)] if name.endswith(_BUFFER_SIZE) else ""
        roc = ids[compute].target(True) if compute in ids else None
        if not roc or not roc.startswith("rocsolver_"):
            out[name.encode()] = (hip, "", False)
            continue
        fact = facts.get(compute)
        dropped = fact is not None and fact.args is not None and len(
            {a["arg"] for a in fact.args if "arg" in a}) < fact.cuda_args
        out[name.encode()] = (hip, roc, dropped)
    return out


_KEPT = LibraryFacts(_kept_hip, lambda ctx: ctx.options.roc and b"cusolverDn" in ctx.source)


def _kept_problem(name: str, hip: str, roc: str, dropped: bool) -> str:
    if roc:
        compute = name[:-len(_BUFFER_SIZE)]
        return (f"the query sizes the workspace of `{compute}`, which becomes `{roc}`: rocSOLVER takes no workspace "
                "(it allocates it from the rocblas_handle)" + (
                    ", and porter writes that call without it" if dropped else
                    f", so write `{roc}`'s call from rocSOLVER's list (PORT181)") +
                "; remove this query and the workspace allocation it sizes (check that nothing else uses them)")
    return (f"AMD's tables give `{name}` no rocSOLVER counterpart, so porter keeps hipSOLVER's name, and a hipSOLVER "
            "call needs hipSOLVER's header and, where it takes a handle, a hipsolverDnHandle_t (hipsolverDnCreate): "
            "write the computation with rocSOLVER functions, or convert the file without --roc (hipSOLVER throughout)")


@file_check("PORT182", regions=_KEPT.regions)
def hipsolver_kept_under_roc(ctx):
    hits = []
    for pos, end, word, _spans, (hip, roc, dropped) in _KEPT.calls(ctx, arguments=False):
        name = word.decode()
        hits.append(Hit(pos, end, {"name": name, "hip": hip,
                                   "problem": _kept_problem(name, hip, roc, dropped)}))
    return hits
