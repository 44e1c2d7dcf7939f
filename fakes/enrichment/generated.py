"""Generated records that are pure functions of (seed, identity): which websites are known, a
company's record, and the updates a company publishes in a week. Cached per process (bounded):
asking twice, in any fake of the same seed, gives the same record at no cost.
"""

from __future__ import annotations

import functools
from typing import Any

from fakes.kernel.clock import utc_datetime

from .data import mix, pools, rng, short_id, unit

WEEK_MS = 7 * 86_400_000
#: updates are generated per week counted from this Monday (2020-01-06T00:00Z)
EPOCH_WEEK_MS = 1_578_268_800_000
GICS = (45103010, 45103020, 45102010, 45102030, 40203010, 35202010, 25502020, 50203010, 45301020,
        20106020, 30202030, 15101050, 20201050, 35101010, 40101015, 55101010)
COMPANY_TYPES_PRIVATE = ("PRIVATELY_HELD", "PRIVATELY_HELD", "PRIVATELY_HELD", "PARTNERSHIP", "NON_PROFIT",
                         "SELF_OWNED")
COUNTRIES = (("US", "United States", "US-CA"), ("US", "United States", "US-NY"), ("GB", "United Kingdom", "GB-LND"),
             ("DE", "Germany", "DE-BE"), ("FR", "France", "FR-IDF"), ("CA", "Canada", "CA-ON"),
             ("SG", "Singapore", "SG-01"), ("NL", "Netherlands", "NL-NH"))


@functools.lru_cache(maxsize=4096)  # answers repeat the same instants (a virtual clock stands still)
def iso_ms(epoch_ms: int) -> str:
    return utc_datetime(epoch_ms).strftime("%Y-%m-%dT%H:%M:%SZ")  # the kernel's: exact, safe past year 9999


def generated_known(seed: int, locale: str, unknown_share: float, weights: tuple[float, ...], domain: str) -> bool:
    """Whether the service knows ``domain``: small private companies are unknown more often than large
    public ones (``weights`` per band of :data:`BANDS`, ``unknown_share`` on average)."""
    return known_in_profile(coverage_profile(seed, locale, unknown_share, weights), domain)


def coverage_profile(seed: int, locale: str, unknown_share: float, weights: tuple[float, ...]) -> int:
    """A small number naming these coverage settings: the cache of :func:`known_in_profile` is keyed
    by it, not by the settings (hashing six floats on every lookup showed in the request's cost)."""
    settings = (seed, locale, unknown_share, weights)
    found = _PROFILE_IDS.get(settings)
    if found is None:
        found = _PROFILE_IDS[settings] = len(_PROFILES)
        _PROFILES.append(settings)
    return found


_PROFILE_IDS: dict[tuple[int, str, float, tuple[float, ...]], int] = {}
_PROFILES: list[tuple[int, str, float, tuple[float, ...]]] = []


@functools.lru_cache(maxsize=65_536)
def known_in_profile(profile: int, domain: str) -> bool:
    if domain.endswith(".invalid") or domain == "invalid":
        return False
    seed, locale, unknown_share, weights = _PROFILES[profile]
    chance = unknown_share * weights[size_band(generated_company(seed, locale, domain))]
    return unit(seed, "unknown", domain) >= chance


#: the coverage bands, in the order of the weights (settings.COVERAGE_BANDS)
BANDS = ("micro", "small", "medium", "large", "enterprise", "public")


def size_band(record: dict[str, Any]) -> int:
    """The index in :data:`BANDS` of a generated company: public when listed, else by headcount."""
    if record["company_type"] == "PUBLIC_COMPANY":
        return 5
    employees = int(record["employee_count"])
    return 0 if employees <= 10 else 1 if employees <= 50 else 2 if employees <= 200 else 3 if employees <= 1000 else 4


@functools.lru_cache(maxsize=8192)
def generated_company(seed: int, locale: str, domain: str) -> dict[str, Any]:
    r = rng(seed, "company", domain)
    p = pools(locale)
    stem = domain.split(".")[0].replace("-", " ")
    name = stem.title() + r.choice(("", "", " Inc.", " Ltd", " GmbH", " Labs", " Group"))
    founded = r.randint(1950, 2023) if r.random() < 0.3 else r.randint(2005, 2023)
    public = r.random() < 0.15
    employees = max(1, int(r.lognormvariate(4.0, 1.6)))
    if public:
        employees = max(employees, r.randint(800, 90_000))
    handle = stem.replace(" ", "").lower()[:15]
    country, country_name, state = r.choice(COUNTRIES)
    addresses = [{"address_type": "HEADQUARTERS", "line1": r.choice(p.street), "line2": None,
                  "city": r.choice(p.city), "state": state.split("-", 1)[1], "postal_code": r.choice(p.postcode),
                  "country_code": country, "country": country_name, "is_primary": True}]
    for _ in range(r.randint(0, 2)):
        other_country, other_name, other_state = r.choice(COUNTRIES)
        addresses.append({"address_type": r.choice(("BRANCH", "BRANCH", "OFFICE_OTHER")).replace("OFFICE_", ""),
                          "line1": r.choice(p.street), "line2": None, "city": r.choice(p.city),
                          "state": other_state.split("-", 1)[1], "postal_code": r.choice(p.postcode),
                          "country_code": other_country, "country": other_name, "is_primary": False})
    listing = None
    if public:
        symbol = "".join(ch for ch in stem.upper() if ch.isalpha())[:4] or "XYZ"
        ipo_year = r.randint(min(max(founded + 2, 1980), 2025), 2025)
        listing = {"stock_symbol": symbol, "ipo_date": f"{ipo_year}-{r.randint(1, 12):02d}-{r.randint(1, 28):02d}",
                   "isin": f"US{mix(seed, 'isin', domain) % 10**10:010d}",
                   "figi": f"BBG{short_id(domain, size=5).upper()[:9]}",
                   "cusip": f"{mix(seed, 'cusip', domain) % 10**9:09d}",
                   "lei": short_id(seed, "lei", domain, size=10).upper(),
                   "cik": f"{mix(seed, 'cik', domain) % 10**10:010d}",
                   "sic_code": str(r.choice((7372, 7371, 3674, 2834))),
                   "revenue_usd": employees * r.randint(150_000, 400_000), "revenue_captured_at": "2025-12-31",
                   "ebitda_usd": employees * r.randint(10_000, 80_000), "ebitda_captured_at": "2025-12-31"}
    employee_min = max(1, employees - employees // 5)
    return {
        "websites": [f"https://www.{domain}"],
        "description": f"{name} {r.choice(p.bs)}. {r.choice(p.sentence)}",
        "industry": r.choice(GICS),
        "company_type": "PUBLIC_COMPANY" if public else r.choice(COMPANY_TYPES_PRIVATE),
        "founded_year": founded,
        "specialties": sorted({r.choice(p.bs).split(" ")[-1] for _ in range(r.randint(2, 5))}),
        "name": name,
        "tagline": r.choice(p.catch_phrase),
        "cover_pic_url": f"https://www.{domain}/assets/cover.jpg",
        "facebook_url": f"https://www.facebook.com/{handle}" if r.random() < 0.6 else None,
        "twitter_url": f"https://x.com/{handle}",
        "instagram_url": f"https://www.instagram.com/{handle}" if r.random() < 0.4 else None,
        "employee_count": employees,
        "employee_count_range_min": employee_min,
        "employee_count_range_max": employees + employees // 5 + 1,
        "follower_count": int(r.lognormvariate(7, 1.5)),
        "following_count": r.randint(10, 2000),
        "addresses": addresses,
        "public_listing": listing,
        "_x_handle": handle,
        "_round_count": 0 if r.random() < 0.3 else r.randint(1, 5),
        "_customer_count": r.choice((0, 3, 8, 15, 25, 40, 60)),
        "_partner_count": r.randint(0, 8),
        "_competitor_count": r.randint(0, 12),
        "_product_count": r.randint(1, 4),
    }


@functools.lru_cache(maxsize=16384)
def week_items(seed: int, locale: str, domain: str, week: int, rate: float, handle: str) -> list[dict[str, Any]]:
    """The company's updates published in week ``week`` (oldest first); ``_ms`` is the instant."""
    r = rng(seed, "week", domain, week)
    p = pools(locale)
    # a Poisson count with mean ``rate`` (Knuth's method; rates are small)
    count, product, limit = 0, r.random(), pow(2.718281828459045, -rate)
    while product > limit and count < 50:
        count += 1
        product *= r.random()
    start = EPOCH_WEEK_MS + week * WEEK_MS
    items = []
    for index in sorted(r.randrange(WEEK_MS) for _ in range(count)):
        at = start + index
        roll = r.random()
        source = "blog" if roll < 0.45 else "x" if roll < 0.9 else "youtube"
        title = r.choice(p.catch_phrase)
        ident = short_id(seed, domain, at, size=6)
        if source == "blog":
            url = f"https://www.{domain}/blog/{title.lower().replace(' ', '-')[:60]}-{ident[:4]}"
        elif source == "x":
            url = f"https://x.com/{handle}/status/{mix(seed, 'tweet', domain, at) % 10**18}"
        else:
            url = f"https://www.youtube.com/watch?v={ident[:11]}"
        items.append({"url": url, "title": title, "description": r.choice(p.sentence),
                      "image_url": f"https://www.{domain}/media/{ident}.jpg" if r.random() < 0.5 else None,
                      "timestamp": iso_ms(at), "source": source, "_ms": at})
    return items
