"""One timed request per public operation (the benchmark's ``operations`` part, ``fakes/kernel/benchops.py``).

Paid lookups ask ``use_cache=never`` (``force_refresh`` for the work email): each call is a fresh,
charged answer, the heavier path, not a free cached repeat. The monitor operations act for an
account of their own (with ample credits, no rate limit), so the feeds they create do not slow the
other operations' account; what an operation consumes (a feed to delete, a target to remove, room
for one more target) is made by its untimed ``prepare``.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any, Protocol

import httpx

from fakes.kernel.benchops import BenchOperation

from .model import EnrichmentModel

SITE = "stripe.com"
FUNDED = ("shopify.com", "apple.com", "tesla.com", "acme-widgets.de")  # the first with rounds is taken
PERSON = f"employer_website={SITE}&role=CEO"
ADDED = "bench-added.com"


class BenchedFake(Protocol):
    model: EnrichmentModel

    def create_account(self, plan: str = ..., credits: Any = ..., *, rate_limited: bool = ...,
                       api_key: str | None = ...) -> dict[str, Any]: ...

    def client(self, **kwargs: Any) -> httpx.Client: ...


def bench_operations(fake: BenchedFake) -> list[BenchOperation]:
    funded = next((site for site in FUNDED if fake.model.world.funding_rounds(site)), FUNDED[0])
    lookups = [
        ("get_company_details", f"/v1/company/details?website={SITE}&use_cache=never"),
        ("get_employee_count", f"/v1/company/employee-count?website={SITE}&use_cache=never"),
        ("get_company_funding", f"/v1/company/funding?website={funded}&use_cache=never"),
        ("get_company_updates", f"/v1/company/updates?website={SITE}&use_cache=never"),
        ("get_company_website", "/v1/company/website?company_name=Stripe"),
        ("get_company_logo", f"/v1/company/logo?website={SITE}"),
        ("get_customer_listing", f"/v1/customer/listing?website={SITE}&use_cache=never"),
        ("get_competitor_listing", f"/v1/competitor/listing?website={SITE}&use_cache=never"),
        ("get_product_listing", f"/v1/product/listing?website={SITE}&use_cache=never"),
        ("get_person_profile", f"/v2/employee/profile?{PERSON}&use_cache=never"),
        ("get_work_email", f"/v1/employee/work-email?first_name=Ann&last_name=Lee&domain={SITE}&force_refresh=true"),
        ("get_similar_people", f"/v1/employee/similar?{PERSON}&use_cache=never"),
        ("search_employees", f"/v1/employee/search?company_website={SITE}&role=engineer&use_cache=never"),
        ("check_disposable_email", "/v1/employee/disposable-email-checker?email=someone%40mailinator.com"),
        ("get_credit_balance", "/v1/credits"),
    ]
    operations = [BenchOperation(name, "GET", path) for name, path in lookups]
    return operations + monitor_operations(fake)


#: what makes a lookup fresh and charged on every call (the operations part times that path)
FRESH_PARAMETERS = ("&use_cache=never", "&force_refresh=true")


def mix_operations(fake: BenchedFake) -> list[BenchOperation]:
    """The operations as a client that follows the service's rules asks them, for the realistic
    mix: its paid lookups with the default cache policy (paid once, then answered from the cache
    window), not forced fresh - a repeated fresh lookup is what the rule
    ``enrichment/paid-twice-in-cache-window`` flags."""
    plain = []
    for op in bench_operations(fake):
        path = op.path
        for parameter in FRESH_PARAMETERS:
            path = path.replace(parameter, "")
        plain.append(replace(op, path=path))
    return plain


def monitor_operations(fake: BenchedFake) -> list[BenchOperation]:
    key = fake.create_account("sub_1899", credits=10_000_000, rate_limited=False)["api_key"]
    auth = {"Authorization": f"Bearer {key}"}
    sites = (f"bench{n}.com" for n in itertools.count())

    def post(path: str, body: Any) -> Any:
        with fake.client(headers=auth) as client:
            answer = client.post(path, json=body)
            answer.raise_for_status()
            return answer.json()

    def new_feed() -> dict[str, Any]:
        feed: dict[str, Any] = post("/v1/monitor/feeds", {"name": "bench", "targets": [{"website_url": next(sites)}]})
        return feed

    kept = new_feed()
    kept_ids = {"feed_id": kept["id"], "target_id": kept["targets"][0]["id"],
                "token": kept["rss_url"].rsplit("token=", 1)[1]}
    spare = new_feed()

    def feed_without_the_target() -> Mapping[str, str]:
        targets = fake.model.feeds.feeds[spare["id"]].targets  # the target the last call added goes (untimed)
        for target_id in [t.id for t in targets.values() if t.domain == ADDED]:
            del targets[target_id]
        return {"feed_id": spare["id"]}

    def feed_to_delete() -> Mapping[str, str]:
        return {"feed_id": new_feed()["id"]}

    def target_to_remove() -> Mapping[str, str]:
        target = post(f"/v1/monitor/feeds/{kept['id']}/targets", {"website_url": next(sites)})
        return {"feed_id": kept["id"], "target_id": target["id"]}

    def fixed(values: Mapping[str, str]) -> Callable[[], Mapping[str, str]]:
        return lambda: values

    feed_path, target_path = "/v1/monitor/feeds/{feed_id}", "/v1/monitor/feeds/{feed_id}/targets/{target_id}"
    return [  # creating feeds last: the account's feeds are caught up on each of its calls
        BenchOperation("list_feeds", "GET", "/v1/monitor/feeds", headers=auth),
        BenchOperation("get_feed", "GET", feed_path, headers=auth, prepare=fixed(kept_ids)),
        BenchOperation("update_feed", "PATCH", feed_path, headers=auth, prepare=fixed(kept_ids),
                       json={"name": "renamed", "email_notifications": "on_updates"}),
        BenchOperation("delete_feed", "DELETE", feed_path, headers=auth, prepare=feed_to_delete),
        BenchOperation("add_target", "POST", "/v1/monitor/feeds/{feed_id}/targets", headers=auth, expect=(201,),
                       prepare=feed_without_the_target, json={"website_url": ADDED}),
        BenchOperation("update_target", "PATCH", target_path, headers=auth, prepare=fixed(kept_ids),
                       json={"settings": {"frequency_days": 3, "monitor_x": False}}),
        BenchOperation("delete_target", "DELETE", target_path, headers=auth, prepare=target_to_remove),
        BenchOperation("get_rss_feed", "GET", "/v1/monitor/feeds/{feed_id}/rss.xml?token={token}", auth=False,
                       prepare=fixed(kept_ids)),
        BenchOperation("create_feed", "POST", "/v1/monitor/feeds", headers=auth, expect=(201,),
                       json={"name": "bench", "targets": [{"website_url": SITE}]}),
    ]
