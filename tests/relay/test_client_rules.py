"""The relay's client rules (verdicts): each one flagged when broken, and not when followed."""

from __future__ import annotations

import base64
from typing import Any

import httpx

from fakes.relay import RelayFake, rules


def _rules(fake: RelayFake) -> dict[str, dict[str, Any]]:
    return {v["id"]: v for v in fake.verdicts()}


def test_rules_are_declared_on_the_fake() -> None:
    assert set(RelayFake.client_rules) == {rules.BILLED_POST_RETRY, rules.RETRY_BEFORE_RETRY_AFTER,
                                           rules.UNENCODED_SQL_OR_HTML}
    assert rules.BILLED_POST_RETRY.severity == "error"


def test_retrying_a_billed_post_without_an_idempotency_key_is_an_error(fake: RelayFake,
                                                                       client: httpx.Client) -> None:
    def post(headers: dict[str, str] | None = None) -> httpx.Response:
        return client.post("/call/jobsignal.alerts.create", params={"domain": "northwind.com"},
                           content=b'{"a": 1}', headers=headers)

    post({"Idempotency-Key": "safe"})
    post({"Idempotency-Key": "safe"})
    assert rules.BILLED_POST_RETRY.id not in _rules(fake)
    post()
    assert rules.BILLED_POST_RETRY.id not in _rules(fake)  # the first one is not a retry
    post()
    verdict = _rules(fake)[rules.BILLED_POST_RETRY.id]
    assert verdict["count"] == 1 and verdict["severity"] == "error"
    assert "without an Idempotency-Key" in verdict["first"]["detail"]


def test_retrying_a_503_before_retry_after_is_a_warning(fake: RelayFake, client: httpx.Client) -> None:
    fake.set_saturation(saturated=True, retry_after_s=5)
    call = "/call/firmdata.companies.enrich?domain=northwind.com"
    assert client.get(call).status_code == 503
    fake.advance(2)
    client.get(call)
    assert _rules(fake)[rules.RETRY_BEFORE_RETRY_AFTER.id]["count"] == 1
    fake.clear_verdicts()
    fake.set_saturation(saturated=False)
    fake.advance(10)
    assert client.get(call).status_code == 200
    assert rules.RETRY_BEFORE_RETRY_AFTER.id not in _rules(fake)


def test_sql_or_html_without_base64_is_a_warning(fake: RelayFake, client: httpx.Client) -> None:
    sql = b"DELETE FROM leads WHERE id = 3"
    client.post("/call/jobsignal.alerts.create", params={"domain": "northwind.com"}, content=base64.b64encode(sql),
                headers={"X-Proxy-Body-Encoding": "base64"})
    assert rules.UNENCODED_SQL_OR_HTML.id not in _rules(fake)
    assert client.post("/call/jobsignal.alerts.create", params={"domain": "northwind.com"},
                       content=sql).status_code == 403
    assert _rules(fake)[rules.UNENCODED_SQL_OR_HTML.id]["severity"] == "warning"
