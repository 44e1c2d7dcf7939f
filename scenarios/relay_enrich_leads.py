"""Relay: an agent enriches leads within its prepaid balance.

For each lead the agent reads the price from the catalogue, checks its balance, and calls the
work-email finder with an Idempotency-Key (so a retry is never paid twice). A lookup that finds
nothing is free; every charge is reported in the cost header and the balance drops by exactly
the reported costs. The agent stops before the balance runs out; one call beyond it is the 402
with ``balance_micro``, ``estimated_cost_micro`` and ``topup_url``, nothing billed.
Against the real relay pass ``token`` (and ``header_prefix=X-Treg``); it spends real money.
"""

from __future__ import annotations

from .runner import Run, Scenario

FINDER = "mailscout.people.email.find"
LEADS = [("Ada", "Lovelace", "northwind.com"), ("Grace", "Hopper", "gone.invalid"),
         ("Alan", "Turing", "northwind.com"), ("Edsger", "Dijkstra", "closed.invalid"),
         ("Barbara", "Liskov", "northwind.com"), ("Ken", "Thompson", "northwind.com"),
         ("Frances", "Allen", "northwind.com"), ("Linus", "Torvalds", "northwind.com")]
BUDGET_MICRO = 30_000  # on the fake: enough for three finds at $0.0089


def flow(run: Run) -> None:
    prefix = run.credentials.get("header_prefix", "X-Proxy")
    token = run.credential("token", create=lambda: run.control(
        "POST", "/_fake/teams", json={"balance_micro": BUDGET_MICRO})["token"])
    headers = {f"{prefix}-Token": token}

    with run.step("read the price and the balance"):
        entry = run.request("GET", f"/catalog/endpoints/{FINDER}")
        run.check(entry.status_code == 200, "the finder is catalogued", entry.text[:200])
        cost = entry.json()["endpoint"]["cost"]
        run.check(cost["type"] == "per_success", "a miss is free (per_success)", cost)
        price = int(cost["value"])
        if run.is_fake:
            run.check(price == 8_900, "the seed's price: $0.0089 per find", price)
        start = run.request("GET", "/balance", headers=headers)
        run.check(start.status_code == 200, "the token reads its balance", start.text[:200])
        balance = int(start.json()["balance_micro"])

    with run.step("enrich leads while the balance covers the price"):
        reported, found, missed = 0, 0, 0
        for number, (first, last, domain) in enumerate(LEADS):
            if balance - reported < price:
                break
            answer = run.request("GET", f"/call/{FINDER}", headers={**headers, "Idempotency-Key": f"lead-{number}"},
                                 params={"first_name": first, "last_name": last, "domain": domain})
            run.check(answer.status_code in (200, 404), "the upstream answered", answer.text[:200])
            charged = int(answer.headers.get(f"{prefix}-Cost-Micro", "-1"))
            run.check(charged in (0, price), "each call reports its cost: the price or 0", charged)
            if answer.status_code == 200:
                found += 1
            else:
                missed += 1
                run.check(charged == 0, "a lookup that finds nothing is free", charged)
            reported += charged
        run.check(found >= 1, "some leads were found", (found, missed))
        after = int(run.request("GET", "/balance", headers=headers).json()["balance_micro"])
        run.check(after == balance - reported, "the balance dropped by exactly the reported costs",
                  (balance, reported, after))
        run.check(after >= 0 and after < price, "the agent stopped before the balance ran out", after)

    with run.step("one call beyond the balance is a 402, not billed"):
        if not run.is_fake:
            return  # against the real relay the agent stops here
        refused = run.request("GET", f"/call/{FINDER}", headers=headers,
                              params={"first_name": "Ada", "last_name": "Lovelace", "domain": "northwind.com"})
        run.check(refused.status_code == 402, "402 insufficient balance", refused.text[:300])
        body = refused.json()
        run.check(body.get("error") == "insufficient_balance", "error names the cause", body)
        run.check(body.get("balance_micro") == after and body.get("estimated_cost_micro") == price,
                  "the body carries balance_micro and estimated_cost_micro", body)
        run.check(isinstance(body.get("topup_url"), str), "and where to top up", body)
        final = int(run.request("GET", "/balance", headers=headers).json()["balance_micro"])
        run.check(final == after, "nothing was billed", final)


SCENARIO = Scenario(name="relay-enrich-leads", service="relay",
                    summary="an agent enriches leads within its balance: misses free, stops before 402", flow=flow)
