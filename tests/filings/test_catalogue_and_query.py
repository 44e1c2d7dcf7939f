"""The catalogue's arithmetic against enumeration: sizes, determinism, company patterns, and the
query sources (type, language, market, company, unions, date ranges) at any visible count."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fakes.filings.catalogue.generator import ANCHOR_S, Scale, catalogue_for
from fakes.filings.catalogue.markets import MARKETS
from fakes.filings.catalogue.records import FilingRecord, generated_record
from fakes.filings.query import FilingFilter, GeneratedSelection

SMALL = catalogue_for(5, "small")
HORIZON = SMALL.timeline.count_released_by(ANCHOR_S + 20 * 86_400)  # the live feed's next weeks included
RECORDS: list[FilingRecord] = [generated_record(SMALL, i) for i in range(HORIZON)]


def test_small_catalogue_spans_all_44_markets() -> None:
    assert SMALL.company_count >= 200
    assert len(set(SMALL.market)) == len(MARKETS) == 44
    assert SMALL.timeline.count_released_by(ANCHOR_S) == 3000
    assert len({r.company_id for r in RECORDS}) > 150


def test_a_filing_is_a_pure_function_of_seed_and_index() -> None:
    again = catalogue_for.__wrapped__(5, "small")  # built anew, not the cached one
    assert [generated_record(again, i) for i in range(0, HORIZON, 97)] == RECORDS[::97]  # its own cache is empty
    other = catalogue_for(6, "small")
    assert [generated_record(other, i).company_id for i in range(50)] != [r.company_id for r in RECORDS[:50]]


def test_company_patterns_are_exactly_the_companys_filings() -> None:
    per_round = SMALL.round_size
    for company_id in (1, 17, 150, SMALL.company_count):
        pattern = SMALL.company_pattern(company_id)
        positions = {p for p, _, _ in pattern}
        owned = {r.id - 1 for r in RECORDS if r.company_id == company_id}
        assert {i for i in range(HORIZON) if i % per_round in positions} == owned
        assert all(RECORDS[i].type_index == t for p, t, _ in pattern for i in range(p, HORIZON, per_round))


def test_scale_parsing() -> None:
    assert Scale.parse("full").companies == 33_500 and Scale.parse("full").filings == 14_800_000
    assert Scale.parse(" Small ").companies == 220
    assert Scale.parse(1000).filings == round(1000 * 14_800_000 / 33_500)
    for bad in ("huge", "10", "-5"):
        try:
            Scale.parse(bad)
        except ValueError:
            continue
        raise AssertionError(bad)


@st.composite
def filters(draw: st.DrawFn) -> FilingFilter:
    times = (RECORDS[0].release_s - 50, RECORDS[-1].release_s + 50)
    return FilingFilter(
        company_ids=draw(st.none() | st.frozensets(st.integers(1, SMALL.company_count + 2), min_size=1, max_size=3)),
        type_indexes=draw(st.none() | st.frozensets(st.integers(0, 12), min_size=1, max_size=4)),
        language_indexes=draw(st.none() | st.frozensets(st.sampled_from([0, 1, 2, 3, 7, 31]), min_size=1, max_size=3)),
        market_indexes=draw(st.none() | st.frozensets(st.integers(0, 43), min_size=1, max_size=5)),
        released_from_s=draw(st.none() | st.integers(*times)),
        released_to_s=draw(st.none() | st.integers(*times)),
    )


@settings(max_examples=250, deadline=None, database=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(flt=filters(), visible=st.integers(0, HORIZON), size=st.integers(1, 60), data=st.data())
def test_selection_pages_equal_brute_force(flt: FilingFilter, visible: int, size: int, data: st.DataObject) -> None:
    expected = [r.id - 1 for r in RECORDS[:visible] if flt.matches(r)]
    selection = GeneratedSelection(SMALL, flt, visible)
    assert selection.count == len(expected)
    offset = data.draw(st.integers(0, max(0, len(expected) + 2)))
    assert selection.indexes(offset, size) == expected[offset:offset + size]
    moment = data.draw(st.integers(RECORDS[0].release_s - 10, RECORDS[-1].release_s + 10))
    assert selection.count_released_by(moment) == sum(RECORDS[i].release_s <= moment for i in expected)
