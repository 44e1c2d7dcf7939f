"""The filings fake's dashboard panels: its API keys with their tiers and quota use, and what the
control plane added to the generated catalogue.

Read through the fake's public reads (``list_keys``) and the model's records of added companies
and filings only; see docs/dashboard.md for the shapes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fakes.kernel.dashboard.panels import Panel, collect, facts, progress, table, when

if TYPE_CHECKING:
    from .served import ControlledFilings


def panels(fake: ControlledFilings) -> list[Panel]:
    return collect(fake, keys, catalogue, added_companies, added_filings, watchlists, webhooks, deliveries)


def quota_use(key: dict[str, Any]) -> dict[str, Any]:
    quota, used = key["quota"], key["used"]
    if quota is None:
        return progress(0, f"{used} calls in {key['year']}, unlimited")
    return progress(used / quota if quota else 1, f"{used} of {quota} in {key['year']}")


def keys(fake: ControlledFilings) -> Panel:
    rows = [[key["api_key"], key["tier"], quota_use(key), "unlimited" if key["remaining"] is None else key["remaining"]]
            for key in fake.list_keys()]
    return table("API keys", ["key", "tier", "quota use (calls a year)", "left"], rows,
                 note="the four demo keys are made with every model; POST /_fake/keys adds more")


def catalogue(fake: ControlledFilings) -> Panel:
    model = fake.model
    return facts("Catalogue", [("scale", fake.settings.scale), ("companies added", len(model.companies)),
                               ("filings added", len(model.filings)), ("keys", len(model.keys))],
                 note="the generated catalogue is computed from the seed; only what was added is stored")


def added_companies(fake: ControlledFilings) -> Panel:
    rows = [[core.id, core.name, core.country_code, core.ticker] for core in reversed(fake.model.companies.values())]
    return table("Companies added", ["id", "name", "country", "ticker"], rows, note="newest first")


def added_filings(fake: ControlledFilings) -> Panel:
    rows = [[record.id, record.company_id, record.title, when(record.release_s * 1000), when(record.added_s * 1000)]
            for record in reversed(fake.model.filings.values())]
    return table("Filings added", ["id", "company", "title", "released", "visible from"], rows, note="newest first")


def watchlists(fake: ControlledFilings) -> Panel:
    rows = [[key, len(watchlist.companies), ", ".join(map(str, watchlist.companies[:20])),
             "locked" if watchlist.locked else ""] for key, watchlist in fake.model.watchlists.by_key.items()]
    return table("Watchlists", ["key", "companies", "first ids", ""], rows,
                 note="each key's; on_watchlist filters and webhooks follow them")


def webhooks(fake: ControlledFilings) -> Panel:
    rows = [[hook.id, hook.owner, hook.url, "active" if hook.is_active else "paused",
             "all companies" if hook.track_all_companies else "watchlist",
             ", ".join(name.removeprefix("trigger_on_filing_") for name in ("trigger_on_filing_received",
                                                                            "trigger_on_filing_processed",
                                                                            "trigger_on_filing_updated")
                       if getattr(hook, name)), when(hook.created_s * 1000)]
            for hook in fake.model.webhooks.hooks.values()]
    return table("Webhooks", ["id", "key", "url", "state", "follows", "events", "created"], rows)


def deliveries(fake: ControlledFilings) -> Panel:
    book = fake.model.webhooks
    recent = sorted((d for log in book.logs.values() for d in log), key=lambda d: d.created_s, reverse=True)[:50]
    rows = [[d.webhook_id, d.event_type, d.filing_id, d.attempt, d.status, d.response_status_code,
             when(d.created_s * 1000)] for d in recent]
    return table("Webhook deliveries", ["webhook", "event", "filing", "attempt", "status", "answer", "at"], rows,
                 note=f"the latest 50 attempts; a clock jump dropped {book.dropped}")
