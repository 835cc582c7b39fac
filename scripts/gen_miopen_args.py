#!/usr/bin/env python3
"""Generate porter/mapping/data/calls/miopen_args.json: for each cuDNN function that ``porter convert``
renames to a MIOpen function (porter/mapping/data/cudnn.json, the miopen* targets; the same with and
without --roc), compare cuDNN's parameter list with MIOpen's and record, for each function whose list
differs, MIOpen's declaration and what porter does with a call written with cuDNN's arguments: an
argument edit (``args``) where MIOpen's documentation makes one keep the meaning (``DECISIONS``, each
with its reason and the doc comment it rests on), otherwise nothing: PORT183 reports the call.

Inputs (not in the repository; see the data file's ``sources``):
  --cudnn      NVIDIA's include/ folders, newest first (pip download --no-deps nvidia-cudnn-cu12, and
               nvidia-cudnn-cu11==8.9.* for the legacy RNN API cuDNN 9 removed): each function's
               parameters come from the first folder whose headers declare it
  --miopen     ROCm/MIOpen's include/miopen/miopen.h (the stored public code index), newest version
               last: a function takes its declaration from the first file that declares it; one inside
               ``#ifdef MIOPEN_BETA_API`` is recorded as ``beta`` (compiled only with that macro defined)

Compared: the count, and each parameter's type with cuDNN's type names renamed as porter renames
them (cudnn.json) and const dropped: arithmetic types convert to each other in a call, so only a
pointer, enum or handle type that is not the same after the rename counts as a difference.  The
parameter lists are parsed by scripts/header_declarations.py's ``declarations`` (imported)."""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from header_declarations import COMMENT, DECLARATION, declarations, fail, finish, read_header  # noqa: E402  (shared)

ROOT = Path(__file__).resolve().parent.parent
NAMES = ROOT / "porter" / "mapping" / "data" / "cudnn.json"
OUT = ROOT / "porter" / "mapping" / "data" / "calls" / "miopen_args.json"

_NOISE = re.compile(r"\b(?:CUDNNWINAPI|MIOPEN_EXPORT|__host__|__device__)\b"
                    r"|\bCUDNN_DEPRECATED(?:_ENUM)?\b(?:\s*\([^()]*\))?")
_ARITHMETIC = frozenset(("int", "unsignedint", "unsigned", "long", "longlong", "unsignedlonglong", "size_t",
                         "int64_t", "int32_t", "uint64_t", "float", "double", "bool", "char"))
_ARRAY = re.compile(r"\b([A-Za-z_]\w*)\s*\[\s*\w*\s*\]")  # `int hostLabels[]`: a pointer parameter
# the same type under two names: the port's hipStream_t (cudaStream_t renamed) and MIOpen's queue type, which
# miopen.h declares as `typedef hipStream_t miopenAcceleratorQueue_t;` for its HIP backend
_SAME_TYPE = {"cudaStream_t": "hipStream_t", "miopenAcceleratorQueue_t": "hipStream_t"}
_BETA = re.compile(r"^\s*#\s*(ifdef|ifndef|if|endif|else|elif)\b\s*(\w*)", re.M)

_SET_DROPOUT_DOC = (
    "miopen.h: '@param use_mask Boolean flag indicating whether to use a saved mask (an existing or user-defined "
    "dropout layout) in reserveSpace (input)'; '@param state_evo Boolean flag indicating whether to adopt state "
    "evolution strategy to update the PRNG states by the end of each implementation (input placeholder, currently "
    "not enabled)'; '@param rng_mode Random number generator used to generate parallel random number sequences "
    "(input)'; miopenRNGType_t's only enumerator: 'MIOPEN_RNG_PSEUDO_XORWOW = 0, /*!< XORWOW pseudorandom "
    "generator */'")
_SET_DROPOUT_WHY = (
    "cuDNN's descriptor has no saved-mask mode (cudnnDropoutForward draws a new mask into reserveSpace), so "
    "use_mask is false; state_evo is documented as a placeholder that is not enabled, so false; rng_mode can only "
    "be MIOPEN_RNG_PSEUDO_XORWOW, miopenRNGType_t's only value (AMD's HIPIFY passes zero-initialized variables: "
    "the same three values)")
_NOISE_SHAPE_DOC = ("miopen.h: '@param noise_shape Tensor descriptor for noise shape (input placeholder, currently "
                    "not enabled)'")


def _dropout_noise(data: int, why: str) -> dict:
    """MIOpen's Dropout{Forward,Backward} take a noise_shape descriptor after dropoutDesc: the data's own
    descriptor (cuDNN's argument ``data``), passed twice."""
    return {"args": [{"arg": 0}, {"arg": 1}, {"arg": data}, {"arg": data}] + [{"arg": i} for i in range(data + 1, 8)],
            "pure": [data], "miopen_args": 9, "why": why, "sources": [_NOISE_SHAPE_DOC]}


# What a call written with cuDNN's arguments becomes, where MIOpen's documentation makes an edit keep the
# meaning; "miopen_args": the count MIOpen's header must declare (checked).  Every other function whose list
# differs: no edit (PORT183).
DECISIONS = {
    "cudnnSetDropoutDescriptor": {
        "args": [{"arg": i} for i in range(6)] + [{"text": "false"}, {"text": "false"},
                                                    {"text": "MIOPEN_RNG_PSEUDO_XORWOW"}],
        "miopen_args": 9, "why": _SET_DROPOUT_WHY, "sources": [_SET_DROPOUT_DOC]},
    "cudnnRestoreDropoutDescriptor": {
        "args": [{"arg": i} for i in range(6)] + [{"text": "false"}, {"text": "false"},
                                                    {"text": "MIOPEN_RNG_PSEUDO_XORWOW"}],
        "miopen_args": 9, "why": _SET_DROPOUT_WHY, "sources": [_SET_DROPOUT_DOC]},
    "cudnnDropoutForward": _dropout_noise(2, (
        "miopenDropoutForward takes a noise_shape descriptor after dropoutDesc, documented as a placeholder that is "
        "not enabled; x's own descriptor (a mask of x's shape: cuDNN's element-wise dropout) is the value that keeps "
        "cuDNN's meaning whether MIOpen reads it or not")),
    "cudnnDropoutBackward": _dropout_noise(2, (
        "miopenDropoutBackward takes a noise_shape descriptor after dropoutDesc, documented as a placeholder that is "
        "not enabled; dy's own descriptor (a mask of dy's shape: cuDNN's element-wise dropout) is the value that keeps "
        "cuDNN's meaning whether MIOpen reads it or not")),
}

_SOFTMAX_DOC = ("miopen.h: miopenSoftmaxForward_V2 / miopenSoftmaxBackward_V2, 'Execute a softmax forward layer with "
                "expanded modes and algorithms', '@param algorithm Softmax implementation algorithm (input)', "
                "'@param mode Softmax mode (input)'; MIOPEN_SOFTMAX_FAST/ACCURATE/LOG = 0/1/2 and "
                "MIOPEN_SOFTMAX_MODE_INSTANCE/CHANNEL = 0/1, cuDNN's CUDNN_SOFTMAX_* values (cudnn_ops.h)")
_SOFTMAX_WHY = ("MIOpen's _V2 function takes cuDNN's arguments with the algorithm and the mode last instead of second "
                "and third; both have types no other parameter has (miopenSoftmaxAlgorithm_t, miopenSoftmaxMode_t, "
                "porter's renames of cuDNN's), so the compiler checks the order, and their values are cuDNN's")
DECISIONS["cudnnSoftmaxForward"] = {"args": [{"arg": i} for i in (0, 3, 4, 5, 6, 7, 8, 1, 2)], "miopen_args": 9,
                                    "why": _SOFTMAX_WHY, "sources": [_SOFTMAX_DOC]}
DECISIONS["cudnnSoftmaxBackward"] = {"args": [{"arg": i} for i in (0, 3, 4, 5, 6, 7, 8, 9, 10, 1, 2)],
                                     "miopen_args": 11, "why": _SOFTMAX_WHY, "sources": [_SOFTMAX_DOC]}

# Why functions whose lists differ get no edit (written into the data with the finding).
NO_EDIT = {
    "cudnnSetRNNDescriptor_v6": (
        "MIOpen takes no handle, and a miopenRNNBiasMode_t after the cell mode that cuDNN's v6 call does not pass; "
        "its last parameter is the data type where cuDNN's is the math precision (cudnnSetRNNDescriptor_v6's "
        "mathPrec), which may differ from the data's type: pass the bias mode and the data type yourself"),
    "cudnnRNNBackwardWeights": (
        "MIOpen takes dwDesc and dw before the workspace and its size, and cuDNN after them; the moved parameters do "
        "not have distinct types (dw and workSpace are both void*, dwDesc a tensor descriptor like hxDesc), so a "
        "swap the compiler cannot check is left to you: pass dwDesc, dw, workSpace, workSpaceSizeInBytes"),
    "cudnnGetConvolutionForwardWorkspaceSize": (
        "MIOpen takes no algorithm (it returns the largest workspace of all of them) and the weight descriptor "
        "before the input's, the other way round from cuDNN: both are tensor descriptors, so a call with the "
        "algorithm dropped compiles with them swapped; pass handle, wDesc, xDesc, convDesc, yDesc, &size"),
    "cudnnGetConvolutionBackwardDataWorkspaceSize": (
        "MIOpen takes no algorithm (it returns the largest workspace of all of them) and dy's descriptor before w's, "
        "the other way round from cuDNN: both are tensor descriptors, so a call with the algorithm dropped compiles "
        "with them swapped; pass handle, dyDesc, wDesc, convDesc, dxDesc, &size"),
    "cudnnConvolutionForward": (
        "MIOpen takes beta, yDesc and y before the workspace and its size, cuDNN after them; void* parameters on "
        "both sides, so the compiler does not check the order: pass them in MIOpen's order (and run "
        "miopenFindConvolutionForwardAlgorithm first, which MIOpen's documentation requires)"),
    "cudnnConvolutionBackwardData": (
        "MIOpen takes beta, dxDesc and dx before the workspace and its size, cuDNN after them; void* parameters on "
        "both sides, so the compiler does not check the order: pass them in MIOpen's order (after "
        "miopenFindConvolutionBackwardDataAlgorithm, which MIOpen's documentation requires)"),
    "cudnnGetDropoutDescriptor": (
        "MIOpen also returns use_mask, state_evo and rng_mode through three more pointers (bool*, bool*, "
        "miopenRNGType_t*) that its documentation does not let be NULL: declare the three variables and pass "
        "their addresses"),
}


def miopen_names() -> dict[str, str]:
    """cuDNN identifier -> the miopen* name porter renames it to (every cudnn* / CUDNN_* name with one)."""
    sys.path.insert(0, str(ROOT))
    from porter.mapping import read_generated

    return {e.cuda: e.hip for e in read_generated(NAMES)
            if e.kind == "identifier" and (e.hip or "").startswith("miopen")}


def beta_ranges(text: str) -> list[tuple[int, int]]:
    """The character ranges of ``text`` inside ``#ifdef MIOPEN_BETA_API`` groups (their #else parts left out)."""
    out, stack = [], []  # stack: [start or None, is the beta group]
    for m in _BETA.finditer(text):
        kind, word = m.group(1), m.group(2)
        if kind in ("ifdef", "ifndef", "if"):
            stack.append([m.end() if (kind == "ifdef" and word == "MIOPEN_BETA_API") else None])
        elif not stack:
            continue
        elif kind in ("else", "elif"):
            if stack[-1][0] is not None:
                out.append((stack[-1][0], m.start()))
                stack[-1][0] = None
        else:  # endif
            start = stack.pop()[0]
            if start is not None:
                out.append((start, m.start()))
    return out


def read_miopen(paths: list[Path]) -> tuple[dict, set[str], dict[str, list[str]]]:
    """({function: [(type, name)]} from the first file declaring it, {functions declared only under
    MIOPEN_BETA_API}, {function: its parameters as written, for the messages}); the beta ranges and the
    parameters as written are found in the text with its comments blanked, as ``declarations`` reads it."""
    out, beta, written = {}, set(), {}
    for path in paths:
        text = read_header(path)
        blanked = _NOISE.sub(" ", COMMENT.sub(lambda m: " " * len(m.group(0)), text))
        ranges = beta_ranges(blanked)
        decls = declarations(text, "miopen", noise=_NOISE)
        for name, params in decls.items():
            if name in out:
                continue
            out[name] = params
            at = re.search(r"\b" + name + r"\s*\(", blanked)
            m = DECLARATION.search(blanked, at.start()) if at else None
            written[name] = [" ".join(p.split()) for p in m.group(2).split(",")] if m else _listing(params)
            if at and any(a <= at.start() < b for a, b in ranges):
                beta.add(name)
    return out, beta, written


def read_cudnn(folders: list[Path], labels: list[str]) -> dict[str, tuple[list, str]]:
    """{function: ([(type, name)], the folder's label)} from the first folder whose headers declare it."""
    out = {}
    for folder, label in zip(folders, labels):
        for header in sorted(folder.glob("cudnn*.h")):
            text = _ARRAY.sub(r"* \1", read_header(header))
            for name, params in declarations(text, "cudnn", noise=_NOISE).items():
                out.setdefault(name, (params, label))
    return out


def _renamed(ctype: str, names: dict[str, str]) -> str:
    """cuDNN's parameter type as the port writes it (porter's renames of the type's name)."""
    return re.sub(r"\b(cudnn\w+|cudaStream_t)\b",
                  lambda m: _SAME_TYPE.get(m.group(1)) or names.get(m.group(1), m.group(1)), ctype)


def type_differences(cparams, mparams, names) -> list[str]:
    """The positions whose types do not convert: "i: cuda -> miopen" (same counts only)."""
    out = []
    for i, ((ct, _), (mt, _)) in enumerate(zip(cparams, mparams)):
        port, mt = _renamed(ct, names), re.sub(r"\bmiopenAcceleratorQueue_t\b", "hipStream_t", mt)
        if port == mt or (port in _ARITHMETIC and mt in _ARITHMETIC):
            continue
        if mt == "void*" and port.endswith("*"):  # any object pointer converts to void*
            continue
        out.append(f"{i + 1}: {port} -> {mt}")
    return out


def _listing(params) -> list[str]:
    return [f"{t} {n}".strip() for t, n in params]


def compare(cu: dict, mi: dict, beta: set[str], names: dict[str, str], written: dict | None = None
            ) -> tuple[dict, dict, list[str]]:
    """({cuDNN function: entry} of the functions whose lists differ, counts, MIOpen names not declared)."""
    functions, missing = {}, []
    counts = {"compared": 0, "same": 0, "differs": 0, "edited": 0, "miopen_not_declared": 0,
              "not_a_cudnn_function": 0}
    for cname, mname in sorted(names.items()):
        if cname not in cu:
            if re.match(r"cudnn[A-Z]", cname) and not cname.endswith(("_t", "Struct")):
                counts["not_a_cudnn_function"] += 1  # cudnnContext (a struct), cuDNN 7's cudnnGetRNNDescriptor
            continue  # a type or a constant
        if mname not in mi:
            counts["miopen_not_declared"] += 1
            missing.append(f"{cname} -> {mname}")
            continue
        counts["compared"] += 1
        (cparams, folder), mparams = cu[cname], mi[mname]
        problems = type_differences(cparams, mparams, names) if len(cparams) == len(mparams) else []
        if len(cparams) == len(mparams) and not problems:
            counts["same"] += 1
            continue
        counts["differs"] += 1
        entry = {"miopen": mname, "cuda_args": len(cparams), "cuda_params": _listing(cparams),
                 "cuda_header": folder, "miopen_params": (written or {}).get(mname) or _listing(mparams)}
        if mname in beta:
            entry["beta"] = True
        if problems:
            entry["types"] = problems
        decision = DECISIONS.get(cname)
        if decision:
            if decision["miopen_args"] != len(mparams):
                raise SystemExit(f"gen_miopen_args: the decision for {cname} does not match the header "
                                 f"({len(mparams)} parameters)")
            entry.update({k: v for k, v in decision.items() if k != "miopen_args"})
            counts["edited"] += 1
        elif cname in NO_EDIT:
            entry["why"] = NO_EDIT[cname]
        functions[cname] = entry
    return functions, counts, missing


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cudnn", required=True, type=Path, action="append", help="include folder, newest first")
    ap.add_argument("--cudnn-source", required=True, action="append", help="what each --cudnn folder is")
    ap.add_argument("--miopen", required=True, type=Path, action="append", help="miopen.h, in the order to read")
    ap.add_argument("--miopen-source", required=True, action="append", help="repo, path and commit of each")
    ap.add_argument("-o", "--output", type=Path, default=OUT)
    args = ap.parse_args(argv)
    if len(args.cudnn) != len(args.cudnn_source) or len(args.miopen) != len(args.miopen_source):
        return fail("gen_miopen_args", "give one --cudnn-source per --cudnn and one --miopen-source per --miopen", 2)
    try:
        for folder in args.cudnn:
            if not folder.is_dir():
                raise OSError(f"not a folder: {folder}")
        cu = read_cudnn(args.cudnn, args.cudnn_source)
        mi, beta, written = read_miopen(args.miopen)
    except (OSError, ValueError) as e:
        return fail("gen_miopen_args", e)
    functions, counts, missing = compare(cu, mi, beta, miopen_names(), written)
    return finish(
        args.output,
        about=("cuDNN calls that porter renames to a MIOpen function (cudnn.json) whose parameter list is not "
               "cuDNN's: 'miopen_params' as MIOpen declares it ('beta': only under MIOPEN_BETA_API), 'types' the "
               "positions whose types do not convert after porter's renames; 'args' (MIOpen's arguments in order, "
               "each the call's argument 'arg' (0-based) or a constant 'text'; 'pure': arguments passed twice, "
               "which must have no side effect; 'why' and 'sources' say why it keeps the meaning) where porter "
               "edits the call, otherwise PORT183 reports it ('why', where given, says what to pass). "
               "Generated by scripts/gen_miopen_args.py; read by porter/mapping/miopen_args.py."),
        sources={
            "cuda": args.cudnn_source,
            "miopen": args.miopen_source,
            "names": "porter/mapping/data/cudnn.json (the miopen* name porter writes)",
        },
        counts=counts,
        functions=functions,
        miopen_not_declared=missing,
    )


if __name__ == "__main__":
    sys.exit(main())
