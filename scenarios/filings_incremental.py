"""Filings incremental sync: poll new filings newest first, stop at the last seen id, fetch Markdown.

The documented flow of a client that mirrors the filings of the catalogue: remember the newest
filing seen, later list ``ordering=-release_datetime`` page by page until that filing shows up
again, and fetch each new filing's Markdown (Level 2), waiting when it is not converted yet.
Against the fake new filings come from the live feed (the clock moves an hour) and from one
published through the control plane; against the real service the scenario waits in real time.
Credentials: ``api_key`` (a Level 2 key: Markdown needs it).
"""

from __future__ import annotations

from typing import Any

from .runner import Run, Scenario

PAGE_SIZE = 50
MAX_PAGES = 2_000  # a safety stop; the bound that counts follows from the growth of `count`
POLL_INTERVAL_S = 3_600  # a full-scale catalogue releases ~100 filings an hour
MARKDOWN_SAMPLES = 3


def _headers(run: Run) -> dict[str, str]:
    key = run.credential("api_key", create=lambda: run.control(
        "POST", "/_fake/keys", json={"tier": "level2"})["api_key"])
    return {"X-API-Key": key}


def _newest_first(run: Run, headers: dict[str, str], page: int) -> dict[str, Any]:
    response = run.request("GET", "/filings/", headers=headers,
                           params={"ordering": "-release_datetime", "page_size": PAGE_SIZE, "page": page})
    run.check(response.status_code == 200, f"page {page} of the newest filings answers 200", response.text)
    body: dict[str, Any] = response.json()
    run.check({"count", "next", "previous", "results"} <= set(body), "the page has the pagination envelope", body)
    return body


def flow(run: Run) -> None:
    headers = _headers(run)
    with run.step("initial sync: remember the newest filing"):
        first = _newest_first(run, headers, 1)
        run.check(bool(first["results"]), "the catalogue has filings")
        times = [f["release_datetime"] for f in first["results"]]
        run.check(times == sorted(times, reverse=True), "ordering=-release_datetime is newest first", times[:5])
        last_seen = first["results"][0]

    published: dict[str, Any] | None = None
    with run.step("time passes and new filings are published"):
        run.wait(POLL_INTERVAL_S)
        if run.is_fake:
            published = run.control("POST", "/_fake/filings", json={
                "company": last_seen["company"]["id"], "filing_type": "Press Release",
                "title": f"{last_seen['company']['name']}: Press Release: scenario check"})

    new: list[dict[str, Any]] = []
    with run.step("poll newest first until the last seen filing"):
        reached = False
        grown = _newest_first(run, headers, 1)["count"] - first["count"]
        # Filings released meanwhile all sort before the last seen one, so it is at most that many
        # (plus one page for releases in the same second) further down.
        pages_needed = min(MAX_PAGES, max(0, grown) // PAGE_SIZE + 2)
        for page in range(1, pages_needed + 1):
            body = _newest_first(run, headers, page)
            for filing in body["results"]:
                if filing["id"] == last_seen["id"]:
                    reached = True
                    break
                new.append(filing)
            if reached or not body["next"]:
                break
        run.check(reached, f"the last seen filing {last_seen['id']} is found again within {pages_needed} pages "
                           f"({grown} filings more than before)")
        ids = [f["id"] for f in new]
        run.check(len(ids) == len(set(ids)), "no filing is listed twice while paging", ids)
        run.check(all(f["release_datetime"] >= last_seen["release_datetime"] for f in new),
                  "every new filing is released at or after the last seen one")
        if published is not None:
            run.check(published["id"] in ids, "the filing published meanwhile is among the new ones", ids[:10])
        run.check(bool(new) or not run.is_fake, "new filings arrived", len(new))

    with run.step("fetch the Markdown of new filings"):
        samples = {f["id"]: f for f in ([published] if published else []) + new[:MARKDOWN_SAMPLES]}
        for filing in samples.values():
            path = f"/filings/{filing['id']}/markdown/"
            response = run.request("GET", path, headers=headers)
            if response.status_code == 404 and response.json().get("retryable"):
                wait_s = int(response.headers.get("Retry-After", "60"))
                run.check(wait_s > 0, "a pending conversion says when to retry", response.headers)
                run.wait(wait_s)
                response = run.request("GET", path, headers=headers)
            if response.status_code == 404 and response.json().get("processing_status") in ("FAILED", "SKIPPED"):
                continue  # no Markdown will come: a client moves on
            run.check(response.status_code == 200, f"Markdown of filing {filing['id']} is served", response.text[:200])
            run.check(response.headers.get("content-type", "").startswith("text/markdown"),
                      "it is text/markdown", response.headers.get("content-type"))
            run.check(response.text.lstrip().startswith("#"), "it starts with a heading", response.text[:80])


SCENARIO = Scenario(name="filings-incremental-sync", service="filings",
                    summary="poll new filings newest first, stop at the last seen id, fetch Markdown", flow=flow)
