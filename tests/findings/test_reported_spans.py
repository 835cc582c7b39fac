"""Context.reported answers "does a finding already cover this span?" the way a look over every
reported span would, whatever the order the spans come in and however long they are."""

from hypothesis import given, strategies as st

from porter.findings.engine import Reported

span = st.tuples(st.integers(0, 300_000), st.integers(0, 140_000), st.sampled_from(["PORT010", "PORT015", "PORT020"]))


@given(st.lists(span, max_size=40), st.lists(st.tuples(st.integers(0, 300_000), st.integers(0, 2_000)), max_size=20))
def test_covered_matches_a_look_at_every_span(spans, questions):
    reported = Reported()
    seen = []
    for start, length, rule in spans:
        reported.add(start, start + length, rule)
        seen.append((start, start + length, rule))
    for start, length in questions:
        end = start + length
        assert reported.covered(start, end) == any(s <= start and end <= e for s, e, _ in seen)
        assert reported.covered(start, end, {"PORT015"}) == \
            any(s <= start and end <= e and r == "PORT015" for s, e, r in seen)


def test_a_long_span_reported_first_still_covers_a_later_short_one():
    reported = Reported()
    reported.add(0, 500_000, "PORT017")  # a whole kernel
    reported.add(400_000, 400_010, "PORT010")
    assert reported.covered(450_000, 450_020)
    assert not reported.covered(450_000, 450_020, {"PORT010"})
    assert reported.covered(400_002, 400_008, {"PORT010"})
