"""Generated ISINs and LEIs are valid and decode back to their company."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from fakes.filings.catalogue.identifiers import (
    decode_isin,
    decode_lei,
    is_valid_isin,
    is_valid_lei,
    make_isin,
    make_lei,
)


def test_check_digits_agree_with_real_identifiers() -> None:
    assert is_valid_isin("US0378331005") and is_valid_isin("DE0007164600") and is_valid_isin("GB0002634946")
    assert not is_valid_isin("DE0007164601")
    assert is_valid_lei("5493001KJTIIGC8Y1R12") and not is_valid_lei("5493001KJTIIGC8Y1R13")


@given(st.sampled_from(["DE", "FR", "GB", "SE", "CH"]), st.integers(1, 99_999_999), st.integers(0, 2))
def test_isin_round_trip(country: str, company_id: int, share_class: int) -> None:
    isin = make_isin(country, company_id, share_class)
    assert is_valid_isin(isin) and decode_isin(isin) == (country, company_id, share_class)
    assert decode_isin(isin.lower()) == (country, company_id, share_class)


@given(st.integers(1, 10**12))
def test_lei_round_trip(company_id: int) -> None:
    lei = make_lei("5299", company_id)
    assert is_valid_lei(lei) and decode_lei(lei) == company_id


@given(st.text(max_size=25))
def test_decoding_garbage_never_raises(text: str) -> None:
    decode_isin(text)
    decode_lei(text)
