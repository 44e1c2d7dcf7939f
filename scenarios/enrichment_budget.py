"""Enrichment, a company list within a credit budget: pay only for what you can afford, never twice.

The documented client: reads its balance first (free), enriches each company of its list with
company details (3 credits) while the balance covers the next call, reads the cost header of
every answer, keeps to the rate limit (X-RateLimit-Remaining / X-RateLimit-Reset), treats 404 as
"no such company" (free), and repeats a lookup inside the cache window for 0. It then checks that
the cost headers add up to exactly what the balance lost. Against the real service: credentials
``api_key``, ``cost_header=X-NinjaPear-Credit-Cost``, ``path_prefix=/api``.
"""

from __future__ import annotations

from decimal import Decimal

import httpx

from .runner import Run, Scenario

COMPANIES = ["stripe.com", "https://www.acme.com/", "gone.invalid", "co7.com", "co12.io", "shopify.com",
             "notion.so", "figma.com", "linear.app", "vercel.com", "github.com", "gitlab.com"]
DETAILS_COST = Decimal(3)


def flow(run: Run) -> None:
    prefix = run.credentials.get("path_prefix", "")
    cost_header = run.credentials.get("cost_header", "X-Service-Credit-Cost")
    key = run.credential("api_key", create=lambda: str(run.control(
        "POST", "/_fake/accounts", json={"plan": "payg", "credits": 20})["api_key"]))
    auth = {"Authorization": f"Bearer {key}"}

    def polite_get(path: str, params: dict[str, str]) -> httpx.Response:
        answer = run.request("GET", prefix + path, params=params, headers=auth)
        if answer.status_code == 429:  # only when someone else shares the account: wait as told
            run.wait(float(answer.headers["Retry-After"]))
            answer = run.request("GET", prefix + path, params=params, headers=auth)
        if answer.headers.get("X-RateLimit-Remaining") == "0":
            run.wait(max(1.0, int(answer.headers["X-RateLimit-Reset"]) - run.now_ms() / 1000))
        return answer

    def balance() -> Decimal:
        answer = polite_get("/v1/credits", {})
        run.check(answer.status_code == 200, "the balance answers 200", answer.text)
        run.check(answer.headers.get(cost_header) == "0", "reading the balance is free", dict(answer.headers))
        exact = answer.json().get("credit_balance_exact", answer.json()["credit_balance"])
        return Decimal(str(exact))

    with run.step("read the budget"):
        start = balance()
        run.check(start > 0, "the account has credits", start)

    spent = Decimal(0)
    enriched: list[str] = []
    with run.step("enrich while the balance covers the next lookup"):
        left = start
        for company in COMPANIES:
            if left < DETAILS_COST:
                break
            answer = polite_get("/v1/company/details", {"website": company})
            cost = Decimal(answer.headers[cost_header])
            spent += cost
            left -= cost
            if answer.status_code == 404:
                run.check(cost == 0, f"{company}: no such company, not charged", answer.text)
                continue
            run.check(answer.status_code == 200, f"{company}: details answer 200", answer.text[:300])
            run.check(cost == DETAILS_COST, f"{company}: 3 credits", cost)
            run.check(bool(answer.json().get("name")), f"{company}: has a name", answer.text[:200])
            enriched.append(company)
        run.check(len(enriched) >= 2, "at least two companies enriched", enriched)

    with run.step("a repeat inside the cache window is free"):
        again = polite_get("/v1/company/details", {"website": enriched[0]})
        run.check(again.status_code == 200 and Decimal(again.headers[cost_header]) == 0,
                  "the same lookup costs 0", dict(again.headers))

    with run.step("the cost headers add up to the balance decrease"):
        end = balance()
        run.check(start - end == spent, "balance decrease == sum of cost headers", (start, end, spent))
        run.check(0 <= end < DETAILS_COST or len(enriched) == len(COMPANIES),
                  "the budget was used up to less than one more lookup", end)

    with run.step("over budget: refused, not charged"):
        if run.is_fake and end < DETAILS_COST:
            refused = polite_get("/v1/company/details", {"website": "zapier.com"})
            run.check(refused.status_code == 403 and refused.headers[cost_header] == "0",
                      "403 out of credits, cost 0", refused.text)
            run.check(balance() == end, "nothing was charged", end)
            verdicts = run.request("GET", "/_fake/verdicts")
            if verdicts.status_code == 200:
                run.check(not verdicts.json()["verdicts"], "no client rule broken", verdicts.text)

SCENARIO = Scenario(name="enrichment-budget", service="enrichment",
                    summary="enrich a company list within a credit budget; cost headers add up to the balance",
                    flow=flow)
