"""The PTX idiom table: templates are read like the assembler reads them, and the C++
that replaces an instruction computes what the instruction computes."""

from __future__ import annotations

import re

import pytest

from porter.findings import ptx


@pytest.mark.parametrize("lut", range(256))
def test_lop3_expression_matches_the_truth_table(lut):
    expr = ptx.lop3_expression("a", "b", "c", lut)
    value = eval(re.sub(r"(0x[0-9a-f]+|\d+)u\b", r"\1", expr), {"a": 0xF0, "b": 0xCC, "c": 0xAA})
    assert value & 0xFF == lut, expr


@pytest.mark.parametrize("lut", [0x00, 0x01, 0x96, 0xE8, 0xFF, 0x5B])
def test_lop3_generic_form_selects_the_same_bits(lut):
    expr = ptx.lop3_generic("a", "b", "c", "LUT")
    py = re.sub(r"\(\(\(LUT\) >> (\d) & 1\) \? \(([^()]*)\) : 0u\)", r"((\2) if (LUT >> \1 & 1) else 0)", expr)
    value = eval(py, {"a": 0xF0, "b": 0xCC, "c": 0xAA, "LUT": lut})
    assert value & 0xFF == lut


def test_template_and_operands_are_read_from_the_asm_statement():
    from porter import parse

    src = b'void f(unsigned a, unsigned b) { unsigned r; asm volatile("prmt.b32 %0, %1, %2, 0x3210;\\n\\t" : "=r"(r) : "r"(a + 1), "r"(b)); }'
    tree = parse.parse(src)
    node = next(n for n in _walk(tree.root_node) if n.type == "gnu_asm_expression")
    template = ptx.template_of(src, node)
    assert ptx.instructions(template) == ("prmt.b32 %0,%1,%2,0x3210",)
    outs, ins, _ = ptx.operands(src, node)
    assert outs == [("=r", "r")] and ins == [("r", "a + 1"), ("r", "b")]
    t = ptx.translate_asm(template, outs, ins)
    assert t.replacement == "r = __byte_perm((a + 1), b, 0x3210);" and t.safe


def test_read_write_operands_and_multi_instruction_templates_get_no_replacement():
    rw = ptx.translate_asm("popc.b32 %0, %1;", [("+r", "x")], [("r", "y")])
    assert rw is None or rw.replacement is None
    chain = ptx.translate_asm("add.cc.u32 %0, %1, %2; addc.u32 %3, %4, %5;",
                              [("=r", "a"), ("=r", "b")], [("r", "c"), ("r", "d"), ("r", "e"), ("r", "f")])
    assert chain.replacement is None and "carry" in chain.advice


def test_ptx_or_not():
    assert ptx.is_ptx("mov.u32 %0, %%laneid;")
    assert ptx.is_ptx("{\n .reg .pred p;\n setp.ne.b32 p, %1, 0;\n}")
    assert not ptx.is_ptx("")
    assert not ptx.is_ptx("s_waitcnt lgkmcnt(0)")
    assert not ptx.is_ptx("v_mov_b32 %0, 0")


def _walk(node):
    yield node
    for c in node.children:
        yield from _walk(c)
