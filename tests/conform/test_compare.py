"""The comparison of a real answer with the fake's: shapes, not values (fakes/conform/compare.py)."""

from __future__ import annotations

import json
from typing import Any

from fakes.conform.compare import compare
from fakes.conform.document import Document
from fakes.conform.observed import Observed


def answer(body: Any, status: int = 200, **headers: str) -> Observed:
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    kind = headers.pop("content_type", "application/json")
    return Observed("GET", "/things", status=status, response_body=raw,
                    response_headers={"content-type": kind, **{k.replace("_", "-"): v for k, v in headers.items()}})


def texts(real: Observed, fake: Observed, **kwargs: Any) -> list[str]:
    return [d.text for d in compare(real, fake, **kwargs)]


REAL = {"data": [{"id": "vi4blUQJFrYWbaG44NChkH27", "createdAt": "2026-01-05T09:00:00Z", "title": "Intro",
                  "url": "https://cdn.example/vi4b/mp4", "size": 1234, "tags": ["a"], "status": "READY",
                  "description": None},
                 {"id": "vi9zz", "createdAt": "2026-02-01T10:11:12+01:00", "title": "Outro",
                  "url": "https://cdn.example/vi9z/mp4", "size": 7.5, "tags": [], "status": "ENCODING",
                  "description": "text"}],
        "pagination": {"currentPage": 1, "links": [{"rel": "next", "uri": "https://api.example/things?page=2"}]}}


def test_other_ids_times_urls_numbers_and_order_are_the_same_shape() -> None:
    fake = {"pagination": {"links": [{"uri": "http://testserver/things?page=2", "rel": "self"}], "currentPage": 3},
            "data": [{"status": "READY", "tags": ["x", "y"], "size": 1, "url": "http://testserver/vod/1/mp4",
                      "title": "Another title altogether", "createdAt": "2030-12-31T23:59:59.123Z",
                      "id": "vi0000000000000000000001", "description": "now text"}]}
    assert compare(answer(REAL), answer(fake)) == []


def test_a_renamed_field_is_named_both_ways() -> None:
    fake = json.loads(json.dumps(REAL))
    for item in fake["data"]:
        item["name"] = item.pop("title")
    assert texts(answer(REAL), answer(fake)) == ["fake has `$.data[].name`, real lacks it",
                                                 "real has `$.data[].title`, fake lacks it"]


def test_a_nested_missing_key_type_and_form_are_found() -> None:
    real = {"assets": {"mp4": "https://cdn/x.mp4", "hls": "https://cdn/x.m3u8"}, "size": 10,
            "at": "2026-01-05T09:00:00Z"}
    fake = {"assets": {"hls": "https://cdn/y.m3u8"}, "size": "10", "at": "2026-01-05"}
    assert texts(answer(real), answer(fake)) == ["real has `$.assets.mp4`, fake lacks it",
                                                 "`$.at`: real datetime, fake date",
                                                 "`$.size`: real number, fake string"]


def test_status_content_type_and_headers_that_matter() -> None:
    assert texts(answer({"e": 1}, 422), answer({"e": 1}, 400)) == ["real 422, fake 400"]
    real = answer({"a": 1}, x_ratelimit_remaining="99", location="https://api.example/things/1", etag='"abc"')
    fake = answer({"a": 1}, x_credit_cost="3", location="/things/2", server="uvicorn")
    assert texts(real, fake) == ["header `location`: real url, fake path",
                                 "fake sends header `x-credit-cost`, real does not",
                                 "real sends header `x-ratelimit-remaining`, fake does not"]
    html = answer(b"<html>", content_type="text/html; charset=utf-8")
    assert texts(answer({"a": 1}), html) == ["`content-type`: real application/json, fake text/html"]


def test_free_text_header_values_go_with_numbers() -> None:
    # "Unlimited" where a plan has a number is the plan, not drift
    assert compare(answer({}, x_ratelimit_monthly_limit="100"), answer({}, x_ratelimit_monthly_limit="Unlimited")) == []
    assert texts(answer({}, retry_after="60"), answer({}, retry_after="Wed, 21 Oct 2026 07:28:00 GMT")) == [
        "header `retry-after`: real integer, fake http-date"]


def test_empty_lists_and_nulls_say_nothing() -> None:
    assert compare(answer({"data": [{"id": 1}], "next": None}), answer({"data": [], "next": "https://x/2"})) == []


def test_error_bodies_are_compared_too() -> None:
    real = answer({"type": "https://docs/e", "title": "Bad", "status": 400, "name": "title"}, 400)
    fake = answer({"type": "https://docs/e", "title": "Bad", "status": 400}, 400)
    assert texts(real, fake) == ["real has `$.name`, fake lacks it"]


def test_enum_style_and_document_enums() -> None:
    real, fake = answer({"status": "READY"}), answer({"status": "ready"})
    assert texts(real, fake) == ["`$.status`: real upper-case values ('READY'), fake lower-case values ('ready')"]
    schema = {"type": "object", "properties": {"status": {"type": "string", "enum": ["READY", "ENCODING"]}}}
    document = Document({"paths": {"/things": {"get": {"responses": {"200": {"content": {"application/json": {
        "schema": schema}}}}}}}})
    # another value of the document's enum is data; a value outside it is drift
    assert compare(real, answer({"status": "ENCODING"}), operation="GET /things", hints=document) == []
    assert texts(real, answer({"status": "FAILED"}), operation="GET /things", hints=document) == [
        "`$.status`: real 'READY', fake 'FAILED' (not in the document)"]
    assert texts(answer({"status": "ARCHIVED"}), answer({"status": "READY"}), operation="GET /things",
                 hints=document) == ["`$.status`: real 'ARCHIVED' (not in the document), fake 'READY'"]


def test_declared_headers_are_compared_whatever_their_name() -> None:
    document = Document({"paths": {"/things": {"get": {"responses": {"200": {"headers": {"X-Trace": {}}}}}}}})
    assert compare(answer({}, x_trace="1"), answer({})) == []
    assert texts(answer({}, x_trace="1"), answer({}), operation="GET /things", hints=document) == [
        "real sends header `x-trace`, fake does not"]


def test_an_answer_keyed_by_the_id_the_request_named_is_keyed_by_data() -> None:
    real = Observed("GET", "/platforms/atlasio", status=200, response_headers={"content-type": "application/json"},
                    response_body=json.dumps({"providers": {"atlasio": {"endpoints": 3}}}).encode())
    fake = Observed("GET", "/platforms/beacon", status=200, response_headers={"content-type": "application/json"},
                    response_body=json.dumps({"providers": {"beacon": {"endpoints": 5}}}).encode())
    assert compare(real, fake, operation="GET /platforms/{slug}") == []
    fake.response_body = json.dumps({"providers": {"beacon": {"count": 5}}}).encode()
    fake._parsed = False
    assert texts(real, fake, operation="GET /platforms/{slug}") == [
        "fake has `$.providers.{*}.count`, real lacks it", "real has `$.providers.{*}.endpoints`, fake lacks it"]


def test_difference_keys_hold_no_values() -> None:
    [difference] = compare(answer({"id": "secret-id-123"}), answer({"id": 5}))
    assert difference.key("GET /things") == "GET /things | type | $.id | string -> number"
    assert "secret" not in difference.key("GET /things")
