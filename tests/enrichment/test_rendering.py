"""The answer rendering of the enrichment fake: headers encoded once per distinct short name and
value (the kernel's ``encoded_headers``, which video's answers use too)."""

from __future__ import annotations


def test_raw_response_headers_are_encoded_once_and_the_table_stays_small() -> None:
    from fakes.enrichment import routes
    from fakes.kernel import http

    headers = {"X-Credit-Cost": "3", "X-Long": "v" * 130}
    first = routes.RawResponse(b"{}", 200, headers, "application/json")
    again = routes.RawResponse(b"{}", 200, headers, "application/json")
    assert first.raw_headers == again.raw_headers == [
        (b"x-credit-cost", b"3"), (b"x-long", b"v" * 130), (b"content-length", b"2"),
        (b"content-type", b"application/json")]
    assert ("X-Credit-Cost", "3") in http._ENCODED_PAIRS and ("X-Long", "v" * 130) not in http._ENCODED_PAIRS
    for n in range(http.MAX_REMEMBERED_QUERIES + 10):
        routes.RawResponse(b"", 200, {"X-N": str(n)}, "text/plain")
    assert len(http._ENCODED_PAIRS) <= http.MAX_REMEMBERED_QUERIES

