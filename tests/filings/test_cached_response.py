"""A repeated page is sent with exactly the header list Starlette would build for it."""

from __future__ import annotations

import pytest
from starlette.responses import Response

from fakes.filings.endpoints import cached_response

ALLOWANCE = {"X-RateLimit-Burst-Limit": "10/s", "X-RateLimit-Monthly-Remaining": "41"}


@pytest.mark.parametrize("media_type", ["application/json", "text/markdown", "text/plain; charset=utf-8", None])
def test_the_same_headers_in_the_same_order_as_starlettes(media_type: str | None) -> None:
    body = b'{"count":1}'
    headers = {"Link": "<https://x>; rel=next", "X-Extra": "1"}
    expected = Response(body, media_type=media_type, headers={**headers, **ALLOWANCE})
    sent = cached_response(body, media_type, headers, ALLOWANCE)
    assert sent.raw_headers == expected.raw_headers
    assert sent.body == expected.body and sent.status_code == expected.status_code == 200


def test_a_repeated_listing_over_the_client_matches_the_first_answer() -> None:
    from fakes.filings import FilingsFake

    fake = FilingsFake(seed=0, scale="small")
    with fake.client(headers=fake.auth_headers()) as client:
        first = client.get("/filings/?ordering=-release_datetime")
        again = client.get("/filings/?ordering=-release_datetime")
    assert again.content == first.content
    assert [name for name, _ in again.headers.multi_items()] == [name for name, _ in first.headers.multi_items()]
