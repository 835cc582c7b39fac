"""PORT183 MIOpen arguments: a cuDNN call porter renames to a MIOpen function whose parameter list is not
cuDNN's and for which it writes no argument edit, so the port keeps cuDNN's arguments and does not compile.

The facts are ``porter/mapping/data/calls/miopen_args.json`` (scripts/gen_miopen_args.py, from NVIDIA's
cuDNN headers and MIOpen's miopen.h), read through ``porter.mapping.miopen_args``: a function without
``args`` is reported wherever it is called; one with ``args`` (porter passes MIOpen's arguments) only where
the call does not fit the edit: an argument it passes twice has a side effect
(``porter.translate.call_args.unfit``), or a macro supplies arguments (another visible count), where the
translator leaves the call as written.  cuDNN calls are renamed with and without --roc: the rule holds in
both."""

from __future__ import annotations

from porter.findings.engine import Hit
from porter.findings.predicates import file_check
from porter.findings.predicates.common import LibraryFacts, macro_arguments


def _load() -> dict:
    """{cuDNN name (bytes): fact} of the functions whose MIOpen counterpart takes another list."""
    from porter.mapping.miopen_args import load_miopen_call_args

    return {name.encode(): fact for name, fact in load_miopen_call_args().items()}


_CALLS = LibraryFacts(_load, lambda ctx: b"cudnn" in ctx.source)


def _declaration(fact) -> str:
    return f"{fact.miopen}({', '.join(fact.miopen_params)})"


def _problem(fact, count: int, why_unfit: str) -> str:
    if count != fact.cuda_args:  # a macro supplies arguments: the translator leaves the call as written
        return macro_arguments(count, fact.cuda_args, "MIOpen") + ": write its arguments from MIOpen's list"
    if why_unfit:
        return (f"porter writes MIOpen's arguments for this function only when the call allows it, and here "
                f"{why_unfit}: the call keeps cuDNN's {fact.cuda_args} arguments and does not compile")
    return (f"porter keeps cuDNN's {fact.cuda_args} arguments, which are not these, so the call does not compile"
            + (f": {fact.why}" if fact.why else ": write its arguments from MIOpen's list (MIOpen's documentation "
               "of the function says what each means)"))


@file_check("PORT183", regions=_CALLS.regions)
def miopen_argument_mismatch(ctx):
    from porter.translate.call_args import unfit

    hits = []
    for pos, end, word, spans, fact in _CALLS.calls(ctx):
        why_unfit = ""
        if len(spans) == fact.cuda_args and fact.args is not None:
            why_unfit = unfit(ctx.source, spans, fact)
            if not why_unfit:
                continue  # porter writes MIOpen's arguments
        problem = _problem(fact, len(spans), why_unfit)
        if fact.beta:
            problem += ("; MIOpen declares it only under MIOPEN_BETA_API: define that macro before including "
                        "miopen/miopen.h")
        hits.append(Hit(pos, end, {"name": word.decode(), "declaration": _declaration(fact), "problem": problem}))
    return hits
