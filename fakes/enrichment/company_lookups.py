"""The company operations: details, headcount, funding, updates, website, logo and the listings."""

from __future__ import annotations

import base64
from typing import Any
from urllib.parse import quote

from fakes.kernel.http import dumps

from .calls import Answer, Call
from .credits import as_number, tenths
from .data import logo_png, normalize_website, unit
from .generated import iso_ms
from .lookup_base import LookupBase
from .products import products

RENDERED_CACHE_SIZE = 4096


class CompanyLookups(LookupBase):
    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.rendered: dict[tuple[str, int, str, bool], bytes] = {}
        self.details_memo: dict[tuple[Any, ...], tuple[str, str, int]] = {}
        self.details_cap = tenths(self.settings.details_max_cost)

    # -- company operations --------------------------------------------------------------------
    def op_company_details(self, call: Call, p: dict[str, Any], base: str, real: bool, *_: Any) -> Answer:
        # the hot path of the service (the benchmark's sample request): what depends only on the
        # parameters is worked out once per distinct request
        flags = (p["website"], p.get("include_employee_count"), p.get("follower_count"), p.get("addresses"))
        known = self.details_memo.get(flags)
        if known is None or not self.world.known(known[0]):
            domain = self._domain(call, p["website"])
            self._company(call, domain, charge_like_real=self.settings.cost("company_details"))
            exhaustive = p.get("addresses") == "best-effort-exhaustive"
            key = (f"company_details|{domain}|{bool(p.get('include_employee_count'))}|{p.get('follower_count')}"
                   f"|{exhaustive}")
            cost = self._cost("company_details") + 20 * bool(p.get("include_employee_count")) \
                + 10 * (p.get("follower_count") == "include") + 20 * exhaustive
            if len(self.details_memo) >= RENDERED_CACHE_SIZE:
                self.details_memo.clear()
            known = self.details_memo[flags] = (domain, key, min(cost, self.details_cap))
        domain, key, cost = known
        version = self.world.version(domain)
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
        return Answer(raw, 200, "application/json")

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
            for person, role, title in self.world.executives(domain)]
        body["similar_companies"] = f"{paths['competitors']}?website={q}"
        body["updates"] = f"{paths['updates']}?website={q}"
        body["funding"] = f"{paths['funding']}?website={q}"
        return body

    def op_employee_count(self, call: Call, p: dict[str, Any], *_: Any) -> Answer:
        domain = self._domain(call, p["website"])
        record = self._company(call, domain)
        key, version = f"employee_count|{domain}", self.world.version(domain)
        cached = self._cached(call, p, key, version)
        self._bill(call, key, version, cached, self._cost("employee_count"))
        return self._answer({"employee_count": record["employee_count"]})

    def op_company_funding(self, call: Call, p: dict[str, Any], *_: Any) -> Answer:
        """Rounds newest first. Without data the answer is still a 200 (the reference: the body streams, so a
        late failure cannot change the status): ``error_code`` no_funding_data, the base charged, nothing
        cached; a transient failure is service_temp_unavailable, never charged."""
        domain = normalize_website(p["website"])
        website = domain or " ".join(str(p["website"]).split())  # a name is taken too: it finds no data
        key, version = f"company_funding|{website.lower()}", self.world.version(domain) if domain else 0
        cached = self._cached(call, p, key, version)
        if cached is None and self.outages.wait_s(key, call.now_ms) is not None:
            call.headers[self.settings.cost_header] = "0"  # never charged
            return self._funding(website, [], 0, "service_temp_unavailable",
                                 "Funding data is unavailable for now; retry later.")
        rounds = self.world.funding_rounds(domain) if domain and self.world.company(domain) else []
        if not rounds:
            base = self._cost("company_funding")
            self.billing.settle(call, base)
            call.headers[self.settings.cache_age_header] = "0"
            return self._funding(website, [], max(base, self.billing.minimum_tenths), "no_funding_data",
                                 f"No funding data could be found for {website}.")
        investors = self.world.derived(("funding-investors", domain),
                                       lambda: len({inv["name"] for r in rounds for inv in r["investors"]}))
        cost = self._cost("company_funding") + 10 * investors
        self._bill(call, key, version, cached, cost)
        charged = 0 if cached is not None else max(cost, self.billing.minimum_tenths)
        # the answer depends on the world, the name asked and the charge alone: rendered once each
        return self._answer(self.world.derived(("funding-answer", domain, website, charged), lambda: dumps(
            self._funding(website, sorted(rounds, key=lambda r: str(r["date"] or ""), reverse=True),
                          charged).body)))

    def _funding(self, website: str, rounds: list[dict[str, Any]], charged: int, error_code: str | None = None,
                 error: str | None = None) -> Answer:
        body: dict[str, Any] = {
            "website": website,
            "total_funds_raised_usd": sum(int(r.get("amount_usd") or 0) for r in rounds) if rounds else None,
            "credit_cost": as_number(charged), "funding_rounds": rounds}
        if error_code:
            body.update(error=error, error_code=error_code)
        return self._answer(body)

    def op_company_updates(self, call: Call, p: dict[str, Any], base: str, real: bool, *_: Any) -> Answer:
        domain = self._domain(call, p["website"])
        record = self._company(call, domain)
        key, version = f"company_updates|{domain}", self.world.version(domain)
        cached = self._cached(call, p, key, version)
        self._bill(call, key, version, cached, self._cost("company_updates"))
        as_of = cached if cached is not None else call.now_ms
        shapes = real and self.settings.real_paths_client_shapes
        # the same instant's updates are the same bytes until the world changes
        return self._answer(self.world.derived(("updates", domain, as_of, shapes),
                                               lambda: dumps(self._updates_body(domain, record, as_of, shapes))))

    def _updates_body(self, domain: str, record: dict[str, Any], as_of: int, shapes: bool) -> dict[str, Any]:
        items = self.world.updates(domain, as_of, rate_per_week=self.settings.item_rate_per_week, limit=20)
        if shapes:
            items = [i for i in items if i["source"] != "youtube"]
        handle = record["_x_handle"]
        return {
            "blogs": [f"https://www.{domain}/blog/rss.xml"], "x_profile": f"https://x.com/{handle}",
            "youtube_channels": [f"https://www.youtube.com/@{handle}"],
            "updates": [{k: v for k, v in i.items() if not k.startswith("_")} for i in items],
            "timestamp": iso_ms(as_of)}

    def op_company_website(self, call: Call, p: dict[str, Any], *_: Any) -> Answer:
        name = " ".join(str(p["company_name"]).split())
        country = str(p.get("country_code", "us")).lower()
        if len(country) != 2 or not country.isascii() or not country.isalpha():
            raise self.billing.error(call, 400, "Parameter 'country_code' must be an ISO 3166-1 alpha-2 code.")
        stem = "".join(ch for ch in name.lower() if ch.isascii() and ch.isalnum())
        domain = f"{stem}.com" if stem else None
        if domain is None or not self.world.known(domain):
            charged = self.billing.charge_failure(call, self.settings.cost("company_website"))
            raise self.billing.error(call, 404, f"No website found for {name!r}.", charged=charged)
        key, version = f"company_website|{stem}|{country}", self.world.version(domain)
        cached = self._cached(call, p, key, version)
        self._bill(call, key, version, cached, self._cost("company_website"))
        return self._answer({"website": f"https://www.{domain}"})

    def op_company_logo(self, call: Call, p: dict[str, Any], *_: Any) -> Answer:
        domain = self._domain(call, p["website"])
        self._company(call, domain)
        self.billing.settle(call, 0)
        return self._answer(logo_png(self.seed, domain), media_type="image/png")

    def op_customer_listing(self, call: Call, p: dict[str, Any], base: str, real: bool, *_: Any) -> Answer:
        domain = self._domain(call, p["website"])
        self._company(call, domain)
        offset = self._cursor(call, p.get("cursor"))
        size = int(p.get("page_size", 200))
        world = self.world
        weak = p.get("quality_filter") is False
        entries = world.derived(("customer-entries", domain, weak), lambda: self._customer_entries(domain, weak))
        page = entries[offset:offset + size]
        key = f"customer_listing|{domain}|{offset}|{size}|{p.get('quality_filter', True)}"
        version = world.version(domain)
        cached = self._cached(call, p, key, version)
        self._bill(call, key, version, cached, self._cost("customer_listing") + 20 * len(page))
        page_key = ("customer-page", domain, weak, offset, size, base, real)
        return self._answer(world.derived(page_key, lambda: dumps(
            self._customer_page(domain, entries, offset, size, base, real))))

    def _customer_page(self, domain: str, entries: list[tuple[str, str]], offset: int, size: int, base: str,
                       real: bool) -> dict[str, Any]:
        paths = self._paths(base, real)
        body: dict[str, Any] = {"customers": [], "investors": [], "partner_platforms": []}
        for kind, other in entries[offset:offset + size]:
            body[kind].append(self._company_item(other, paths))
        next_offset = offset + size
        listing = f"{base}{'/api' if real else ''}/v1/customer/listing"
        body["next_page"] = (f"{listing}?website={quote(domain)}&cursor={self._encode_cursor(next_offset)}"
                             f"&page_size={size}" if next_offset < len(entries) else None)
        return body

    def _customer_entries(self, domain: str, weak: bool) -> list[tuple[str, str]]:
        """(kind, domain) of a company's customers, investors and partners, in the listing's order."""
        world = self.world
        investors = []
        for round_ in world.funding_rounds(domain):
            for inv in round_["investors"]:
                site = normalize_website(inv["website"]) if inv.get("website") else None
                if site and site not in investors:
                    investors.append(site)
        entries = ([("customers", d) for d in world.customers(domain)] + [("investors", d) for d in investors]
                   + [("partner_platforms", d) for d in world.partners(domain)])
        if weak:  # low-confidence matches, left out by default
            entries += [("customers", d) for d in world.related(domain, "weak-customer", 3)]
        return entries

    def _company_item(self, domain: str, paths: dict[str, str]) -> dict[str, Any]:
        """A listed company (shared while the world does not change: read only)."""
        return self.world.derived(("item", domain, paths["logo"]), lambda: self._new_company_item(domain, paths))

    def _new_company_item(self, domain: str, paths: dict[str, str]) -> dict[str, Any]:
        record = self.world.company(domain) or {}
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
            raise self.billing.error(call, 404, f"Unknown cursor {raw!r}: pass next_page's cursor unchanged.") from None

    def op_competitor_listing(self, call: Call, p: dict[str, Any], base: str, real: bool, *_: Any) -> Answer:
        domain = self._domain(call, p["website"])
        self._company(call, domain)
        key, version = f"competitor_listing|{domain}", self.world.version(domain)
        cached = self._cached(call, p, key, version)
        competitors = self.world.competitors(domain)
        self._bill(call, key, version, cached, max(50, self._cost("competitor_listing") + 20 * len(competitors)))
        details = self._paths(base, real)["details"]
        return self._answer(self.world.derived(("competitor-answer", domain, details), lambda: dumps({"competitors": [
            {"company_details_url": f"{details}?website={quote(other)}", "website": f"https://www.{other}",
             "competition_reason": reason} for other, reason in competitors]})))

    def op_product_listing(self, call: Call, p: dict[str, Any], *_: Any) -> Answer:
        domain = self._domain(call, p["website"])
        record = self._company(call, domain)
        key, version = f"product_listing|{domain}", self.world.version(domain)
        cached = self._cached(call, p, key, version)
        if cached is None:
            self._live(call, key, "Website crawling is at capacity for now; retry")
        self._bill(call, key, version, cached, self._cost("product_listing"))
        locale = self.settings.locale
        listed = self.world.derived(("products", domain),
                                    lambda: dumps({"products": products(self.seed, locale, domain, record)}))
        return self._answer(listed)



def hash_id(domain: str) -> int:
    return int(unit("customer-id", domain) * 10**12)
