"""Generated people and related companies are kept per world, and worked out again when a company
is added or changed: a kept profile never shows a company's old name."""

from __future__ import annotations

from fakes.enrichment import EnrichmentFake


def test_a_kept_profile_follows_a_company_changed_through_the_control_plane() -> None:
    fake = EnrichmentFake(seed=0)
    client = fake.client()
    headers = fake.auth_headers()
    query = {"employer_website": "stripe.com", "role": "CEO", "use_cache": "never"}
    first = client.get("/v2/employee/profile", params=query, headers=headers).json()
    again = client.get("/v2/employee/profile", params=query, headers=headers).json()
    assert first == again  # the same generated person, twice
    again["work_experience"][0]["company_name"] = "changed by the caller"  # a copy: the kept one is untouched
    fake.add_company("stripe.com", name="Stripe Renamed")
    renamed = client.get("/v2/employee/profile", params=query, headers=headers).json()
    assert renamed["work_experience"][0]["company_name"] == "Stripe Renamed"
    assert renamed["full_name"] == first["full_name"]
