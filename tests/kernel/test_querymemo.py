"""QueryMemo (fakes/kernel/querymemo.py): a parse of the query string alone, run once per query
string; its refusal raised again as a new, equal error."""

from __future__ import annotations

from typing import Any

import pytest
from starlette.requests import Request

from fakes.kernel import querymemo
from fakes.kernel.errors import ServiceError
from fakes.kernel.querymemo import QueryMemo


class Refusal(ServiceError):
    """A service's own error class: the copy keeps it."""


def request(query: str) -> Request:
    return Request({"type": "http", "method": "GET", "path": "/", "query_string": query.encode(), "headers": []})


def counting_parse() -> tuple[QueryMemo[tuple[str, ...]], list[str]]:
    parsed: list[str] = []

    def parse(request: Request) -> tuple[str, ...]:
        query = request.scope["query_string"].decode()
        parsed.append(query)
        if "bad" in query:
            raise Refusal(400, f"bad query {query}", code="invalid", headers={"X-Why": "bad"}, field="q")
        return tuple(sorted(query.split("&")))

    return QueryMemo(parse), parsed


def test_a_query_is_parsed_once_and_its_result_given_again() -> None:
    memo, parsed = counting_parse()
    assert memo(request("b=2&a=1")) == ("a=1", "b=2")
    assert memo(request("b=2&a=1")) is memo(request("b=2&a=1"))
    assert memo(request("a=1")) == ("a=1",)
    assert parsed == ["b=2&a=1", "a=1"]


def test_a_refusal_is_raised_again_as_a_new_equal_error() -> None:
    memo, parsed = counting_parse()
    raised: list[Refusal] = []
    for _ in range(3):
        with pytest.raises(Refusal) as caught:
            memo(request("q=bad"))
        raised.append(caught.value)
    assert parsed == ["q=bad"]
    first = raised[0]
    for again in raised[1:]:
        assert again is not first and type(again) is Refusal
        assert (again.status, again.message, again.code, again.headers, again.extra, str(again)) == \
            (first.status, first.message, first.code, first.headers, first.extra, str(first))
    raised[1].headers["X-Added"] = "on the way out"  # a route adding to one refusal's headers
    with pytest.raises(Refusal) as caught:
        memo(request("q=bad"))
    assert caught.value.headers == {"X-Why": "bad"}
    stored = memo._results[b"q=bad"][1]
    assert isinstance(stored, ServiceError) and stored.__traceback__ is None  # holds no request's frames


def test_long_queries_are_parsed_every_time_and_the_table_is_bounded(monkeypatch: Any) -> None:
    memo, parsed = counting_parse()
    long = "a=" + "x" * querymemo.MAX_QUERY
    memo(request(long))
    memo(request(long))
    assert parsed == [long, long] and len(memo) == 0
    small: QueryMemo[Any] = QueryMemo(lambda request: request.scope["query_string"], size=3)
    for number in range(10):
        small(request(f"n={number}"))
        assert len(small) <= 3
