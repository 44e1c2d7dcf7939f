"""What an upstream received, through the control plane (``GET /_fake/upstreams/requests``): method,
path, query, headers and body as the provider got them (after undoing ``X-Treg-Body-Encoding``; a
caller's own ``Content-Encoding`` kept). And a body that does not decode is treg's exact
``{"detail": "invalid X-Treg-Body-Encoding body"}`` (its package's ``bootstrap_http.py``)."""

from __future__ import annotations

import base64
import gzip
from typing import Any

import pytest

from fakes.relay import RelayFake

ALERT = "/call/jobsignal.alerts.create"
DOMAIN = {"domain": "northwind.com"}
BODY = b'{"query": "SELECT name FROM jobs"}'


@pytest.fixture
def fake() -> RelayFake:
    return RelayFake(seed=0, header_prefix="X-Treg")


@pytest.fixture
def owner(fake: RelayFake) -> dict[str, str]:
    return {"X-Treg-Token": str(fake.create_team()["token"])}


def _headers(row: dict[str, Any]) -> dict[str, str]:
    return {name: value for name, value in row["headers"]}


def test_a_body_that_does_not_decode_is_treg_s_exact_400(fake: RelayFake, owner: dict[str, str]) -> None:
    with fake.client(headers=owner) as http:
        for encoding, sent in (("base64", b"%%%"), ("gzip", b"not gzip"), ("base64+gzip", base64.b64encode(b"x")),
                               ("rot13", b"abc")):
            refused = http.post(ALERT, params=DOMAIN, content=sent, headers={"X-Treg-Body-Encoding": encoding})
            assert refused.status_code == 400, encoding
            assert refused.json()["detail"] == "invalid X-Treg-Body-Encoding body", refused.json()
            assert refused.headers["X-Treg-Error"] == "1"
        accounts = http.post("/secrets", content=b"%%%", headers={"X-Treg-Body-Encoding": "base64"})
        assert accounts.status_code == 400 and accounts.json()["detail"] == "invalid X-Treg-Body-Encoding body"


def test_the_control_plane_lists_what_a_registered_upstream_received(fake: RelayFake,
                                                                     owner: dict[str, str]) -> None:
    with fake.client() as http:
        canned = http.post("/_fake/upstreams", json={"provider": "jobsignal", "responses": [
            {"method": "*", "path": "*", "status": 201, "body": {"ok": True}}]})
        assert canned.status_code == 201
        sent = http.post(ALERT, params=DOMAIN, content=base64.b64encode(BODY),
                         headers={**owner, "X-Treg-Body-Encoding": "base64", "content-type": "application/json",
                                  "X-Treg-Meta": "customer=c1", "Idempotency-Key": "k1"})
        assert sent.status_code == 201
        zipped = gzip.compress(b'{"domain": "northwind.com"}')
        kept = http.post(ALERT, params=DOMAIN, content=zipped,
                         headers={**owner, "Content-Encoding": "gzip", "content-type": "application/json"})
        assert kept.status_code == 201
        listed = http.get("/_fake/upstreams/jobsignal/requests")
        assert listed.status_code == 200
        first, second = listed.json()["upstreams"]["jobsignal"]
        assert (first["method"], first["host"], first["path"], first["query"]) == (
            "POST", "api.jobsignal.example", "/v1/alerts", "domain=northwind.com")
        assert first["body"] == BODY.decode() and base64.b64decode(first["body_base64"]) == BODY
        assert first["call_id"] == sent.headers["X-Treg-Call-Id"] and first["credential"] == "relay_key"
        headers = _headers(first)
        assert headers["authorization"] == "Bearer relay-key-jobsignal"
        assert headers["content-type"] == "application/json" and "content-encoding" not in headers
        assert not [name for name in headers if name.startswith("x-treg-") or name == "idempotency-key"]
        assert _headers(second)["content-encoding"] == "gzip"  # the caller's own encoding, body as sent
        assert base64.b64decode(second["body_base64"]) == zipped and second["body"] is None
        assert http.get("/_fake/upstreams/requests").json()["upstreams"] == {"jobsignal": [first, second]}
        assert http.get("/_fake/upstreams/nobody/requests").status_code == 404
        assert http.delete("/_fake/upstreams/requests").json()["upstreams"] == {}
    assert fake.upstream_requests("jobsignal")["upstreams"]["jobsignal"] == []


def test_simulated_providers_are_listed_while_recording_is_on(fake: RelayFake, owner: dict[str, str]) -> None:
    find = {"domain": "northwind.com", "first_name": "Ada", "last_name": "Lovelace"}
    with fake.client() as http:
        http.get("/call/mailscout.people.email.find", params=find, headers=owner)
        assert http.get("/_fake/upstreams/requests").json() == {"recording_simulated": False, "upstreams": {}}
        assert http.put("/_fake/upstreams/recording", json={"simulated": True}).json() == {
            "recording_simulated": True}
        assert http.put("/_fake/upstreams/recording", json={"simulated": "yes"}).status_code == 400
        again = [http.get("/call/mailscout.people.email.find", params=find, headers=owner) for _ in range(2)]
        assert [a.json() for a in again] == [again[0].json()] * 2 and again[0].status_code == 200
        routed = http.post("/call/treg.companies.enrich", json={"domain": "northwind.com"}, headers=owner)
        assert routed.status_code == 200
        seen = http.get("/_fake/upstreams/requests").json()["upstreams"]
        assert [row["query"] for row in seen["mailscout"]] == ["domain=northwind.com&first_name=Ada&last_name="
                                                               "Lovelace"] * 2
        assert [row["call_id"] for row in seen["mailscout"]] == [a.headers["X-Treg-Call-Id"] for a in again]
        assert _headers(seen["mailscout"][0])["authorization"] == "Bearer relay-key-mailscout"
        (candidate,) = seen["firmdata"]  # a routed call's candidate: the identity as its query, no body
        assert (candidate["method"], candidate["path"], candidate["query"], candidate["body"]) == (
            "GET", "/v1/companies/enrich", "domain=northwind.com", "")
        http.put("/_fake/upstreams/recording", json={"simulated": False})
        http.get("/call/mailscout.people.email.find", params=find, headers=owner)
        assert len(http.get("/_fake/upstreams/mailscout/requests").json()["upstreams"]["mailscout"]) == 2


def test_the_setting_records_simulated_providers_from_the_start() -> None:
    fake = RelayFake(seed=0, record_upstream_requests=True)
    team = fake.create_team()
    with fake.client(headers={"X-Proxy-Token": team["token"]}) as http:
        for _ in range(3):
            assert http.get("/call/firmdata.companies.enrich", params=DOMAIN).status_code == 200
        submitted = http.post("/call/firmdata.reports.create", params=DOMAIN)
        assert submitted.status_code == 202
    seen = fake.upstream_requests()["upstreams"]
    assert len(seen["firmdata"]) == 4 and seen["firmdata"][-1]["path"] == "/v1/reports"
    assert fake.team_info(team["team_id"])["balance_micro"] == 1_000_000 - 3 * 10_000  # billed as ever


def test_a_big_body_is_kept_in_part(fake: RelayFake, owner: dict[str, str]) -> None:
    fake.register_upstream("jobsignal", responses=[{"status": 200, "body": {}}])
    big = b"x" * 300_000
    with fake.client(headers=owner) as http:
        assert http.post(ALERT, params=DOMAIN, content=big).status_code == 200
    (row,) = fake.upstream_requests("jobsignal")["upstreams"]["jobsignal"]
    assert row["body_bytes"] == 300_000 and row["body_truncated"] and len(row["body"]) == 256 * 1024
