"""The answer rendering of the enrichment fake: headers encoded once per distinct name and value."""

from __future__ import annotations


def test_raw_response_headers_are_encoded_once_and_the_table_stays_small() -> None:
    from fakes.enrichment import routes

    headers = {"X-Credit-Cost": "3", "X-Long": "v" * 65}
    first = routes.RawResponse(b"{}", 200, headers, "application/json")
    again = routes.RawResponse(b"{}", 200, headers, "application/json")
    assert first.raw_headers == again.raw_headers == [
        (b"x-credit-cost", b"3"), (b"x-long", b"v" * 65), (b"content-length", b"2"),
        (b"content-type", b"application/json")]
    assert ("X-Credit-Cost", "3") in routes._PAIRS and ("X-Long", "v" * 65) not in routes._PAIRS
    for n in range(5000):
        routes.RawResponse(b"", 200, {"X-N": str(n)}, "text/plain")
    assert len(routes._PAIRS) <= 4096
