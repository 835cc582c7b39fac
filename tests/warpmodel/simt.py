"""A lock-step SIMT interpreter for a small CUDA / HIP C++ subset (test-only oracle).

``run(source, kernel, platform=..., block=..., grid=..., args=...)`` executes one ``__global__``
function on concrete lanes: each block's threads are cut into warps of 32 ("cuda") or waves
of 64 ("hip") consecutive linear thread ids (``x + y*bx + z*bx*by``); a warp runs every
statement for all its active lanes at once, with a per-lane mask for divergence.  Calls of
intrinsics go through ``intrinsics.py`` (C types, overloads) to the lane semantics of ``lanes.py``;
C types, conversions and the preprocessor are in ``cxx.py``.  See README.md for the subset and
its limits.

Barriers: each warp is a Python generator that yields at ``__syncthreads()``; a block runs in
phases, warp 0 to its barrier, then warp 1, ...; so within a phase warps touch shared memory
in warp order (races between warps are not detected).  A warp that reaches a barrier with
part of its live lanes is recorded as undefined.

Values: integers are Python ints kept in range of their C type (two's complement wrap on
conversion; signed overflow wraps rather than being reported), ``float`` is rounded to single
precision after each operation, ``double`` is a Python float.  Pointers are ``Ptr(buf, off)``.
Poison (``UNDEFINED``) propagates through arithmetic; storing it to shared or global memory,
branching on it (the lane takes the false side) or several lanes storing different values to
one address in one store (the stored value becomes UNDEFINED) set ``Result.undefined`` and add a
line to ``Result.events``.  Undefined behaviour that C++ defines as such (shift count out of
range, integer division by zero, INT_MIN / -1, out-of-bounds access, float to int overflow,
flowing off a non-void function) raises ``UndefinedBehaviour``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from types import GeneratorType

from porter.parse import parse as _ts_parse

from . import groups as CG
from . import lanes as LN
from .cxx import (ARITH, BAD_ADDR, BOOL, CHAR, CMP, FLOAT, INT, LLONG, LONG, PRIMS, STR, UINT, ULLONG, ULONG,
                  VOID, array, Buf, common, CompileError, conv, CType, fdiv, idiv, line_of, literal_type,
                  Located, preprocess, promote, Ptr, ptr, sized_type, sizeof, slots, truth,
                  UndefinedBehaviour, Unsupported, Var)
from .intrinsics import BUILTINS
from .lanes import UNDEFINED, Trap, lanes_of

__all__ = ["run", "Result", "Unsupported", "UndefinedBehaviour", "CompileError", "Trap", "UNDEFINED", "preprocess"]


# ------------------------------------------------------------------------------------ program

@dataclass
class Fn:
    name: str
    node: object
    tparams: list  # (kind "type"|"value", name, type node, default node)
    params: list  # (type node, declarator node, default node)
    rtype: object
    rdecl: object
    is_global: bool


def _spec_words(node):
    words = set()
    for c in node.children:
        if c.type in ("storage_class_specifier", "type_qualifier", "virtual_specifier"):
            words.update(x.type for x in c.children)
        elif not c.is_named or c.type.startswith("__"):
            words.add(c.type)
    return words


class Program:
    def __init__(self, source, platform, defines=None):
        if platform not in ("cuda", "hip"):
            raise ValueError(f"platform must be 'cuda' or 'hip', not {platform!r}")
        self.platform = platform
        self.W = 32 if platform == "cuda" else 64
        pre = ({"__CUDACC__": "1", "__NVCC__": "1", "__CUDA_ARCH__": "800"} if platform == "cuda" else
               {"__HIPCC__": "1", "__HIP__": "1", "__HIP_PLATFORM_AMD__": "1", "__HIP_PLATFORM_HCC__": "1",
                "__HIP_DEVICE_COMPILE__": "1", "__AMDGCN__": "1", "__AMDGCN_WAVEFRONT_SIZE": "64", "__gfx942__": "1"})
        pre.update(defines or {})
        text = source.decode() if isinstance(source, bytes) else source
        text = preprocess(text, pre)
        self.tree = _ts_parse(text.encode())
        # the names of namespace cooperative_groups: its own, aliases (namespace cg = cooperative_groups;
        # at any scope), and whether a using-directive makes its names visible unqualified
        self.cg_names = {"cooperative_groups"} | set(re.findall(r"\bnamespace\s+(\w+)\s*=\s*(?:::)?cooperative_groups\s*;", text))
        self.cg_using = re.search(r"\busing\s+namespace\s+(?:::)?cooperative_groups\s*;", text) is not None
        self.functions: dict[str, list[Fn]] = {}
        self.typedefs: dict[str, CType] = {}
        self.global_decls = []
        self.consts = {"warpSize": (INT, self.W), "INT_MAX": (INT, 2**31 - 1), "INT_MIN": (INT, -2**31),
                       "UINT_MAX": (UINT, 2**32 - 1), "LLONG_MAX": (LLONG, 2**63 - 1), "ULLONG_MAX": (ULLONG, 2**64 - 1),
                       "FLT_MAX": (FLOAT, LN.f32(3.4028234663852886e38))}
        for k, name in enumerate(("RELAXED", "CONSUME", "ACQUIRE", "RELEASE", "ACQ_REL", "SEQ_CST")):
            self.consts[f"__ATOMIC_{name}"] = (INT, k)
        self._top(self.tree.root_node, [])

    def _top(self, node, tparams):
        for c in node.named_children:
            if c.type == "function_definition":
                self._fn(c, tparams)
            elif c.type == "template_declaration":
                self._top(c, self._tparams(c.child_by_field_name("parameters")))
            elif c.type in ("namespace_definition", "linkage_specification", "declaration_list"):
                self._top(c.child_by_field_name("body") or c, tparams)
            elif c.type == "declaration" and not tparams:
                if not any(d.type == "function_declarator" for d in c.children_by_field_name("declarator")):
                    self.global_decls.append(c)
            elif c.type in ("type_definition", "alias_declaration"):
                self.global_decls.append(c)

    @staticmethod
    def _tparams(plist):
        out = []
        for p in plist.named_children:
            if p.type in ("type_parameter_declaration", "optional_type_parameter_declaration"):
                name = p.child_by_field_name("name") or next(x for x in p.named_children if x.type == "type_identifier")
                out.append(("type", name.text.decode(), None, p.child_by_field_name("default_type")))
            elif p.type in ("parameter_declaration", "optional_parameter_declaration"):
                out.append(("value", p.child_by_field_name("declarator").text.decode(), p.child_by_field_name("type"),
                            p.child_by_field_name("default_value")))
            else:
                out.append(("unsupported", p.type, None, None))
        return out

    def _fn(self, node, tparams):
        d, rdecl = node.child_by_field_name("declarator"), []
        while d.type in ("pointer_declarator", "reference_declarator"):
            rdecl.append(d.type)
            d = d.child_by_field_name("declarator") or d.named_children[-1]
        if d.type != "function_declarator" or d.child_by_field_name("declarator").type != "identifier":
            return
        params = []
        for p in d.child_by_field_name("parameters").named_children:
            if p.type in ("parameter_declaration", "optional_parameter_declaration"):
                if p.child_by_field_name("declarator") is None and p.child_by_field_name("type").text == b"void":
                    continue
                params.append((p, p.child_by_field_name("declarator"), p.child_by_field_name("default_value")))
            elif p.type != "comment":
                params.append((p, None, "unsupported"))
        name = d.child_by_field_name("declarator").text.decode()
        fn = Fn(name, node, tparams, params, node.child_by_field_name("type"), rdecl, "__global__" in _spec_words(node))
        self.functions.setdefault(name, []).append(fn)


# ------------------------------------------------------------------------------------ execution

class _Frame:
    __slots__ = ("fn", "scopes", "ret", "retvals", "loops", "tmap", "depth")

    def __init__(self, fn, tmap, W, depth):
        self.fn, self.tmap, self.depth = fn, tmap, depth
        self.scopes, self.ret, self.retvals, self.loops = [{}], 0, [None] * W, []


_STMT_IGNORED = ("comment", "preproc_call", "type_definition", "alias_declaration", "namespace_alias_definition",
                 "using_declaration")
_LVALUES = ("identifier", "subscript_expression", "pointer_expression", "parenthesized_expression")


class Warp:
    """One warp (CUDA) or wave (HIP) of a block, executing in lock-step."""

    def __init__(self, run_, tids, block_idx, shared):
        self.r, self.p = run_, run_.prog
        self.W = self.p.W
        self.tids, self.block_idx, self.shared = tids, block_idx, shared
        self.exist = sum(1 << i for i, t in enumerate(tids) if t is not None)
        self.exited = 0
        self.frame = None
        self.NONE = [None] * self.W

    # ----------------------------------------------------------------- helpers
    def note(self, node, msg, kind=None):
        self.r.note(node, msg, kind)

    def cv(self, arg, t, mask):
        vals = arg[1]
        out = [None] * self.W
        for i in lanes_of(mask):
            out[i] = conv(vals[i], t)
        return out

    def uniform(self, vec, mask, node, what):
        vals = {repr(vec[1][i]) for i in lanes_of(mask)}
        if len(vals) != 1 or vec[1][lanes_of(mask)[0]] is UNDEFINED:
            raise Unsupported(f"{what} must be a uniform defined constant", line_of(node))
        return vec[1][lanes_of(mask)[0]]

    def const(self, node, mask):
        """Evaluate a constant expression (array size, template argument)."""
        first = mask & -mask or 1
        g = self.ev(node, first)
        try:
            next(g)
        except StopIteration as stop:
            return stop.value[0], self.uniform(stop.value, first, node, "constant expression")
        raise Unsupported("barrier in a constant expression", line_of(node))

    def lookup(self, name, node):
        f = self.frame
        if f is not None:
            for scope in reversed(f.scopes):
                if name in scope:
                    return scope[name]
            if name in f.tmap:
                return f.tmap[name]
        if name in self.r.globals:
            return self.r.globals[name]
        if name in self.p.consts:
            return self.p.consts[name]
        raise Unsupported(f"unknown identifier {name}", line_of(node))

    def named_type(self, name):
        return PRIMS.get(name) or self.r.typedefs[name]

    def is_type(self, node):
        name = node.text.decode()
        return isinstance(self.frame.tmap.get(name), CType) or name in self.r.typedefs or name in PRIMS

    def resolve(self, tnode, tmap=None):
        """The CType of a type node; None for ``auto``."""
        tmap = self.frame.tmap if tmap is None and self.frame else tmap or {}
        ty = tnode.type
        if ty == "type_descriptor":
            t = self.resolve(tnode.child_by_field_name("type"), tmap)
            d = tnode.child_by_field_name("declarator")
            while d is not None:
                if d.type != "abstract_pointer_declarator":
                    raise Unsupported(d.type, line_of(d))
                t, d = ptr(t), d.child_by_field_name("declarator")
            return t
        text = tnode.text.decode()
        if ty == "primitive_type" and text in PRIMS:
            return PRIMS[text]
        if ty == "sized_type_specifier":
            words = [c.type for c in tnode.children if c.type in ("unsigned", "signed", "long", "short")]
            base = tnode.child_by_field_name("type")
            return sized_type(words + ([base.text.decode()] if base is not None else []))
        if ty == "type_identifier":
            if isinstance(tmap.get(text), CType):
                return tmap[text]
            if text in self.r.typedefs:
                return self.r.typedefs[text]
            if text in PRIMS:
                return PRIMS[text]
        if ty == "placeholder_type_specifier":
            return None
        if ty in ("qualified_identifier", "template_type", "type_identifier"):
            name = self.cg_member(tnode)
            if name is not None and name.type == "type_identifier" and name.text == b"thread_block":
                return CG.BLOCK
            if name is not None and name.type == "template_type" and name.child_by_field_name("name").text == b"thread_block_tile":
                targs = [a for a in name.child_by_field_name("arguments").named_children if a.type != "comment"]
                return CG.tile(self.const_arg(targs[0]))
        raise Unsupported(f"type {text}", line_of(tnode))

    def cg_member(self, node):
        """The name node ``node`` designates in namespace cooperative_groups (``cg::x``, an alias's, an
        unqualified one under a using-directive), or None."""
        if node.type == "qualified_identifier":
            scope = node.child_by_field_name("scope")
            if scope is None or scope.text.decode() not in self.p.cg_names:
                return None
            return node.child_by_field_name("name")
        return node if self.p.cg_using else None

    def const_arg(self, node):
        """A template argument that is a constant (``32``, a macro, a template parameter)."""
        if node.type == "type_descriptor" and node.named_child_count == 1:
            node = node.child_by_field_name("type")
        return self.const(node, 1)[1]

    def unwind(self, d, t, mask):
        """(name, type, is_reference) of a declarator applied to base type ``t`` (array sizes are
        constant expressions, evaluated on a lane of ``mask``)."""
        is_ref = False
        while True:
            if d is None:
                raise Unsupported("unnamed declarator")
            if d.type == "identifier":
                return d.text.decode(), t, is_ref
            if t is None and d.type != "reference_declarator":
                raise Unsupported(f"auto with {d.type}", line_of(d))
            if d.type == "pointer_declarator":
                t = ptr(t)
            elif d.type == "array_declarator":
                size = d.child_by_field_name("size")
                t = array(t, None if size is None else self.const(size, mask)[1])
            elif d.type == "reference_declarator":
                is_ref = True
                d = d.named_children[-1]
                continue
            elif d.type != "parenthesized_declarator":
                raise Unsupported(d.type, line_of(d))
            d = d.child_by_field_name("declarator") or d.named_children[-1]

    def new_local(self, name, t, mask, vals=None):
        addrs = [None] * self.W
        k = slots(t)
        for i in lanes_of(mask):
            buf = Buf([UNDEFINED] * k if vals is None else vals[i], name, "local")
            addrs[i] = (buf, 0)
        self.frame.scopes[-1][name] = Var(t, addrs)

    # ----------------------------------------------------------------- memory access
    def load(self, t, addrs, mask):
        out = [None] * self.W
        if t.kind == "array":
            for i in lanes_of(mask):
                out[i] = UNDEFINED if addrs[i][0] is None else Ptr(*addrs[i])
            return ptr(t.elem), out
        for i in lanes_of(mask):
            buf, off = addrs[i]
            if buf is None:
                out[i] = UNDEFINED
                continue
            if not 0 <= off < len(buf.data):
                raise UndefinedBehaviour(f"out-of-bounds read {buf.name}[{off}] (size {len(buf.data)})")
            out[i] = buf.data[off]
        return t, out

    def store(self, t, addrs, vals, mask, node):
        if t.kind == "array":
            raise Unsupported("array assignment", line_of(node))
        seen = {}
        for i in lanes_of(mask):
            (buf, off), v = addrs[i], vals[i]
            if buf is None:
                self.note(node, "store through an undefined address")
                continue
            if not 0 <= off < len(buf.data):
                raise UndefinedBehaviour(f"out-of-bounds write {buf.name}[{off}] (size {len(buf.data)})", line_of(node))
            if buf.space != "local":
                key = (id(buf), off)
                if key in seen and not LN.same_value(seen[key][1], v):
                    self.note(node, f"lanes {seen[key][0]} and {i} store different values to {buf.name}[{off}]", "race")
                    v = UNDEFINED
                seen[key] = (i, v)
                if v is UNDEFINED:
                    self.note(node, f"undefined value stored to {buf.name}[{off}]", "poison store")
            buf.data[off] = v

    def offset(self, pvals, ivals, elem, mask, node):
        addrs, k = [None] * self.W, slots(elem)
        for i in lanes_of(mask):
            p, j = pvals[i], ivals[i]
            addrs[i] = BAD_ADDR if p is UNDEFINED or j is UNDEFINED else (p.buf, p.off + j * k)
        return addrs

    # ----------------------------------------------------------------- expressions
    def ev(self, node, mask):
        """Generator: evaluate ``node`` for the lanes of ``mask``; returns (type, per-lane values)."""
        h = _EV.get(node.type)
        if h is None:
            raise Unsupported(node.type, line_of(node))
        try:
            r = h(self, node, mask)
            if type(r) is GeneratorType:
                r = yield from r
            return r
        except Located as e:
            e.line = e.line or line_of(node)
            raise

    def lv(self, node, mask):
        """Generator: the lvalue ``node`` designates; returns (type, per-lane (buf, off))."""
        ty = node.type
        if ty == "parenthesized_expression":
            return (yield from self.lv(node.named_children[0], mask))
        if ty in ("identifier", "type_identifier"):
            v = self.lookup(node.text.decode(), node)
            if not isinstance(v, Var):
                raise Unsupported(f"{node.text.decode()} is not an lvalue", line_of(node))
            return v.type, v.addrs
        if ty == "subscript_expression":
            bt, bv = yield from self.ev(node.child_by_field_name("argument"), mask)
            inode = node.child_by_field_name("indices").named_children[0]
            it, iv = yield from self.ev(inode, mask)
            if it.kind == "ptr" and bt.kind == "int":
                (bt, bv), (it, iv) = (it, iv), (bt, bv)
            if bt.kind != "ptr" or it.kind != "int":
                raise CompileError(f"subscript of {bt} by {it}", line_of(node))
            return bt.elem, self.offset(bv, iv, bt.elem, mask, node)
        if ty == "pointer_expression" and node.child_by_field_name("operator").type == "*":
            pt, pv = yield from self.ev(node.child_by_field_name("argument"), mask)
            if pt.kind != "ptr":
                raise CompileError(f"dereference of {pt}", line_of(node))
            return pt.elem, self.offset(pv, [0] * self.W, pt.elem, mask, node)
        raise Unsupported(f"{ty} as an lvalue", line_of(node))

    def e_lvalue(self, node, mask):
        t, addrs = yield from self.lv(node, mask)
        return self.load(t, addrs, mask)

    def e_identifier(self, node, mask):
        v = self.lookup(node.text.decode(), node)
        if isinstance(v, Var):
            return self.load(v.type, v.addrs, mask)
        if isinstance(v, tuple):
            return v[0], [v[1]] * self.W
        raise Unsupported(f"{node.text.decode()} used as a value", line_of(node))

    def e_number_literal(self, node, mask):
        t, v = self.r.literal(node)
        return t, [v] * self.W

    def e_char_literal(self, node, mask):
        s = node.text.decode()[1:-1]
        s = {"\\0": "\0", "\\n": "\n", "\\t": "\t", "\\\\": "\\", "\\'": "'"}.get(s, s)
        if len(s) != 1:
            raise Unsupported(f"char literal {node.text.decode()}", line_of(node))
        return CHAR, [ord(s)] * self.W

    def e_bool(self, node, mask):
        return BOOL, [int(node.type == "true")] * self.W

    def e_string_literal(self, node, mask):
        return STR, [node.text.decode()[1:-1]] * self.W

    def e_field_expression(self, node, mask):
        obj, fld = node.child_by_field_name("argument").text.decode(), node.child_by_field_name("field").text.decode()
        if obj not in ("threadIdx", "blockIdx", "blockDim", "gridDim") or fld not in ("x", "y", "z") \
                or node.child_by_field_name("operator").type != ".":
            raise Unsupported(f"field access {node.text.decode()}", line_of(node))
        k = "xyz".index(fld)
        if obj == "threadIdx":
            return UINT, [t[k] if t else None for t in self.tids]
        v = {"blockIdx": self.block_idx, "blockDim": self.r.block, "gridDim": self.r.grid}[obj][k]
        return UINT, [v] * self.W

    def e_parenthesized_expression(self, node, mask):
        return (yield from self.ev(node.named_children[0], mask))

    def e_comma_expression(self, node, mask):
        yield from self.ev(node.child_by_field_name("left"), mask)
        return (yield from self.ev(node.child_by_field_name("right"), mask))

    def e_sizeof_expression(self, node, mask):
        """``sizeof``: of a type, or of an expression's type, unevaluated (mask 0), undecayed."""
        tn, vn = node.child_by_field_name("type"), node.child_by_field_name("value")
        if tn is not None:
            inner = tn.child_by_field_name("type")  # `sizeof(x)` with x a variable parses as a type
            if inner.type == "type_identifier" and tn.child_by_field_name("declarator") is None and not self.is_type(inner):
                tn, vn = None, inner
        while vn is not None and vn.type == "parenthesized_expression":
            vn = vn.named_children[0]
        if vn is not None and vn.type == "identifier" and self.is_type(vn):
            tn, vn = vn, None
        if tn is not None:
            t = self.resolve(tn) if tn.type != "identifier" else self.named_type(tn.text.decode())
        elif vn.type in ("identifier", "type_identifier", "subscript_expression", "pointer_expression"):
            t = (yield from self.lv(vn, 0))[0]
        else:
            t = (yield from self.ev(vn, 0))[0]
        return ULONG, [sizeof(t)] * self.W

    def e_pointer_expression(self, node, mask):
        if node.child_by_field_name("operator").type == "*":
            return (yield from self.e_lvalue(node, mask))
        t, addrs = yield from self.lv(node.child_by_field_name("argument"), mask)
        out = [None] * self.W
        for i in lanes_of(mask):
            out[i] = UNDEFINED if addrs[i][0] is None else Ptr(*addrs[i])
        return ptr(t), out

    def e_unary_expression(self, node, mask):
        op = node.child_by_field_name("operator").type
        t, v = yield from self.ev(node.child_by_field_name("argument"), mask)
        out = [None] * self.W
        if op == "!":
            for i in lanes_of(mask):
                out[i] = UNDEFINED if v[i] is UNDEFINED else int(not truth(v[i]))
            return BOOL, out
        if t.kind not in ("int", "float") or (op == "~" and t.kind == "float"):
            raise CompileError(f"unary {op} on {t}", line_of(node))
        t = promote(t)
        f = {"-": lambda x: -x, "+": lambda x: x, "~": lambda x: ~x}[op]
        for i in lanes_of(mask):
            out[i] = UNDEFINED if v[i] is UNDEFINED else conv(f(v[i]), t)
        return t, out

    def binop(self, op, ta, a, tb, b, mask):
        out = [None] * self.W
        if ta.kind == "ptr" or tb.kind == "ptr":
            return self.ptr_binop(op, ta, a, tb, b, mask)
        if op in ("<<", ">>"):
            t, tc = promote(ta), promote(tb)
            if t.kind != "int" or tc.kind != "int":
                raise CompileError(f"shift of {ta} by {tb}")
            for i in lanes_of(mask):
                x, c = a[i], b[i]
                if x is UNDEFINED or c is UNDEFINED:
                    out[i] = UNDEFINED
                elif not 0 <= c < t.bits:
                    raise UndefinedBehaviour(f"shift count {c} out of range for {t} ({t.bits} bits)")
                else:
                    out[i] = conv(x << c, t) if op == "<<" else x >> c
            return t, out
        t = common(ta, tb)
        is_cmp = op in CMP
        if op in ("/", "%"):
            if t.kind == "float":
                if op == "%":
                    raise CompileError("% on floating point")
                f = fdiv
            else:
                def f(x, y, mod=op == "%", t=t):
                    if t.signed and y == -1 and x == -(1 << (t.bits - 1)):
                        raise UndefinedBehaviour(f"{t} overflow in {x} {op} -1")
                    return idiv(x, y, mod)
        else:
            f = CMP.get(op) or ARITH.get(op)
            if f is None or (t.kind == "float" and op in "&|^"):
                raise CompileError(f"operator {op} on {t}")
        for i in lanes_of(mask):
            x, y = a[i], b[i]
            if x is UNDEFINED or y is UNDEFINED:
                out[i] = UNDEFINED
                continue
            r = f(conv(x, t), conv(y, t))
            out[i] = int(r) if is_cmp else conv(r, t)
        return (BOOL if is_cmp else t), out

    def ptr_binop(self, op, ta, a, tb, b, mask):
        out = [None] * self.W
        both = ta.kind == tb.kind == "ptr"
        for i in lanes_of(mask):
            x, y = a[i], b[i]
            if x is UNDEFINED or y is UNDEFINED:
                out[i] = UNDEFINED
            elif both and op in CMP:
                if x.buf is y.buf:
                    out[i] = int(CMP[op](x.off, y.off))
                elif op in ("==", "!="):
                    out[i] = int(op == "!=")
                else:
                    raise Unsupported("ordering pointers into different objects")
            elif both and op == "-":
                if x.buf is not y.buf:
                    raise UndefinedBehaviour("difference of pointers into different objects")
                out[i] = (x.off - y.off) // slots(ta.elem)
            elif op in "+-" and not both:
                p, k, pt = (x, y, ta) if ta.kind == "ptr" else (y, x, tb)
                if op == "-" and ta.kind != "ptr":
                    raise CompileError("int - pointer")
                out[i] = Ptr(p.buf, p.off + (k if op == "+" else -k) * slots(pt.elem))
            else:
                raise CompileError(f"operator {op} on {ta} and {tb}")
        if both and op in CMP:
            return BOOL, out
        return (LONG if both else ta if ta.kind == "ptr" else tb), out

    def e_binary_expression(self, node, mask):
        op = node.child_by_field_name("operator").type
        if op in ("&&", "||"):
            return (yield from self.logical(node, op, mask))
        ta, a = yield from self.ev(node.child_by_field_name("left"), mask)
        tb, b = yield from self.ev(node.child_by_field_name("right"), mask)
        return self.binop(op, ta, a, tb, b, mask)

    def logical(self, node, op, mask):
        _, a = yield from self.ev(node.child_by_field_name("left"), mask)
        out, rest = [None] * self.W, 0
        for i in lanes_of(mask):
            if a[i] is UNDEFINED:
                out[i] = UNDEFINED
            elif truth(a[i]) == (op == "&&"):
                rest |= 1 << i
            else:
                out[i] = int(op == "||")
        _, b = yield from self.ev(node.child_by_field_name("right"), rest)
        for i in lanes_of(rest):
            out[i] = UNDEFINED if b[i] is UNDEFINED else int(truth(b[i]))
        return BOOL, out

    def e_conditional_expression(self, node, mask):
        _, c = yield from self.ev(node.child_by_field_name("condition"), mask)
        tm = fm = 0
        out = [None] * self.W
        for i in lanes_of(mask):
            if c[i] is UNDEFINED:
                out[i] = UNDEFINED
            elif truth(c[i]):
                tm |= 1 << i
            else:
                fm |= 1 << i
        t1, a = yield from self.ev(node.child_by_field_name("consequence"), tm)
        t2, b = yield from self.ev(node.child_by_field_name("alternative"), fm)
        t = t1 if t1 == t2 else common(t1, t2)
        for m, v in ((tm, a), (fm, b)):
            for i in lanes_of(m):
                out[i] = conv(v[i], t)
        return t, out

    def e_assignment_expression(self, node, mask):
        op = node.child_by_field_name("operator").type
        rt, rv = yield from self.ev(node.child_by_field_name("right"), mask)
        lt, addrs = yield from self.lv(node.child_by_field_name("left"), mask)
        if op != "=":
            _, old = self.load(lt, addrs, mask)
            rt, rv = self.binop(op[:-1], lt, old, rt, rv, mask)
        if lt.kind == "ptr" and rt.kind != "ptr":
            raise CompileError(f"assigning {rt} to {lt}", line_of(node))
        vals = self.cv((rt, rv), lt, mask)
        self.store(lt, addrs, vals, mask, node)
        return lt, vals

    def e_gnu_asm_expression(self, node, mask):
        """Inline PTX: only ``mov.u32 %0, %%laneid;`` (PTX ISA: %laneid, the lane within the warp,
        0..31), enough to run a CUDA original that reads its lane that way.  Not HIP code."""
        code = node.child_by_field_name("assembly_code")
        text = re.sub(r"\s+", " ", code.text.decode().strip('"')).strip().rstrip(";").replace("%%", "%")
        if self.p.platform != "cuda":
            raise CompileError("inline PTX in HIP code", line_of(node))
        if not re.fullmatch(r"mov\.[us]32 %0, ?%laneid", text):
            raise Unsupported(f"inline asm {text!r}", line_of(node))
        outs = node.child_by_field_name("output_operands")
        target = outs.named_children[0].child_by_field_name("value")
        lt, addrs = yield from self.lv(target, mask)
        vals = self.cv((UINT, [i % 32 for i in range(self.W)]), lt, mask)
        self.store(lt, addrs, vals, mask, node)
        return VOID, self.NONE

    def e_update_expression(self, node, mask):
        op = node.child_by_field_name("operator").type
        t, addrs = yield from self.lv(node.child_by_field_name("argument"), mask)
        _, old = self.load(t, addrs, mask)
        _, new = self.binop(op[0], t, old, INT, [1] * self.W, mask)
        new = self.cv((t, new), t, mask)
        self.store(t, addrs, new, mask, node)
        return t, (new if node.children[0].type == op else old)

    def cast(self, t, vec, mask, node):
        ft, vals = vec
        if t.kind == "void":
            return VOID, self.NONE
        if (t.kind == "ptr") != (ft.kind == "ptr") or ft.kind not in ("int", "float", "ptr") \
                or (t.kind == "ptr" and t.elem != ft.elem):
            raise Unsupported(f"cast from {ft} to {t}", line_of(node))
        return t, self.cv(vec, t, mask)

    def e_cast_expression(self, node, mask):
        t = self.resolve(node.child_by_field_name("type"))
        vec = yield from self.ev(node.child_by_field_name("value"), mask)
        return self.cast(t, vec, mask, node)

    def e_call_expression(self, node, mask):
        fnode = node.child_by_field_name("function")
        argnodes = [a for a in node.child_by_field_name("arguments").named_children if a.type != "comment"]
        targs = None
        if fnode.type == "lambda_expression":
            return (yield from self.call_lambda(fnode, argnodes, mask, node))
        if fnode.type == "field_expression" and fnode.child_by_field_name("operator").type == ".":
            gt, gv = yield from self.ev(fnode.child_by_field_name("argument"), mask)
            if gt.kind != "group":
                raise Unsupported(f"member call on {gt}", line_of(node))
            args = []
            for a in argnodes:
                args.append((yield from self.ev(a, mask)))
            return (yield from CG.method(self, gt, gv, fnode.child_by_field_name("field").text.decode(), args, mask, node))
        base = fnode.text.decode().split("<")[0].strip()
        cg = self.cg_member(fnode) if fnode.type == "qualified_identifier" or (
            fnode.type in ("identifier", "template_function") and base in CG.NAMES and base not in self.p.functions) else None
        if cg is not None:
            return (yield from self.cg_call(cg, argnodes, mask, node))
        if fnode.type == "template_function":
            targs = [a for a in fnode.child_by_field_name("arguments").named_children if a.type != "comment"]
            fnode = fnode.child_by_field_name("name")
        name = fnode.text.decode()
        if fnode.type in ("primitive_type", "sized_type_specifier") or name in PRIMS or name in self.r.typedefs:
            if len(argnodes) != 1:
                raise Unsupported(f"functional cast {node.text.decode()}", line_of(node))
            vec = yield from self.ev(argnodes[0], mask)
            t = self.resolve(fnode) if fnode.type != "identifier" else self.named_type(name)
            return self.cast(t, vec, mask, node)
        if fnode.type != "identifier":
            raise Unsupported(f"call through {fnode.type}", line_of(node))
        if name in ("static_cast", "const_cast") and targs:
            vec = yield from self.ev(argnodes[0], mask)
            return self.cast(self.resolve(targs[0]), vec, mask, node)
        if name in ("__syncthreads", "__builtin_amdgcn_s_barrier") and not argnodes:
            if mask:
                if mask != self.exist & ~self.exited:
                    self.note(node, f"{name}() reached by only part of the warp's live lanes (divergent barrier)")
                yield ("barrier", line_of(node))
            return VOID, self.NONE
        if name in self.p.functions:
            return (yield from self.call(name, argnodes, targs, mask, node))
        builtin = BUILTINS[self.p.platform].get(name)
        if builtin is None:
            raise Unsupported(f"call to {name} on {self.p.platform}", line_of(node))
        args = []
        for a in argnodes:
            args.append((yield from self.ev(a, mask)))
        return builtin(self, name, args, mask, node)

    def cg_call(self, name_node, argnodes, mask, node):
        """A call of a cooperative-groups function or the construction of a reduce operator."""
        targs = []
        if name_node.type == "template_function":
            targs = [a for a in name_node.child_by_field_name("arguments").named_children if a.type != "comment"]
            name_node = name_node.child_by_field_name("name")
        name = name_node.text.decode()
        if name in CG.OPERATORS:
            if argnodes or len(targs) != 1:
                raise Unsupported(f"cg::{name} with arguments", line_of(node))
            return CG.operator_value(self, name, self.resolve(targs[0]), node)
        h = CG.FUNCTIONS.get(name)
        if h is None:
            raise Unsupported(f"cooperative_groups::{name}", line_of(node))
        args = []
        for a in argnodes:
            args.append((yield from self.ev(a, mask)))
        r = h(self, [self.const_arg(t) for t in targs], args, mask, node)
        if type(r) is GeneratorType:
            r = yield from r
        return r

    def e_compound_literal_expression(self, node, mask):
        """``cg::greater<float>{}``: a reduce operator."""
        tnode, init = node.child_by_field_name("type"), node.child_by_field_name("value")
        name = self.cg_member(tnode)
        if name is None or name.type != "template_type" or init.named_child_count:
            raise Unsupported(f"compound literal {node.text.decode()}", line_of(node))
        op = name.child_by_field_name("name").text.decode()
        targs = [a for a in name.child_by_field_name("arguments").named_children if a.type != "comment"]
        if op not in CG.OPERATORS or len(targs) != 1:
            raise Unsupported(f"cooperative_groups::{op}{{}}", line_of(node))
        return CG.operator_value(self, op, self.resolve(targs[0]), node)

    def call_lambda(self, lam, argnodes, mask, node):
        """An immediately-invoked lambda ``[&](params) -> R { body }(args)`` (or ``[]``, ``[=]`` over
        the values it reads): its body runs like a device function's, under the caller's mask, seeing
        the caller's variables (by reference)."""
        cap = lam.child_by_field_name("captures")
        if cap is not None and any(c.type not in ("lambda_default_capture", "[", "]") for c in cap.children):
            raise Unsupported("lambda with an explicit capture list", line_of(lam))
        decl = lam.child_by_field_name("declarator")
        plist = decl.child_by_field_name("parameters") if decl is not None else None
        ret = next((c for c in decl.named_children if c.type == "trailing_return_type"), None) if decl is not None else None
        if ret is None:
            raise Unsupported("lambda without a trailing return type", line_of(lam))
        params = [(p, p.child_by_field_name("declarator"), p.child_by_field_name("default_value"))
                  for p in (plist.named_children if plist is not None else []) if p.type != "comment"]
        fn = Fn("<lambda>", lam, [], params, ret.named_children[0], [], False)
        if len(argnodes) != len(params):
            raise CompileError(f"lambda takes {len(params)} arguments, not {len(argnodes)}", line_of(node))
        vals = []
        for k, a in enumerate(argnodes):
            pdecl = params[k][1]
            if pdecl is not None and pdecl.type == "reference_declarator" and a.type in _LVALUES:
                vals.append(("ref",) + (yield from self.lv(a, mask)))
            else:
                vals.append(("val",) + (yield from self.ev(a, mask)))
        return (yield from self.invoke(fn, vals, self.frame.tmap, mask, outer=self.frame))

    # ----------------------------------------------------------------- user functions
    def call(self, name, argnodes, targs, mask, node):
        cands = [f for f in self.p.functions[name]
                 if len([p for p in f.params if p[2] is None]) <= len(argnodes) <= len(f.params)]
        if len(cands) != 1:
            raise Unsupported(f"{len(cands)} candidates for {name} with {len(argnodes)} arguments", line_of(node))
        fn = cands[0]
        if fn.node.has_error:
            raise Unsupported(f"parse error in {name}", line_of(fn.node))
        vals = []
        for k, a in enumerate(argnodes):
            pdecl = fn.params[k][1]
            if pdecl is not None and pdecl.type == "reference_declarator" and a.type in _LVALUES:
                vals.append(("ref",) + (yield from self.lv(a, mask)))
            else:
                vals.append(("val",) + (yield from self.ev(a, mask)))
        tmap = self.bind_templates(fn, targs or [], vals, mask, node)
        return (yield from self.invoke(fn, vals, tmap, mask))

    def bind_templates(self, fn, targs, vals, mask, node):
        tmap = {}
        for k, (kind, name, tnode, default) in enumerate(fn.tparams):
            if kind == "type":
                if k < len(targs):
                    tmap[name] = self.resolve(targs[k])
                    continue
                for (pnode, pdecl, _), v in zip(fn.params, vals):
                    pt = pnode.child_by_field_name("type")
                    if pt.type == "type_identifier" and pt.text.decode() == name:
                        at = v[1]
                        at = ptr(at.elem) if at.kind == "array" else at
                        by_ptr = pdecl is not None and pdecl.type == "pointer_declarator" and at.kind == "ptr"
                        tmap[name] = at.elem if by_ptr else at
                        break
                else:
                    if default is None:
                        raise CompileError(f"cannot deduce template parameter {name} of {fn.name}", line_of(node))
                    tmap[name] = self.resolve(default, tmap)
            elif kind == "value":
                vt = self.resolve(tnode, tmap)
                src = targs[k] if k < len(targs) else default
                if src is None:
                    raise CompileError(f"no value for template parameter {name} of {fn.name}", line_of(node))
                if src.type == "type_descriptor" and src.named_child_count == 1:
                    src = src.child_by_field_name("type")  # `f<N>`: a value that parses as a type name
                t, v = self.const(src, mask)
                tmap[name] = (vt, conv(v, vt))
            else:
                raise Unsupported(f"template parameter {name}", line_of(node))
        return tmap

    def invoke(self, fn, vals, tmap, mask, outer=None):
        caller = self.frame
        frame = self.frame = _Frame(fn, tmap, self.W, 0 if caller is None else caller.depth + 1)
        if outer is not None:  # a lambda: the enclosing scopes, then its parameters
            frame.scopes = outer.scopes + [{}]
        try:
            for k, (pnode, pdecl, default) in enumerate(fn.params):
                if default == "unsupported":
                    raise Unsupported(pnode.type, line_of(pnode))
                name, pt, is_ref = self.unwind(pdecl, self.resolve(pnode.child_by_field_name("type")), mask)
                if pt is None:
                    raise Unsupported("auto parameter", line_of(pnode))
                if pt.kind == "array":
                    pt = ptr(pt.elem)
                if k < len(vals):
                    kind, t, v = vals[k]
                else:
                    kind, (t, v) = "val", (yield from self.ev(default, mask))
                if kind == "host":
                    v = [v] * self.W
                if is_ref and kind == "ref":
                    frame.scopes[-1][name] = Var(pt, v)
                else:  # by value, or a temporary bound to a (const) reference
                    if pt.kind == "ptr" and t.kind not in ("ptr", "array"):
                        raise CompileError(f"passing {t} as {pt} to {fn.name}", line_of(pnode))
                    cvals = self.cv((t, v), pt, mask)
                    self.new_local(name, pt, mask, [[x] for x in cvals])
            rt = self.resolve(fn.rtype)
            for d in fn.rdecl:
                if d == "reference_declarator":
                    raise Unsupported("reference return type", line_of(fn.node))
                rt = ptr(rt)
            yield from self.stmts(fn.node.child_by_field_name("body").named_children, mask)
        finally:
            self.frame = caller
        if rt is None:
            raise Unsupported("auto return type", line_of(fn.node))
        if rt.kind != "void" and mask & ~frame.ret:
            raise UndefinedBehaviour(f"flowing off the end of non-void function {fn.name}", line_of(fn.node))
        return rt, frame.retvals

    # ----------------------------------------------------------------- statements
    def stmt(self, node, mask):
        h = _ST.get(node.type)
        if h is None:
            raise Unsupported(node.type, line_of(node))
        try:
            r = h(self, node, mask)
            if type(r) is GeneratorType:
                yield from r
        except Located as e:
            e.line = e.line or line_of(node)
            raise

    def dead(self):
        f = self.frame
        return f.ret | (f.loops[-1][0] | f.loops[-1][1] if f.loops else 0)

    def stmts(self, nodes, mask):
        for n in nodes:
            m = mask & ~self.dead()
            if not m:
                return
            yield from self.stmt(n, m)

    def s_compound_statement(self, node, mask):
        self.frame.scopes.append({})
        try:
            yield from self.stmts(node.named_children, mask)
        finally:
            self.frame.scopes.pop()

    def s_expression_statement(self, node, mask):
        tile = self.misparsed_tile(node)
        if tile is not None:  # `cg::thread_block_tile<32> t = init;` read by tree-sitter as a comparison
            name, n, init = tile
            t, vals = yield from self.ev(init, mask)
            if t != CG.tile(n):
                raise CompileError(f"initialising thread_block_tile<{n}> from {t}", line_of(node))
            self.new_local(name, t, mask, [[x] for x in self.cv((t, vals), t, mask)])
            return
        for c in node.named_children:
            if c.type != "comment":
                yield from self.ev(c, mask)

    def s_ignored(self, node, mask):
        return None

    def misparsed_tile(self, node):
        """(name, N, initialiser) of ``NS::thread_block_tile<N> name = init;``, which tree-sitter parses
        as ``(NS::thread_block_tile < N) > (name = init)``; None for any other statement."""
        e = node.named_children[0] if node.named_child_count == 1 else None
        if e is None or e.type != "binary_expression" or e.child_by_field_name("operator").type != ">":
            return None
        left, right = e.child_by_field_name("left"), e.child_by_field_name("right")
        if left.type != "binary_expression" or left.child_by_field_name("operator").type != "<" \
                or right.type != "assignment_expression" or right.child_by_field_name("operator").type != "=" \
                or right.child_by_field_name("left").type != "identifier":
            return None
        ty = left.child_by_field_name("left")
        name = self.cg_member(ty) if ty.type in ("qualified_identifier", "identifier") else None
        if name is None or name.text != b"thread_block_tile":
            return None
        return (right.child_by_field_name("left").text.decode(), self.const(left.child_by_field_name("right"), 1)[1],
                right.child_by_field_name("right"))

    def truth_mask(self, node, mask):
        if node.type == "condition_clause":
            if node.child_by_field_name("value") is None or node.child_by_field_name("initializer") is not None:
                raise Unsupported("declaration in a condition", line_of(node))
            node = node.child_by_field_name("value")
        _, v = yield from self.ev(node, mask)
        m = 0
        for i in lanes_of(mask):
            if v[i] is UNDEFINED:
                self.note(node, "branch on an undefined value")
            elif truth(v[i]):
                m |= 1 << i
        return m

    def s_if_statement(self, node, mask):
        t = yield from self.truth_mask(node.child_by_field_name("condition"), mask)
        if t:
            yield from self.stmt(node.child_by_field_name("consequence"), t)
        alt = node.child_by_field_name("alternative")
        if alt is not None and mask & ~t:
            yield from self.stmt(alt.named_children[0], mask & ~t)

    def loop(self, mask, cond, body, update=None, check_first=True):
        f = self.frame
        rec = [0, 0]  # lanes that executed break / continue
        f.loops.append(rec)
        try:
            first = True
            while True:
                mask &= ~rec[0] & ~f.ret
                if mask and cond is not None and (check_first or not first):
                    mask = yield from self.truth_mask(cond, mask)
                if not mask:
                    return
                first = False
                self.r.step()
                rec[1] = 0
                yield from self.stmt(body, mask)
                mask &= ~rec[0] & ~f.ret
                rec[1] = 0
                if update is not None and mask:
                    yield from self.ev(update, mask)
        finally:
            f.loops.pop()

    def s_for_statement(self, node, mask):
        if node.child_by_field_name("right") is not None:
            raise Unsupported("range-based for", line_of(node))
        self.frame.scopes.append({})
        try:
            init = node.child_by_field_name("initializer")
            if init is not None:
                yield from (self.stmt(init, mask) if init.type == "declaration" else self.ev(init, mask))
            yield from self.loop(mask, node.child_by_field_name("condition"), node.child_by_field_name("body"),
                                 node.child_by_field_name("update"))
        finally:
            self.frame.scopes.pop()

    def s_while_statement(self, node, mask):
        yield from self.loop(mask, node.child_by_field_name("condition"), node.child_by_field_name("body"))

    def s_do_statement(self, node, mask):
        yield from self.loop(mask, node.child_by_field_name("condition"), node.child_by_field_name("body"),
                             check_first=False)

    def s_break_statement(self, node, mask):
        if not self.frame.loops:
            raise Unsupported("break outside a loop (switch?)", line_of(node))
        self.frame.loops[-1][0] |= mask

    def s_continue_statement(self, node, mask):
        self.frame.loops[-1][1] |= mask

    def s_return_statement(self, node, mask):
        f = self.frame
        expr = next((c for c in node.named_children if c.type != "comment"), None)
        if expr is not None:
            t, v = yield from self.ev(expr, mask)
            rt = self.resolve(f.fn.rtype)
            rt = ptr(rt) if f.fn.rdecl else rt
            for i in lanes_of(mask):
                f.retvals[i] = conv(v[i], rt)
        f.ret |= mask
        if f.depth == 0:
            self.exited |= mask

    def s_declaration(self, node, mask):
        words = _spec_words(node)
        base = self.resolve(node.child_by_field_name("type"))
        for d in node.children_by_field_name("declarator"):
            init = None
            if d.type == "init_declarator":
                init, d = d.child_by_field_name("value"), d.child_by_field_name("declarator")
            if d.type == "function_declarator":
                continue
            name, t, is_ref = self.unwind(d, base, mask)
            ivals = None
            if init is not None and init.type != "initializer_list":
                it, ivals = yield from (self.lv(init, mask) if is_ref else self.ev(init, mask))
                if t is None:
                    t = ptr(it.elem) if it.kind == "array" else it
            elif t is None:
                raise Unsupported("auto without initializer", line_of(node))
            if is_ref:
                if init is None:
                    raise CompileError("reference without initializer", line_of(node))
                self.frame.scopes[-1][name] = Var(t, ivals)
                continue
            if "__shared__" in words or self.frame.depth < 0:
                self.static_var(node, name, t, words, init, mask)
                continue
            if "static" in words:
                raise Unsupported("static local variable", line_of(node))
            if init is None:
                self.new_local(name, t, mask)
            elif init.type == "initializer_list":
                t, cells = yield from self.init_list(init, t, mask)
                self.new_local(name, t, mask, cells)
            else:
                if t.kind == "array":
                    raise Unsupported("array initialised from an expression", line_of(node))
                if t.kind == "ptr" and it.kind not in ("ptr", "array"):
                    raise CompileError(f"initialising {t} from {it}", line_of(node))
                self.new_local(name, t, mask, [[x] for x in self.cv((it, ivals), t, mask)])

    def init_list(self, init, t, mask):
        """Per-lane cell lists of a braced initialiser (missing trailing elements are zero)."""
        scalar = t
        while scalar.kind == "array":
            scalar = scalar.elem
        flat = []

        def walk(n):
            for c in n.named_children:
                if c.type == "initializer_list":
                    yield from walk(c)
                elif c.type != "comment":
                    flat.append((yield from self.ev(c, mask)))
        yield from walk(init)
        if t.kind == "array" and t.n is None:
            t = array(t.elem, len(flat) // slots(t.elem))
        k = slots(t)
        if len(flat) > k:
            raise CompileError("too many initialisers", line_of(init))
        cells = [None] * self.W
        for i in lanes_of(mask):
            cells[i] = [conv(v[i], scalar) for _, v in flat] + [conv(0, scalar)] * (k - len(flat))
        return t, cells

    def static_var(self, node, name, t, words, init, mask):
        """``__shared__`` (one per block) or namespace-scope storage (one per run)."""
        if "__shared__" in words:
            if "extern" in words:
                t = array(t.elem, self.r.dynamic_shared)
            elif init is not None:
                raise CompileError("__shared__ variable with an initialiser", line_of(node))
            key = "extern" if "extern" in words else (node.start_byte, name)
            if key not in self.shared:
                self.shared[key] = Buf([UNDEFINED] * slots(t), name, "shared")
            buf = self.shared[key]
        else:
            buf = Buf([UNDEFINED] * slots(t), name, "global")
            if init is not None:
                g = self.init_list(init, t, mask) if init.type == "initializer_list" else self.ev(init, mask)
                try:
                    next(g)
                    raise Unsupported("barrier in an initialiser", line_of(node))
                except StopIteration as stop:
                    it, cells = stop.value
                    lane = lanes_of(mask)[0]
                    if init.type == "initializer_list":
                        t, buf.data = it, cells[lane]
                    else:
                        buf.data = [conv(cells[lane], t)]
        self.frame.scopes[-1][name] = Var(t, [(buf, 0)] * self.W)


_EV = {name[2:]: f for name, f in vars(Warp).items() if name.startswith("e_")}
_EV.update({"subscript_expression": Warp.e_lvalue, "true": Warp.e_bool, "false": Warp.e_bool,
            "type_identifier": Warp.e_identifier})
_ST = {name[2:]: f for name, f in vars(Warp).items() if name.startswith("s_")}
_ST.update({t: Warp.s_ignored for t in _STMT_IGNORED})


# ------------------------------------------------------------------------------------ driver

@dataclass
class Result:
    """What a run left: ``memory`` (kernel pointer arguments, the caller's lists), ``undefined``
    (poison reached memory or a branch, or another recorded undefined event), ``events`` (where,
    as ``line N: what``), ``shared`` (each block's ``__shared__`` arrays at its end)."""
    memory: dict[str, list]
    undefined: bool = False
    events: list[str] = field(default_factory=list)
    shared: list[dict[str, list]] = field(default_factory=list)


class _Run:
    def __init__(self, prog, block, grid, dynamic_shared, max_steps):
        self.prog = prog
        self.block, self.grid = (tuple(block) + (1, 1))[:3], (tuple(grid) + (1, 1))[:3]
        self.dynamic_shared, self.max_steps, self.steps = dynamic_shared, max_steps, 0
        self.events: list[str] = []
        self._noted: set = set()
        self.globals, self.typedefs, self._lits = {}, {}, {}

    def note(self, node, msg, kind=None):
        """Record an undefined event once per (line, kind or message)."""
        key = (line_of(node), kind or msg)
        if key not in self._noted:
            self._noted.add(key)
            self.events.append(f"line {key[0]}: {msg}")

    def step(self):
        self.steps += 1
        if self.steps > self.max_steps:
            raise RuntimeError(f"more than {self.max_steps} loop iterations: raise max_steps or fix the loop")

    def literal(self, node):
        if node.id not in self._lits:
            self._lits[node.id] = literal_type(node.text.decode())
        return self._lits[node.id]


def run(source, kernel, *, platform, block=(32,), grid=(1,), args=None, template_args=None,
        dynamic_shared=0, defines=None, max_steps=200_000) -> Result:
    """Run ``__global__`` function ``kernel`` of ``source`` on every block of ``grid``.

    ``platform``: "cuda" (warps of 32, warpSize 32) or "hip" (waves of 64, warpSize 64).
    ``args``: parameter name -> Python list (pointer parameter: global memory, converted in place
    to the pointee type and updated in place; UNDEFINED entries are uninitialised memory) or a
    number (scalar parameter).  ``template_args``: the kernel's template arguments, a dict by
    name or a sequence (a type as a C name such as "float", or a CType; a value as an int).
    ``dynamic_shared``: element count of ``extern __shared__`` arrays.  ``defines``: extra macros.
    """
    prog = Program(source, platform, defines)
    fns = [f for f in prog.functions.get(kernel, []) if f.is_global]
    if len(fns) != 1:
        raise ValueError(f"{len(fns)} __global__ functions named {kernel}")
    fn = fns[0]
    if fn.node.has_error:
        raise Unsupported(f"parse error in {kernel}", line_of(fn.node))
    r = _Run(prog, block, grid, dynamic_shared, max_steps)
    W = prog.W
    init = Warp(r, [(0, 0, 0)] + [None] * (W - 1), (0, 0, 0), {})
    init.frame = _Frame(None, {}, W, -1)
    init.frame.scopes = [r.globals]
    for d in prog.global_decls:
        if d.type == "declaration":
            for _ in init.stmt(d, 1):
                raise Unsupported("barrier at namespace scope")
        elif d.type == "type_definition":
            r.typedefs[d.child_by_field_name("declarator").text.decode()] = init.resolve(d.child_by_field_name("type"))
        else:
            r.typedefs[d.child_by_field_name("name").text.decode()] = init.resolve(d.child_by_field_name("type"))
    targs = template_args or {}
    if not isinstance(targs, dict):
        targs = {tp[1]: v for tp, v in zip(fn.tparams, targs)}
    tmap = {}
    for kind, name, tnode, default in fn.tparams:
        if name not in targs:
            raise ValueError(f"template argument {name} of {kernel} missing")
        v = targs[name]
        if kind == "type":
            tmap[name] = v if isinstance(v, CType) else PRIMS.get(v) or sized_type(v.split())
        else:
            vt = init.resolve(tnode, tmap)
            tmap[name] = (vt, conv(v, vt))
    args = dict(args or {})
    host, bufs, memory = [], {}, {}
    init.frame.tmap = tmap
    for pnode, pdecl, _ in fn.params:
        name, pt, _ = init.unwind(pdecl, init.resolve(pnode.child_by_field_name("type")), 1)
        if name not in args:
            raise ValueError(f"argument {name} of {kernel} missing")
        v = args.pop(name)
        if pt.kind in ("ptr", "array"):
            if not isinstance(v, list):
                raise ValueError(f"argument {name} must be a list")
            if pt.elem.kind not in ("int", "float"):
                raise Unsupported(f"kernel parameter of type {pt}")
            v[:] = [conv(x, pt.elem) for x in v]
            buf = bufs.setdefault(id(v), Buf(v, name, "global"))
            memory[name] = v
            host.append(("host", ptr(pt.elem), Ptr(buf, 0)))
        else:
            host.append(("host", pt, conv(v, pt)))
    if args:
        raise ValueError(f"no parameters named {sorted(args)} in {kernel}")
    result = Result(memory)
    nthreads = r.block[0] * r.block[1] * r.block[2]
    bx, by = r.block[0], r.block[1]
    for gz in range(r.grid[2]):
        for gy in range(r.grid[1]):
            for gx in range(r.grid[0]):
                shared = {}
                warps = []
                for base in range(0, nthreads, W):
                    tids = [(t % bx, t // bx % by, t // (bx * by)) if t < nthreads else None for t in range(base, base + W)]
                    warps.append(Warp(r, tids, (gx, gy, gz), shared))
                pending = [w.invoke(fn, host, tmap, w.exist) for w in warps]
                while pending:  # one phase: every live warp runs to its next barrier or its end
                    nxt = []
                    for g in pending:
                        try:
                            next(g)
                            nxt.append(g)
                        except StopIteration:
                            pass
                    pending = nxt
                result.shared.append({b.name: b.data for b in shared.values()})
    result.events = r.events
    result.undefined = bool(r.events)
    return result
