"""Each operation's answer and its cost, computed from what the answer really contains.

``Lookups.run`` takes a call that passed :meth:`EnrichmentModel.begin`, checks its parameters,
consults the cache window, builds the body from the world and charges it. Monitor operations
take a JSON body instead of (or besides) query parameters.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from fakes.kernel.errors import ServiceError
from fakes.kernel.http import dumps

from . import rules
from .calls import Answer, Call
from .credits import as_number, render, tenths
from .data import (
    DISPOSABLE_EMAIL_DOMAINS,
    FREE_EMAIL_DOMAINS,
    ROLE_MAILBOXES,
    email_domain,
    logo_png,
    normalize_website,
    unit,
)
from .feeds import DEFAULT_SETTINGS, Feed, FeedError, check_settings
from .world import SEARCH_ROLES, PersonKey, iso_ms

if TYPE_CHECKING:
    from .model import EnrichmentModel

MISS_COST = 5  # tenths: a work-email miss costs 0.5
FEED_CREATE_COST = 30
CREATE_FEED_FIELDS = frozenset({"name", "targets", "is_public", "email_notifications"})
UPDATE_FEED_FIELDS = frozenset({"name", "is_public", "is_suspended", "suspension_reason", "email_notifications"})
TARGET_FIELDS = frozenset({"website_url", "settings"})
RENDERED_CACHE_SIZE = 4096


class Lookups:
    def __init__(self, model: EnrichmentModel) -> None:
        self.model = model
        self.rendered: dict[tuple[str, int, str, bool], bytes] = {}
        self.costs: dict[str, int] = {}
        self.handlers: dict[str, Any] = {}
        self.details_memo: dict[tuple[Any, ...], tuple[str, str, int]] = {}
        self.details_cap = tenths(model.settings.details_max_cost)

    def run(self, call: Call, params: Mapping[str, str], *, base: str, real: bool, body: Any = None,
            path_params: Mapping[str, str] | None = None) -> Answer:
        handler = self.handlers.get(call.op.name)
        if handler is None:
            handler = self.handlers[call.op.name] = getattr(self, "op_" + call.op.name)
        parsed = self.model.parse(call, params)
        result: Answer = handler(call, parsed, base, real, body, dict(path_params or {}))
        return result

    # -- helpers -------------------------------------------------------------------------------
    def _domain(self, call: Call, raw: str, name: str = "website") -> str:
        domain = normalize_website(raw)
        if domain is None:  # not a host name: no company can have it (the real service takes names too)
            raise self.model.error(call, 404, f"No company found for {name}={raw!r}.")
        return domain

    def _company(self, call: Call, domain: str, charge_like_real: float = 0) -> dict[str, Any]:
        record = self.model.world.company(domain)
        if record is None:
            charged = self.model.charge_failure(call, charge_like_real) if charge_like_real else 0
            raise self.model.error(call, 404, f"No data found for {domain}.", charged=charged)
        return record

    def _cached(self, call: Call, parsed: dict[str, Any], key: str, version: int) -> int | None:
        """The instant of a free cached answer, or None (fresh, charged). 404 for if-present-only misses."""
        mode = parsed.get("use_cache", "if-recent")
        if parsed.get("force_refresh") or parsed.get("_force_refresh"):
            mode = "never"
        at = self.model.cached_at(call, key, version, mode)
        if at is None and mode == "if-present-only":
            raise self.model.error(call, 404, "Nothing cached for this request (use_cache=if-present-only).")
        if at is None and mode == "never" and self.model.paid_within_window(call, key, version):
            call.flags.append((rules.PAID_TWICE_IN_CACHE_WINDOW,
                               f"{call.op.name} {key.split('|', 1)[1]} was paid for already inside the "
                               f"{self.model.settings.cache_window_days}-day window"))
        return at

    def _bill(self, call: Call, key: str, version: int, cached: int | None, cost: int) -> None:
        if cached is not None:
            call.headers[self.model.settings.cost_header] = "0"  # a free answer: nothing to charge or check
            age = (call.now_ms - cached) // 86_400_000
        else:
            self.model.settle(call, cost)
            self.model.remember(call, key, version)
            age = 0
        call.headers[self.model.settings.cache_age_header] = str(age)

    def _cost(self, name: str) -> int:
        known = self.costs.get(name)
        if known is None:
            known = self.costs[name] = tenths(self.model.settings.cost(name))
        return known

    @staticmethod
    def _answer(body: Any, status: int = 200, media_type: str = "application/json") -> Answer:
        return Answer(body, status, media_type)

    @staticmethod
    def _paths(base: str, real: bool) -> dict[str, str]:
        prefix = base + ("/api" if real else "")
        return {"details": f"{prefix}/v1/company/details", "logo": f"{prefix}/v1/company/logo",
                "competitors": f"{prefix}/v1/competitor/listing", "updates": f"{prefix}/v1/company/updates",
                "funding": f"{prefix}/v1/company/funding",
                "profile": f"{base}{'/api/v2' if real else '/v2'}/employee/profile",
                "similar": f"{prefix}/v1/employee/similar", "work_email": f"{prefix}/v1/employee/work-email"}

    # -- company operations --------------------------------------------------------------------
    def op_company_details(self, call: Call, p: dict[str, Any], base: str, real: bool, *_: Any) -> Answer:
        # the hot path of the service (the benchmark's sample request): what depends only on the
        # parameters is worked out once per distinct request
        flags = (p["website"], p.get("include_employee_count"), p.get("follower_count"), p.get("addresses"))
        known = self.details_memo.get(flags)
        if known is None or not self.model.world.known(known[0]):
            domain = self._domain(call, p["website"])
            self._company(call, domain, charge_like_real=self.model.settings.cost("company_details"))
            exhaustive = p.get("addresses") == "best-effort-exhaustive"
            key = (f"company_details|{domain}|{bool(p.get('include_employee_count'))}|{p.get('follower_count')}"
                   f"|{exhaustive}")
            cost = self._cost("company_details") + 20 * bool(p.get("include_employee_count")) \
                + 10 * (p.get("follower_count") == "include") + 20 * exhaustive
            if len(self.details_memo) >= RENDERED_CACHE_SIZE:
                self.details_memo.clear()
            known = self.details_memo[flags] = (domain, key, min(cost, self.details_cap))
        domain, key, cost = known
        version = self.model.world.version(domain)
        cached = self._cached(call, p, key, version)
        self._bill(call, key, version, cached, cost)
        # the answer cannot change while the record's version does not: keep its bytes
        rendered_key = (key, version, base, real)
        raw = self.rendered.get(rendered_key)
        if raw is None:
            if len(self.rendered) >= RENDERED_CACHE_SIZE:
                self.rendered.clear()
            record = self._company(call, domain)
            raw = self.rendered[rendered_key] = dumps(self.details_body(domain, record, p, base, real))
        return self._answer(raw)

    def details_body(self, domain: str, record: dict[str, Any], p: dict[str, Any], base: str,
                     real: bool) -> dict[str, Any]:
        paths = self._paths(base, real)
        q = quote(domain)
        body = {k: v for k, v in record.items() if not k.startswith("_") and k not in (
            "employee_count_range_min", "employee_count_range_max", "follower_count", "following_count",
            "funding_rounds")}
        if not p.get("include_employee_count"):
            pass
        else:
            body["employee_count_range_min"] = record["employee_count_range_min"]
            body["employee_count_range_max"] = record["employee_count_range_max"]
        if p.get("follower_count") == "include":
            body["follower_count"] = record["follower_count"]
            body["following_count"] = record["following_count"]
        if p.get("addresses") != "best-effort-exhaustive":
            body["addresses"] = [a for a in record["addresses"] if a.get("is_primary")] or record["addresses"][:1]
        body["logo_url"] = f"{paths['logo']}?website={q}"
        body["executives"] = [
            {"name": f"{person.first} {person.last}", "title": title, "role": role,
             "person_profile_url": f"{paths['profile']}?id={person.id}"}
            for person, role, title in self.model.world.executives(domain)]
        body["similar_companies"] = f"{paths['competitors']}?website={q}"
        body["updates"] = f"{paths['updates']}?website={q}"
        body["funding"] = f"{paths['funding']}?website={q}"
        return body

    def op_employee_count(self, call: Call, p: dict[str, Any], *_: Any) -> Answer:
        domain = self._domain(call, p["website"])
        record = self._company(call, domain)
        key, version = f"employee_count|{domain}", self.model.world.version(domain)
        cached = self._cached(call, p, key, version)
        self._bill(call, key, version, cached, self._cost("employee_count"))
        return self._answer({"employee_count": record["employee_count"]})

    def op_company_funding(self, call: Call, p: dict[str, Any], *_: Any) -> Answer:
        domain = self._domain(call, p["website"])
        self._company(call, domain)
        key, version = f"company_funding|{domain}", self.model.world.version(domain)
        cached = self._cached(call, p, key, version)
        rounds = self.model.world.funding_rounds(domain)
        investors = {inv["name"] for r in rounds for inv in r["investors"]}
        cost = self._cost("company_funding") + 10 * len(investors)
        self._bill(call, key, version, cached, cost)
        charged = 0 if cached is not None else max(cost, self.model.minimum_tenths)
        return self._answer({"website": f"https://www.{domain}",
                             "total_funds_raised_usd": sum(int(r.get("amount_usd") or 0) for r in rounds),
                             "credit_cost": charged // 10 if charged % 10 == 0 else as_number(charged),
                             "funding_rounds": rounds})

    def op_company_updates(self, call: Call, p: dict[str, Any], base: str, real: bool, *_: Any) -> Answer:
        domain = self._domain(call, p["website"])
        record = self._company(call, domain)
        key, version = f"company_updates|{domain}", self.model.world.version(domain)
        cached = self._cached(call, p, key, version)
        self._bill(call, key, version, cached, self._cost("company_updates"))
        as_of = cached if cached is not None else call.now_ms
        items = self.model.world.updates(domain, as_of, rate_per_week=self.model.settings.item_rate_per_week,
                                         limit=20)
        if real and self.model.settings.real_paths_client_shapes:
            items = [i for i in items if i["source"] != "youtube"]
        handle = record["_x_handle"]
        return self._answer({
            "blogs": [f"https://www.{domain}/blog/rss.xml"], "x_profile": f"https://x.com/{handle}",
            "youtube_channels": [f"https://www.youtube.com/@{handle}"],
            "updates": [{k: v for k, v in i.items() if not k.startswith("_")} for i in items],
            "timestamp": iso_ms(as_of)})

    def op_company_website(self, call: Call, p: dict[str, Any], *_: Any) -> Answer:
        name = " ".join(str(p["company_name"]).split())
        country = str(p.get("country_code", "us")).lower()
        if len(country) != 2 or not country.isascii() or not country.isalpha():
            raise self.model.error(call, 400, "Parameter 'country_code' must be an ISO 3166-1 alpha-2 code.")
        stem = "".join(ch for ch in name.lower() if ch.isascii() and ch.isalnum())
        domain = f"{stem}.com" if stem else None
        if domain is None or not self.model.world.known(domain):
            charged = self.model.charge_failure(call, self.model.settings.cost("company_website"))
            raise self.model.error(call, 404, f"No website found for {name!r}.", charged=charged)
        key, version = f"company_website|{stem}|{country}", self.model.world.version(domain)
        cached = self._cached(call, p, key, version)
        self._bill(call, key, version, cached, self._cost("company_website"))
        return self._answer({"website": f"https://www.{domain}"})

    def op_company_logo(self, call: Call, p: dict[str, Any], *_: Any) -> Answer:
        domain = self._domain(call, p["website"])
        self._company(call, domain)
        self.model.settle(call, 0)
        return self._answer(logo_png(self.model.seed, domain), media_type="image/png")

    def op_customer_listing(self, call: Call, p: dict[str, Any], base: str, real: bool, *_: Any) -> Answer:
        domain = self._domain(call, p["website"])
        self._company(call, domain)
        offset = self._cursor(call, p.get("cursor"))
        size = int(p.get("page_size", 200))
        world = self.model.world
        investors = []
        for round_ in world.funding_rounds(domain):
            for inv in round_["investors"]:
                site = normalize_website(inv["website"]) if inv.get("website") else None
                if site and site not in investors:
                    investors.append(site)
        entries = ([("customers", d) for d in world.customers(domain)] + [("investors", d) for d in investors]
                   + [("partner_platforms", d) for d in world.partners(domain)])
        if p.get("quality_filter") is False:  # low-confidence matches, left out by default
            entries += [("customers", d) for d in world.related(domain, "weak-customer", 3)]
        page = entries[offset:offset + size]
        key = f"customer_listing|{domain}|{offset}|{size}|{p.get('quality_filter', True)}"
        version = world.version(domain)
        cached = self._cached(call, p, key, version)
        self._bill(call, key, version, cached, self._cost("customer_listing") + 20 * len(page))
        paths = self._paths(base, real)
        body: dict[str, Any] = {"customers": [], "investors": [], "partner_platforms": []}
        for kind, other in page:
            body[kind].append(self._company_item(other, paths))
        next_offset = offset + size
        listing = f"{base}{'/api' if real else ''}/v1/customer/listing"
        body["next_page"] = (f"{listing}?website={quote(domain)}&cursor={self._encode_cursor(next_offset)}"
                             f"&page_size={size}" if next_offset < len(entries) else None)
        return self._answer(body)

    def _company_item(self, domain: str, paths: dict[str, str]) -> dict[str, Any]:
        record = self.model.world.company(domain) or {}
        return {"name": record.get("name", domain), "description": record.get("description"),
                "tagline": record.get("tagline"), "website": f"https://www.{domain}",
                "company_logo_url": f"{paths['logo']}?website={quote(domain)}",
                "id": f"co_{abs(hash_id(domain))}", "industry": record.get("industry"),
                "specialties": record.get("specialties", []), "x_profile": record.get("twitter_url")}

    @staticmethod
    def _encode_cursor(offset: int) -> str:
        return base64.urlsafe_b64encode(f"o:{offset}".encode()).decode().rstrip("=")

    def _cursor(self, call: Call, raw: str | None) -> int:
        if raw is None:
            return 0
        try:
            text = base64.urlsafe_b64decode(raw + "=" * (-len(raw) % 4)).decode()
            if not text.startswith("o:") or not text[2:].isdigit() or len(text) > 12:
                raise ValueError(raw)
            return int(text[2:])
        except ValueError:
            raise self.model.error(call, 404, f"Unknown cursor {raw!r}: pass next_page's cursor unchanged.") from None

    def op_competitor_listing(self, call: Call, p: dict[str, Any], base: str, real: bool, *_: Any) -> Answer:
        domain = self._domain(call, p["website"])
        self._company(call, domain)
        key, version = f"competitor_listing|{domain}", self.model.world.version(domain)
        cached = self._cached(call, p, key, version)
        competitors = self.model.world.competitors(domain)
        self._bill(call, key, version, cached, max(50, self._cost("competitor_listing") + 20 * len(competitors)))
        details = self._paths(base, real)["details"]
        return self._answer({"competitors": [
            {"company_details_url": f"{details}?website={quote(other)}", "website": f"https://www.{other}",
             "competition_reason": reason} for other, reason in competitors]})

    def op_product_listing(self, call: Call, p: dict[str, Any], *_: Any) -> Answer:
        domain = self._domain(call, p["website"])
        record = self._company(call, domain)
        key, version = f"product_listing|{domain}", self.model.world.version(domain)
        cached = self._cached(call, p, key, version)
        self._bill(call, key, version, cached, self._cost("product_listing"))
        return self._answer({"products": products(self.model.seed, self.model.settings.locale, domain, record)})

    # -- people --------------------------------------------------------------------------------
    def _person(self, call: Call, p: dict[str, Any]) -> tuple[PersonKey, str | None]:
        world = self.model.world
        if p.get("id"):
            key = PersonKey.from_id(p["id"])
            if key is None or world.company(key.domain) is None:
                raise self.model.error(call, 404, "No person found with this id.")
            return key, None
        if p.get("slug"):
            person_id = world.slugs.get(str(p["slug"]).lower())
            key = PersonKey.from_id(person_id) if person_id else None
            if key is None:
                raise self.model.error(call, 404, "No person found with this slug.")
            return key, None
        if p.get("work_email"):
            domain = email_domain(p["work_email"])
            if domain is None:
                raise self.model.error(call, 400, f"Parameter 'work_email' is not an email address: "
                                                  f"{p['work_email']!r}.")
            if domain in FREE_EMAIL_DOMAINS or domain in DISPOSABLE_EMAIL_DOMAINS:
                raise self.model.error(call, 400, "work_email is a personal address; pass a work email.")
            local = p["work_email"].split("@", 1)[0].lower()
            if local in ROLE_MAILBOXES:
                raise self.model.error(call, 404, f"{p['work_email']} is a role mailbox, not a person.")
            first, _, last = local.partition(".")
            found = world.person_by_name(domain, first.capitalize(), last.capitalize() or None)
            if found is None:
                raise self.model.error(call, 404, "No person found for this work email.")
            return found, None
        if p.get("employer_website") and p.get("first_name"):
            domain = self._domain(call, p["employer_website"], "employer_website")
            found = world.person_by_name(domain, p["first_name"], p.get("last_name"))
            if found is None:
                raise self.model.error(call, 404, "No person found at this employer with this name.")
            return found, None
        if p.get("employer_website") and p.get("role"):
            domain = self._domain(call, p["employer_website"], "employer_website")
            role = str(p["role"])
            for person, code, title in world.executives(domain) if world.company(domain) else []:
                if role.upper() == code or role.lower() == title.lower():
                    return person, title
            people = world.employees(domain, role)
            if not people:
                raise self.model.error(call, 404, f"No {role!r} found at {domain}.")
            return people[0]
        raise self.model.error(call, 404, "No person found: pass one of work_email; first_name with "
                                          "employer_website; employer_website with role; slug; id.")

    def op_person_profile(self, call: Call, p: dict[str, Any], *_: Any) -> Answer:
        try:
            key, title = self._person(call, p)
        except ServiceError as err:
            if err.status == 404:
                charged = self.model.charge_failure(call, self.model.settings.cost("person_profile"))
                raise self.model.error(call, 404, err.message, charged=charged) from None
            raise
        cache_key, version = f"person_profile|{key.id}", self.model.world.version(key.domain)
        cached = self._cached(call, p, cache_key, version)
        self._bill(call, cache_key, version, cached, self._cost("person_profile"))
        return self._answer(self.profile_body(key, title))

    def profile_body(self, key: PersonKey, title: str | None) -> dict[str, Any]:
        return self.model.world.person(key, title)

    def op_work_email(self, call: Call, p: dict[str, Any], *_: Any) -> Answer:
        domain = self._domain(call, p["domain"], "domain")
        first, last = str(p["first_name"]).strip(), p.get("last_name")
        email = self.model.world.work_email(domain, first, last, self.model.settings.work_email_hit_share)
        key = f"work_email|{domain}|{first.lower()}|{str(last or '').lower()}"
        version = self.model.world.version(domain)
        cached = self._cached(call, p, key, version)
        self._bill(call, key, version, cached, self._cost("work_email") if email else MISS_COST)
        return self._answer({"work_email": email})

    def op_similar_people(self, call: Call, p: dict[str, Any], base: str, real: bool, *_: Any) -> Answer:
        key, title = self._person(call, p)
        world = self.model.world
        target = world.person(key, title)
        role = str(target["work_experience"][0]["role"]) if target["work_experience"] else "engineer"
        attempted = [{"employer_website": f"https://www.{other}", "role": role}
                     for other, _ in world.competitors(key.domain)[:3]]
        similar = []
        for search in attempted:
            other = normalize_website(search["employer_website"]) or ""
            people = world.employees(other, role) or world.employees(other, SEARCH_ROLES[0])
            if people:
                similar.append(world.person(people[0][0], people[0][1]))
        cache_key, version = f"similar_people|{key.id}", world.version(key.domain)
        cached = self._cached(call, p, cache_key, version)
        cost = self._cost("similar_people") + 50 * len(attempted)
        self._bill(call, cache_key, version, cached, cost)
        charged = 0 if cached is not None else cost
        return self._answer({"target": target, "attempted_searches": attempted, "similar_people": similar,
                             "credit_cost": as_number(charged)})

    def op_employee_search(self, call: Call, p: dict[str, Any], base: str, real: bool, *_: Any) -> Answer:
        domain = self._domain(call, p["company_website"], "company_website")
        self._company(call, domain)
        people = self.model.world.employees(domain, str(p["role"]))
        if p.get("country"):
            people = [(k, t) for k, t in people if self.model.world.person(k, t)["country"] == p["country"].upper()]
        key = f"employee_search|{domain}|{' '.join(str(p['role']).lower().split())}|{p.get('country', '')}"
        version = self.model.world.version(domain)
        cached = self._cached(call, p, key, version)
        self._bill(call, key, version, cached, self._cost("employee_search") + 10 * len(people))
        paths = self._paths(base, real)
        return self._answer({"employees": [
            {"first_name": k.first, "last_name": k.last, "role": title, "company_website": f"https://www.{domain}",
             "company_details": f"{paths['details']}?website={quote(domain)}",
             "person_profile": f"{paths['profile']}?id={k.id}",
             "work_email": f"{paths['work_email']}?first_name={quote(k.first)}&last_name={quote(k.last)}"
                           f"&domain={quote(domain)}"} for k, title in people]})

    # -- free operations -----------------------------------------------------------------------
    def op_disposable_email(self, call: Call, p: dict[str, Any], *_: Any) -> Answer:
        domain = email_domain(p["email"])
        if domain is None:
            raise self.model.error(call, 400, f"Parameter 'email' is not an email address: {p['email']!r}.")
        self.model.settle(call, 0)
        return self._answer({"email": p["email"].strip(), "is_disposable_email": domain in DISPOSABLE_EMAIL_DOMAINS,
                             "is_free_email": domain in FREE_EMAIL_DOMAINS})

    def op_credit_balance(self, call: Call, p: dict[str, Any], base: str, real: bool, *_: Any) -> Answer:
        assert call.account is not None
        self.model.settle(call, 0)
        balance = self.model.ledger.balance(call.account, call.now_ms)
        if real and self.model.settings.real_paths_client_shapes:
            # the official client reads credit_balance as a strict integer: the whole credits, and the
            # exact decimal beside it
            return self._answer({"credit_balance": balance // 10, "credit_balance_exact": render(balance)})
        return self._answer({"credit_balance": as_number(balance), "credit_balance_exact": render(balance)})

    # -- monitor -------------------------------------------------------------------------------
    def _feed(self, call: Call, path_params: dict[str, str]) -> Feed:
        assert call.account is not None
        try:
            return self.model.feeds.get(call.account.api_key, path_params.get("feed_id", ""))
        except FeedError as err:
            raise self.model.error(call, err.status, str(err)) from None

    def _object(self, call: Call, body: Any, allowed: frozenset[str]) -> dict[str, Any]:
        if not isinstance(body, dict):
            raise self.model.error(call, 400, "The request body must be a JSON object.")
        unknown = sorted(set(body) - allowed)
        if unknown:
            raise self.model.error(call, 400, f"Unknown field(s): {', '.join(unknown)}.")
        nulls = sorted(name for name, value in body.items() if value is None)
        if nulls:
            raise self.model.error(call, 400, f"Field(s) {', '.join(nulls)} must not be null; leave them out.")
        return body

    def _target_spec(self, call: Call, raw: Any) -> tuple[str, str, dict[str, Any]]:
        spec = self._object(call, raw, TARGET_FIELDS)
        url = spec.get("website_url")
        if not isinstance(url, str) or not url or len(url) > 2048:
            raise self.model.error(call, 400, "website_url is required: a string of 1 to 2048 characters.")
        # a website that is no host name is still watched: its polls report it unreachable
        domain = normalize_website(url) or url.strip().lower()
        try:
            settings = check_settings(spec.get("settings"), DEFAULT_SETTINGS)
        except FeedError as err:
            raise self.model.error(call, err.status, str(err)) from None
        return domain, url, settings

    def _flag(self, call: Call, body: dict[str, Any], name: str) -> bool | None:
        value = body.get(name)
        if value is not None and not isinstance(value, bool):
            raise self.model.error(call, 400, f"{name} must be true or false.")
        return value

    def _text(self, call: Call, body: dict[str, Any], name: str, limit: int = 200) -> str | None:
        value = body.get(name)
        if value is not None and (not isinstance(value, str) or not value or len(value) > limit):
            raise self.model.error(call, 400, f"{name} must be a non-empty string of at most {limit} characters.")
        return value

    def _notifications(self, call: Call, body: dict[str, Any]) -> str | None:
        value = body.get("email_notifications")
        if value is not None and value not in ("skip", "on_updates"):
            raise self.model.error(call, 400, "email_notifications must be skip or on_updates.")
        return value

    def op_list_feeds(self, call: Call, p: dict[str, Any], base: str, *_: Any) -> Answer:
        assert call.account is not None
        self.model.settle(call, 0)
        return self._answer({"feeds": [f.to_json(base, summary=True)
                                       for f in self.model.feeds.owned(call.account.api_key)]})

    def op_create_feed(self, call: Call, p: dict[str, Any], base: str, real: bool, body: Any, *_: Any) -> Answer:
        assert call.account is not None
        spec = self._object(call, body, CREATE_FEED_FIELDS)
        name = self._text(call, spec, "name")
        is_public = self._flag(call, spec, "is_public")
        notifications = self._notifications(call, spec)
        targets = spec.get("targets")
        if not isinstance(targets, list) or not targets:
            raise self.model.error(call, 400, "targets must be a non-empty list.")
        limit = self.model.settings.max_targets_per_feed
        if len(targets) > limit:
            raise self.model.error(call, 409, f"a feed holds at most {limit} targets")
        checked = [self._target_spec(call, t) for t in targets]
        if len({domain for domain, _, _ in checked}) != len(checked):
            raise self.model.error(call, 409, "targets name the same website twice.")
        self.model.settle(call, FEED_CREATE_COST)
        feed = self.model.feeds.create(call.account.api_key, name, bool(is_public), call.now_ms)
        if notifications:
            feed.email_notifications = notifications
        for domain, url, settings in checked:
            self.model.feeds.add_target(feed, domain, url, settings, call.now_ms, limit)
        return self._answer(feed.to_json(base), 201)

    def op_get_feed(self, call: Call, p: dict[str, Any], base: str, real: bool, body: Any,
                    path: dict[str, str]) -> Answer:
        feed = self._feed(call, path)
        self.model.settle(call, 0)
        return self._answer(feed.to_json(base))

    def op_update_feed(self, call: Call, p: dict[str, Any], base: str, real: bool, body: Any,
                       path: dict[str, str]) -> Answer:
        feed = self._feed(call, path)
        spec = self._object(call, body, UPDATE_FEED_FIELDS)
        name = self._text(call, spec, "name")
        is_public = self._flag(call, spec, "is_public")
        suspended = self._flag(call, spec, "is_suspended")
        notifications = self._notifications(call, spec)
        reason = spec.get("suspension_reason")
        if reason is not None and reason != "manual":
            raise self.model.error(call, 400, "suspension_reason can only be set to manual.")
        self.model.settle(call, 0)
        if name is not None:
            feed.name = name
        if is_public is not None:
            feed.is_public = is_public
        if notifications is not None:
            feed.email_notifications = notifications
        if suspended is True:
            feed.is_suspended, feed.suspension_reason = True, "manual"
        elif suspended is False and feed.is_suspended:
            feed.is_suspended, feed.suspension_reason = False, None
            for target in feed.targets.values():
                target.next_poll_ms = max(target.next_poll_ms, call.now_ms)
        return self._answer(feed.to_json(base))

    def op_delete_feed(self, call: Call, p: dict[str, Any], base: str, real: bool, body: Any,
                       path: dict[str, str]) -> Answer:
        feed = self._feed(call, path)
        self.model.settle(call, 0)
        del self.model.feeds.feeds[feed.id]
        return self._answer({"message": "Feed deleted."})

    def op_add_target(self, call: Call, p: dict[str, Any], base: str, real: bool, body: Any,
                      path: dict[str, str]) -> Answer:
        feed = self._feed(call, path)
        domain, url, settings = self._target_spec(call, body)
        try:
            self.model.feeds.add_target(feed, domain, url, settings, call.now_ms,
                                        self.model.settings.max_targets_per_feed)
        except FeedError as err:
            raise self.model.error(call, 409 if err.status == 400 else err.status, str(err)) from None
        self.model.settle(call, 0)
        target = next(t for t in feed.targets.values() if t.domain == domain)
        return self._answer(target.to_json(), 201)

    def _target(self, call: Call, feed: Feed, path: dict[str, str]) -> Any:
        target = feed.targets.get(path.get("target_id", ""))
        if target is None:
            raise self.model.error(call, 404, "Target not found.")
        return target

    def op_update_target(self, call: Call, p: dict[str, Any], base: str, real: bool, body: Any,
                         path: dict[str, str]) -> Answer:
        feed = self._feed(call, path)
        target = self._target(call, feed, path)
        spec = self._object(call, body, frozenset({"settings"}))
        if "settings" not in spec:
            raise self.model.error(call, 400, "settings is required.")
        try:
            settings = check_settings(spec["settings"], target.settings)
        except FeedError as err:
            raise self.model.error(call, err.status, str(err)) from None
        self.model.settle(call, 0)
        target.settings = settings
        return self._answer(target.to_json())

    def op_remove_target(self, call: Call, p: dict[str, Any], base: str, real: bool, body: Any,
                         path: dict[str, str]) -> Answer:
        feed = self._feed(call, path)
        target = self._target(call, feed, path)
        self.model.settle(call, 0)
        del feed.targets[target.id]
        return self._answer({"message": "Target deleted."})

    def op_feed_rss(self, call: Call, p: dict[str, Any], base: str, real: bool, body: Any,
                    path: dict[str, str]) -> Answer:
        feed = self._feed(call, path)
        self.model.settle(call, 0)
        return self._answer(self.model.feeds.rss(feed, base), media_type="text/xml")

    def consume(self, call: Call, feed_id: str) -> dict[str, Any]:
        feed = self._feed(call, {"feed_id": feed_id})
        self.model.settle(call, 0)
        return {"feed_id": feed.id, "is_suspended": feed.is_suspended, "suspension_reason": feed.suspension_reason,
                "items": self.model.feeds.consume(feed)}


def hash_id(domain: str) -> int:
    return int(unit("customer-id", domain) * 10**12)


def products(seed: int, locale: str, domain: str, record: dict[str, Any]) -> list[dict[str, Any]]:
    from .data import pools, rng
    from .world import PRICING_MODELS

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
