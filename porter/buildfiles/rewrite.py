"""Apply a rule set to one build file: non-overlapping byte-span edits on the
original text (earlier rules win), then the insertions a migration needs
(HIP_ARCH variable, find_package for ROCm libraries, LANGUAGE HIP for .cu
sources).  Text outside the edited spans is kept byte for byte."""

from __future__ import annotations

import re
from dataclasses import dataclass

from porter.buildfiles import make_text
from porter.buildfiles.rules import Rule, RuleSet, libraries

CMAKE_HIP_MIN = "3.21"


@dataclass(frozen=True, slots=True)
class Edit:
    start: int
    end: int
    text: str
    rule: str
    why: str


@dataclass(slots=True)
class Context:
    kind: str
    arch: str
    packages: list  # CMake packages the rewritten targets need, in order
    used_arch_ref: bool = False
    variables: dict | None = None  # Make: every value each variable is given (_variables)


# ---------------------------------------------------------------- transforms

def _host_flags(m: re.Match, ctx: Context) -> str:
    value = m.group(1)
    if value[:1] in "\"'" and value[-1:] == value[:1]:
        value = value[1:-1]
    return " ".join(p for p in re.split(r"[,\s]+", value) if p)


def _library(m: re.Match, ctx: Context) -> str:
    entry = libraries().get(m.group(1), {})
    return entry.get("flag", m.group(0))


def _cmake_target(m: re.Match, ctx: Context) -> str:
    entry = libraries().get(m.group(1))
    if not entry or "target" not in entry:
        return m.group(0)
    if entry["package"] not in ctx.packages:
        ctx.packages.append(entry["package"])
    return entry["target"]


_LEGACY = {"LIBRARIES": "hip::host", "CUDART_LIBRARY": "hip::host", "CUBLAS_LIBRARIES": "cublas",
           "cublas_LIBRARY": "cublas", "curand_LIBRARY": "curand", "cufft_LIBRARY": "cufft",
           "CUFFT_LIBRARIES": "cufft", "cusparse_LIBRARY": "cusparse", "cusolver_LIBRARY": "cusolver"}


def _cmake_legacy_lib(m: re.Match, ctx: Context) -> str:
    name = _LEGACY.get(m.group(1), "")
    if name.startswith("hip::"):
        return name
    entry = libraries().get(name)
    if not entry:
        return m.group(0)
    if entry["package"] not in ctx.packages:
        ctx.packages.append(entry["package"])
    return entry["target"]


def _version_tuple(v: str) -> tuple[int, ...]:
    return tuple(int(x) for x in v.split(".") if x.isdigit())


def _min_version(m: re.Match, ctx: Context) -> str:
    have = m.group(1)
    if _version_tuple(have) >= _version_tuple(CMAKE_HIP_MIN):
        return m.group(0)
    start = m.start(1) - m.start(0)
    return m.group(0)[:start] + CMAKE_HIP_MIN


_NV_ARCH_VALUE = re.compile(r"^(?:sm|compute)_\w+$")


def _nv_arch_var(m: re.Match, ctx: Context) -> str:
    """``-arch=$(ARCH)`` where every value the Makefile gives ARCH is an NVIDIA target (``ARCH = sm_60``):
    the AMD target instead.  Anything else (a variable porter cannot see through) stays."""
    name = m.group(1) or m.group(2)
    values = (ctx.variables or {}).get(name)
    if ctx.kind != "make" or not values:
        return m.group(0)
    expanded = [make_text.expand(v, ctx.variables).strip() for v in values]
    if not all(_NV_ARCH_VALUE.match(v) for v in expanded):
        return m.group(0)
    ctx.used_arch_ref = True
    return "--offload-arch=$(HIP_ARCH)"


TRANSFORMS = {"host_flags": _host_flags, "library": _library, "cmake_target": _cmake_target,
              "cmake_legacy_lib": _cmake_legacy_lib, "min_version": _min_version, "nv_arch_var": _nv_arch_var}


def _replacement(rule: Rule, m: re.Match, ctx: Context, arch_ref: str) -> str:
    if rule.transform:
        return TRANSFORMS[rule.transform](m, ctx)
    if rule.inner is not None:
        return rule.inner.sub(rule.inner_replace, m.group(0))
    template = rule.replace.replace("{arch_ref}", arch_ref).replace("{arch}", ctx.arch)
    if "{arch_ref}" in rule.replace and arch_ref != ctx.arch:
        ctx.used_arch_ref = True
    return m.expand(template)


# ---------------------------------------------------------------- comments

def comment_spans(text: str) -> list[tuple[int, int]]:
    """``#`` comments (Make and CMake), not inside CMake quoted strings or
    after a backslash; CMake bracket comments ``#[[ ]]`` too."""
    spans = []
    i, n = 0, len(text)
    in_str = False
    while i < n:
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == '"':
            in_str = not in_str
        elif c == "#" and not in_str:
            b = re.match(r"#\[(=*)\[", text[i:i + 20])
            if b:
                close = text.find("]" + b.group(1) + "]", i)
                end = n if close < 0 else close + len(b.group(1)) + 2
            else:
                end = text.find("\n", i)
                end = n if end < 0 else end
            spans.append((i, end))
            i = end
            continue
        i += 1
    return spans


def _in_spans(pos: int, spans: list[tuple[int, int]]) -> bool:
    return any(a <= pos < b for a, b in spans)


# ---------------------------------------------------------------- edits

def collect_edits(text: str, ruleset: RuleSet, ctx: Context) -> list[Edit]:
    arch_ref = ruleset.settings.get("arch_ref", "{arch}")
    if arch_ref == "{arch}":
        arch_ref = ctx.arch
    comments = comment_spans(text)
    taken: list[tuple[int, int]] = []
    edits: list[Edit] = []
    for rule in ruleset.rules:
        for m in rule.regex.finditer(text):
            a, b = m.span()
            if a == b or _in_spans(a, comments):
                continue
            if any(a < y and x < b for x, y in taken):
                continue
            new = _replacement(rule, m, ctx, arch_ref)
            taken.append((a, b))
            if new != m.group(0):
                edits.append(Edit(a, b, new, rule.id, rule.why))
    return sorted(edits, key=lambda e: (e.start, e.end))


def line_start(text: str, pos: int) -> int:
    return text.rfind("\n", 0, pos) + 1


def _nl(text: str) -> str:
    return "\r\n" if "\r\n" in text[:4096] else "\n"


def make_insertions(text: str, ctx: Context, ruleset: RuleSet, edits: list[Edit] | None = None) -> list[Edit]:
    """``HIP_ARCH ?= <arch>`` where the rewrite refers to it, and ``HIPCC ?= hipcc`` where a recipe or a
    compiler variable now says ``$(HIPCC)``, after the leading comment block (a definition in the file wins)."""
    var = ruleset.settings.get("arch_variable", "HIP_ARCH")
    nl = _nl(text)
    block = ""
    if ctx.used_arch_ref and not re.search(rf"^[ \t]*(?:override[ \t]+|export[ \t]+)*{var}[ \t]*[:?+!]?=", text, re.M):
        block += f"# AMD GPU target (porter); build for another with: make {var}=gfx90a{nl}{var} ?= {ctx.arch}{nl}"
    probe = apply_edits(text, edits or [])
    if re.search(r"\$[({]HIPCC[)}]", probe) and \
            not re.search(r"^[ \t]*(?:override[ \t]+|export[ \t]+)*HIPCC[ \t]*[:?+!]?=", probe, re.M):
        block += (f"# the HIP compiler (porter): hipcc, or the front end porter build passes as HIPCC=...{nl}"
                  f"HIPCC ?= hipcc{nl}")
    if re.search(r"\$[({]HIPCC[)}]|(?<![\w/.-])hipcc\b", probe) and \
            not re.search(r"^[ \t]*(?:override[ \t]+|export[ \t]+)*HIP_PLATFORM[ \t]*[:?+!]?=", probe, re.M):
        # hipcc builds for NVIDIA where it finds an nvcc and HIP_PLATFORM is unset: never for the wrong GPU
        block += (f"# hipcc targets AMD even where a CUDA compiler is installed (porter){nl}"
                  f"export HIP_PLATFORM ?= amd{nl}")
    if not block:
        return []
    # after the leading comment block
    pos = 0
    for m in re.finditer(r"[^\n]*\n?", text):
        line = m.group(0)
        if line.strip() == "" or line.lstrip().startswith("#"):
            pos = m.end()
            if not line:
                break
            continue
        break
    return [Edit(pos, pos, block, "make.arch-variable", f"{var} holds the --offload-arch target; HIPCC the compiler")]


_CALL = re.compile(r"(?is)\b(\w+)\s*\(")


def _cmake_calls(text: str, comments) -> list[tuple[str, int, int, str]]:
    """(command lower-case, start, end, argument text) of top-level commands."""
    out = []
    for m in _CALL.finditer(text):
        if _in_spans(m.start(), comments):
            continue
        depth, i = 1, m.end()
        in_str = False
        while i < len(text) and depth:
            c = text[i]
            if c == "\\":
                i += 2
                continue
            if c == '"':
                in_str = not in_str
            elif not in_str:
                if c == "(":
                    depth += 1
                elif c == ")":
                    depth -= 1
            i += 1
        # (an unclosed call runs to the end of the text: its arguments are all of it, not all but one character)
        out.append((m.group(1).lower(), m.start(), i, text[m.end():i - 1 if depth == 0 else i]))
    return out


def _call_line_end(text: str, end: int) -> int:
    nl = text.find("\n", end)
    return len(text) if nl < 0 else nl + 1


def cmake_insertions(text: str, new_text_probe: str, ctx: Context) -> list[Edit]:
    """``text`` is the original; ``new_text_probe`` the text after the rule
    edits (to see what is already there)."""
    comments = comment_spans(text)
    calls = _cmake_calls(text, comments)
    nl = _nl(text)
    edits: list[Edit] = []
    probe_calls = _cmake_calls(new_text_probe, comment_spans(new_text_probe))
    found = {re.split(r"\s+", a.strip())[0].lower() for c, _, _, a in probe_calls if c == "find_package" and a.strip()}
    uses_hip_target = re.search(r"\bhip::(host|device)\b", new_text_probe) is not None
    needs = [p for p in ctx.packages if p.lower() not in found]
    if uses_hip_target and "hip" not in found:
        needs.insert(0, "hip")
    anchor = None
    for c, a, b, args in calls:
        if c == "find_package" and re.match(r"\s*(CUDAToolkit|CUDA|hip)\b", args, re.I):
            anchor = b
            break
    if anchor is None:
        for c, a, b, args in calls:
            if c in ("project", "enable_language"):
                anchor = b
    if needs:
        pos = _call_line_end(text, anchor) if anchor is not None else 0
        block = "".join(f"find_package({p} REQUIRED){nl}" for p in needs)
        if pos > 0 and text[pos - 1:pos] != "\n":
            block = nl + block
        edits.append(Edit(pos, pos, block, "cmake.find-package", "the ROCm targets used below come from these packages"))
    # the arch default must exist before project() enables HIP (CMake caches
    # its own detected default there); a cache entry, so -D... still wins
    project_call = next((a for c, a, b, args in calls if c == "project"), None)
    probe_project = next(((a, args) for c, a, b, args in probe_calls if c == "project"), None)
    if project_call is not None and probe_project is not None and re.search(r"\bHIP\b", probe_project[1]):
        before = new_text_probe[:probe_project[0]]
        if not re.search(r"(?i)\bset\s*\(\s*CMAKE_HIP_ARCHITECTURES\b", before):
            pos = line_start(text, project_call)
            block = f'set(CMAKE_HIP_ARCHITECTURES {ctx.arch} CACHE STRING "AMD GPU targets"){nl}'
            edits.append(Edit(pos, pos, block, "cmake.arch-default",
                              "the AMD GPU target, set before project() so CMake's HIP language uses it"))
    # .cu sources -> LANGUAGE HIP
    cu: list[str] = []
    for c, a, b, args in calls:
        if c in ("file",) and re.match(r"\s*GLOB(_RECURSE)?\s", args) and ".cu" in args:
            var = re.split(r"\s+", args.strip())
            if len(var) > 1 and "*.cu" in args:
                cu.append("${" + var[1] + "}")
            continue
        if c in ("set_source_files_properties", "find_package", "message"):
            continue
        for tok in re.findall(r'(?<![\w./${}-])([\w./${}-]+\.cu)(?![\w.])', args):
            if tok not in cu:
                cu.append(tok)
    if cu:
        done: set[str] = set()
        for c, a, b, args in probe_calls:
            if c == "set_source_files_properties" and re.search(r"\bLANGUAGE\s+HIP\b", args):
                done.update(re.split(r"\s+", args.split("PROPERTIES")[0].strip()))
        todo = [t for t in cu if t not in done]
        if todo:
            first_target = next((a for c, a, b, args in calls
                                 if c in ("add_executable", "add_library", "cuda_add_executable", "cuda_add_library",
                                          "target_sources")), None)
            globs_after = first_target is not None and any(
                c == "file" and a > first_target and ".cu" in args for c, a, b, args in calls)
            pos = len(text) if first_target is None or globs_after else line_start(text, first_target)
            lead = "" if pos == 0 or text[pos - 1:pos] == "\n" else nl
            block = f"{lead}set_source_files_properties({' '.join(todo)} PROPERTIES LANGUAGE HIP){nl}"
            edits.append(Edit(pos, pos, block, "cmake.cu-language", "CMake compiles .cu files as CUDA unless told: LANGUAGE HIP"))
    return edits


_IF_NOT_DEFINED = re.compile(r"(?im)^[ \t]*if[ \t]*\([ \t]*NOT[ \t]+DEFINED[ \t]+CMAKE_CUDA_ARCHITECTURES[ \t]*\)[ \t]*\r?\n\Z")
_ENDIF = re.compile(r"(?i)[ \t]*endif[ \t]*\([^)]*\)[ \t]*(?:\r?\n|\Z)")


def arch_set_once(text: str, edits: list[Edit]) -> list[Edit]:
    """When porter sets CMAKE_HIP_ARCHITECTURES before project() (cmake.arch-default),
    a later set(CMAKE_CUDA_ARCHITECTURES ...) would set it a second time, and an
    ``if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)`` around it can no longer run:
    both go (the whole if block when the set is all it holds)."""
    if not any(e.rule == "cmake.arch-default" for e in edits):
        return edits
    drops: list[tuple[int, int]] = []
    for e in edits:
        if e.rule != "cmake.arch-set":
            continue
        a, b = line_start(text, e.start), _call_line_end(text, e.end)
        if text[a:e.start].strip() or text[e.end:b].strip():
            continue  # shares its line with something else: leave it
        m1, m2 = _IF_NOT_DEFINED.search(text[:a]), _ENDIF.match(text, b)
        if m1 and m2:
            a, b = m1.start(), m2.end()
        drops.append((a, b))
    if not drops:
        return edits
    kept = [e for e in edits if not any(a <= e.start and e.end <= b and not (e.start == e.end == a) for a, b in drops)]
    return kept + [Edit(a, b, "", "cmake.arch-once", "CMAKE_HIP_ARCHITECTURES is set once, before project(); "
                        "a second set, or an if(NOT DEFINED ...) that cannot run, goes") for a, b in drops]


_FOREACH = re.compile(r"\$\(foreach[ \t]+\w+[ \t]*,")


def _paren_end(text: str, start: int) -> int:
    """The index after the ``)`` closing the ``$(`` at ``start`` (-1: none)."""
    depth, i = 0, start + 1
    while i < len(text):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                return i + 1
        elif text[i] == "\n" and text[i - 1:i] != "\\":
            return -1
        i += 1
    return -1


def arch_foreach_once(text: str, edits: list[Edit], arch_flag: str) -> list[Edit]:
    """A Makefile ``$(foreach a,$(ARCHS),-gencode ...)`` whose body became
    ``arch_flag`` gives the same --offload-arch once per NVIDIA arch: the loop
    becomes the flag itself."""
    out = list(edits)
    for m in _FOREACH.finditer(text):
        end = _paren_end(text, m.start())
        if end < 0:
            continue
        inside = [e for e in out if m.start() <= e.start and e.end <= end]
        if not inside:
            continue
        new = edited(text, inside, m.start(), end)
        body = new[new.index(",", new.index(",") + 1) + 1:-1] if new.count(",") >= 2 else ""
        if body.strip() != arch_flag:
            continue
        out = [e for e in out if e not in inside]
        out.append(Edit(m.start(), end, arch_flag, "make.arch-foreach",
                        "one AMD GPU target: a loop over NVIDIA archs would repeat the same --offload-arch"))
    return out


_GENEX_CUDA = re.compile(r"\$<\$<COMPILE_LANGUAGE:CUDA>:")


def _genex_end(text: str, start: int) -> int:
    """The index after the ``>`` closing the generator expression at ``start``."""
    depth, i = 0, start
    while i < len(text):
        if text.startswith("$<", i):
            depth += 1
            i += 2
            continue
        if text[i] == ">":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return -1


def empty_genex_goes(text: str, edits: list[Edit]) -> list[Edit]:
    """``$<$<COMPILE_LANGUAGE:CUDA>:-Wno-deprecated-gpu-targets>`` whose flags all
    went would be left as an empty ``$<$<COMPILE_LANGUAGE:HIP>:>``: it goes whole."""
    out = list(edits)
    for m in _GENEX_CUDA.finditer(text):
        end = _genex_end(text, m.start())
        if end < 0:
            continue
        inside = [e for e in out if m.start() <= e.start and e.end <= end]
        new = edited(text, inside, m.start(), end)
        if not re.fullmatch(r"\$<\$<COMPILE_LANGUAGE:(?:HIP|CUDA)>:\s*>", new):
            continue
        start = m.start()
        while start > 0 and text[start - 1] in " \t":
            start -= 1
        if any(e.start < start < e.end or e.start < end < e.end for e in out if e not in inside):
            continue
        out = [e for e in out if e not in inside]
        out.append(Edit(start, end, "", "cmake.empty-genex", "nothing is left for the HIP language in it"))
    return out


def unused_rocm_path_goes(text: str, edits: list[Edit]) -> list[Edit]:
    """A CUDA_HOME / CUDA_PATH definition renamed to ROCM_PATH that nothing uses any
    more (its only use was the nvcc path, now plain hipcc) is removed, line and all."""
    renames = [e for e in edits if e.rule == "make.cuda-path-var"]
    if not renames:
        return edits
    output = apply_edits(text, edits)
    if re.search(r"\$[({]ROCM_PATH[)}]", output):
        return edits
    out = [e for e in edits if e not in renames]
    for e in renames:
        end = _call_line_end(text, e.end) if text[e.end:e.end + 1] in ("\n", "\r") else e.end
        out.append(Edit(line_start(text, e.start), end, "", "make.unused-rocm-path",
                        "the toolkit root variable is used nowhere once nvcc is hipcc"))
    return out


def edited(text: str, edits: list[Edit], start: int, end: int) -> str:
    """``text[start:end]`` with the edits that lie wholly inside it applied."""
    return apply_edits(text[start:end], [Edit(e.start - start, e.end - start, e.text, e.rule, e.why)
                                         for e in edits if start <= e.start and e.end <= end])


def apply_edits(text: str, edits: list[Edit]) -> str:
    out, last = [], 0
    for e in sorted(edits, key=lambda e: (e.start, e.end)):
        out.append(text[last:e.start])
        out.append(e.text)
        last = e.end
    out.append(text[last:])
    return "".join(out)


# ---------------------------------------------------------------- Make: a compile with no AMD target

_INCLUDE = re.compile(r"^[ \t]*-?s?include[ \t]", re.M)
_ARCH_FLAG = re.compile(r"(?<![\w-])(?:--?offload-arch|--amdgpu-target|--cuda-gpu-arch)[= ]")
_SUBSTITUTION = re.compile(r"\$[({][^)}:]*:[^)}]*[)}]")
_SOURCE = re.compile(r"\.(?:cu|cpp|cc|cxx|c\+\+|c|hip)\b")
_COMPILER_WORD = re.compile(r"(?<![\w.-])(?:[\w./$(){}-]*/)?(?:hipcc|nvcc)(?![\w.-])")


def _always_arch(value: str, assignments: dict[str, list[tuple[str, str, bool]]], depth: int = 0) -> bool:
    """Whether ``value`` names an AMD target whichever branch of the file's conditionals make takes: itself,
    or through a variable every plain assignment of which does, or an append outside any conditional does."""
    if _ARCH_FLAG.search(value):
        return True
    if depth > 12:
        return False
    for m in make_text.REF.finditer(value):
        given = assignments.get(m.group(1) or m.group(2), ())
        plain = [v for op, v, _ in given if op != "+="]
        if (any(op == "+=" and not conditional and _always_arch(v, assignments, depth + 1)
                for op, v, conditional in given)
                or plain and all(_always_arch(v, assignments, depth + 1) for v in plain)):
            return True
    return False


_WHICH = re.compile(r"\$[({]shell[ \t]+(?:which|command[ \t]+-v)[ \t]+([\w./-]+)")
_HIPCC_VALUE = re.compile(r"^(?:[\w./$(){}-]*/)?hipcc$")
_RECIPE_HEAD = re.compile(r"\t[ \t]*[@+-]*[ \t]*")


def compiler_indirection(text: str, edits: list[Edit]) -> list[Edit]:
    """The HIP compiler is named once: a compiler variable set to nvcc (``CC = nvcc``, now hipcc) and a
    recipe that runs nvcc by name say ``$(HIPCC)``, which ``HIPCC ?= hipcc`` defines (make_insertions).
    porter build then passes ``HIPCC=`` its clang front end for a target the installed hipcc lacks
    (gfx942 with ROCm 5.2), and a user's ``make`` still runs hipcc.  HIPCC's own definition stays."""
    out = list(edits)
    comments = comment_spans(text)
    for a, b in make_text.logical_lines(text):
        if _in_spans(a, comments):
            continue
        line = text[a:b]
        if line.startswith("\t"):
            head = _RECIPE_HEAD.match(line)
            m = re.match(r"(?:[\w./$(){}-]*/)?(?:hipcc|nvcc)(?![\w.-])", line[head.end():]) if head else None
            if m is None:
                continue
            s, e = a + head.end(), a + head.end() + m.end()
            if edited(text, out, s, e) != "hipcc":
                continue
        else:
            m = make_text.ASSIGN.match(line)
            if m is None or m.group(1) in ("HIPCC", "NVCC"):
                continue
            value_start = a + m.start(3) + (len(m.group(3)) - len(m.group(3).lstrip()))
            value_end = a + m.end(3) - (len(m.group(3)) - len(m.group(3).rstrip()))
            comment = text.find("#", value_start, value_end)
            if comment >= 0:
                value_end = comment
                while value_end > value_start and text[value_end - 1] in " \t":
                    value_end -= 1
            if value_end <= value_start or not _HIPCC_VALUE.match(edited(text, out, value_start, value_end)):
                continue
            s, e = value_start, value_end
        out = [x for x in out if not (s <= x.start and x.end <= e)]
        out.append(Edit(s, e, "$(HIPCC)", "make.hipcc-variable",
                        "the compiler is $(HIPCC): hipcc by default, porter's clang front end for a target the "
                        "installed hipcc does not know"))
    return sorted(out, key=lambda x: (x.start, x.end))


def unused_nv_arch_goes(text: str, edits: list[Edit]) -> list[Edit]:
    """A variable that only ever held an NVIDIA target (``ARCH = sm_60``), that the original referred to and
    that nothing refers to once its ``-arch=$(ARCH)`` became ``--offload-arch=$(HIP_ARCH)``, goes, line and
    all.  (One only set, never read here, may be read by an included file or the command line: it stays.)"""
    variables = make_text.variables(text)
    output = apply_edits(text, edits)
    out = list(edits)
    for name, values in variables.items():
        if not values or not all(_NV_ARCH_VALUE.match(make_text.expand(v, variables).strip()) for v in values):
            continue
        ref = re.compile(r"\$[({]" + re.escape(name) + r"[)}]")
        if ref.search(output) or not ref.search(text):
            continue
        for a, b in make_text.logical_lines(text):
            m = make_text.ASSIGN.match(text[a:b])
            if m is None or m.group(1) != name or text.startswith("\t", a):
                continue
            end = b + 1 if b < len(text) else b
            if any(a <= x.start < end or a < x.end <= end for x in out):
                continue
            out.append(Edit(a, end, "", "make.unused-nv-arch", f"{name} held an NVIDIA target; nothing uses it now"))
    return sorted(out, key=lambda x: (x.start, x.end))


def _hipcc_words(text: str, edits: list[Edit], variables: dict[str, list[str]], comments, a: int,
                 b: int) -> list[tuple[int, int, str]]:
    """(start, end, text as edited) of each word of the recipe line ``text[a:b]`` that runs hipcc (``nvcc``
    migrated, ``$(HIPCC)``, a variable whose value is hipcc), outside comments."""
    out = []
    for m in re.finditer(r"\$[({][A-Za-z_][\w.-]*[)}]|" + _COMPILER_WORD.pattern, text[a:b]):
        if _in_spans(a + m.start(), comments):
            continue
        word = edited(text, edits, a + m.start(), a + m.end())
        expanded = make_text.expand(word, variables).strip()
        found = _WHICH.match(expanded)  # NVCC := $(shell which nvcc 2>/dev/null), migrated: llm.c
        first = [found.group(1)] if found else expanded.split()
        if first and re.search(r"(?:^|/)hipcc$", first[0]):
            out.append((a + m.start(), a + m.end(), word))
    return out


_OBJECT = re.compile(r"\.(?:o|obj|a)\b")
_RDC = re.compile(r"(?<![\w-])-fgpu-rdc(?![\w-])")


def rdc_link_added(text: str, edits: list[Edit]) -> list[Edit]:
    """nvcc links objects compiled with -dc / -rdc=true and device-links them by itself; clang device-links
    only when the link says -fgpu-rdc (without it: "undefined reference to `__hip_gpubin_handle_...'"). When a
    recipe of the migrated file compiles relocatable device code with hipcc, each recipe that runs hipcc to link
    (its prerequisites are objects or archives and no source, no -c) and does not say -fgpu-rdc itself gets it
    after the compiler.  (A link's variables are not followed: NVIDIA's ALL_LDFLAGS copies ALL_CCFLAGS with :=
    before -dc is appended, which the all-values expansion here cannot tell; a second -fgpu-rdc is harmless.)"""
    probe = apply_edits(text, edits)
    if not _RDC.search(probe):
        return edits
    comments = comment_spans(text)
    variables = make_text.variables(probe)
    variables.setdefault("HIPCC", ["hipcc"])
    recipes = list(make_text.recipes(text))

    def runs_hipcc(a: int, b: int):
        words = _hipcc_words(text, edits, variables, comments, a, b)
        return words[0] if words else None

    def compiles(command: str, prereqs: str) -> bool:
        return bool(re.search(r"(?<![\w-])-c(?![\w-])", command) or _SOURCE.search(command)
                    or re.search(r"\$[<^+?]", command) and _SOURCE.search(_SUBSTITUTION.sub(" ", prereqs)))

    if not any(runs_hipcc(a, b) and compiles(cmd := make_text.expand(edited(text, edits, a, b), variables), p)
               and _RDC.search(cmd) for a, b, p in recipes):
        return edits
    out = list(edits)
    for a, b, p in recipes:
        recipe = edited(text, edits, a, b)
        if (_RDC.search(recipe) or re.search(r"(?<![\w-])(?:-c|--emit-static-lib)(?![\w-])", recipe)
                or not _OBJECT.search(p) or _SOURCE.search(_SUBSTITUTION.sub(" ", p))):
            continue
        hit = runs_hipcc(a, b)
        if hit:
            s, e, word = hit
            out = [x for x in out if not (s <= x.start and x.end <= e)]
            out.append(Edit(s, e, f"{word} -fgpu-rdc", "make.rdc-link",
                            "the objects hold relocatable device code (-fgpu-rdc): clang device-links them only "
                            "when the link says -fgpu-rdc too (nvcc did it by itself)"))
    return sorted(out, key=lambda x: (x.start, x.end))


def compile_arch_added(text: str, edits: list[Edit], ctx: Context, arch_ref: str) -> list[Edit]:
    """A recipe that compiles with hipcc and names no AMD target builds for the build machine's
    GPU, or for a fallback when it has none (ROCm 5.2's hipcc: gfx803, after a Python traceback
    from rocm_agent_enumerator), so the port would not run on the chosen GPU.  nvcc with no
    -arch builds code every NVIDIA GPU runs (its default target plus PTX).  Such a compile gets
    ``--offload-arch={arch_ref}`` after the compiler unless a flag already says it in every branch of
    the file's conditionals (llm.c's ``ifeq ($(GPU_COMPUTE_CAPABILITY),)`` branch, taken where no
    NVIDIA query tool runs, has none; where the other branch names it too, clang reads the same
    target twice as once).  A file that includes other Make files is left alone: a variable from
    there might carry the target."""
    if _INCLUDE.search(text):
        return edits
    comments = comment_spans(text)
    probe = apply_edits(text, edits)
    assignments = make_text.assignments(probe)
    variables = make_text.variables(probe, assignments)
    variables.setdefault("HIPCC", ["hipcc"])  # HIPCC ?= hipcc comes with the insertions
    out = list(edits)
    for a, b, prereqs in make_text.recipes(text):
        compilers = _hipcc_words(text, out, variables, comments, a, b)
        for i, (s, e, word) in enumerate(compilers):
            stop = compilers[i + 1][0] if i + 1 < len(compilers) else b
            raw = re.split(r"(?<![\\])(?:&&|\|\||;)", edited(text, out, s, stop))[0]
            if _always_arch(raw, assignments):
                continue
            command = _SUBSTITUTION.sub(" ", make_text.expand(raw, variables))  # $(SRCS:.cu=.o) names objects
            sources = _SOURCE.search(command) or (re.search(r"\$[<^+?]", command) and _SOURCE.search(prereqs))
            if not (sources or re.search(r"(?<![\w-])-c(?![\w-])", command) or "-fgpu-rdc" in command):
                continue  # a link of objects: the target is in them
            out = [x for x in out if not (s <= x.start and x.end <= e)]
            out.append(Edit(s, e, f"{word} --offload-arch={arch_ref}", "make.compile-arch",
                            "hipcc with no --offload-arch builds for the build machine's GPU (or a fallback "
                            "without one), not the chosen target; nvcc with no -arch builds for every NVIDIA GPU"))
            if arch_ref != ctx.arch:
                ctx.used_arch_ref = True
    return sorted(out, key=lambda x: (x.start, x.end))
