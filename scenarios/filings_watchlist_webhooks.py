"""Filings, watchlist and webhooks instead of polling: watch a company, subscribe a webhook, and
receive its new filings signed, retried after a failure, with the secret rotated on the way.

The receiver is an HTTP server this scenario starts on 127.0.0.1, so the fake must run on this
machine (in process, or `fakes serve` here). Each delivery is checked: the HMAC-SHA256 of
``"<X-Filing-Timestamp>.<body>"`` keyed with the webhook's secret is ``X-Filing-Signature-256``.
Against the real service (credential ``api_key``) it only manages the watchlist and the webhook:
receiving deliveries needs a public URL.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from .runner import Run, Scenario

PROCESSING_S = 900  # the fake's default processing_delay_s: a filing's Markdown is ready this long after it arrives
FIRST_RETRY_S = 60


class Receiver:
    """A loopback webhook receiver: keeps each POST; answers the queued statuses, then 200."""

    def __init__(self) -> None:
        self.posts: list[tuple[dict[str, str], bytes]] = []
        self.answers: list[int] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length", "0")))
                receiver.posts.append(({k.lower(): v for k, v in self.headers.items()}, body))
                self.send_response(receiver.answers.pop(0) if receiver.answers else 200)
                self.send_header("content-length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/filings-hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def events(self) -> list[dict[str, Any]]:
        return [json.loads(body) for _headers, body in self.posts]


def signed_by(secret: str, headers: dict[str, str], body: bytes) -> bool:
    message = headers.get("x-filing-timestamp", "").encode() + b"." + body
    expected = "sha256=" + hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()
    return hmac.compare_digest(headers.get("x-filing-signature-256", ""), expected)


def settle(condition: Callable[[], bool], seconds: float = 10.0) -> bool:
    """Wait in wall time for the fake's sender thread (it posts beside the requests)."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def flow(run: Run) -> None:
    key = run.credential("api_key", create=lambda: run.control("POST", "/_fake/keys", json={"tier": "standard"})[
        "api_key"])
    auth = {"X-API-Key": key}

    with run.step("watch the company of the newest filing"):
        newest = run.request("GET", "/filings/", params={"page_size": 1}, headers=auth).json()["results"][0]
        company = newest["company"]["id"]
        added = run.request("POST", "/watchlist/companies/", json={"company_id": company}, headers=auth)
        run.check(added.status_code in (201, 400), "added (or already there)", added.text)
        listed = run.request("GET", "/watchlist/", headers=auth).json()
        run.check(company in [c["id"] for c in listed["results"]], "it is on the watchlist", listed)

    receiver = Receiver() if run.is_fake else None
    url = receiver.url if receiver else run.credentials.get("webhook_url", "https://example.com/filings-hook")
    with run.step("subscribe a webhook to new and processed filings"):
        created = run.request("POST", "/webhooks/", headers=auth, json={
            "url": url, "trigger_on_filing_received": True, "trigger_on_filing_processed": True,
            "include_markdown": False})
        run.check(created.status_code == 201, "201", created.text)
        hook = created.json()
        secret = hook["secret_key"]
        run.check(secret.startswith("whk_sec_"), "the signing secret comes back once", hook)
        shown = run.request("GET", f"/webhooks/{hook['id']}/", headers=auth).json()
        run.check("secret_key" not in shown, "and is not shown again", shown)

    if receiver is None:
        with run.step("clean up"):
            run.check(run.request("DELETE", f"/webhooks/{hook['id']}/", headers=auth).status_code == 204, "204")
            run.request("DELETE", f"/watchlist/companies/{company}/", headers=auth)
        return

    with run.step("a test event arrives signed"):
        tested = run.request("POST", f"/webhooks/{hook['id']}/test/", json={}, headers=auth)
        run.check(tested.status_code == 200 and tested.json()["status"] == "success", "the endpoint said 2xx",
                  tested.text)
        headers, body = receiver.posts[-1]
        run.check(signed_by(secret, headers, body), "a valid signature", headers)
        run.check(json.loads(body)["event_type"] == "filing.processed.test", "a filing.processed.test event", body)

    with run.step("a new filing of the watched company: received, refused once, retried, then processed"):
        receiver.answers.append(500)  # the receiver fails the first attempt
        filing = run.control("POST", "/_fake/filings", json={"company": company, "filing_type": "ER"})

        def attempts() -> list[dict[str, Any]]:
            log = run.request("GET", f"/webhooks/{hook['id']}/deliveries/", headers=auth).json()["results"]
            return [d for d in log if d["filing_id"] == filing["id"]]
        run.check(settle(lambda: any(d["status"] == "failed" for d in attempts())), "the first attempt failed",
                  attempts())
        run.wait(FIRST_RETRY_S)  # the retry is due a minute later, on the fake's clock
        run.check(settle(lambda: [d["status"] for d in attempts()] == ["success", "failed"]),
                  "the retry succeeded (newest first)", attempts())
        run.wait(PROCESSING_S)  # the filing's conversion completes: filing.processed
        run.check(settle(lambda: any(e["event_type"] == "filing.processed" and e["filing_id"] == str(filing["id"])
                                     for e in receiver.events())), "filing.processed arrived", receiver.events())
        ours = [(h, b) for h, b in receiver.posts if json.loads(b).get("filing_id") == str(filing["id"])]
        run.check(all(signed_by(secret, h, b) for h, b in ours), "every delivery is signed", len(ours))
        run.check(all(json.loads(b)["company"]["id"] == str(company) for _h, b in ours), "about the watched company")

    with run.step("rotate the secret: a replay is signed with the new one"):
        rotated = run.request("POST", f"/webhooks/{hook['id']}/regenerate-secret/", json={}, headers=auth).json()
        fresh = rotated["secret_key"]
        run.check(fresh != secret, "a new secret", rotated)
        last = run.request("GET", f"/webhooks/{hook['id']}/deliveries/", headers=auth).json()["results"][0]
        before = len(receiver.posts)
        replay = run.request("POST", f"/webhooks/{hook['id']}/deliveries/{last['uuid']}/replay/", json={},
                             headers=auth)
        run.check(replay.status_code == 202, "202 queued", replay.text)
        run.check(settle(lambda: len(receiver.posts) > before), "the replay arrived", before)
        headers, body = receiver.posts[-1]
        run.check(signed_by(fresh, headers, body) and not signed_by(secret, headers, body),
                  "signed with the new secret, not the old one", headers)

    with run.step("unwatched, the company's filings are not delivered"):
        run.request("POST", "/watchlist/companies/bulk-remove/", json={"company_ids": [company]}, headers=auth)
        before = len(receiver.posts)
        later = run.control("POST", "/_fake/filings", json={"company": company, "filing_type": "PR"})
        run.wait(PROCESSING_S)
        time.sleep(0.3)  # what the sender would have posted by now
        run.check(all(json.loads(b).get("filing_id") != str(later["id"]) for _h, b in receiver.posts[before:]),
                  "nothing about the unwatched company's filing", receiver.events()[before:])

    with run.step("clean up"):
        run.check(run.request("DELETE", f"/webhooks/{hook['id']}/", headers=auth).status_code == 204, "204")
        receiver.server.shutdown()


SCENARIO = Scenario(name="filings-watchlist-webhooks", service="filings",
                    summary="watch a company, receive its new filings by signed webhook, retried and re-signed",
                    flow=flow)
