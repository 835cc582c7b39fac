"""Write porter/findings/hip_provides.json: the global-namespace functions (with their parameter
types) and the macros that the installed HIP headers declare, for PORT170/PORT171 ("user code
redefines what HIP provides").

    .venv/bin/python scripts/gen_hip_provides.py [--hip /usr/include/hip] [--clang-include DIR]

Read from Debian 12's HIP 5.2 headers (hipcc's clang 15 wrappers for the math functions): the
floor of every ROCm porter targets.  Templates and names inside namespaces or classes are left
out (a user definition next to them is an overload, not a redefinition).
"""

from __future__ import annotations

import argparse
import glob
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from porter import parse  # noqa: E402
from porter.findings.predicates.hipdefs import signature  # noqa: E402  (the comparison porter makes)

HEADERS = ("amd_detail/amd_device_functions.h", "amd_detail/amd_hip_atomic.h", "amd_detail/amd_warp_functions.h",
           "amd_detail/amd_hip_unsafe_atomics.h", "amd_detail/hip_ldg.h", "amd_detail/amd_math_functions.h",
           "amd_detail/amd_hip_fp16.h", "amd_detail/amd_surface_functions.h", "amd_detail/texture_fetch_functions.h",
           "amd_detail/amd_hip_runtime.h", "amd_detail/amd_hip_cooperative_groups.h", "hip_runtime_api.h",
           "amd_detail/host_defines.h", "amd_detail/amd_hip_vector_types.h", "amd_detail/amd_hip_common.h")
CLANG = ("__clang_hip_math.h", "__clang_hip_runtime_wrapper.h", "__clang_hip_libdevice_declares.h")
_DESCEND = {"translation_unit", "linkage_specification", "declaration_list", "preproc_if", "preproc_ifdef",
            "preproc_else", "preproc_elif"}
# HIP's own helper macros and include guards are no names a user defines by chance
_INTERNAL_MACRO = re.compile(r"^(?:_|HIP_INCLUDE_|HIP_.*_H$|.*_H_?$|__HIP|__CLANG|__OCKL|__OCML|__DEVICE__$|__HOST)")


def walk(src: bytes, node, functions: dict, where: str) -> None:
    for child in node.named_children:
        t = child.type
        if t in _DESCEND:
            walk(src, child, functions, where)
        elif t in ("function_definition", "declaration"):
            fd = child.child_by_field_name("declarator")
            while fd is not None and fd.type in ("pointer_declarator", "reference_declarator", "init_declarator"):
                fd = fd.child_by_field_name("declarator")
            if fd is None or fd.type != "function_declarator":
                continue
            name_node = fd.child_by_field_name("declarator")
            if name_node is None or name_node.type not in ("identifier", "operator_name"):
                continue
            name = src[name_node.start_byte:name_node.end_byte].decode()
            params = fd.child_by_field_name("parameters")
            if params is None:
                continue
            sig = signature(src, params)
            entry = functions.setdefault(name, {})
            entry.setdefault(" , ".join(sig), where)


def macros_of(text: str) -> set[str]:
    return {m.group(1) for m in re.finditer(r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)", text, re.M)
            if not _INTERNAL_MACRO.match(m.group(1))}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hip", default="/usr/include/hip")
    ap.add_argument("--clang-include", default=(sorted(glob.glob("/usr/lib/llvm-15/lib/clang/*/include")) or [""])[-1])
    ap.add_argument("-o", "--output", default=str(ROOT / "porter/findings/hip_provides.json"))
    args = ap.parse_args()
    functions: dict[str, dict[str, str]] = {}
    macros: dict[str, str] = {}
    files = [(Path(args.hip) / h, "hip/" + h) for h in HEADERS]
    files += [(Path(args.clang_include) / h, "clang/" + h) for h in CLANG]
    for path, shown in files:
        if not path.is_file():
            print(f"missing: {path}", file=sys.stderr)
            return 1
        src = path.read_bytes()
        walk(src, parse.parse(src).root_node, functions, shown)
        for name in macros_of(src.decode("utf-8", "replace")):
            macros.setdefault(name, shown)
    doc = {
        # amd_hip_vector_types.h: HIP_vector_type<T, n> typedefs; its +=, -=, *=, /= (same operand type) and
        # ++/-- are non-template members, so a free operator with the same operands is ambiguous (hipcc 5.2)
        "vector_types": [f"{t}{n}" for t in ("char", "uchar", "short", "ushort", "int", "uint", "long", "ulong",
                                             "longlong", "ulonglong", "float", "double") for n in (1, 2, 3, 4)],
        "source": "Debian 12 HIP 5.2 headers (/usr/include/hip) and hipcc's clang 15 HIP wrappers; "
                  "written by scripts/gen_hip_provides.py",
        "functions": {n: functions[n] for n in sorted(functions)},
        "macros": {n: macros[n] for n in sorted(macros)},
    }
    Path(args.output).write_text(json.dumps(doc, indent=0, sort_keys=False) + "\n", encoding="utf-8")
    print(f"{len(functions)} functions, {sum(len(v) for v in functions.values())} signatures, {len(macros)} macros")
    return 0


if __name__ == "__main__":
    sys.exit(main())
