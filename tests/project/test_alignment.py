"""Row alignment (porter.project.alignment): the CUDA and HIP lines of a file side by side,
and the lines of three texts side by side."""

from __future__ import annotations

import random

from porter.project.alignment import align_by_insertions, align_fixed, align_three


def test_align_by_insertions_refuses_counts_that_do_not_add_up():
    assert align_by_insertions(3, 5, [(0, 1)]) is None
    rows = align_by_insertions(2, 3, [(1, 1)])
    assert [(r.left, r.right) for r in rows] == [(0, 0), (None, 1), (1, 2)]


def test_rows_after_no_fix_are_the_rows_of_the_inserted_lines():
    """The two walks are one: a file with no fix applied (its fixed text the CUDA itself, no
    edits) gets from align_fixed exactly the rows align_by_insertions gives."""
    rng = random.Random(7)
    for _ in range(500):
        left = [rng.choice(["a\n", "b\n", "}\n", "\n"]) for _ in range(rng.randint(0, 9))]
        inserted = [(rng.randint(0, len(left)), rng.randint(1, 3)) for _ in range(rng.randint(0, 3))]
        n_right = len(left) + sum(c for _, c in inserted)
        rows = align_by_insertions(len(left), n_right, inserted)
        assert rows is not None and align_fixed(left, left, [], n_right, inserted, ascii=True) == rows
        assert [r.right for r in rows] == list(range(n_right))  # each HIP line once, in order
        assert [r.left for r in rows if r.left is not None] == list(range(len(left)))


def _columns(rows, texts):
    """Each text's lines as the rows show them, in order (None rows dropped)."""
    return [[texts[c][r[c]] for r in rows if r[c] is not None] for c in range(3)]


def test_three_texts_side_by_side_meet_at_the_hub_and_keep_every_line_once():
    base = ["a", "b", "c", "d"]
    mine = ["a", "b2", "c", "d"]  # one line changed
    theirs = ["a", "b", "c", "new", "d"]  # one line added
    rows = align_three((mine, base, theirs), hub=1)
    assert _columns(rows, (mine, base, theirs)) == [mine, base, theirs]
    assert rows == [(0, 0, 0), (1, 1, 1), (2, 2, 2), (None, None, 3), (3, 3, 4)]


def test_two_insertions_at_one_place_face_each_other_and_a_deleted_hub_line_is_a_gap():
    hub = ["x", "y", "z"]
    left = ["x", "L1", "L2", "y"]  # two lines added after x, z deleted
    right = ["x", "R1", "y", "z"]  # one line added after x
    rows = align_three((hub, left, right), hub=0)
    assert rows == [(0, 0, 0), (None, 1, 1), (None, 2, None), (1, 3, 2), (2, None, 3)]
    assert _columns(rows, (hub, left, right)) == [hub, left, right]
