"""The generated world: companies keyed by website, their people, funding, updates and relations.

Every record is a pure function of (seed, identifier): asking for ``acme.com`` twice, in two
processes, gives the same company. Records the control plane adds replace or extend generated
ones. Nothing here knows about HTTP, credits or the clock (updates take "now" as an argument).
"""

from __future__ import annotations

import base64
import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from fakes.kernel.statecheck import StateReader, refuse

from .bodycheck import COMPANY_IN, COUNT, PERSON_IN, fits
from .data import mix, normalize_website, pools, rng, short_id, unit
from .generated import (
    COUNTRIES,
    EPOCH_WEEK_MS,
    WEEK_MS,
    coverage_profile,
    generated_company,
    known_in_profile,
    week_items,
)

UPDATE_SOURCES = ("blog", "x", "youtube")
T = TypeVar("T")
_MISSING: Any = object()

EXECUTIVE_ROLES = (("CEO", "Chief Executive Officer"), ("CTO", "Chief Technology Officer"),
                   ("CFO", "Chief Financial Officer"), ("COO", "Chief Operating Officer"),
                   ("CMO", "Chief Marketing Officer"), ("FOUNDER", "Co-Founder"),
                   ("VICE_PRESIDENT", "VP of Sales"), ("BOARD_MEMBER", "Board Member"))
ROUND_TYPES = ("PRE_SEED", "SEED", "SERIES_A", "SERIES_B", "SERIES_C", "SERIES_D", "SERIES_E")
SEARCH_ROLES = ("engineer", "software engineer", "sales", "marketing", "designer", "product manager",
                "recruiter", "accountant", "data scientist", "support")
TLDS = ("com", "com", "com", "io", "co", "ai", "net", "de", "co.uk")
PRICING_MODELS = ("freemium", "subscription", "one-time", "payg", "enterprise", "unknown")
REASONS = ("organic_keyword_overlap", "product_overlap")
SCHOOLS = ("University of Michigan", "ETH Zurich", "University of Toronto", "Imperial College London",
           "TU Munich", "University of Texas at Austin", "National University of Singapore",
           "University of Melbourne", "Sorbonne University", "University of Cape Town")
MAJORS = ("Computer Science", "Economics", "Mechanical Engineering", "Marketing", "Mathematics",
          "Business Administration", "Physics", "Design", "Finance", "Psychology")


@dataclass(frozen=True)
class PersonKey:
    domain: str
    first: str
    last: str

    @functools.cached_property
    def id(self) -> str:  # asked for several times a call: worked out once per key
        raw = f"{self.domain}|{self.first}|{self.last}".encode()
        return "ps_" + base64.urlsafe_b64encode(raw).decode().rstrip("=")

    @property
    def slug(self) -> str:
        suffix = short_id(self.domain, self.first, self.last, size=3)
        return f"{self.first}-{self.last}-{suffix}".lower().replace(" ", "-")

    @classmethod
    def from_id(cls, person_id: str) -> PersonKey | None:
        if not person_id.startswith("ps_") or len(person_id) > 400:
            return None
        body = person_id[3:]
        try:
            raw = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)).decode()
        except (ValueError, UnicodeDecodeError):
            return None
        parts = raw.split("|")
        if len(parts) != 3 or not all(parts):
            return None
        return cls(*parts)


RELATED_KEPT = 2048
#: values kept by World.derived: some are whole answers of a few KB (a profile, a week of updates),
#: and a client chooses their keys, so a world keeps fewer of them than of related-company lists
DERIVED_KEPT = 128


@dataclass
class World:
    """Generated companies and people of one seed, plus what the control plane added."""

    seed: int
    locale: str
    unknown_share: float
    #: weight of each coverage band (generated.BANDS): how much likelier than average it is unknown
    coverage: tuple[float, ...] = (1.0,) * 6
    custom_companies: dict[str, dict[str, Any]] = field(default_factory=dict)
    custom_people: dict[str, dict[str, Any]] = field(default_factory=dict)   # person id -> fields
    slugs: dict[str, str] = field(default_factory=dict)                      # slug -> person id
    versions: dict[str, int] = field(default_factory=dict)                   # domain -> record version
    #: (domain, kind, count) -> related companies: a pure function of the seed and the known
    #: companies, kept until a company is added (bounded: past RELATED_KEPT it starts over)
    _related: dict[tuple[str, str, int], list[str]] = field(default_factory=dict, repr=False, compare=False)
    #: (person id, role) -> generated profile: likewise a pure function of the seed and the companies
    _people: dict[tuple[str, str | None], dict[str, Any]] = field(default_factory=dict, repr=False, compare=False)
    #: other values computed from the world alone (funding rounds, employees, listing items): kept
    #: until a company or person is added (bounded: past DERIVED_KEPT it starts over); see derived()
    _derived: dict[tuple[Any, ...], Any] = field(default_factory=dict, repr=False, compare=False)
    #: names the seed and coverage settings for the cache of which domains are known
    _profile: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._profile = coverage_profile(self.seed, self.locale, self.unknown_share, self.coverage)

    # -- companies ---------------------------------------------------------------------------
    def known(self, domain: str) -> bool:
        if domain in self.custom_companies:
            return True
        return known_in_profile(self._profile, domain)

    def company(self, domain: str) -> dict[str, Any] | None:
        """The company's record (the details fields without URLs), or None when it is unknown."""
        if not self.known(domain):
            return None
        base = generated_company(self.seed, self.locale, domain)
        custom = self.custom_companies.get(domain)
        return {**base, **custom} if custom else base

    def version(self, domain: str) -> int:
        return self.versions.get(domain, 0)

    def add_company(self, domain: str, fields: dict[str, Any]) -> dict[str, Any]:
        self.custom_companies[domain] = {**self.custom_companies.get(domain, {}), **fields}
        self.versions[domain] = self.versions.get(domain, 0) + 1
        self._changed()  # the known companies changed
        record = self.company(domain)
        assert record is not None
        return record

    def _changed(self) -> None:
        """Forget what was computed from the companies and people: they changed."""
        self._related.clear()
        self._people.clear()
        self._derived.clear()

    def derived(self, key: tuple[Any, ...], build: Callable[[], T]) -> T:
        """``build()``, kept under ``key`` until the world changes: for values that depend on the
        seed, the settings and the known companies and people only (never on the clock or a caller)."""
        found = self._derived.get(key, _MISSING)
        if found is _MISSING:
            if len(self._derived) >= DERIVED_KEPT:
                self._derived.clear()
            found = self._derived[key] = build()
        return found  # type: ignore[no-any-return]

    def related(self, domain: str, kind: str, count: int) -> list[str]:
        """``count`` other known companies related to ``domain`` (customers, partners, competitors)."""
        key = (domain, kind, count)
        found = self._related.get(key)
        if found is None:
            found = self._find_related(domain, kind, count)
            if len(self._related) >= RELATED_KEPT:
                self._related.clear()
            self._related[key] = found
        return list(found)

    def _find_related(self, domain: str, kind: str, count: int) -> list[str]:
        out: list[str] = []
        r = rng(self.seed, kind, domain)
        p = pools(self.locale)
        attempts = 0
        while len(out) < count and attempts < count * 4 + 10:
            attempts += 1
            name = (r.choice(p.company_word) + r.choice(p.company_word)).lower()
            candidate = f"{name}.{r.choice(TLDS)}"
            if candidate != domain and candidate not in out and self.known(candidate):
                out.append(candidate)
        return out

    def customers(self, domain: str) -> list[str]:
        record = self.company(domain) or {}
        return self.related(domain, "customer", int(record.get("_customer_count", 0)))

    def partners(self, domain: str) -> list[str]:
        record = self.company(domain) or {}
        return self.related(domain, "partner", int(record.get("_partner_count", 0)))

    def competitors(self, domain: str) -> list[tuple[str, str]]:
        """(domain, reason) of the company's competitors (a new list)."""
        return list(self.derived(("competitors", domain), lambda: self._competitors(domain)))

    def _competitors(self, domain: str) -> list[tuple[str, str]]:
        record = self.company(domain) or {}
        found = self.related(domain, "competitor", int(record.get("_competitor_count", 0)))
        return [(other, REASONS[mix(self.seed, "reason", domain, other) % 2]) for other in found]

    # -- funding -----------------------------------------------------------------------------
    def funding_rounds(self, domain: str) -> list[dict[str, Any]]:
        """The company's rounds, oldest first (a new list; the rounds themselves are shared: read only)."""
        return list(self.derived(("funding", domain), lambda: self._funding_rounds(domain)))

    def _funding_rounds(self, domain: str) -> list[dict[str, Any]]:
        record = self.company(domain)
        if record is None:
            return []
        if "funding_rounds" in record:
            return list(record["funding_rounds"])
        r = rng(self.seed, "funding", domain)
        p = pools(self.locale)
        count = int(record["_round_count"])
        year = int(record["founded_year"])
        rounds = []
        amount = r.choice((250_000, 500_000, 1_000_000))
        for index in range(count):
            year = min(2025, year + r.randint(1, 2))
            investors = []
            for _ in range(r.randint(1, 4)):
                if r.random() < 0.25:
                    investors.append({"name": f"{r.choice(p.first)} {r.choice(p.last)}", "website": None,
                                      "type": "angel", "amount_usd": None})
                else:
                    word = r.choice(p.company_word)
                    suffix = r.choice(("Ventures", "Capital", "Partners"))
                    investors.append({"name": f"{word} {suffix}", "website": f"{word.lower()}{suffix.lower()}.com",
                                      "type": "company", "amount_usd": None})  # a domain, as the reference shows
            unique = list({inv["name"]: inv for inv in investors}.values())
            rounds.append({"round_type": ROUND_TYPES[min(index, len(ROUND_TYPES) - 1)],
                           "date": f"{year}-{r.randint(1, 12):02d}-{r.randint(1, 28):02d}",
                           "amount_usd": amount, "investors": unique})
            amount *= r.choice((2, 3, 4))
        if record.get("company_type") == "PUBLIC_COMPANY" and record.get("public_listing"):
            rounds.append({"round_type": "IPO", "date": record["public_listing"]["ipo_date"],
                           "amount_usd": amount * 5, "investors": []})
        return rounds

    # -- updates -----------------------------------------------------------------------------
    def updates(self, domain: str, until_ms: int, since_ms: int | None = None, limit: int = 20,
                rate_per_week: float = 3.0) -> list[dict[str, Any]]:
        """Items published up to ``until_ms`` (and after ``since_ms``), newest first, at most ``limit``."""
        record = self.company(domain)
        if record is None or until_ms < EPOCH_WEEK_MS:
            return []
        out: list[dict[str, Any]] = []
        week = (until_ms - EPOCH_WEEK_MS) // WEEK_MS
        oldest_week = 0 if since_ms is None else max(0, (since_ms - EPOCH_WEEK_MS) // WEEK_MS)
        for w in range(week, max(oldest_week, week - 104) - 1, -1):
            for item in reversed(self._week_items(domain, w, rate_per_week, record)):
                if item["_ms"] <= until_ms and (since_ms is None or item["_ms"] > since_ms):
                    out.append(item)
                    if len(out) >= limit:
                        return out
        return out

    def _week_items(self, domain: str, week: int, rate: float, record: dict[str, Any]) -> list[dict[str, Any]]:
        return week_items(self.seed, self.locale, domain, week, rate, str(record["_x_handle"]))

    # -- people ------------------------------------------------------------------------------
    def executives(self, domain: str) -> list[tuple[PersonKey, str, str]]:
        """(person, role, title) of the company's leadership."""
        return list(_executives(self.seed, self.locale, domain))

    def employees(self, domain: str, role: str) -> list[tuple[PersonKey, str]]:
        """People of the company whose title matches ``role`` (deterministic, 0 to 8; a new list)."""
        return list(self.derived(("employees", domain, role), lambda: self._employees(domain, role)))

    def _employees(self, domain: str, role: str) -> list[tuple[PersonKey, str]]:
        normalized = " ".join(role.lower().split())
        r = rng(self.seed, "employees", domain, normalized)
        p = pools(self.locale)
        if self.company(domain) is None:
            return []
        customs = [(PersonKey.from_id(pid), str(f.get("role", ""))) for pid, f in self.custom_people.items()
                   if f["_domain"] == domain and normalized in str(f.get("role", "")).lower()]
        found = [(key, title) for key, title in customs if key is not None]
        count = r.choice((0, 1, 2, 3, 3, 4, 5, 6, 8))
        seniority = ("", "Senior ", "Lead ", "Principal ", "Head of ")
        for _ in range(count):
            key = PersonKey(domain, r.choice(p.first), r.choice(p.last))
            found.append((key, f"{r.choice(seniority)}{normalized.title()}".strip()))
        return found

    def person_by_name(self, domain: str, first: str, last: str | None) -> PersonKey | None:
        if self.company(domain) is None:
            return None
        first = first.strip()
        if last:
            key = PersonKey(domain, first, last.strip())
        else:
            for pid, f in self.custom_people.items():
                if f["_domain"] == domain and str(f["first_name"]).lower() == first.lower():
                    return PersonKey.from_id(pid)
            r = rng(self.seed, "lastname", domain, first.lower())
            key = PersonKey(domain, first, r.choice(pools(self.locale).last))
        if key.id not in self.custom_people and unit(self.seed, "person-exists", key.id) < 0.1:
            return None  # a seeded tenth of name lookups finds nobody
        return key

    def person(self, key: PersonKey, role: str | None = None) -> dict[str, Any]:
        """The person profile fields (without URLs)."""
        self.slugs.setdefault(key.slug, key.id)
        custom = self.custom_people.get(key.id)
        if custom and custom.get("role"):
            role = str(custom["role"])
        found = self._people.get((key.id, role))
        if found is None:
            found = generated_person(self.seed, self.locale, key, role, self)
            if len(self._people) >= RELATED_KEPT:
                self._people.clear()
            self._people[(key.id, role)] = found
        # the caller's own copy (it adds URLs); the kept one stays as generated
        generated = {**found, "work_experience": [dict(job) for job in found["work_experience"]],
                     "education": [dict(school) for school in found["education"]]}
        if custom:
            generated = {**generated, **{k: v for k, v in custom.items()
                                         if not k.startswith("_") and k not in ("role", "work_email")}}
            generated["full_name"] = " ".join(
                str(part) for part in (generated.get("first_name"), generated.get("middle_name"),
                                       generated.get("last_name")) if part)
        return generated

    def add_person(self, domain: str, fields: dict[str, Any]) -> tuple[PersonKey, dict[str, Any]]:
        key = PersonKey(domain, str(fields["first_name"]), str(fields["last_name"]))
        self.custom_people[key.id] = {**fields, "_domain": domain}
        self.slugs[key.slug] = key.id
        self._derived.clear()  # a company's employees changed
        return key, self.person(key)

    def work_email(self, domain: str, first: str, last: str | None, hit_share: float) -> str | None:
        if self.company(domain) is None:
            return None
        for f in self.custom_people.values():
            if (f["_domain"] == domain and str(f["first_name"]).lower() == first.lower()
                    and (not last or str(f["last_name"]).lower() == last.lower()) and f.get("work_email")):
                return str(f["work_email"])
        if unit(self.seed, "email-hit", domain, first.lower(), (last or "").lower()) >= hit_share:
            return None
        local = first.lower() if not last else f"{first.lower()}.{last.lower()}"
        local = "".join(ch for ch in local if ch.isalnum() or ch == ".") or "contact"
        return f"{local}@{domain}"

    # -- state -------------------------------------------------------------------------------
    def to_state(self) -> dict[str, Any]:
        return {"companies": self.custom_companies, "people": self.custom_people, "slugs": self.slugs,
                "versions": self.versions}

    def load_state(self, read: StateReader) -> None:
        """The custom companies, people, served slugs and record versions of an exported state."""
        read.only(("companies", "people", "slugs", "versions"))
        companies = {}
        companies_read = read.object("companies")
        for domain in companies_read.value:
            _domain_key(companies_read, domain)
            companies[domain] = _fields(companies_read.object(domain), COMPANY_FIELDS)
        people = {}
        people_read = read.object("people")
        for person_id in people_read.value:
            fields = _fields(people_read.object(person_id), PERSON_FIELDS, required=("first_name", "last_name"))
            domain = people_read.object(person_id).text("_domain", max_length=253)
            if normalize_website(domain) != domain:
                refuse(people_read.where(f"{person_id}._domain"), "must be a website's domain (example.com)")
            if PersonKey(domain, fields["first_name"], fields["last_name"]).id != person_id:
                refuse(people_read.where(person_id), "must be the id of its _domain, first_name and last_name")
            people[person_id] = {**fields, "_domain": domain}
        slugs = {}
        slugs_read = read.object("slugs")
        for slug in slugs_read.value:
            person_id = slugs_read.text(slug, max_length=400)
            key = PersonKey.from_id(person_id)
            if key is None or key.slug != slug:
                refuse(slugs_read.where(slug), "must be the id of the person with this slug")
            slugs[slug] = person_id
        versions = {}
        versions_read = read.object("versions")
        for domain in versions_read.value:
            _domain_key(versions_read, domain)
            versions[domain] = versions_read.integer(domain, minimum=0, maximum=2**31 - 1)
        self.custom_companies, self.custom_people, self.slugs, self.versions = companies, people, slugs, versions
        self._changed()


@functools.lru_cache(maxsize=4096)
def _executives(seed: int, locale: str, domain: str) -> tuple[tuple[PersonKey, str, str], ...]:
    """A company's leadership: a function of the seed alone, shared by every world of it."""
    r = rng(seed, "executives", domain)
    p = pools(locale)
    count = r.randint(2, 5)
    picked = [EXECUTIVE_ROLES[0], *r.sample(EXECUTIVE_ROLES[1:], count - 1)]
    return tuple((PersonKey(domain, r.choice(p.first), r.choice(p.last)), role, title) for role, title in picked)


#: what a custom record may hold: the control plane's body fields (and a company's derived range)
COMPANY_FIELDS = {**{k: v for k, v in COMPANY_IN["properties"].items() if k != "website"},
                  "employee_count_range_min": COUNT, "employee_count_range_max": COUNT}
PERSON_FIELDS = {**{k: v for k, v in PERSON_IN["properties"].items() if k != "employer_website"},
                 "_domain": {"type": "string"}}


def _domain_key(read: StateReader, domain: str) -> None:
    if normalize_website(domain) != domain:
        refuse(read.where(domain), "is not a website's domain (example.com)")


def _fields(read: StateReader, allowed: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    read.only(allowed)
    for name in required:
        read.raw(name)
    for name, value in read.value.items():
        if not fits(value, allowed[name]):
            refuse(read.where(name), f"does not fit {allowed[name]}")
    return dict(read.value)


def generated_person(seed: int, locale: str, key: PersonKey, role: str | None, world: World) -> dict[str, Any]:
    r = rng(seed, "person", key.id)
    p = pools(locale)
    company = world.company(key.domain) or {}
    country, _, state = r.choice(COUNTRIES)
    handle = f"{key.first}{key.last}".lower().replace(" ", "")[:15]
    title = role or r.choice(p.job)
    start_year = r.randint(2008, 2024)
    experience = [{"role": title, "company_name": company.get("name", key.domain),
                   "company_website": f"https://www.{key.domain}", "description": r.choice(p.sentence),
                   "start_date": f"{start_year}-{r.randint(1, 12):02d}", "end_date": None}]
    year = start_year
    for other in world.related(key.domain, f"past-employer-{key.id}", r.randint(0, 3)):
        end = year
        year = max(1990, end - r.randint(1, 5))
        other_record = world.company(other) or {}
        experience.append({"role": r.choice(p.job), "company_name": other_record.get("name", other),
                           "company_website": f"https://www.{other}", "description": r.choice(p.sentence),
                           "start_date": f"{year}-{r.randint(1, 12):02d}", "end_date": f"{end}-{r.randint(1, 12):02d}"})
    school_end = year - r.randint(0, 2)
    education = [{"major": r.choice(MAJORS), "school": r.choice(SCHOOLS), "start_date": f"{school_end - 4}-09",
                  "end_date": f"{school_end}-06"}]
    return {
        "id": key.id, "slug": key.slug,
        "profile_pic_url": f"https://www.{key.domain}/team/{key.slug}.jpg",
        "first_name": key.first, "middle_name": None, "last_name": key.last,
        "full_name": f"{key.first} {key.last}",
        "bio": f"{title} at {company.get('name', key.domain)}. {r.choice(p.sentence)}",
        "follower_count": int(r.lognormvariate(5, 1.5)), "following_count": r.randint(20, 1500),
        "country": country, "city": r.choice(p.city), "state": state,
        "x_handle": handle, "x_profile_url": f"https://x.com/{handle}",
        "personal_website": f"https://{handle}.dev" if r.random() < 0.3 else None,
        "work_experience": experience, "education": education,
    }
