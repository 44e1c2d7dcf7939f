"""The person operations (profile, work email, similar people, employee search) and the free
contact and balance operations."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from fakes.kernel.errors import ServiceError
from fakes.kernel.http import dumps

from .calls import Answer, Call
from .credits import as_number, render
from .data import DISPOSABLE_EMAIL_DOMAINS, FREE_EMAIL_DOMAINS, ROLE_MAILBOXES, email_domain, normalize_website
from .lookup_base import LookupBase
from .world import SEARCH_ROLES, PersonKey

MISS_COST = 5  # tenths: a work-email miss costs 0.5


class PeopleLookups(LookupBase):
    # -- people --------------------------------------------------------------------------------
    def _person(self, call: Call, p: dict[str, Any]) -> tuple[PersonKey, str | None]:
        world = self.world
        if p.get("id"):
            key = PersonKey.from_id(p["id"])
            if key is None or world.company(key.domain) is None:
                raise self.billing.error(call, 404, "No person found with this id.")
            return key, None
        if p.get("slug"):
            person_id = world.slugs.get(str(p["slug"]).lower())
            key = PersonKey.from_id(person_id) if person_id else None
            if key is None:
                raise self.billing.error(call, 404, "No person found with this slug.")
            return key, None
        if p.get("work_email"):
            domain = email_domain(p["work_email"])
            if domain is None:
                raise self.billing.error(call, 400, f"Parameter 'work_email' is not an email address: "
                                                  f"{p['work_email']!r}.")
            if domain in FREE_EMAIL_DOMAINS or domain in DISPOSABLE_EMAIL_DOMAINS:
                raise self.billing.error(call, 400, "work_email is a personal address; pass a work email.")
            local = p["work_email"].split("@", 1)[0].lower()
            if local in ROLE_MAILBOXES:
                raise self.billing.error(call, 404, f"{p['work_email']} is a role mailbox, not a person.")
            first, _, last = local.partition(".")
            found = world.person_by_name(domain, first.capitalize(), last.capitalize() or None)
            if found is None:
                raise self.billing.error(call, 404, "No person found for this work email.")
            return found, None
        if p.get("employer_website") and p.get("first_name"):
            domain = self._domain(call, p["employer_website"], "employer_website")
            found = world.person_by_name(domain, p["first_name"], p.get("last_name"))
            if found is None:
                raise self.billing.error(call, 404, "No person found at this employer with this name.")
            return found, None
        if p.get("employer_website") and p.get("role"):
            domain = self._domain(call, p["employer_website"], "employer_website")
            role = str(p["role"])
            for person, code, title in world.executives(domain) if world.company(domain) else []:
                if role.upper() == code or role.lower() == title.lower():
                    return person, title
            people = world.employees(domain, role)
            if not people:
                raise self.billing.error(call, 404, f"No {role!r} found at {domain}.")
            return people[0]
        raise self.billing.error(call, 404, "No person found: pass one of work_email; first_name with "
                                          "employer_website; employer_website with role; slug; id.")

    def op_person_profile(self, call: Call, p: dict[str, Any], *_: Any) -> Answer:
        try:
            key, title = self._person(call, p)
        except ServiceError as err:
            if err.status == 404:
                charged = self.billing.charge_failure(call, self.settings.cost("person_profile"))
                raise self.billing.error(call, 404, err.message, charged=charged) from None
            raise
        cache_key, version = f"person_profile|{key.id}", self.world.version(key.domain)
        cached = self._cached(call, p, cache_key, version)
        fast = p.get("enrichment") == "fast"
        if cached is None:
            self._live(call, cache_key)
            self._bill(call, cache_key, version, cached, self._cost("person_profile"))
            if fast and self.settings.detailed_enrichment_s:  # the detailed profile is enriched meanwhile
                self.billing.start_detail(call, cache_key, call.now_ms + self.settings.detailed_enrichment_s * 1000)
            else:
                self.billing.finish_detail(call, cache_key)
            pending = fast and self.settings.detailed_enrichment_s > 0
        else:
            self._bill(call, cache_key, version, cached, 0)
            pending = self.billing.detail_pending(call, cache_key)
            if pending and not fast:  # enrichment=detailed waits for it: on the virtual clock, no time at all
                self.billing.finish_detail(call, cache_key)
                pending = False
        if "/v2/" in call.route_path:  # the header of the v2 paths
            call.headers[self.settings.enrichment_status_header] = "pending" if pending else "complete"
        # the person's answer is the same bytes until the world changes (person() records the slug
        # it serves the first time; the world forgets these bytes when its state is replaced)
        return self._answer(self.world.derived(("profile", key.id, title, pending),
                                               lambda: dumps(self.profile_body(key, title, fast=pending))))

    def profile_body(self, key: PersonKey, title: str | None, *, fast: bool = False) -> dict[str, Any]:
        """The profile; the fast one (enrichment=fast, detailed enrichment still running) leaves out what
        the detailed enrichment adds: the picture and the personal website."""
        profile = self.world.person(key, title)
        if fast:
            profile = {**profile, "profile_pic_url": None, "personal_website": None}
        return profile

    def op_work_email(self, call: Call, p: dict[str, Any], *_: Any) -> Answer:
        domain = self._domain(call, p["domain"], "domain")
        first, last = str(p["first_name"]).strip(), p.get("last_name")
        email = self.world.work_email(domain, first, last, self.settings.work_email_hit_share)
        key = f"work_email|{domain}|{first.lower()}|{str(last or '').lower()}"
        version = self.world.version(domain)
        cached = self._cached(call, p, key, version)
        if cached is None:
            self._live(call, key)
        self._bill(call, key, version, cached, self._cost("work_email") if email else MISS_COST)
        return self._answer({"work_email": email})

    def op_similar_people(self, call: Call, p: dict[str, Any], base: str, real: bool, *_: Any) -> Answer:
        key, title = self._person(call, p)
        world = self.world
        target, attempted, similar = world.derived(("similar", key.id, title), lambda: self._similar(key, title))
        cache_key, version = f"similar_people|{key.id}", world.version(key.domain)
        cached = self._cached(call, p, cache_key, version)
        cost = self._cost("similar_people") + 50 * len(attempted)
        if cached is None:
            self._live(call, cache_key)
        self._bill(call, cache_key, version, cached, cost)
        charged = 0 if cached is not None else cost
        return self._answer(world.derived(("similar-answer", key.id, title, charged), lambda: dumps(
            {"target": target, "attempted_searches": attempted, "similar_people": similar,
             "credit_cost": as_number(charged)})))

    def _similar(self, key: PersonKey, title: str | None) -> tuple[dict[str, Any], list[dict[str, Any]],
                                                                    list[dict[str, Any]]]:
        """The target's profile, the searches tried and the people found (shared: read only)."""
        world = self.world
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
        return target, attempted, similar

    def op_employee_search(self, call: Call, p: dict[str, Any], base: str, real: bool, *_: Any) -> Answer:
        domain = self._domain(call, p["company_website"], "company_website")
        self._company(call, domain)
        role, country = str(p["role"]), p.get("country") or ""
        # the people and the rendered answer depend on the world alone: kept until it changes
        count, rendered = self.world.derived(("employee-search", domain, role, country, base, real),
                                             lambda: self._employee_search(domain, role, country, base, real))
        key = f"employee_search|{domain}|{' '.join(role.lower().split())}|{country}"
        version = self.world.version(domain)
        cached = self._cached(call, p, key, version)
        if cached is None:
            self._live(call, key)
        self._bill(call, key, version, cached, self._cost("employee_search") + 10 * count)
        return self._answer(rendered)

    def _employee_search(self, domain: str, role: str, country: str, base: str, real: bool) -> tuple[int, bytes]:
        people = self.world.employees(domain, role)
        if country:
            people = [(k, t) for k, t in people if self.world.person(k, t)["country"] == country.upper()]
        paths = self._paths(base, real)
        return len(people), dumps({"employees": [
            {"first_name": k.first, "last_name": k.last, "role": title, "company_website": f"https://www.{domain}",
             "company_details": f"{paths['details']}?website={quote(domain)}",
             "person_profile": f"{paths['profile']}?id={k.id}",
             "work_email": f"{paths['work_email']}?first_name={quote(k.first)}&last_name={quote(k.last)}"
                           f"&domain={quote(domain)}"} for k, title in people]})

    # -- free operations -----------------------------------------------------------------------
    def op_disposable_email(self, call: Call, p: dict[str, Any], *_: Any) -> Answer:
        domain = email_domain(p["email"])
        if domain is None:
            raise self.billing.error(call, 400, f"Parameter 'email' is not an email address: {p['email']!r}.")
        self.billing.settle(call, 0)
        return self._answer({"email": p["email"].strip(), "is_disposable_email": domain in DISPOSABLE_EMAIL_DOMAINS,
                             "is_free_email": domain in FREE_EMAIL_DOMAINS})

    def op_credit_balance(self, call: Call, p: dict[str, Any], base: str, real: bool, *_: Any) -> Answer:
        assert call.account is not None
        self.billing.settle(call, 0)
        balance = self.ledger.balance(call.account, call.now_ms)
        if real and self.settings.real_paths_client_shapes:
            # the official client reads credit_balance as a strict integer: the whole credits, and the
            # exact decimal beside it
            return self._answer({"credit_balance": balance // 10, "credit_balance_exact": render(balance)})
        return self._answer({"credit_balance": as_number(balance), "credit_balance_exact": render(balance)})

