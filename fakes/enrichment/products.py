"""Generated product listings: a company's products, pricing tiers and integrations, from (seed, domain)."""

from __future__ import annotations

from typing import Any

from .data import pools, rng
from .world import PRICING_MODELS


def products(seed: int, locale: str, domain: str, record: dict[str, Any]) -> list[dict[str, Any]]:
    if "products" in record:
        return list(record["products"])
    r = rng(seed, "products", domain)
    p = pools(locale)
    out = []
    for index in range(int(record["_product_count"])):
        word = r.choice(p.company_word)
        model = r.choice(PRICING_MODELS)
        start = r.choice((0, 9, 19, 49, 99, 299))
        pricing = None if model == "unknown" else {
            "model": model, "starts_at_monthly_usd": start,
            "tiers": [{"name": tier, "price_usd_monthly": start * mult, "features": [r.choice(p.bs)]}
                      for tier, mult in (("Starter", 1), ("Pro", 3), ("Enterprise", 10))[:r.randint(1, 3)]]}
        out.append({"name": f"{record['name'].split(' ')[0]} {word}", "tagline": r.choice(p.catch_phrase),
                    "description": r.choice(p.sentence), "categories": [r.choice(p.word) for _ in range(2)],
                    "tags": sorted({r.choice(p.word) for _ in range(3)}),
                    "structured_features": {"api": r.random() < 0.6, "sso": r.random() < 0.4},
                    "freeform_features": [r.choice(p.bs) for _ in range(2)], "pricing": pricing,
                    "integrations": [r.choice(("Slack", "Salesforce", "HubSpot", "Zapier", "Stripe"))
                                     for _ in range(r.randint(0, 3))],
                    "platforms": ["web"] + (["ios", "android"] if r.random() < 0.3 else []),
                    "source_urls": [f"https://www.{domain}/products/{index + 1}"]})
    return out
