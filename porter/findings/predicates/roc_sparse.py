"""PORT179 rocSPARSE arguments: under ``--roc``, a cuSPARSE call that is renamed to a rocSPARSE
function whose parameters are not the ones the port passes, so the port does not compile.

The facts are ``porter/mapping/data/calls/roc_sparse_args.json`` (scripts/gen_roc_sparse_args.py,
from NVIDIA's cusparse.h and rocSPARSE 5.3's headers), read through their loader
(``porter.mapping.roc_sparse_args``):

- ``differs``: rocSPARSE's parameter list is not cuSPARSE's and porter writes no edit, so the call
  keeps CUDA's arguments; ``int_size`` among them: cuSPARSE writes the buffer size into an ``int*``,
  rocSPARSE into a ``size_t*`` (porter never casts the int's address: 8 bytes would be written into
  4), so the fix is the variable's type; ``order`` among them: the same types, the row and column
  index arrays in another order the generator could not pair by their names, so the renamed call
  compiles and passes them swapped (none in the data today: csr2csr_compress and the legacy
  csc2dense/dense2csc are paired, and porter passes their arrays in rocSPARSE's order);
- complex arguments porter does not wrap: rocSPARSE takes ``rocsparse_float_complex*`` /
  ``rocsparse_double_complex*`` where the port passes ``hipFloatComplex*`` / ``hipDoubleComplex*``,
  which C++ does not convert to rocSPARSE's class.  Porter casts them (``reinterpret_cast``, the
  data's ``format``) in the calls it rewrites, so what is left is the complex pointers of the
  ``differs`` calls and the complex values (``tol`` of csr2csr_compress / nnz_compress: a cast of
  a value's address is not written, the argument may be a temporary).

A call whose argument count is not CUDA's (a macro that supplies arguments) is left as written by the
translator; it is reported when rocSPARSE's list is not cuSPARSE's (the message says why porter could not
fit it).  So is a call with an argument the edit would drop or pass twice (the data's ``pure``: csrsm2's
``algo``, a solve policy, a dropped workspace, a duplicated batch count) that has a side effect.

PORT180 hipSPARSE arguments (no ``--roc``): a cuSPARSE call renamed to a hipSPARSE function that, at the
target ROCm, declares another parameter count and for which porter writes no edit
(``porter/mapping/data/calls/hip_sparse_args.json``, scripts/gen_hip_sparse_args.py, read through
``porter.mapping.hip_sparse_args``): hipsparseSpSM_solve before ROCm 6.2 and hipsparseSpSV_solve before
6.0 take a trailing ``externalBuffer`` their solve uses, so the message names the buffer to pass (the
one given to the analysis call)."""

from __future__ import annotations

import functools
import re

from porter.findings.engine import Hit
from porter.findings.predicates import file_check, word_regions
from porter.findings.predicates.common import LibraryFacts, library_calls, macro_arguments

_COMPLEX = re.compile(r"\brocsparse_(float|double)_complex\b")
_HIP_COMPLEX = {"float": "hipFloatComplex", "double": "hipDoubleComplex"}


def _facts() -> dict:
    """{CUDA name (bytes): (fact, [(parameter name, rocSPARSE type, HIP type, pointer?)] of its complex
    parameters porter does not cast)} for the functions whose calls do not compile under --roc."""
    from porter.mapping.roc_sparse_args import load_call_args

    out = {}
    for name, fact in load_call_args().items():
        complex_params = []
        for j, p in enumerate(fact.roc_params):
            m = _COMPLEX.search(p)
            if not m:
                continue
            pointer = "*" in p
            if pointer and fact.args is not None and "format" in fact.args[j]:
                continue  # porter passes reinterpret_cast<rocSPARSE's complex*>(argument)
            complex_params.append((p.rsplit(None, 1)[-1].lstrip("*"), m.group(0), _HIP_COMPLEX[m.group(1)],
                                   pointer))
        if fact.differs or complex_params or fact.args is not None:
            # (a function porter edits is here too: its call with another argument count, a macro's
            # arguments, is left as written by the translator and reported)
            out[name.encode()] = (fact, complex_params)
    return out


_CALLS = LibraryFacts(_facts, lambda ctx: ctx.options.roc and b"cusparse" in ctx.source)


def _problem(fact, complex_params) -> str:
    parts = []
    if fact.differs == "int_size":
        parts.append("rocSPARSE writes the buffer size into a `size_t*` where cuSPARSE writes an `int*`: "
                     "declare the size variable `size_t` (porter does not cast the `int`'s address: "
                     "8 bytes would be written into 4)")
    elif fact.differs == "order":
        parts.append("rocSPARSE takes the row and column index arrays in another order than cuSPARSE "
                     f"(porter keeps cuSPARSE's {fact.cuda_args} arguments): the call compiles and passes them "
                     "swapped, so write them in this list's order")
    elif fact.differs:
        parts.append(f"porter keeps cuSPARSE's {fact.cuda_args} arguments, which are not these, so the "
                     "call does not compile: write its arguments from this list")
    pointers = [c for c in complex_params if c[3]]
    values = [c for c in complex_params if not c[3]]
    if pointers:
        roc_type, hip_type = pointers[0][1], pointers[0][2]
        names = ", ".join(c[0] for c in pointers)
        parts.append(f"its complex arguments ({names}) are `{roc_type}*`, and the port's `{hip_type}*` does "
                     f"not convert to it: pass `reinterpret_cast<const {roc_type}*>(p)` (without const "
                     f"for an output): the same layout, two {roc_type.split('_')[1]}s")
    if values:
        roc_type, hip_type = values[0][1], values[0][2]
        names = ", ".join(c[0] for c in values)
        parts.append(f"its complex value ({names}) is a `{roc_type}`, and the port's `{hip_type}` does not "
                     f"convert to it: pass `{roc_type}(t.x, t.y)` (real and imaginary parts)")
    return "; ".join(parts)


@file_check("PORT179", regions=_CALLS.regions)
def rocsparse_argument_mismatch(ctx):
    from porter.translate.call_args import unfit

    hits = []
    for pos, end, word, spans, (fact, complex_params) in _CALLS.calls(ctx):
        why_unfit = unfit(ctx.source, spans, fact) if len(spans) == fact.cuda_args and fact.args is not None else ""
        if len(spans) == fact.cuda_args and not (fact.differs or complex_params or why_unfit):
            continue  # porter writes rocSPARSE's arguments (call_args.py)
        if why_unfit:  # the translator leaves the call as written
            problem = (f"porter keeps cuSPARSE's {fact.cuda_args} arguments ({why_unfit}), which are not these, so "
                       "the call does not compile: write its arguments from this list")
        elif len(spans) == fact.cuda_args:
            problem = _problem(fact, complex_params)
        else:  # a macro supplies arguments (or the call is not CUDA's): the translator leaves it as written
            problem = macro_arguments(len(spans), fact.cuda_args, "rocSPARSE") + ": write its arguments from this list"
        hits.append(Hit(pos, end, {"name": word.decode(), "roc": fact.roc,
                                   "params": ", ".join(fact.roc_params), "problem": problem}))
    return hits


@functools.cache
def _hip_facts(target: str) -> dict:
    """{CUDA name (bytes): (fact, release)} of the calls PORT180 reports with ROCm ``target``."""
    from porter.mapping.hip_sparse_args import load_hip_call_args

    out = {}
    for name, fact in load_hip_call_args().items():
        release = fact.at(target)
        if release is not None and (release.finding or release.args is not None):
            # (a release porter edits is here too: a call with another argument count, a macro's
            # arguments, is left as written by the translator and reported)
            out[name.encode()] = (fact, release)
    return out


@functools.cache
def _hip_region_test(target: str):
    return word_regions(tuple(_hip_facts(target)))


def _hip_regions(ctx):
    return None if ctx.options.roc or b"cusparse" not in ctx.source else _hip_region_test(ctx.options.target)


@file_check("PORT180", regions=_hip_regions)
def hipsparse_argument_count(ctx):
    if ctx.options.roc or b"cusparse" not in ctx.source:
        return []
    target = ctx.options.target
    facts = _hip_facts(target)
    if not facts:
        return []
    hits = []
    for pos, end, word, spans in library_calls(ctx, facts):
        fact, release = facts[word]
        if len(spans) == fact.cuda_args and not release.finding:
            continue  # porter writes hipSPARSE's arguments at this target (call_args.py)
        if len(spans) == fact.cuda_args:
            problem = release.finding
        else:
            problem = macro_arguments(len(spans), fact.cuda_args, "hipSPARSE") + ": " + (
                release.finding or f"write hipSPARSE's {release.hip_args} arguments ({release.why})")
        hits.append(Hit(pos, end, {"name": word.decode(), "hip": fact.hip, "target": target,
                                   "hip_args": release.hip_args, "cuda_args": fact.cuda_args,
                                   "problem": problem}))
    return hits
