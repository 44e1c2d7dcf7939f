"""The relay's catalogue as one model sees it: the shared generated catalogue plus this model's
own additions (providers and entries added through the control plane or an imported state),
searched, viewed and extended here. Part of :class:`fakes.relay.model.RelayModel`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from fakes.kernel.errors import ControlError
from fakes.kernel.http import dumps

from . import catalogue, data
from .catalogue import Catalogue, Entry, Provider
from .headers import Headers
from .settings import RelaySettings

#: the kinds an added entry may have: the simulated upstream's answer shapes, and an asynchronous
#: submission and its poll (fakes/relay/asyncjobs.py)
ENTRY_KINDS = ("email", "verify", "person", "match", "company", "people", "lookalikes", "jobs", "list", "write",
               "generic", "async", "async_poll")
#: treg's status marks: a marked entry answers 410 and is out of search
ENTRY_STATUSES = ("retired", "broken")
#: catalogue answers kept per model, and the longest query kept (longer ones are worked out each time)
MAX_VIEWS = 4096
T = TypeVar("T")
MAX_VIEW_KEY = 256


class CatalogueOverlay:
    """The catalogue part of the relay's model (the model sets these attributes)."""

    settings: RelaySettings
    seed: int
    h: Headers  # the relay's header names (their prefix is in call templates)
    base: Catalogue
    extra_providers: dict[str, Provider]
    extra_entries: dict[str, Entry]
    extra_routes: dict[tuple[str, str, str], str]
    provider_specs: dict[str, dict[str, Any]]  # the bodies they were added with (the state export)
    entry_specs: dict[str, dict[str, Any]]
    #: catalogue id -> (entry, provider, path, routed, required parameters); emptied when entries change
    _targets: dict[str, tuple[Entry, str, str, bool, tuple[str, ...]]]
    #: (catalogue id, query) -> what a repeated call needs (:mod:`fakes.relay.plans`); emptied likewise
    _plans: dict[tuple[str, str], Any]
    #: what the catalogue's reads answer (searches, an entry's detail, the platforms), kept until
    #: the catalogue changes: a pure function of its entries and providers. Shared by every caller,
    #: so never changed by one
    _views: dict[tuple[Any, ...], Any]

    def _catalogue_changed(self) -> None:
        """Entries or providers changed: what calls resolve to and what the reads show are worked out again."""
        self._targets.clear()
        self._plans.clear()
        self.__dict__.pop("_views", None)

    def _view(self, key: tuple[Any, ...], make: Callable[[], Any]) -> Any:
        """``make()``, kept under ``key`` until the catalogue changes (a bounded table: past
        :data:`MAX_VIEWS` answers it starts over; a long query is worked out every time)."""
        views = self.__dict__.get("_views")
        if views is None:  # made at the first read: a world that never reads the catalogue keeps 29 attributes
            views = self._views = {}
        found = views.get(key)
        if found is None:
            found = make()
            if sum(len(part) for part in key if isinstance(part, str)) <= MAX_VIEW_KEY:
                if len(views) >= MAX_VIEWS:
                    views.clear()
                views[key] = found
        return found

    def entry(self, entry_id: str) -> Entry | None:
        return self.extra_entries.get(entry_id) or self.base.entries.get(entry_id)

    def provider(self, service: str) -> Provider | None:
        return self.extra_providers.get(service) or self.base.providers.get(service)

    def all_entries(self) -> list[Entry]:
        """Every entry of the catalogue and this model's own (iterate it, never change it)."""
        if not self.extra_entries:
            return self.base.all_entries()  # the shared catalogue's own list: no copy per call
        return [*self.base.entries.values(), *(e for k, e in self.extra_entries.items() if k not in self.base.entries)]

    def all_providers(self) -> list[Provider]:
        return [*self.base.providers.values(),
                *(p for k, p in self.extra_providers.items() if k not in self.base.providers)]

    def provider_for_host(self, host: str) -> str | None:
        for service, prov in self.extra_providers.items():
            if prov["host"] == host:
                return service
        return self.base.by_host.get(host)

    def entry_for_route(self, provider: str, method: str, path: str) -> Entry | None:
        found = self.extra_routes.get((provider, method, path)) or self.base.by_route.get((provider, method, path))
        return self.entry(found) if found else None

    def rendered(self, key: tuple[Any, ...], make: Callable[[], Any]) -> bytes:
        """The JSON bytes of ``make()`` (a catalogue read), kept like the reads themselves."""
        found: bytes = self._view(("json", *key), lambda: dumps(make()))
        return found

    def with_facts(self, key: tuple[Any, ...], facts: Any, make: Callable[[], T]) -> T:
        """``make()``, a function of the catalogue and of ``facts`` (what it reads beyond the
        catalogue, as a value compared with ``==``): kept with the facts it was made from, like the
        catalogue's reads (until it changes); asked again with equal facts, the same answer."""
        held: list[Any] = self._view(("facts", *key), list)
        if held and held[0] == facts:
            found: T = held[1]
            return found
        value = make()
        held[:] = [facts, value]
        return value

    def catalogue_text(self, key: tuple[Any, ...], make: Callable[[], str]) -> str:
        """A page worked out from the catalogue and the settings alone, kept like the reads themselves."""
        found: str = self._view(("text", *key), make)
        return found

    def entries_of(self, provider: str) -> list[Entry]:
        """A provider's entries, by id."""
        found: list[Entry] = self._view(("entries", provider), lambda: sorted(
            (e for e in self.all_entries() if e["provider"] == provider), key=lambda e: str(e["id"])))
        return found

    def curated_groups(self) -> list[tuple[str, list[Entry]]]:
        """The curated, unrouted entries by capability (both sorted): the use-cases page's rows."""
        def make() -> list[tuple[str, list[Entry]]]:
            groups: dict[str, list[Entry]] = {}
            for entry in self.all_entries():
                if entry["curated"] and not entry.get("candidates"):
                    groups.setdefault(entry["capability"], []).append(entry)
            return [(capability, sorted(groups[capability], key=lambda e: str(e["id"])))
                    for capability in sorted(groups)]

        found: list[tuple[str, list[Entry]]] = self._view(("curated",), make)
        return found

    def curated_ids(self) -> list[str]:
        """The ids of :meth:`curated_groups`' entries, in the page's order."""
        found: list[str] = self._view(("curated-ids",), lambda: [
            str(entry["id"]) for _capability, entries in self.curated_groups() for entry in entries])
        return found

    def search(self, query: str, limit: int) -> dict[str, Any]:
        """Entries matching ``query``'s words (most words first, curated first), at most ``limit``."""
        found: dict[str, Any] = self._view(("search", query, limit), lambda: self._search(query, limit))
        return found

    def _search(self, query: str, limit: int) -> dict[str, Any]:
        words = [w for w in query.lower().replace(".", " ").replace("-", " ").split() if w]
        scored: list[tuple[int, str, Entry]] = []
        if not words and not self.extra_entries:
            listing = self.base.listing()
            return self._found(query, listing[:limit], len(listing))
        if not words:
            scored = [(0 if entry["curated"] else 1, entry["id"], entry) for entry in self.all_entries()
                      if not entry.get("status")]
        else:
            found = self.base.matches(words)
            for entry_id, extra in self.extra_entries.items():  # an overlay entry replaces the base one
                text = catalogue.haystack(extra)
                hits = sum(1 for word in words if word in text) if not extra.get("status") else 0
                if hits:
                    found[entry_id] = (hits, extra)
                else:
                    found.pop(entry_id, None)
            scored = [(-hits * 10 - (3 if entry["curated"] else 0), entry_id, entry)
                      for entry_id, (hits, entry) in found.items()]
        scored.sort(key=lambda row: (row[0], row[1]))
        return self._found(query, [e for _, _, e in scored[:limit]], len(scored))

    def _found(self, query: str, shown: list[Entry], total: int) -> dict[str, Any]:
        results = [self.endpoint_view(e) for e in shown]
        hints = [] if results else ["no endpoint matches; try fewer words, e.g. 'email find' or 'company enrich'"]
        if results and any(e["provider"] == self.settings.relay_name for e in shown):
            hints.append(f"{self.settings.relay_name}.* ids are routed: the relay picks the cheapest usable provider")
        return {"query": query, "count": len(results), "total": total, "results": results, "hints": hints}

    def endpoint_view(self, entry: Entry) -> dict[str, Any]:
        provider = self.provider(entry["provider"])
        return {"id": entry["id"], "provider": entry["provider"],
                "provider_display": provider["display_name"] if provider else entry["provider"],
                "summary": entry["summary"], "method": entry["method"], "path": entry["path"],
                "scope": entry["scope"], "domain": entry["domain"], "capability": entry["capability"],
                "platform": entry["platform"], "call_template": catalogue.call_template(entry, self.h.prefix),
                "cost": self.cost_view(entry, provider), "async": entry.get("async"),
                "status": entry.get("status") or None, "status_note": entry.get("status_note") or None,
                "superseded_by": entry.get("superseded_by") or None,
                "verified": entry["verified"], "docs_url": entry["docs_url"],
                "has_example": True, "input": entry["input"], "curated": entry["curated"],
                "routed": bool(entry.get("candidates"))}

    @staticmethod
    def cost_view(entry: Entry, provider: Provider | None) -> dict[str, Any] | None:
        """The entry's price as the catalogue shows it: a $0 price of a trial pool travels with the
        pool's daily allowance per team (treg's ``cost_view``: a bare $0 would read as unlimited)."""
        price: dict[str, Any] | None = entry["cost"]
        if price is not None and price["value"] == 0 and provider is not None and provider.get("trial_allowance"):
            return {**price, "trial_calls_per_team_day": provider["trial_allowance"]}
        return price

    def endpoint_detail(self, entry_id: str) -> dict[str, Any] | None:
        found: dict[str, Any] | None = self._view(("detail", entry_id), lambda: self._endpoint_detail(entry_id))
        return found

    def _endpoint_detail(self, entry_id: str) -> dict[str, Any] | None:
        entry = self.entry(entry_id)
        if entry is None:
            return None
        provider = self.provider(entry["provider"])
        # treg's siblings: the same job from the other entries of its capability, as rows (the CLI's
        # `catalog get` tabulates them), none marked retired or broken
        siblings = [self.endpoint_view(e) for e in sorted(
            (e for e in self.all_entries() if e["capability"] == entry["capability"] and e["id"] != entry_id
             and not e.get("status")), key=lambda e: str(e["id"]))[:10]]
        example = self.example_response(entry)
        return {"endpoint": self.endpoint_view(entry),
                "provider": ({k: provider[k] for k in ("service", "display_name", "limits", "pricing_url", "docs")}
                             if provider else {"service": entry["provider"], "display_name": "routed",
                                               "limits": {}, "pricing_url": None, "docs": None}),
                "siblings": siblings, "call_template": catalogue.call_template(entry, self.h.prefix),
                "example_response": example, "candidates": entry.get("candidates", []),
                "hints": [] if entry["cost"] else ["no published price: call it with your own key "
                                                   "(a registered tool or a stored secret)"]}

    def example_response(self, entry: Entry) -> Any:
        params = catalogue.example_params(entry)
        rng = data.rng_for(self.seed, entry["id"], sorted(params.items()))
        return data.answer(entry["kind"], rng, params, 2)

    def platforms(self) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = self._view(("platforms",), self._platforms)
        return found

    def platform(self, slug: str) -> dict[str, Any] | None:
        """One provider's entries grouped by capability (None: no such provider)."""
        found: dict[str, Any] | None = self._view(("platform", slug), lambda: self._platform(slug))
        return found

    def _platform(self, slug: str) -> dict[str, Any] | None:
        entries = self.entries_of(slug)
        if not entries:
            return None
        grouped: dict[str, list[dict[str, Any]]] = {}
        for entry in entries:
            grouped.setdefault(entry["capability"], []).append(self.endpoint_view(entry))
        provider = self.provider(slug) or {}
        return {
            "platform": {"slug": slug, "label": provider.get("display_name", slug), "category": "web"},
            "capabilities": [{"id": cap, "description": cap, "endpoints": sorted(views, key=lambda v: str(v["id"]))}
                             for cap, views in sorted(grouped.items())],
            "extended": [], "hidden_count": 0,
            "domains": sorted({e["domain"] for e in entries}),
            "providers": {slug: {"service": slug, "display_name": provider.get("display_name", slug),
                                 "limits": provider.get("limits", {}), "pricing_url": provider.get("pricing_url"),
                                 "docs": provider.get("docs")}}}

    def _platforms(self) -> list[dict[str, Any]]:
        rows: dict[str, dict[str, Any]] = {}
        for entry in self.all_entries():
            row = rows.setdefault(entry["provider"], {"slug": entry["provider"], "endpoints": 0, "priced": 0})
            row["endpoints"] += 1
            row["priced"] += 1 if entry["cost"] else 0
        for row in rows.values():
            provider = self.provider(row["slug"])
            row["display_name"] = provider["display_name"] if provider else "routed capabilities"
            row["host"] = provider["host"] if provider else None
        return sorted(rows.values(), key=lambda r: r["slug"])

    def add_provider(self, body: dict[str, Any]) -> Provider:
        service = body.get("provider")
        if not isinstance(service, str) or not service.replace("-", "").isalnum() or not service.islower():
            raise ControlError(400, "provider must be a lower-case slug (letters, digits, -)", code="invalid_body")
        if self.provider(service) is not None or service == self.settings.relay_name:
            raise ControlError(409, f"provider {service!r} exists already", code="conflict")
        host = body.get("host", f"api.{service}.example")
        if not isinstance(host, str) or not host or "/" in host:
            raise ControlError(400, "host must be a host name", code="invalid_body")
        if self.provider_for_host(host):
            raise ControlError(409, f"host {host!r} belongs to another provider", code="conflict")
        allowance = body.get("trial_allowance")
        if allowance is not None and (not isinstance(allowance, int) or isinstance(allowance, bool)
                                      or not 1 <= allowance <= 10**6):
            raise ControlError(400, "trial_allowance must be an integer from 1 to 10^6", code="invalid_body",
                               field="trial_allowance")
        prov = {"service": service, "display_name": str(body.get("display_name", data.display_name(service))),
                "host": host, "runs_on_relay": False, "limits": {"per_minute": self.settings.upstream_rate_limit},
                "pricing_url": f"https://{host}/pricing", "docs": f"https://{host}/docs"}
        if allowance is not None:  # a trial pool: its $0 entries are capped per team and UTC day
            prov["trial_allowance"] = allowance
        self.extra_providers[service] = prov
        self.provider_specs[service] = dict(body)
        self._catalogue_changed()
        return prov

    def add_entry(self, body: dict[str, Any]) -> Entry:
        entry_id, method, path = body.get("id"), str(body.get("method", "GET")).upper(), body.get("path")
        if not isinstance(entry_id, str) or entry_id.count(".") < 2 or " " in entry_id:
            raise ControlError(400, "id must be a dotted <provider>.<area>.<action>", code="invalid_body")
        service = entry_id.split(".")[0]
        prov = self.provider(service)
        if prov is None:
            raise ControlError(404, f"no provider {service!r}; add it first (POST /_fake/providers)", code="not_found")
        if self.entry(entry_id) is not None:
            raise ControlError(409, f"entry {entry_id!r} exists already", code="conflict")
        if method not in ("GET", "POST") or not isinstance(path, str) or not path.startswith("/"):
            raise ControlError(400, "method must be GET or POST and path must start with /", code="invalid_body")
        params = body.get("params", {})
        if not isinstance(params, dict) or not all(isinstance(v, dict) for v in params.values()):
            raise ControlError(400, "params maps names to {type, required, example}", code="invalid_body")
        price = body.get("cost")
        if price is not None:
            if (not isinstance(price, dict) or price.get("type") not in catalogue.COST_TYPES
                    or not isinstance(price.get("value"), int) or isinstance(price.get("value"), bool)
                    or price["value"] < 0):
                raise ControlError(400, "cost is null or {type: per_call|per_success|per_result|free, value: "
                                        "micro-USD}", code="invalid_body")
            price = catalogue.cost(price["type"], price["value"])
        query_params = {name: {"type": str(spec.get("type", "string")), "required": bool(spec.get("required")),
                               "note": str(spec.get("note", "")), "example": spec.get("example", "example")}
                        for name, spec in params.items()}
        entry = catalogue._entry(entry_id, method, path, str(body.get("capability", "custom")),
                                 str(body.get("kind", "generic")), query_params, price,
                                 str(body.get("summary", entry_id)), "web", prov["host"], bool(body.get("curated")))
        if entry["kind"] not in ENTRY_KINDS:
            raise ControlError(400, f"kind is one of {', '.join(ENTRY_KINDS)}", code="invalid_body")
        entry.update(self._entry_extras(entry, body))
        self.extra_entries[entry_id] = entry
        self.entry_specs[entry_id] = dict(body)
        self.extra_routes[(service, method, path)] = entry_id
        self._catalogue_changed()
        return entry

    def _entry_extras(self, entry: Entry, body: dict[str, Any]) -> dict[str, Any]:
        """An added entry's status (retired or broken, with its note and successor) and, for an
        asynchronous submission (kind ``async``), its poll entry and treg's ``async`` descriptor."""
        extras: dict[str, Any] = {}
        status = body.get("status")
        if status is not None:
            if status not in ENTRY_STATUSES:
                raise ControlError(400, "status is retired or broken", code="invalid_body", field="status")
            extras["status"] = status
            extras["status_note"] = str(body.get("status_note", ""))
            extras["superseded_by"] = str(body.get("superseded_by", ""))
        elif "status_note" in body or "superseded_by" in body:
            raise ControlError(400, "status_note and superseded_by go with a status", code="invalid_body",
                               field="status")
        poll_id = body.get("poll")
        if entry["kind"] == "async":
            if not isinstance(poll_id, str):
                raise ControlError(400, "an async entry names its poll entry in poll", code="invalid_body",
                                   field="poll")
            poll = self.entry(poll_id)
            if poll is None:
                raise ControlError(404, f"no entry {poll_id!r} to poll; add it first (kind async_poll)",
                                   code="not_found", field="poll")
            if poll["kind"] != "async_poll" or poll["provider"] != entry["provider"]:
                raise ControlError(400, "poll names an entry of kind async_poll of the same provider",
                                   code="invalid_body", field="poll")
            interval = body.get("interval", 10)
            if not isinstance(interval, int) or isinstance(interval, bool) or not 1 <= interval <= 3600:
                raise ControlError(400, "interval is a whole number of seconds from 1 to 3600", code="invalid_body",
                                   field="interval")
            extras["poll"] = poll_id
            extras["async"] = catalogue.async_descriptor(str(poll_id), interval)
        elif poll_id is not None or "interval" in body:
            raise ControlError(400, "poll and interval go with kind async", code="invalid_body", field="poll")
        return extras
