"""Python converts no digit string past 4,300 digits to an int (a ValueError, CPython's guard
against quadratic conversions): every place a fake reads a number from a query, a header or a
control call must refuse or ignore such a value, never answer 500. Each service's sample request
and its list-shaped paths get every paging-like parameter (and their own) as 5,000 nines."""

from __future__ import annotations

from urllib.parse import parse_qsl, urlencode, urlsplit

import pytest

from fakes import registry

from .conftest import make_fake

LONG = "9" * 5000
#: paging and count parameters the five services (and their vendors) use
NUMBERS = ("page", "page_size", "pageSize", "currentPage", "limit", "offset", "start", "count", "size",
           "per_page", "status", "cursor", "ttl")


@pytest.mark.parametrize("service", registry.service_names())
def test_a_5000_digit_number_is_never_a_500(service: str) -> None:
    fake = make_fake(service)
    method, sample = fake.sample_request()
    parts = urlsplit(sample)
    own = dict(parse_qsl(parts.query))
    headers = fake.auth_headers()
    answers = {}
    with fake.client() as client:
        for name in sorted({*own, *NUMBERS}):
            query = urlencode({**own, name: LONG})
            answers[f"{method} {parts.path}?{name}="] = client.request(method, f"{parts.path}?{query}",
                                                                         headers=headers).status_code
        for name in ("status", "limit"):
            answers[f"GET /_fake/journal?{name}="] = client.get("/_fake/journal", params={name: LONG}).status_code
        answers["sample again"] = client.request(method, sample, headers=headers).status_code
    assert all(status < 500 for status in answers.values()), {k: v for k, v in answers.items() if v >= 500}
    assert answers["sample again"] < 400
