"""The answer rendering of the enrichment fake: header lists encoded once per shape (the kernel's
``encoded_header_list``, which filings' repeated pages use too) and pairs once per distinct short
name and value (``encoded_headers``, which video's answers use)."""

from __future__ import annotations


def test_answer_headers_are_encoded_once_per_shape_and_the_table_stays_small() -> None:
    from fakes.kernel import http

    headers = {"X-Credit-Cost": "3", "X-Long": "v" * 130}
    first = http.encoded_header_list("application/json", 2, headers)
    again = http.encoded_header_list("application/json", 2, dict(headers))
    assert first == again == [
        (b"x-credit-cost", b"3"), (b"x-long", b"v" * 130), (b"content-length", b"2"),
        (b"content-type", b"application/json")]
    assert first is not again  # a copy each: a caller may extend its own
    assert ("application/json", 2, tuple(headers.items()), ()) in http._ENCODED_LISTS
    rss = http.encoded_header_list("text/xml", 6, {"X-Credit-Cost": "0"})
    assert dict(rss)[b"content-type"] == b"text/xml; charset=utf-8"
    long_value = "x" * (http.MAX_ENCODED_LIST_BYTES + 1)
    assert dict(http.encoded_header_list("text/plain", 0, {"X-Long": long_value}))[b"x-long"] == \
        long_value.encode()
    assert not any(("X-Long", long_value) in shape[2] for shape in http._ENCODED_LISTS)
    for n in range(http.MAX_ENCODED_LISTS + 10):
        http.encoded_header_list("text/plain", 0, {"X-N": str(n)})
    assert len(http._ENCODED_LISTS) <= http.MAX_ENCODED_LISTS


def test_header_pairs_are_encoded_once_and_their_table_stays_small() -> None:
    from fakes.kernel import http

    assert http.encoded_headers({"X-Credit-Cost": "3", "X-Long": "v" * 130}) == [
        (b"x-credit-cost", b"3"), (b"x-long", b"v" * 130)]
    assert ("X-Credit-Cost", "3") in http._ENCODED_PAIRS and ("X-Long", "v" * 130) not in http._ENCODED_PAIRS
    for n in range(http.MAX_REMEMBERED_QUERIES + 10):
        http.encoded_headers({"X-N": str(n)})
    assert len(http._ENCODED_PAIRS) <= http.MAX_REMEMBERED_QUERIES


def test_a_query_parsed_once_is_answered_alike_and_bad_ones_are_refused_every_time() -> None:
    """The route remembers the parsed parameters of an operation's query (bounded, 400s never): the
    same query answers the same, a wrong key is still refused before the parameters count, and a
    bad parameter is refused again and again."""
    from fakes.enrichment import EnrichmentFake, routes

    fake = EnrichmentFake(seed=0)
    key = fake.create_account("sub_1899", credits=1000)["api_key"]
    with fake.client(headers={"Authorization": f"Bearer {key}"}) as client:
        query = "/v1/company/details?website=stripe.com&include_employee_count=true"
        first, again = client.get(query), client.get(query)
        assert first.status_code == again.status_code == 200 and first.content == again.content
        assert "employee_count_range_min" in first.json()
        assert ("company_details", b"website=stripe.com&include_employee_count=true") in routes._PARSED
        assert client.get(query, headers={"Authorization": "Bearer wrong"}).status_code == 401
        bad = "/v1/company/details?website=stripe.com&include_employee_count=maybe"
        assert [client.get(bad).status_code for _ in range(2)] == [400, 400]
        assert ("company_details", b"website=stripe.com&include_employee_count=maybe") not in routes._PARSED
    with EnrichmentFake(seed=1).client() as other:  # another fake reads the same values (no key: 401 first)
        assert other.get(query).status_code == 401
    routes._PARSED.clear()
    for n in range(routes.MAX_PARSED + 5):
        routes._PARSED[("company_details", str(n).encode())] = {}
    with fake.client(headers={"Authorization": f"Bearer {key}"}) as client:
        assert client.get(query).status_code == 200
    assert len(routes._PARSED) <= routes.MAX_PARSED
