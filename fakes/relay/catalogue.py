"""The catalogue: about 60 providers and 2,900 endpoints in the real relay's catalogue format.

Generated deterministically from the seed (built once per (seed, size, relay name) and shared by
every model: it never changes; user additions live in each model's own overlay). It holds the
seed's rate table as curated entries with those exact prices, LinkedIn-style people-data entries
that run on the relay's own infrastructure, entries with no published price, and routed
capabilities ``<relay>.<capability>`` whose provider the relay picks per call.

An entry is a plain dict: ``id, provider, domain, capability, platform, scope (read|write),
method, path, name, summary, input{queryParams{name: {type, required, note, example}}}, cost
({type per_call|per_success|per_result|free, value (micro-USD), currency, per, usd} or None),
host, curated, kind`` (the simulated upstream's answer shape) and, for routed ids, ``candidates``.
"""

from __future__ import annotations

import bisect
import functools
import itertools
from dataclasses import dataclass, field
from typing import Any

from . import data

Entry = dict[str, Any]
Provider = dict[str, Any]
COST_TYPES = ("per_call", "per_success", "per_result", "free")


def cost(kind: str, micro: int, per: str = "call") -> dict[str, Any]:
    return {"type": kind, "value": micro, "currency": "USD", "per": per, "usd": round(micro / 1_000_000, 9)}


def _param(type_: str, required: bool, example: Any, note: str = "") -> dict[str, Any]:
    return {"type": type_, "required": required, "note": note, "example": example}


_DOMAIN = _param("string", True, "northwind.com", "company website domain")
_FIRST = _param("string", True, "Ada", "first name")
_LAST = _param("string", True, "Lovelace", "last name")
_EMAIL = _param("string", True, "ada.lovelace@northwind.com", "e-mail address")
_PROFILE = _param("string", True, "https://profiles.example/in/ada-lovelace", "profile address")
_LIMIT = _param("integer", False, 5, "rows wanted (default 5, at most 100)")
_SYMBOL = _param("string", True, "ACME", "ticker symbol")
_TASK = _param("string", True, "task_0000000000000000", "the task_id a submission answered")

#: (provider, display, host, runs on the relay, limits)
CURATED_PROVIDERS: list[tuple[str, str, str, bool]] = [
    ("mailscout", "MailScout", "api.mailscout.example", False),
    ("peoplegraph", "PeopleGraph", "api.peoplegraph.example", False),
    ("firmdata", "FirmData", "api.firmdata.example", False),
    ("jobsignal", "JobSignal", "api.jobsignal.example", False),
    ("profilescope", "ProfileScope", "profiles.relay.internal", True),
    ("quotely", "Quotely", "api.quotely.example", False),  # a trial pool: $0 on the relay's free key, capped per team
]
#: providers served on the relay's free trial key at $0, with a per-team daily call allowance (treg's
#: ``kind: treg_trial`` pools)
TRIAL_POOLS = ("quotely",)

#: the seed's rate table, exact prices, plus the alternatives routed capabilities choose among
#: (id, method, path, capability, kind, params, cost or None, summary, platform)
CURATED_ENTRIES: list[tuple[str, str, str, str, str, dict[str, Any], dict[str, Any] | None, str, str]] = [
    ("mailscout.people.email.find", "GET", "/v1/email/find", "people.email.find", "email",
     {"domain": _DOMAIN, "first_name": _FIRST, "last_name": _LAST}, cost("per_success", 8_900, "find"),
     "Verified work email find: $0.0089 per find; a miss is free", "web"),
    ("mailscout.email.verify", "GET", "/v1/email/verify", "email.verify", "verify",
     {"email": _EMAIL}, cost("per_call", 3_000, "check"), "Email verification: $0.003 per check", "web"),
    ("peoplegraph.people.match.email", "GET", "/v2/people/match", "people.match.email", "match",
     {"domain": _DOMAIN, "first_name": _FIRST, "last_name": _LAST}, cost("per_success", 26_000, "contact"),
     "Match plus work email: $0.026 per contact", "web"),
    ("peoplegraph.people.enrich", "GET", "/v2/people/enrich", "people.enrich", "person",
     {"email": _EMAIL}, cost("per_success", 28_000, "person"), "Person enrichment: $0.028", "web"),
    ("firmdata.companies.enrich", "GET", "/v1/companies/enrich", "companies.enrich", "company",
     {"domain": _DOMAIN}, cost("per_success", 10_000, "company"), "Company enrichment: $0.010 per company", "web"),
    ("firmdata.companies.people.list", "GET", "/v1/companies/people", "companies.people", "people",
     {"domain": _DOMAIN, "limit": _LIMIT}, cost("per_call", 25_000), "People at a company: $0.025", "web"),
    ("firmdata.companies.lookalikes.search", "GET", "/v1/companies/lookalikes", "companies.lookalikes", "lookalikes",
     {"domain": _DOMAIN, "limit": _LIMIT}, cost("per_call", 49_000), "Lookalike companies: from $0.049", "web"),
    ("jobsignal.companies.jobs.list", "GET", "/v1/jobs", "companies.jobs", "jobs",
     {"domain": _DOMAIN, "limit": _LIMIT}, cost("per_call", 20_000), "Job postings: $0.020", "web"),
    ("profilescope.people.email.from-profile", "GET", "/v1/profile/email", "people.email.from_profile", "email",
     {"profile_url": _PROFILE}, cost("per_success", 19_000, "find"),
     "Work email from a profile address: $0.019", "linkedin"),
    ("profilescope.people.profile.get", "GET", "/v1/profile", "people.profile", "person",
     {"profile_url": _PROFILE}, cost("per_success", 15_000, "profile"), "Profile of a person by profile address",
     "linkedin"),
    ("profilescope.companies.employees.list", "GET", "/v1/company/employees", "companies.people", "people",
     {"domain": _DOMAIN, "limit": _LIMIT}, cost("per_result", 2_000, "result"),
     "Employees of a company from profile pages, per result", "linkedin"),
    ("profilescope.people.posts.list", "GET", "/v1/profile/posts", "people.posts", "list",
     {"profile_url": _PROFILE}, None, "Recent posts of a profile (no published price)", "linkedin"),
    ("peoplegraph.people.email.find", "GET", "/v2/email/find", "people.email.find", "email",
     {"domain": _DOMAIN, "first_name": _FIRST, "last_name": _LAST}, cost("per_success", 12_000, "find"),
     "Work email find (alternative to mailscout)", "web"),
    ("peoplegraph.companies.enrich", "GET", "/v2/companies/enrich", "companies.enrich", "company",
     {"domain": _DOMAIN}, cost("per_success", 15_000, "company"), "Company enrichment (alternative)", "web"),
    ("jobsignal.email.verify", "GET", "/v1/verify", "email.verify", "verify",
     {"email": _EMAIL}, None, "Email verification (no published price: own key only)", "web"),
    ("jobsignal.alerts.create", "POST", "/v1/alerts", "companies.jobs.alerts", "write",
     {"domain": _DOMAIN}, cost("per_call", 1_000), "Create a job-posting alert for a company (a write)", "web"),
    ("firmdata.reports.create", "POST", "/v1/reports", "companies.reports", "async",
     {"domain": _DOMAIN}, cost("per_success", 50_000, "report"),
     "Company research report, asynchronous: answered 202 with a task to poll with firmdata.reports.get", "web"),
    ("firmdata.reports.get", "GET", "/v1/reports/status", "companies.reports.status", "async_poll",
     {"task_id": _TASK}, cost("free", 0), "Poll a report task (free): pending, then complete with the report", "web"),
    ("firmdata.companies.legacy.enrich", "GET", "/v0/companies/enrich", "companies.enrich.legacy", "company",
     {"domain": _DOMAIN}, cost("per_success", 10_000, "company"), "Company enrichment, first version (retired)",
     "web"),
    ("quotely.stocks.quote.get", "GET", "/v1/quote", "stocks.quote", "generic", {"symbol": _SYMBOL},
     cost("per_call", 0), "Latest stock quote (trial pool: $0, a daily allowance per team)", "web"),
    ("quotely.stocks.candles.list", "GET", "/v1/candles", "stocks.candles", "list",
     {"symbol": _SYMBOL, "limit": _LIMIT}, cost("per_call", 0), "Daily candles (trial pool: $0, a daily allowance "
                                                                "per team)", "web"),
    ("quotely.stocks.symbols.search", "GET", "/v1/symbols", "stocks.symbols", "list",
     {"q": _param("string", True, "acme", "name or symbol")}, cost("free", 0),
     "Symbol search (free, outside the trial allowance)", "web"),
]
#: entry id -> what else it carries: a retired entry's status and successor, an asynchronous
#: submission's poll entry
def async_descriptor(poll_id: str, interval_s: int = 10) -> dict[str, Any]:
    """treg's static ``async`` block of an asynchronous entry (its catalogue's ``async:``), for the
    simulated answers of :mod:`fakes.relay.asyncjobs`: where the submission's task id is, the poll
    entry and the parameter naming the task, the status words, where the result is. ``treg call
    --await`` follows it (it comes in ``X-Treg-Async``), and the entry's catalogue page shows it."""
    return {"id_from": "task_id", "poll": {"endpoint": poll_id, "param": {"in": "queryParams", "name": "task_id"}},
            "status": {"path": "status", "progress": ["pending"], "success": ["complete"], "failure": ["failed"]},
            "result": {"path": "result"}, "interval": interval_s}


ENTRY_EXTRAS: dict[str, dict[str, Any]] = {
    "firmdata.reports.create": {"poll": "firmdata.reports.get", "async": async_descriptor("firmdata.reports.get")},
    "firmdata.companies.legacy.enrich": {"status": "retired", "superseded_by": "firmdata.companies.enrich",
                                         "status_note": "the provider turned the first version off."},
}

#: routed capabilities: <relay>.<capability> -> the capability its candidates share
ROUTED: dict[str, str] = {
    "people.email.find": "Verified work email find; the relay picks the cheapest usable provider",
    "companies.enrich": "Company enrichment; the relay picks the cheapest usable provider",
    "email.verify": "Email verification; the relay picks the cheapest usable provider",
}


@dataclass
class Catalogue:
    """The generated catalogue (immutable once built)."""

    providers: dict[str, Provider] = field(default_factory=dict)
    entries: dict[str, Entry] = field(default_factory=dict)
    by_host: dict[str, str] = field(default_factory=dict)
    by_route: dict[tuple[str, str, str], str] = field(default_factory=dict)  # (provider, method, path) -> id

    def add_provider(self, provider: Provider) -> None:
        self.providers[provider["service"]] = provider
        self.by_host[provider["host"]] = provider["service"]

    #: the search index, built on first use: every entry's :func:`haystack` joined by newlines, where
    #: each one starts, and the entries in that order
    _index: tuple[str, list[int], list[Entry]] | None = None
    #: every entry as an empty search lists them (curated first, then by id), built on first use
    _listing: list[Entry] | None = None
    #: every entry, in the order they were added, built on first use (read by every model: never changed)
    _all: list[Entry] | None = None

    def add_entry(self, entry: Entry) -> None:
        self.entries[entry["id"]] = entry
        self._index = self._listing = self._all = None
        if not entry.get("candidates"):
            self.by_route[(entry["provider"], entry["method"], entry["path"])] = entry["id"]

    def all_entries(self) -> list[Entry]:
        """Every entry (a list shared by every caller: iterate it, never change it)."""
        if self._all is None:
            self._all = list(self.entries.values())
        return self._all

    def listing(self) -> list[Entry]:
        """What an empty search lists: every entry without a status (treg's discovery surfaces show
        no retired or broken entry; only a direct id finds one)."""
        if self._listing is None:
            self._listing = sorted((e for e in self.entries.values() if not e.get("status")),
                                   key=lambda e: (0 if e["curated"] else 1, e["id"]))
        return self._listing

    def matches(self, words: list[str]) -> dict[str, tuple[int, Entry]]:
        """entry id -> (how many of ``words`` its haystack holds, the entry), for those holding one."""
        if self._index is None:
            ordered = [e for e in self.entries.values() if not e.get("status")]  # as listing(): none marked
            texts = [haystack(entry) for entry in ordered]
            starts = list(itertools.accumulate((len(t) + 1 for t in texts[:-1]), initial=0))
            self._index = ("\n".join(texts), starts, ordered)
        text, starts, ordered = self._index
        found: dict[str, tuple[int, Entry]] = {}
        for word in words:  # no word holds a newline, so a match never spans two entries
            at = text.find(word)
            while at != -1:
                index = bisect.bisect_right(starts, at) - 1
                entry = ordered[index]
                hits, _ = found.get(entry["id"], (0, entry))
                found[entry["id"]] = (hits + 1, entry)
                at = text.find(word, starts[index + 1]) if index + 1 < len(starts) else -1
        return found


def haystack(entry: Entry) -> str:
    """What a catalogue search matches its words in."""
    return f"{entry['id']} {entry['summary']} {entry['capability']}".lower()


def _provider(service: str, display: str, host: str, runs_on_relay: bool, limit_per_min: int) -> Provider:
    return {"service": service, "display_name": display, "host": host, "runs_on_relay": runs_on_relay,
            "limits": {"per_minute": limit_per_min}, "pricing_url": f"https://{host}/pricing",
            "docs": f"https://{host}/docs"}


def _entry(entry_id: str, method: str, path: str, capability: str, kind: str, params: dict[str, Any],
           price: dict[str, Any] | None, summary: str, platform: str, host: str, curated: bool) -> Entry:
    provider, _, rest = entry_id.partition(".")
    return {"id": entry_id, "provider": provider, "domain": rest.split(".")[0], "capability": capability,
            "platform": platform, "scope": "write" if method == "POST" else "read", "method": method, "path": path,
            "name": entry_id.rsplit(".", 1)[1].replace("-", " ").capitalize(), "summary": summary,
            "input": {"queryParams": params, "note": ""}, "cost": price, "host": host, "curated": curated,
            "kind": kind, "verified": True, "docs_url": f"https://{host}/docs#{entry_id}"}


@functools.lru_cache(maxsize=8)
def build(seed: int, providers: int, endpoints: int, relay_name: str, rate_limit: int,
          trial_allowance: int = 50) -> Catalogue:
    cat = Catalogue()
    for service, display, host, on_relay in CURATED_PROVIDERS:
        provider = _provider(service, display, host, on_relay, rate_limit)
        if service in TRIAL_POOLS:
            provider["trial_allowance"] = trial_allowance
        cat.add_provider(provider)
    for entry_id, method, path, capability, kind, params, price, summary, platform in CURATED_ENTRIES:
        host = cat.providers[entry_id.split(".")[0]]["host"]
        cat.add_entry({**_entry(entry_id, method, path, capability, kind, params, price, summary, platform, host,
                                True), **ENTRY_EXTRAS.get(entry_id, {})})
    names = data.provider_names(seed, providers - len(CURATED_PROVIDERS), set(cat.providers))
    for name in names:
        cat.add_provider(_provider(name, data.display_name(name), f"api.{name}.example", False, rate_limit))
    _generate(cat, seed, names, endpoints - len(cat.entries))
    for capability, summary in ROUTED.items():
        candidates = sorted(e["id"] for e in cat.entries.values() if e["capability"] == capability and e["curated"])
        first = cat.entries[candidates[0]]
        identity = first["input"]["queryParams"]
        # treg's generated routed row (domain/catalog/routing/synthetic.py): POST with the identity as a
        # JSON object body; the fake reads the same fields from the query too
        routed = _entry(f"{relay_name}.{capability}", "POST", f"/{capability}", capability, first["kind"],
                        identity, None, summary, "routed", "", True)
        routed.update(provider=relay_name, candidates=candidates, host=None, scope="read",
                      input={"bodyType": "json", "body": identity, "queryParams": identity,
                             "note": "send the identity as a JSON object body; the same fields are read from the "
                                     "query too"},
                      cost=min((cat.entries[c]["cost"] for c in candidates if cat.entries[c]["cost"]),
                               key=lambda c: c["value"]))
        cat.entries[routed["id"]] = routed
    return cat


def _generate(cat: Catalogue, seed: int, names: list[str], count: int) -> None:
    """``count`` more entries over every provider: same seed, same catalogue."""
    rng = data.rng_for(seed, "catalogue")
    services = list(cat.providers)
    areas = list(data.AREAS)
    provider_areas = {service: data.rng_for(seed, "areas", service).sample(areas, 3) for service in services}
    made = 0
    while made < count:
        service = services[made % len(services)]
        area = rng.choice(provider_areas[service])
        resource = rng.choice(data.AREAS[area])
        write = rng.random() < 0.12
        action = rng.choice(data.WRITE_ACTIONS if write else data.READ_ACTIONS)
        entry_id = f"{service}.{area}.{resource}.{action}"
        if entry_id in cat.entries:
            entry_id = f"{service}.x.{area}-{resource}.{action}-{made}"  # the real "extended" form
        chosen = rng.sample(data.PARAM_POOL, rng.randint(1, 3))
        params = {name: _param(type_, i == 0, example) for i, (name, type_, example) in enumerate(chosen)}
        draw = rng.random()
        kind = "write" if write else ("list" if action in ("list", "search", "history") else "generic")
        if draw < 0.08:
            price = None
        elif draw < 0.16:
            price = cost("free", 0)
        elif kind == "list" and draw < 0.35:
            price = cost("per_result", rng.choice([100, 250, 500, 1_000]), "result")
        elif draw < 0.55:
            price = cost("per_success", rng.choice([500, 1_000, 2_500, 5_000, 9_000]))
        else:
            price = cost("per_call", rng.choice([100, 200, 500, 1_000, 2_000, 4_000, 10_000]))
        host = cat.providers[service]["host"]
        path = f"/v{rng.randint(1, 3)}/{area}/{resource}/{action}"
        if (service, "POST" if write else "GET", path) in cat.by_route:
            path += f"-{made}"
        summary = f"{action.capitalize()} {resource} ({area}) on {cat.providers[service]['display_name']}"
        cat.add_entry(_entry(entry_id, "POST" if write else "GET", path, f"{area}.{resource}", kind, params, price,
                             summary, "web", host, False))
        made += 1


def public_view(entry: Entry) -> dict[str, Any]:
    """An entry as the catalogue API shows it (the internal answer shape left out)."""
    view = {k: v for k, v in entry.items() if k != "kind"}
    view["has_example"] = True
    return view


def call_template(entry: Entry, prefix: str) -> str:
    wanted = [name for name, spec in entry["input"]["queryParams"].items() if spec["required"]]
    if entry["input"].get("bodyType") == "json":  # a routed id: the identity goes in a JSON body
        fields = ", ".join(f'"{name}": "<{name}>"' for name in wanted)
        return (f"{entry['method']} /call/{entry['id']}  with header {prefix}-Token: <token> and the JSON body "
                f"{{{fields}}}")
    required = "&".join(f"{name}=<{name}>" for name in wanted)
    query = f"?{required}" if required else ""
    return f"{entry['method']} /call/{entry['id']}{query}  with header {prefix}-Token: <token>"


def example_params(entry: Entry) -> dict[str, str]:
    return {name: str(spec["example"]) for name, spec in entry["input"]["queryParams"].items()}
