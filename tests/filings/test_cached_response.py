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


def test_a_refusal_sent_again_is_the_same_answer_and_is_never_counted() -> None:
    """A GET's own 4xx (a bad parameter, an unknown id) is kept like a page: the same bytes and
    headers the second time (the allowance headers current), and neither answer counts a call."""
    from fakes.filings import FilingsFake

    fake = FilingsFake(seed=0, scale="small")
    with fake.client(headers=fake.auth_headers()) as client:
        before = client.get("/usage/").json()
        answers = [client.get("/companies/?countries=DE&page_size=many") for _ in range(3)]
        unknown = [client.get("/companies/999999999/") for _ in range(2)]
        after = client.get("/usage/").json()
        entries = client.get("/_fake/journal").json()["entries"]
    assert {answer.status_code for answer in answers} == {400} and {answer.status_code for answer in unknown} == {404}
    for repeated in (answers, unknown):
        assert all(answer.content == repeated[0].content for answer in repeated)
        assert all(list(answer.headers.multi_items()) == list(repeated[0].headers.multi_items()) for answer in repeated)
    assert sorted(entry[3] for entry in fake.responses.entries.values() if entry[3] != 200) == [400, 404]  # kept
    assert after == before  # refused calls are not counted, kept or not
    assert [entry["status"] for entry in entries if entry["path"] != "/usage/"] == [400, 400, 400, 404, 404]


def test_a_kept_refusal_ends_with_the_state_that_decided_it() -> None:
    """An unknown id's 404 is kept for the state it was decided in: once the company exists, the
    same URL is answered with it."""
    from fakes.filings import FilingsFake

    fake = FilingsFake(seed=0, scale="small")
    first = fake.add_company(name="Kept Refusal AG", country_code="DE")["id"]
    with fake.client(headers=fake.auth_headers()) as client:
        assert client.get(f"/companies/{first + 1}/").status_code == 404
        assert client.get(f"/companies/{first + 1}/").status_code == 404
        second = fake.add_company(name="Second Kept AG", country_code="DE")["id"]
        assert second == first + 1
        found = client.get(f"/companies/{first + 1}/")
    assert found.status_code == 200 and found.json()["name"] == "Second Kept AG"


def test_answers_to_long_urls_are_given_but_not_kept() -> None:
    """The cache's budget counts bodies; a client's long URLs are answered and not kept, so they
    cannot fill it with large keys."""
    from fakes.filings import FilingsFake
    from fakes.filings.response_cache import MAX_KEPT_URL

    fake = FilingsFake(seed=0, scale="small")
    with fake.client(headers=fake.auth_headers()) as client:
        long_refusal = client.get("/companies/?page_size=many&x=" + "y" * MAX_KEPT_URL)
        short_refusal = client.get("/companies/?page_size=many")
    assert long_refusal.status_code == short_refusal.status_code == 400
    assert [len(key[5]) for key in fake.responses.entries] == [len(b"page_size=many")]
