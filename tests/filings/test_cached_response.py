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


def test_a_shape_sent_again_is_the_same_list_and_each_answer_has_its_own() -> None:
    body = b'{"count":2}'
    first = cached_response(body, "application/json", {}, ALLOWANCE)
    first.raw_headers.append((b"x-added", b"later"))  # one answer's list changed: not the next one's
    again = cached_response(body, "application/json", {}, ALLOWANCE)
    assert again.raw_headers == Response(body, media_type="application/json", headers=ALLOWANCE).raw_headers
    counted_down = {**ALLOWANCE, "X-RateLimit-Monthly-Remaining": "40"}  # a key with a quota, one call later
    assert dict(cached_response(body, "application/json", {}, counted_down).raw_headers)[
        b"x-ratelimit-monthly-remaining"] == b"40"
    longer = cached_response(body + b" ", "application/json", {}, ALLOWANCE)
    assert dict(longer.raw_headers)[b"content-length"] == str(len(body) + 1).encode()


def test_long_header_lists_are_sent_but_not_remembered() -> None:
    from fakes.kernel import http

    long_value = "x" * (http.MAX_ENCODED_LIST_BYTES + 1)
    sent = cached_response(b"{}", "application/json", {"X-Long": long_value}, ALLOWANCE)
    assert dict(sent.raw_headers)[b"x-long"] == long_value.encode()
    assert not any(("X-Long", long_value) in shape[2] for shape in http._ENCODED_LISTS)
