"""Watchlists, webhooks and their deliveries: rules, the clock, retries, the log, the state."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest

from fakes.filings import FilingsFake


class Receiver:
    def __init__(self) -> None:
        self.posts: list[tuple[dict[str, str], dict[str, Any]]] = []
        self.answers: list[int] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length", "0")))
                receiver.posts.append(({k.lower(): v for k, v in self.headers.items()}, json.loads(body)))
                self.send_response(receiver.answers.pop(0) if receiver.answers else 204)
                self.send_header("content-length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    found = Receiver()
    yield found
    found.server.shutdown()


def test_watchlist_rules(fake: FilingsFake, client: httpx.Client) -> None:
    assert client.post("/watchlist/companies/", json={"company_id": 4}).status_code == 201
    again = client.post("/watchlist/companies/", json={"company_id": 4})
    assert again.status_code == 400 and again.json()["message"] == "Company already in watchlist."
    assert client.post("/watchlist/companies/", json={"company_id": 999_999}).status_code == 400
    assert client.post("/watchlist/companies/", json={"company_id": "4"}).status_code == 400
    bulk = client.post("/watchlist/companies/bulk-add/", json={"company_ids": [4, 5, 6]}).json()
    assert bulk["company_ids"] == [5, 6] and bulk["message"] == "2 companies added to watchlist."
    assert client.post("/watchlist/companies/bulk-add/", json={"company_ids": [1] * 101}).status_code == 400
    assert client.post("/watchlist/companies/bulk-add/", json={"company_ids": [7, 999_999]}).status_code == 400
    assert client.delete("/watchlist/companies/5/").status_code == 200
    gone = client.delete("/watchlist/companies/5/")
    assert gone.status_code == 404 and gone.json()["status"] == "error"
    assert [c["id"] for c in client.get("/watchlist/").json()["results"]] == [4, 6]
    watched = client.get("/filings/", params={"on_watchlist": "true", "page_size": 100}).json()
    assert watched["count"] > 0 and {f["company"]["id"] for f in watched["results"]} <= {4, 6}
    others = client.get("/filings/", params={"on_watchlist": "false", "page_size": 100}).json()
    assert not {f["company"]["id"] for f in others["results"]} & {4, 6}
    total = client.get("/filings/").json()["count"]
    assert watched["count"] + others["count"] == total
    companies = client.get("/companies/", params={"on_watchlist": "1"}).json()
    assert [c["id"] for c in companies["results"]] == [4, 6]
    key = client.headers["X-API-Key"]
    fake.lock_watchlist(key)
    assert client.post("/watchlist/companies/", json={"company_id": 9}).status_code == 403
    assert client.get("/watchlist/").json()["is_locked"] is True


def test_watchlist_needs_standard_access(fake: FilingsFake) -> None:
    with fake.client(headers={"X-API-Key": fake.create_key("free")}) as free:
        assert free.get("/watchlist/").status_code == 403
        assert free.get("/webhooks/").status_code == 403


def test_webhook_crud_and_validation(fake: FilingsFake, client: httpx.Client) -> None:
    made = client.post("/webhooks/", json={"url": "https://hooks.example.com/in", "subscribed_filing_types": [
        "10-K", "Annual Report"], "include_isins": "true", "id": 99, "secret_key": "mine"})
    assert made.status_code == 201
    hook = made.json()
    assert hook["secret_key"].startswith("whk_sec_") and hook["id"] == 1 and hook["include_isins"] is True
    assert "secret_key" not in client.get("/webhooks/1/").json()
    for bad in ({"url": "http://hooks.example.com/in"}, {"url": "ftp://x/"}, {}, {"url": "https://x/a",
                "is_active": "maybe"}, {"url": "https://x/a", "subscribed_filing_types": ["10-Q"]}):
        assert client.post("/webhooks/", json=bad).status_code == 400, bad
    patched = client.patch("/webhooks/1/", json={"is_active": False}).json()
    assert patched["is_active"] is False and patched["url"] == "https://hooks.example.com/in"
    assert client.put("/webhooks/1/", json={"is_active": True}).status_code == 400  # PUT needs url
    other = {"X-API-Key": fake.create_key("standard")}
    assert client.get("/webhooks/1/", headers=other).status_code == 404  # another key's webhook
    old = client.post("/webhooks/1/regenerate-secret/").json()["secret_key"]
    assert old != hook["secret_key"]
    assert client.delete("/webhooks/1/").status_code == 204 and client.get("/webhooks/1/").status_code == 404


def test_a_webhook_outside_loopback_is_kept_but_not_sent(client: httpx.Client) -> None:
    hook = client.post("/webhooks/", json={"url": "https://hooks.example.com/in"}).json()
    tested = client.post(f"/webhooks/{hook['id']}/test/")
    assert tested.status_code == 400 and "not sent" in tested.json()["message"]
    delivery = client.get(f"/webhooks/{hook['id']}/deliveries/").json()["results"][0]
    assert delivery["status"] == "failed" and delivery["event_type"] == "filing.processed.test"
    detail = client.get(f"/webhooks/{hook['id']}/deliveries/{delivery['uuid']}/").json()
    assert detail["request_headers"]["X-Filing-Event"] == "filing.processed.test"
    assert detail["request_payload"]["event_type"] == "filing.processed.test"


def test_refusing_other_hosts_is_a_setting() -> None:
    fake = FilingsFake(seed=0, scale="small", webhook_other_hosts="refuse")
    with fake.client(headers=fake.auth_headers()) as http:
        assert http.post("/webhooks/", json={"url": "https://hooks.example.com/in"}).status_code == 400
        assert http.post("/webhooks/", json={"url": "http://localhost:1/in"}).status_code == 201


def test_the_clock_releases_events_failures_are_retried(fake: FilingsFake, client: httpx.Client,
                                                        receiver: Receiver) -> None:
    client.post("/watchlist/companies/", json={"company_id": 12})
    hook = client.post("/webhooks/", json={"url": receiver.url, "trigger_on_filing_received": True,
                                           "subscribed_filing_types": ["PR"], "include_markdown": True}).json()
    receiver.answers += [503]
    filing = fake.add_filing(company=12, filing_type="PR", markdown="# Hello\n\nworld")
    assert fake.wait_for_webhooks(10)
    attempts = [d for d in fake.webhook_deliveries(hook["id"]) if d["filing_id"] == filing["id"]]
    assert [(d["event_type"], d["status"], d["retry_at_s"] is not None) for d in attempts] == [
        ("filing.received", "failed", True)]
    fake.advance(59)
    assert len(fake.webhook_deliveries(hook["id"])) == 1  # the retry is due after a minute
    fake.advance(1)
    assert fake.wait_for_webhooks(10)
    fake.advance(900)  # converted: filing.processed, with the Markdown
    assert fake.wait_for_webhooks(10)
    log = [(d["event_type"], d["attempt"], d["status"]) for d in fake.webhook_deliveries(hook["id"])]
    assert log == [("filing.received", 1, "failed"), ("filing.received", 2, "success"),
                   ("filing.processed", 1, "success")]
    events = [body for _headers, body in receiver.posts]
    assert events[-1]["filing"]["markdown_content"] == "# Hello\n\nworld"
    assert events[0]["filing"]["filing_type_code"] is None  # received: not classified yet
    other = fake.add_filing(company=13, filing_type="PR")  # not watched
    ignored = fake.add_filing(company=12, filing_type="DD")  # another type
    fake.advance(900)
    assert fake.wait_for_webhooks(10)
    assert {d["filing_id"] for d in fake.webhook_deliveries(hook["id"])} == {filing["id"]}
    assert other and ignored


def test_the_firehose_follows_the_live_feed(fake: FilingsFake, client: httpx.Client, receiver: Receiver) -> None:
    hook = client.post("/webhooks/", json={"url": receiver.url, "track_all_companies": True,
                                           "include_markdown": False}).json()
    before = client.get("/filings/").json()["count"]
    fake.advance(3 * 86_400)
    assert fake.wait_for_webhooks(10)
    after = client.get("/filings/").json()["count"]
    processed = [d for d in fake.webhook_deliveries(hook["id"]) if d["event_type"] == "filing.processed"]
    # every filing converted in the three days: those released in them but the last 15 minutes', and
    # those released in the 15 minutes before the webhook
    ids = [d["filing_id"] for d in processed]
    assert ids == sorted(ids) and len(ids) == len(set(ids))
    assert before - 10 < ids[0] <= before + 1 and after - 20 < ids[-1] <= after
    assert len(receiver.posts) == len(processed)
    newest = client.get(f"/webhooks/{hook['id']}/deliveries/", params={"page_size": 1}).json()
    assert newest["count"] == len(processed)


def test_a_clock_jump_past_the_backlog_drops_and_counts() -> None:
    fake = FilingsFake(seed=0, scale="small", webhook_backlog=5)
    with fake.client(headers=fake.auth_headers()) as http:
        http.post("/webhooks/", json={"url": "http://127.0.0.1:9/x", "track_all_companies": True})
        fake.advance(30 * 86_400)
        outbox = http.get("/_fake/webhook-deliveries").json()
    assert len(outbox["deliveries"]) == 5 and outbox["dropped"] > 0


def test_webhooks_and_watchlists_survive_export_and_import(fake: FilingsFake, client: httpx.Client) -> None:
    client.post("/watchlist/companies/", json={"company_id": 3})
    hook = client.post("/webhooks/", json={"url": "http://127.0.0.1:9/x"}).json()
    client.post(f"/webhooks/{hook['id']}/test/")
    filing = fake.add_filing(company=3, title="v1")
    fake.rerelease_filing(filing["id"], title="v2")
    fake.merge_companies(20, 21)
    state = fake.export_state()
    twin = FilingsFake(seed=0, scale="small")
    assert twin.client().put("/_fake/state", json=state).status_code == 200
    assert twin.export_state() == state
    with twin.client(headers=dict(client.headers)) as again:
        for path in ("/watchlist/", f"/webhooks/{hook['id']}/deliveries/", f"/filings/{filing['id']}/history/",
                     "/companies/merges/", "/companies/20/"):
            assert again.get(path).json() == client.get(path).json(), path


def test_history_and_rereleases(fake: FilingsFake, client: httpx.Client) -> None:
    rows = client.get("/filings/1/history/").json()["results"]
    assert [r["history_type"] for r in rows] == ["~", "+"]
    assert rows[0]["changes"]["processing_status"]["to"] in ("COMPLETED", "FAILED")
    filing = fake.add_filing(company=5, filing_type="PR", title="first")
    assert client.get(f"/filings/{filing['id']}/history/").json()["count"] == 1  # not converted yet
    fake.advance(1000)
    fake.rerelease_filing(filing["id"], filing_type="ADHOC", title="second")
    history = client.get(f"/filings/{filing['id']}/history/").json()["results"]
    assert history[0]["changes"] == {"title": {"from": "first", "to": "second"},
                                     "filing_type": {"from": "PR", "to": "ADHOC"}}
    detail = client.get(f"/filings/{filing['id']}/").json()
    assert detail["title"] == "second" and detail["updated_date"] > detail["added_to_platform"]
    assert client.get("/filings/", params={"type": "ADHOC", "search": "second"}).json()["count"] == 1
    with fake.client() as control:
        assert control.post("/_fake/filings/1/rerelease", json={"title": "x"}).status_code == 404  # generated
        assert control.post(f"/_fake/filings/{filing['id']}/rerelease", json={}).status_code == 400


def test_merges_retire_the_shell(fake: FilingsFake, client: httpx.Client) -> None:
    total = client.get("/companies/").json()["count"]
    merge = fake.merge_companies(31, 30, pattern="suffix_variant")
    assert client.get("/companies/").json()["count"] == total - 1
    shell = client.get("/companies/31/").json()
    assert shell["is_merged"] is True and shell["merged_into"]["id"] == 30
    listed = client.get("/companies/merges/").json()["results"]
    assert [(m["shell_id"], m["canonical_id"], m["reversed_at"]) for m in listed] == [(31, 30, None)]
    fake.advance(60)
    fake.reverse_merge(merge["id"])
    again = client.get("/companies/merges/", params={"updated_at_from": "2026-01-05T09:00:30Z"}).json()["results"]
    assert again[0]["reversed_at"] and again[0]["merged_at"] == listed[0]["merged_at"]
    assert client.get("/companies/").json()["count"] == total


def test_resolve_answers(client: httpx.Client) -> None:
    company = client.get("/companies/9/").json()
    other = client.get("/companies/10/").json()
    rows = [{"ref": "isin", "isin": company["isins"][0]},
            {"ref": "conflict", "isin": company["isins"][0], "lei": other["lei"]},
            {"ref": "venue", "ticker": f"{company['ticker']}.{company['country_code']}"},
            {"ref": "disagree", "ticker": f"{company['ticker']}.{company['country_code']}", "name": "Something Else"},
            {"ref": "name", "name": company["name"].split()[0]}, {"ref": "cik", "cik": "320193"}, {"ref": "none"}]
    results = {r["ref"]: r for r in client.post("/companies/resolve/", json={"rows": rows}).json()["results"]}
    assert (results["isin"]["status"], results["isin"]["resolved_via"]) == ("matched", "isin")
    assert results["conflict"]["warnings"] == ["identifier_conflict"]
    assert {c["id"] for c in results["conflict"]["candidates"]} == {9, 10}
    assert results["venue"]["resolved_via"] in ("security_listing", None)
    assert "name_disagrees" in results["disagree"]["warnings"] or "multiple_tickers" in results["disagree"]["warnings"]
    assert results["name"]["status"] == "ambiguous" and 9 in [c["id"] for c in results["name"]["candidates"]]
    assert results["cik"]["status"] == "not_covered" and results["none"]["warnings"] == ["no_identifiers"]
    duplicate = client.post("/companies/resolve/", json={"rows": [{"ref": "a"}, {"ref": "a"}]})
    assert duplicate.status_code == 400
    assert client.post("/companies/resolve/", json={"rows": []}).status_code == 400
