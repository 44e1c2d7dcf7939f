"""Enrichment, monitoring competitors through a feed: competitors -> feed -> a week later, RSS items.

The documented client: lists a company's competitors (each with a competition_reason), creates a
monitoring feed over the first three (3 credits), lets a polling period pass, reads the feed's RSS
document with its token, and deletes the feed. Against the fake the week passes on the virtual
clock and the items are checked (categories, at least one per poll); against the real service
(credentials ``api_key``, ``cost_header``, ``path_prefix=/api``) the week is not waited for.
"""

from __future__ import annotations

from xml.etree import ElementTree

from .runner import Run, Scenario

WEEK = 7 * 86_400
CATEGORIES = {"blog", "x", "website update", "website new page", "website unreachable", "youtube"}


def flow(run: Run) -> None:
    prefix = run.credentials.get("path_prefix", "")
    cost_header = run.credentials.get("cost_header", "X-Service-Credit-Cost")
    key = run.credential("api_key", create=lambda: str(run.control(
        "POST", "/_fake/accounts", json={"plan": "sub_49"})["api_key"]))
    auth = {"Authorization": f"Bearer {key}"}
    company = run.credentials.get("company", "stripe.com")

    with run.step("list the competitors"):
        answer = run.request("GET", f"{prefix}/v1/competitor/listing", params={"website": company}, headers=auth)
        run.check(answer.status_code == 200, "competitor listing answers 200", answer.text[:300])
        competitors = answer.json()["competitors"]
        run.check(all(c["competition_reason"] in ("organic_keyword_overlap", "product_overlap") for c in competitors),
                  "each competitor has a reason", competitors)
        run.check(float(answer.headers[cost_header]) == max(5, 2 * len(competitors)),
                  "2 credits per competitor, at least 5", answer.headers[cost_header])
        watched = [c["website"] for c in competitors[:3]] or [f"https://www.{company}"]

    with run.step("create a feed over them"):
        created = run.request("POST", f"{prefix}/v1/monitor/feeds", headers=auth, json={
            "name": f"Competitors of {company}",
            "targets": [{"website_url": site, "settings": {"frequency_days": 7}} for site in watched]})
        run.check(created.status_code == 201, "the feed is created", created.text[:300])
        run.check(created.headers[cost_header] == "3", "creating a feed costs 3 credits", created.headers[cost_header])
        feed = created.json()
        run.check(len(feed["targets"]) == len(watched) and not feed["is_suspended"], "every target, running", feed)

    with run.step("a week later the RSS document lists new items"):
        if run.is_fake:
            run.wait(WEEK)
        rss = run.request("GET", feed["rss_url"].replace(str(run.http.base_url).rstrip("/"), ""))
        run.check(rss.status_code == 200, "the RSS document answers 200 with the token", rss.text[:300])
        items = ElementTree.fromstring(rss.text).findall("channel/item")
        if run.is_fake:
            run.check(len(items) >= len(watched), "at least one item per target and poll", len(items))
            run.check({i.findtext("category") for i in items} <= CATEGORIES, "known categories",
                      {i.findtext("category") for i in items})
            described = run.request("GET", f"{prefix}/v1/monitor/feeds/{feed['id']}", headers=auth).json()
            run.check(all(t["last_polled_at"] for t in described["targets"]), "every target was polled", described)

    with run.step("delete the feed"):
        deleted = run.request("DELETE", f"{prefix}/v1/monitor/feeds/{feed['id']}", headers=auth)
        run.check(deleted.status_code == 200 and deleted.json() == {"message": "Feed deleted."}, "deleted",
                  deleted.text)
        gone = run.request("GET", f"{prefix}/v1/monitor/feeds/{feed['id']}", headers=auth)
        run.check(gone.status_code == 404, "the feed is gone", gone.text)


SCENARIO = Scenario(name="enrichment-monitoring", service="enrichment",
                    summary="competitors into a monitoring feed; a week later the RSS has items",
                    flow=flow)
