"""Seeded generated data: provider names, catalogue vocabulary, and the simulated upstreams' answers.

Everything is a pure function of (seed, inputs) through :func:`rng_for`, so the same request gets
the same answer in every run. Names come from small word lists rather than a Faker instance per
call: an answer is made on every simulated call (the hot path), and a seeded ``random.Random``
over a list costs a few microseconds where reseeding Faker costs a hundred.
"""

from __future__ import annotations

import hashlib
import random
from typing import Any

_SYLLABLES_A = ["quill", "north", "brisk", "lumen", "ember", "cobalt", "harbor", "vector", "pixel", "atlas",
                "nimbus", "orbit", "prism", "rapid", "sable", "tidal", "umbra", "vivid", "zephyr", "kite",
                "maple", "onyx", "pine", "quartz", "river", "signal", "terra", "velvet", "willow", "beacon",
                "cinder", "delta", "falcon", "granite", "helix", "iris", "juniper", "krypt", "lattice", "meadow"]
_SYLLABLES_B = ["base", "hub", "ly", "io", "stack", "works", "data", "grid", "labs", "flow", "scan", "wise",
                "loop", "point", "ify", "ware", "net", "sense", "forge", "path"]

AREAS: dict[str, list[str]] = {
    "crm": ["contacts", "deals", "accounts", "notes"],
    "search": ["web", "news", "images", "places"],
    "seo": ["backlinks", "keywords", "rankings", "audits"],
    "finance": ["quotes", "filings", "fx", "dividends"],
    "social": ["posts", "profiles", "followers", "mentions"],
    "geo": ["geocode", "timezones", "routes", "ip"],
    "commerce": ["products", "reviews", "prices", "orders"],
    "messaging": ["sms", "emails", "templates", "webhooks"],
    "ai": ["completions", "embeddings", "transcripts", "images"],
    "weather": ["forecast", "history", "alerts", "air"],
    "companies": ["profiles", "funding", "technologies", "news"],
    "people": ["profiles", "emails", "phones", "jobs"],
}
READ_ACTIONS = ["list", "get", "search", "lookup", "stats", "history"]
WRITE_ACTIONS = ["create", "update", "send"]
PARAM_POOL: list[tuple[str, str, Any]] = [
    ("domain", "string", "northwind.com"), ("email", "string", "ada.lovelace@northwind.com"),
    ("query", "string", "data platforms"), ("id", "string", "rec_1001"), ("country", "string", "DE"),
    ("date", "string", "2026-01-05"), ("symbol", "string", "NWND"), ("url", "string", "https://northwind.com/about"),
    ("limit", "integer", 10), ("page", "integer", 1),
]
FIRST_NAMES = ["Ada", "Grace", "Alan", "Linus", "Margaret", "Edsger", "Barbara", "Ken", "Frances", "Dennis",
               "Radia", "Tim", "Hedy", "Donald", "Katherine", "John", "Sophie", "Niklaus", "Lynn", "Guido"]
LAST_NAMES = ["Lovelace", "Hopper", "Turing", "Torvalds", "Hamilton", "Dijkstra", "Liskov", "Thompson", "Allen",
              "Ritchie", "Perlman", "Berners-Lee", "Lamarr", "Knuth", "Johnson", "Backus", "Wilson", "Wirth",
              "Conway", "Rossum"]
TITLES = ["Head of Growth", "VP Engineering", "Founder & CEO", "Data Scientist", "Sales Director", "CTO",
          "Product Manager", "Marketing Lead", "Staff Engineer", "Chief Revenue Officer"]
INDUSTRIES = ["Software", "Logistics", "Fintech", "Healthcare", "Retail", "Energy", "Media", "Manufacturing"]
CITIES = ["Berlin", "Lisbon", "Austin", "Toronto", "Amsterdam", "Dublin", "Singapore", "Paris", "Warsaw", "Oslo"]


def rng_for(seed: int, *parts: object) -> random.Random:
    """A Random fixed by the seed and the parts (stable across processes, unlike hash())."""
    digest = hashlib.blake2b(repr((seed, *parts)).encode(), digest_size=8).digest()
    return random.Random(int.from_bytes(digest, "big"))


def unit_draw(seed: int, *parts: object) -> float:
    """A number in [0, 1) fixed by the seed and the parts (cheaper than a Random)."""
    digest = hashlib.blake2b(repr((seed, *parts)).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") / 2**64


def provider_names(seed: int, count: int, taken: set[str]) -> list[str]:
    rng = rng_for(seed, "providers")
    names: list[str] = []
    while len(names) < count:
        name = rng.choice(_SYLLABLES_A) + rng.choice(_SYLLABLES_B)
        if name not in taken and name not in names:
            names.append(name)
    return names


def display_name(slug: str) -> str:
    return slug[:1].upper() + slug[1:]


def token_text(seed: int, *parts: object) -> str:
    return hashlib.blake2b(repr((seed, "token", *parts)).encode(), digest_size=12).hexdigest()


def _company_from(domain: str) -> str:
    stem = domain.split(".")[0].replace("-", " ") or "company"
    return stem.title()


def person(rng: random.Random, domain: str) -> dict[str, Any]:
    first, last = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
    return {"first_name": first, "last_name": last, "full_name": f"{first} {last}", "title": rng.choice(TITLES),
            "company": _company_from(domain), "company_domain": domain, "location": rng.choice(CITIES),
            "work_email": f"{first.lower()}.{last.lower().replace('-', '')}@{domain}"}


def company(rng: random.Random, domain: str) -> dict[str, Any]:
    return {"name": _company_from(domain), "domain": domain, "industry": rng.choice(INDUSTRIES),
            "employees": rng.choice([8, 25, 60, 140, 420, 1300, 5200]), "founded": rng.randint(1985, 2023),
            "headquarters": rng.choice(CITIES)}


def answer(kind: str, rng: random.Random, params: dict[str, str], count: int) -> Any:
    """A plausible upstream body of ``kind`` for a hit (``count`` rows for list kinds)."""
    email = params.get("email", "")
    domain = params.get("domain") or (email.rpartition("@")[2] if "@" in email else "") or "northwind.com"
    if kind == "email":
        found = person(rng, domain)
        if params.get("first_name") and params.get("last_name"):
            found["first_name"], found["last_name"] = params["first_name"], params["last_name"]
            found["work_email"] = f"{params['first_name'].lower()}.{params['last_name'].lower()}@{domain}"
        return {"email": found["work_email"], "status": "verified", "confidence": round(0.8 + rng.random() / 5, 2),
                "domain": domain, "first_name": found["first_name"], "last_name": found["last_name"]}
    if kind == "verify":
        return {"email": email or f"info@{domain}", "result": rng.choice(["deliverable", "deliverable", "risky"]),
                "mx_found": True, "smtp_check": True}
    if kind == "person":
        return person(rng, domain)
    if kind == "match":
        return {"match": person(rng, domain), "email_status": "verified"}
    if kind == "company":
        return company(rng, domain)
    if kind == "people":
        return {"results": [person(rng, domain) for _ in range(count)], "total": count}
    if kind == "lookalikes":
        return {"results": [company(rng, f"{rng.choice(_SYLLABLES_A)}{rng.choice(_SYLLABLES_B)}.com")
                            for _ in range(count)], "total": count}
    if kind == "jobs":
        return {"results": [{"title": rng.choice(TITLES), "location": rng.choice(CITIES),
                             "posted": f"2026-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}", "company_domain": domain}
                            for _ in range(count)], "total": count}
    if kind == "list":
        return {"results": [{"id": f"r{rng.randint(1000, 99999)}", "score": round(rng.random(), 3)}
                            for _ in range(count)], "total": count}
    if kind == "write":
        return {"id": f"obj_{rng.randint(10_000, 99_999)}", "status": "accepted"}
    return {"data": {"id": f"r{rng.randint(1000, 99999)}", "value": round(rng.random() * 1000, 2)}}


_FAKER: list[Any] = []


def team_name(seed: int, number: int) -> str:
    """A readable team name (Faker, seeded per team: made once per team, never per call; imported
    on first use, as it takes a while to import)."""
    if not _FAKER:
        from faker import Faker

        _FAKER.append(Faker())
    faker = _FAKER[0]
    faker.seed_instance(seed * 1_000_003 + number)
    return str(faker.company())
