"""Routed capabilities, ``/call/<relay>.<capability>``: the only calls where the relay picks the
provider (the package's ``application/call/route.py``).

Candidates are ranked: the team's pinned provider only, if it pinned the capability; providers the
caller prefers (``X-Treg-Route-Prefer``) first; then those the team has its own credential for (they
cost nothing), then the cheapest priced; providers named in ``X-Treg-Route-Exclude`` are left out.
Each candidate is one ordinary call (its own price, settled on its own). A miss tries the next
(the waterfall, on unless ``X-Treg-Route-Waterfall: 0``); a provider error (5xx, 429, 402) tries the
next, at most two more; a caller fault (another 4xx) stops at once. ``X-Treg-Route-Max-Cost`` (USD,
default $1.00) bounds the call: a candidate starts only while what was charged plus its estimate
fits; when none fits, 402 ``route_max_cost`` and nothing charged.

The answer wraps the winner's: ``{"output": <the capability's core fields>, "raw": <the provider's
body>, "_treg": {"served_by", "provider", "tier", "outcome", "tried", "charged_micro"}}`` with the
headers ``-Served-By`` (the endpoint), ``-Providers-Tried`` and ``-Route-Outcome`` (hit | miss |
pending); every provider missing is a 200 ``outcome: miss``; every provider failing is the relay's
502 ``route_failed``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Protocol
from urllib.parse import urlencode

from .attempt import Attempt
from .callio import CallInput
from .catalogue import Entry
from .errors import Refusal
from .headers import Headers
from .modelview import CatalogueLookup
from .resolve import Target
from .teams import RELAY_KEY, Membership, Team

DEFAULT_MAX_COST_MICRO = 1_000_000
MAX_ERROR_FALLBACKS = 2
#: the core fields each routed capability answers in ``output`` (a provider's own extra fields stay in ``raw``)
CONTRACTS = {
    "people.email.find": ("email", "verified", "first_name", "last_name", "domain", "confidence"),
    "companies.enrich": ("name", "domain", "industry", "employees", "founded", "headquarters"),
    "email.verify": ("email", "result", "deliverable"),
}
_TIERS = {"own_tool": "tool", "secret": "credential", "relay_key": "platform"}
_GLOBAL = frozenset({"insufficient_balance", "tag_spend_cap_reached", "platform_daily_cap_reached",
                     "daily_cap_reached"})


class RoutingModel(CatalogueLookup, Protocol):
    """The model as a routed call sees it: the catalogue, the header names and one attempt per candidate."""

    h: Headers

    async def attempt(self, call_id: str, member: Membership, request: CallInput, target: Target,
                      tags: dict[str, str], label_id: str | None = None) -> Attempt: ...


def options(model: RoutingModel, headers: dict[str, str]) -> tuple[bool, int | None, list[str], list[str]]:
    """(waterfall, max cost in micro-USD, preferred providers, excluded providers); 400 when malformed."""
    h = model.h
    raw_cost = headers.get(h.route_max_cost.lower(), "").strip()
    try:
        max_cost = round(float(raw_cost) * 1_000_000) if raw_cost else DEFAULT_MAX_COST_MICRO
        if not 0 <= max_cost <= 10**15:
            raise ValueError(raw_cost)
    except (ValueError, OverflowError):
        raise Refusal(400, {"detail": f"{h.route_max_cost} must be a USD number, got {raw_cost!r}",
                            "error": "catalog_parameter_invalid"}) from None
    waterfall = headers.get(h.route_waterfall.lower(), "").strip().lower() not in ("0", "false", "no", "off")

    def names(header: str) -> list[str]:
        return [p.strip() for p in headers.get(header.lower(), "").split(",") if p.strip()]

    return waterfall, max_cost, names(h.route_prefer), names(h.route_exclude)


def output_of(capability: str, parsed: Any) -> dict[str, Any]:
    fields = CONTRACTS.get(capability, ())
    found = parsed if isinstance(parsed, dict) else {}
    out = {name: found.get(name) for name in fields}
    if "verified" in out and out["verified"] is None and "status" in found:
        out["verified"] = found.get("status") == "verified"
    if "deliverable" in out and out["deliverable"] is None and "result" in found:
        out["deliverable"] = found.get("result") == "deliverable"
    return out


def candidates(model: CatalogueLookup, team: Team, entry: Entry, prefer: list[str],
               exclude: list[str]) -> list[tuple[Entry, int]]:
    """(candidate entry, estimate on the relay's key or 0 on an own credential), in the order tried."""
    pin = team.org.pins.get(entry["capability"])
    ranked = []
    for candidate_id in entry["candidates"]:
        candidate = model.entry(candidate_id)
        if candidate is None or candidate["provider"] in exclude:
            continue
        if pin is not None and candidate["provider"] != pin.provider:
            continue
        own = candidate["provider"] in team.tools or candidate["provider"] in team.secrets
        if not own and candidate["cost"] is None:
            continue
        price = 0 if own else int(candidate["cost"]["value"])
        order = prefer.index(candidate["provider"]) if candidate["provider"] in prefer else len(prefer)
        ranked.append(((order, 0 if own else 1, price, candidate_id), candidate, price))
    ranked.sort(key=lambda row: row[0])
    return [(candidate, price) for _, candidate, price in ranked]


async def call_routed(model: RoutingModel, call_id: str, member: Membership, request: CallInput, entry: Entry,
                      tags: dict[str, str], headers: dict[str, str]) -> tuple[Attempt, dict[str, Any], int]:
    """(the winning attempt, the wrapped body, what every attempt charged together)."""
    waterfall, max_cost, prefer, exclude = options(model, headers)
    ranked = candidates(model, member.team, entry, prefer, exclude)
    if request.body.strip():
        request = child_request(request)
    if not ranked:
        raise Refusal(404, {"detail": f"{entry['id']}: no provider of this capability is usable: none has a "
                                      "published price and the team has no own key for any of "
                                      f"{', '.join(entry['candidates'])}", "error": "no_usable_provider"})
    tried: list[dict[str, Any]] = []
    spent = errors = 0
    winner: Attempt | None = None
    last_miss: Attempt | None = None
    for candidate, estimate in ranked:
        if max_cost is not None and spent + estimate > max_cost:
            tried.append(_tried(candidate, "skipped", None, 0, "over the remaining X-Treg-Route-Max-Cost"))
            continue
        target = Target(candidate, candidate["provider"], candidate["path"], candidate["method"])
        try:
            result = await model.attempt(call_id, member, request, target, tags, label_id=candidate["id"])
        except Refusal as refusal:
            code = refusal.body.get("error") if isinstance(refusal.body.get("error"), str) else ""
            if code in _GLOBAL or refusal.status in (400, 422):
                raise
            tried.append(_tried(candidate, "error", refusal.status, 0, str(refusal.body.get("detail", ""))[:120]))
            errors += 1
            if errors > MAX_ERROR_FALLBACKS:
                break
            continue
        spent += result.cost
        status = result.status
        if 200 <= status < 300 and not result.miss:
            tried.append(_tried(candidate, "pending" if status == 202 else "hit", status, result.cost))
            winner = result
            break
        if result.miss:
            tried.append(_tried(candidate, "miss", status, result.cost))
            last_miss = result
            if not waterfall:
                break
            continue
        if status >= 500 or status in (402, 429):
            tried.append(_tried(candidate, "error", status, result.cost))
            errors += 1
            if errors > MAX_ERROR_FALLBACKS:
                break
            continue
        tried.append(_tried(candidate, "rejected", status, result.cost))
        winner = result  # a caller fault: the same 4xx everywhere, so it is the answer
        break
    capability = entry["capability"]
    if winner is None and last_miss is None:
        if tried and all(t["outcome"] == "skipped" for t in tried):
            raise Refusal(402, {"detail": "no candidate fits the remaining cost ceiling; nothing was charged",
                                "error": "route_max_cost", "endpoint_id": entry["id"], "max_cost_micro": max_cost,
                                "charged_micro": spent, "tried": tried})
        raise Refusal(502, {"detail": f"every candidate for {entry['id']} failed", "error": "route_failed",
                            "endpoint_id": entry["id"], "tried": tried, "charged_micro": spent})
    chosen = winner or last_miss
    assert chosen is not None and chosen.entry is not None
    outcome = tried[-1]["outcome"] if winner is not None else "miss"
    served = chosen.entry["id"] if winner is not None else None
    body = {"output": output_of(capability, chosen.parsed) if winner is not None and outcome != "rejected"
            else {name: None for name in CONTRACTS.get(capability, ())},
            "raw": chosen.parsed if winner is not None else None,
            "_treg": {"served_by": served, "provider": chosen.provider if winner is not None else None,
                      "tier": _TIERS.get(chosen.credential, "platform") if winner is not None else None,
                      "outcome": outcome, "tried": tried, "charged_micro": spent,
                      **({"async": chosen.task, "reserved_micro": chosen.reserved} if chosen.task else {})}}
    return chosen, body, spent


#: headers that described the routed call's JSON body, not a candidate's query
_BODY_HEADERS = frozenset({b"content-type", b"content-length", b"content-encoding", b"transfer-encoding"})


def child_request(request: CallInput) -> CallInput:
    """What each candidate of a routed call with a JSON body is sent: the identity as its query
    (the candidates are GET entries), no body (treg route.py ``_child_input``: each provider gets
    only the fields it takes, where it takes them)."""
    return replace(request, query=urlencode(request.params), body=b"", decoded=False, _named=None,
                   headers=[(k, v) for k, v in request.headers if k.lower() not in _BODY_HEADERS])


def _tried(candidate: Entry, outcome: str, status: int | None, charged: int, detail: str = "") -> dict[str, Any]:
    row = {"endpoint_id": candidate["id"], "provider": candidate["provider"], "outcome": outcome, "status": status,
           "charged_micro": charged}
    if detail:
        row["detail"] = detail
    return row


def charged_on_relay(attempt: Attempt) -> bool:
    return attempt.credential == RELAY_KEY
