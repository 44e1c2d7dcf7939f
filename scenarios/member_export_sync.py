"""Member data export, full sync: consent, wait for the builds, page every domain, poll the changelog.

The documented client: every call carries the version header (without it: 426); consent with
``POST /rest/memberAuthorizations {}``; page each domain with start = 0, 1, 2, ... until the
404 "No data found" (never trusting ``total``); poll the changelog with the inclusive
``startTime`` (the latest ``processedAt`` seen), at most hourly, draining full pages and
de-duplicating on ``id``. Against the fake it then checks that it received exactly the member's
records and every event; against the real service (credentials ``access_token`` and
``version_header=LinkedIn-Version``) it checks the same promises on whatever data the member has.
"""

from __future__ import annotations

from typing import Any

from fakes.member_export.domains import SERVED_DOMAINS

from .runner import Run, Scenario

SNAPSHOT = "/rest/memberSnapshotData"
CHANGELOG = "/rest/memberChangeLogs"
AUTHORIZATIONS = "/rest/memberAuthorizations"
HOUR = 3600
MAX_PAGES = 20_000  # a safety stop: a real inbox of 100,000 messages is 10,000 pages


def flow(run: Run) -> None:
    version_header = run.credentials.get("version_header", "Service-Version")
    version = run.credentials.get("version", "202312")
    created: dict[str, Any] = {}

    def make_member() -> str:
        created.update(run.control("POST", "/_fake/members", json={
            "name": "Ada Lovelace", "region": "IE", "sizes": {"INBOX": 42, "CONNECTIONS": 31}}))
        return str(created["access_token"])

    token = run.credential("access_token", create=make_member)
    auth = {"Authorization": f"Bearer {token}"}
    headers = {**auth, version_header: version}

    with run.step("every call needs the version header", expect_verdicts=["member-export/no-version-header"]):
        missing = run.request("GET", AUTHORIZATIONS, params={"q": "memberAndApplication"}, headers=auth)
        run.check(missing.status_code == 426, "no version header: 426", missing.text)
        run.check(missing.json().get("code") == "NONEXISTENT_VERSION", "code NONEXISTENT_VERSION", missing.text)

    with run.step("consent starts changelog archiving"):
        started = run.request("POST", AUTHORIZATIONS, json={}, headers=headers)
        run.check(200 <= started.status_code < 300, "POST {} to the authorization endpoint succeeds", started.text)
        record = run.request("GET", AUTHORIZATIONS, params={"q": "memberAndApplication"}, headers=headers)
        run.check(record.status_code == 200, "the authorization finder answers", record.text)
        elements = record.json().get("elements") or []
        run.check(len(elements) == 1 and isinstance(elements[0].get("regulatedAt"), int),
                  "archiving is on, with regulatedAt", record.text)
        regulated_at = int(elements[0]["regulatedAt"])

    expected_events: set[int] = set()
    if run.is_fake:
        with run.step("the member acts after consent (fake only)"):
            member_id = created["id"]
            for body in ({"action": "send_message", "text": "Shall we meet on Monday?"},
                         {"action": "receive_message", "text": "Monday works."},
                         {"action": "comment", "text": "Great talk!"}, {"action": "react"}):
                done = run.control("POST", f"/_fake/members/{member_id}/actions", json=body)
                expected_events.add(done["event"]["id"])
            run.check(len(expected_events) == 4, "four events announced", expected_events)

    with run.step("domains are built some time after consent"):
        if run.is_fake:
            early = run.request("GET", SNAPSHOT, params={"q": "criteria", "domain": "PROFILE", "start": 0},
                                headers=headers)
            run.check(early.status_code == 404, "right after consent PROFILE is not built: 404", early.text)
        run.wait_until(lambda: run.request("GET", SNAPSHOT, headers=headers, params={
            "q": "criteria", "domain": "PROFILE", "start": 0}).status_code == 200,
            timeout_s=2 * HOUR, poll_s=5 * 60, what="the PROFILE build")
        if run.is_fake:
            run.wait(26 * HOUR)  # comments, likes and posts take more than a day

    counts: dict[str, int] = {}
    with run.step("page every domain until 404 'No data found'"):
        for domain in SERVED_DOMAINS:
            counts[domain] = _page_domain(run, headers, domain)
        run.check(sum(counts.values()) > 0, "the member has data", counts)
        if run.is_fake:
            member = run.control("GET", f"/_fake/members/{created['id']}")
            run.check(counts == member["records"], "exactly the member's records, domain by domain",
                      {d: (counts[d], member["records"][d]) for d in counts if counts[d] != member["records"][d]})

    seen: dict[int, int] = {}
    with run.step("poll the changelog with the inclusive startTime, de-duplicating on id"):
        cursor = _poll(run, headers, regulated_at, seen)
        run.wait(2 * HOUR)  # the documented cadence is hourly; a reply shows within hours
        cursor = _poll(run, headers, cursor, seen)
        if seen:
            run.wait(HOUR)  # the next hourly poll, with the same cursor: nothing new happened
            again = run.request("GET", CHANGELOG, headers=headers, params={
                "q": "memberAndApplication", "startTime": cursor, "count": 10})
            ids = [e["id"] for e in again.json().get("elements", [])]
            run.check(max(seen, key=lambda i: seen[i]) in ids, "the latest event comes back (startTime is inclusive)",
                      ids)
        if run.is_fake:
            run.check(set(seen) == expected_events, "every announced event, each once", (sorted(seen),
                                                                                         sorted(expected_events)))
            # only this run's own requests count: a second run, or another client's mistakes on a
            # shared fake, must not fail it
            broken = run.new_verdicts()
            run.check(broken == {"member-export/no-version-header": 1},
                      "the only client rule this run broke is its deliberate request without the header", broken)
            # (a journal smaller than this run's requests may have dropped that one entry)
            warned = [entry["warnings"] for entry in run.own_journal() if entry["warnings"]]
            run.check(len(warned) <= 1, "no other request of this run has a warning in the journal", warned)


def _page_domain(run: Run, headers: dict[str, str], domain: str) -> int:
    records = 0
    for start in range(MAX_PAGES):
        page = run.request("GET", SNAPSHOT, params={"q": "criteria", "domain": domain, "start": start},
                           headers=headers)
        if page.status_code == 404:
            run.check("No data found" in page.text, f"{domain} ends with 'No data found' at start={start}", page.text)
            return records
        run.check(page.status_code == 200, f"{domain} page {start} answers 200", page.text[:300])
        elements = page.json()["elements"]
        run.check(len(elements) == 1 and elements[0]["snapshotDomain"] == domain and elements[0]["snapshotData"],
                  f"{domain} page {start} holds one non-empty element of the domain", str(elements)[:300])
        records += len(elements[0]["snapshotData"])
    run.check(False, f"{domain} ended within {MAX_PAGES} pages")
    return records


def _poll(run: Run, headers: dict[str, str], cursor: int, seen: dict[int, int]) -> int:
    """Drain the changelog from ``cursor``; returns the next cursor (latest processedAt)."""
    count = 50
    for _ in range(10_000):
        answer = run.request("GET", CHANGELOG, headers=headers, params={
            "q": "memberAndApplication", "startTime": cursor, "count": count})
        run.check(answer.status_code == 200, "the changelog answers 200", answer.text[:300])
        events = answer.json()["elements"]
        times = [e["processedAt"] for e in events]
        run.check(times == sorted(times), "events come oldest first", times)
        for event in events:
            if event["id"] in seen:
                run.check(event["processedAt"] == cursor, "only the cursor's own event comes back", event["id"])
            seen[event["id"]] = event["processedAt"]
        if events:
            cursor = times[-1]
        if len(events) < count:
            return cursor
    run.check(False, "the changelog drained")
    return cursor


SCENARIO = Scenario(name="member-export-sync", service="member-export",
                    summary="consent, builds, every domain paged to 404, changelog polled with an inclusive cursor",
                    flow=flow)
