"""One call of one provider endpoint, as the relay serves it: the credential ladder (the team's own
tool, then its stored secret, then the relay's key), the checks before anything is spent (a pinned
capability, a trial pool's allowance, tag and daily spend ceilings, the balance: 402), saturation,
the upstream (simulated at once, asynchronous, or registered and awaited with the estimate held) and
billing. The call pipeline runs one attempt per call; a routed capability runs one per provider it
tries. Part of :class:`fakes.relay.model.RelayModel`.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

from fakes.kernel.http import dumps

from . import asyncjobs, billing, callguard
from .accounts import billing as accounts_billing
from .accounts.keys import require_tool_use
from .accounts.ladder import tool_key
from .callio import CallInput
from .catalogue import Entry
from .errors import Refusal
from .plans import PlannedCalls
from .resolve import Target, own_tool_for
from .teams import OWN_TOOL, RELAY_KEY, RESOLVE, SECRET, Membership, Team
from .upstreamlog import UpstreamLog
from .upstreams import NOT_PARSED, SimulatedResponse, UpstreamRequest, UpstreamResponse, UpstreamTimeout, call_handler

if TYPE_CHECKING:
    from .accounts.identity import Accounts

ASYNC_KINDS = ("async", "async_poll")
_HOP_HEADERS = frozenset({"host", "content-length", "transfer-encoding", "connection", "authorization"})
_RESPONSE_DROP = frozenset({"content-length", "transfer-encoding", "connection"})


@dataclass(slots=True)
class Attempt:
    """What one provider call came to."""

    status: int
    headers: list[tuple[str, str]]
    body: bytes
    parsed: Any
    miss: bool
    cost: int
    credential: str
    provider: str | None
    entry: Entry | None
    reserved: int = 0  # still held (an asynchronous submission on the relay's key)
    task: dict[str, Any] | None = None  # an asynchronous submission's handle


class Attempts(PlannedCalls):
    """The attempt part of the relay's model (the model sets these attributes). It hands itself to
    the rule modules, which take the protocols of :mod:`fakes.relay.modelview` (and
    ``asyncjobs.JobsModel``, ``routed.RoutingModel``): mypy checks this part satisfies them."""

    tasks: dict[str, asyncjobs.Task]
    accounts: Accounts
    upstream_log: UpstreamLog

    def ladder(self, member: Membership, target: Target) -> tuple[str, str | None, Any]:
        """(credential kind, key injected, the team's tool or None): rung 1, 2, then the relay's key."""
        team = member.team
        tool = target.tool
        provider = target.provider
        if tool is None and provider is not None:
            own = team.tools.get(provider)
            if own is not None and (own == RESOLVE or not member.plain):
                known = self.provider(provider)
                host = known["host"] if known else provider
                tool = own_tool_for(member, host, f"https://{host}{target.path}")
            elif own is not None:
                return OWN_TOOL, own, None
        if tool is not None:
            require_tool_use(member, tool)
            return OWN_TOOL, tool_key(team.org, tool), tool
        if provider is not None and provider in team.secrets:
            return SECRET, team.secrets[provider], None
        return RELAY_KEY, None, None

    async def attempt(self, call_id: str, member: Membership, request: CallInput, target: Target,
                      tags: dict[str, str], label_id: str | None = None) -> Attempt:
        team = member.team
        entry, provider = target.entry, target.provider
        credential, key, tool = self.ladder(member, target)
        price = entry["cost"] if entry is not None else None
        endpoint_id = entry["id"] if entry is not None else None
        label = label_id or endpoint_id or provider or (tool.name if tool is not None else "tool")
        now = self.clock.now_ms()
        if entry is not None and team.org.pins:
            callguard.check_pin(self, team, entry)
        estimated = 0
        if credential == RELAY_KEY:
            assert provider is not None  # a tool's host no provider owns always goes through the tool
            if price is None:
                what = endpoint_id or f"{target.method} {target.path} on {provider}"
                raise Refusal(404, {"detail": f"{what} has no published price, so the relay will not call it on its "
                                              f"own key (it is refused, not served free).\n  use your own key: "
                                              f"register a tool or store a secret for provider {provider!r} "
                                              f"(POST /tools, POST /secrets), or pick a priced alternative from GET "
                                              "/catalog/search", "error": "no_published_price",
                                    "provider": provider, "endpoint_id": endpoint_id})
            estimated = billing.estimate(price, request.params)
            callguard.check_trial(self, team, provider, entry, now)
            callguard.check_tag_spend(team, tags, estimated, now)
            callguard.check_daily_spend(self, team, estimated, now)
            if estimated > team.available_micro and self.accounts.checkouts:
                accounts_billing.settle_due(self.accounts, team)  # a checkout paid by now has credited it
            if estimated > team.available_micro:
                raise Refusal(402, self._insufficient(team, label, provider, estimated))
        kind = entry["kind"] if entry is not None else ""
        registered = provider is not None and provider in self.upstreams
        # a simulated provider whose requests are being logged is sent a request like a registered one
        logged = self.upstream_log.simulated and provider is not None and kind not in ASYNC_KINDS
        at_once = not registered and not logged and not (self.settings.upstream_latency_ms
                                                         and self.clock.mode != "manual")
        reason = self.saturation.admit_instant(now) if at_once else self.saturation.admit(now)
        if reason is not None:
            retry = self.saturation.retry_after_s
            raise Refusal(503, {"proxy_saturated": True, "detail": reason + f"; retry after {retry} s",
                                "retry_after_s": retry}, [("retry-after", str(retry))])
        if not at_once:
            return await self._awaited(call_id, team, request, target, credential, key, tool, price, estimated,
                                       now, label)
        if provider is None or kind in ASYNC_KINDS:
            return self._special(call_id, team, request, target, credential, key, tool, estimated, now)
        try:
            status, headers, body, parsed, miss = self.simulated.respond(
                entry, provider, target.method, target.path, request.params, credential, now,
                team.upstream_rate_limited)
        except UpstreamTimeout as exc:
            self.calls.add(call_id, endpoint_id, provider, credential, 504, 0, team.team_id, now)
            raise Refusal(504, {"detail": f"upstream timed out: {exc}", "error": "upstream_timeout"}) from None
        if miss is None:
            if parsed is NOT_PARSED:
                parsed = billing.parse_json(body)
            miss = billing.is_miss(status, parsed)
        elif (entry is not None and request.method == "GET" and request.target == entry["id"] and not tags
              and target.tool is None and "trial_allowance" not in (self.provider(provider) or {})):
            # the provider's plain answer to a catalogue id: the next identical call may use a plan
            self.remember_plan(request.target, request.query, request.params, entry, status, body, parsed, miss)
        cost = billing.charge(price, status, parsed, estimated, miss) if credential == RELAY_KEY else 0
        if cost:
            team.debit(call_id, min(cost, estimated), now, label)
            if team.org.billing.autotopup_enabled:
                accounts_billing.after_charge(self.accounts, team)  # api.py:10717 maybe_schedule_autotopup
        return Attempt(status, headers, body, parsed, miss, cost, credential, provider, entry)

    def _special(self, call_id: str, team: Team, request: CallInput, target: Target, credential: str,
                 key: str | None, tool: Any, estimated: int, now: int) -> Attempt:
        """An asynchronous entry's submission or poll, or a team tool on a host no provider owns
        (an echo, as the demo tool's upstream answers: never the network)."""
        entry = target.entry
        task = None
        if entry is not None and self.upstream_log.simulated:
            assert target.provider is not None
            self.upstream_log.add(target.provider, call_id, now, UpstreamRequest(
                target.method, (self.provider(target.provider) or {}).get("host", ""), target.path, request.query,
                request.params, self._upstream_headers(request, credential, key, tool, target.provider, team),
                request.body, credential))
        if entry is not None and entry["kind"] == "async":
            status, parsed, made = asyncjobs.submission(self, team, call_id, entry, request.params, credential,
                                                        estimated if credential == RELAY_KEY else 0, now)
            task = {"task_id": made.task_id, "poll": parsed["poll"]}
        elif entry is not None:
            status, parsed = asyncjobs.poll(self, team, request.params, now)
        else:
            status, parsed = 200, {"args": request.params, "method": target.method, "path": target.path,
                                   "tool": tool.name if tool is not None else None,
                                   "authenticated": bool(tool is not None and tool.bindings)}
        body = dumps(parsed)
        reserved = estimated if task is not None and credential == RELAY_KEY else 0
        return Attempt(status, [("content-type", "application/json")], body, parsed, billing.is_miss(status, parsed),
                       0, credential, target.provider, entry, reserved, task)

    async def _awaited(self, call_id: str, team: Team, request: CallInput, target: Target, credential: str,
                       key: str | None, tool: Any, price: dict[str, Any] | None, estimated: int, now: int,
                       label: str) -> Attempt:
        """A registered upstream, or a simulated one that takes time: the estimate is held meanwhile."""
        if estimated:
            team.hold(call_id, estimated, label)
        provider = target.provider
        known = self.provider(provider) if provider else None
        extra = urlencode(bound(team, tool, "query")) if tool is not None else ""
        query = "&".join(q for q in (target.query_extra, request.query, extra) if q)
        logged = provider is not None and (provider in self.upstreams or self.upstream_log.simulated)
        upstream_request = UpstreamRequest(
            method=target.method, host=known["host"] if known is not None else (provider or ""), path=target.path,
            query=query, params=request.params,
            headers=self._upstream_headers(request, credential, key, tool, provider or "", team) if logged
            else [],
            body=request.body, credential=credential)
        if logged:
            assert provider is not None
            self.upstream_log.add(provider, call_id, now, upstream_request)
        try:
            response = await self._upstream(provider or "", target.entry, upstream_request, now,
                                            team.upstream_rate_limited)
        except UpstreamTimeout as exc:
            team.settle(call_id, 0, now, label)
            self.calls.add(call_id, target.entry["id"] if target.entry else None, provider, credential, 504, 0,
                           team.team_id, now)
            raise Refusal(504, {"detail": f"upstream timed out: {exc}", "error": "upstream_timeout"}) from None
        except Exception as exc:  # a user's upstream that fails: the relay's own 502, never billed
            team.settle(call_id, 0, now, label)
            raise Refusal(502, {"detail": f"the upstream of {provider} failed: {exc!r}", "error": "upstream_failed"}
                          ) from None
        finally:
            self.saturation.release()
        body = response.parsed if response.parsed is not NOT_PARSED else billing.parse_json(response.body)
        if isinstance(response, SimulatedResponse):  # a cached answer: its miss known, no framing header
            miss, headers = response.miss, list(response.headers)
        else:
            miss = billing.is_miss(response.status, body)
            headers = [(k, v) for k, v in response.headers if k.lower() not in _RESPONSE_DROP]
        cost = billing.charge(price, response.status, body, estimated, miss) if credential == RELAY_KEY else 0
        team.settle(call_id, cost, now, label)
        if cost and team.org.billing.autotopup_enabled:
            accounts_billing.after_charge(self.accounts, team)  # api.py:10717 billing.maybe_schedule_autotopup
        return Attempt(response.status, headers, response.body, body, miss, cost, credential, provider, target.entry)

    def _upstream_headers(self, request: CallInput, credential: str, key: str | None, tool: Any,
                          provider: str, team: Team) -> list[tuple[str, str]]:
        """The caller's headers minus the relay's own and hop-by-hop ones, plus the credential (a
        tool's bindings as it declares them; a secret or the relay's key as a bearer token). A
        ``Content-Encoding`` the caller sent is relayed unchanged, unless the relay decoded the body."""
        headers = [(k.decode("latin-1").lower(), v.decode("latin-1")) for k, v in request.headers]
        drop = _HOP_HEADERS | ({"content-encoding"} if request.decoded else frozenset())
        kept = [(k, v) for k, v in headers
                if k not in drop and not k.startswith(self.h.lower_prefix) and k != "idempotency-key"]
        if tool is not None and tool.bindings:
            return kept + [(name.lower(), value) for name, value in bound(team, tool, "header")]
        injected = key if credential in (OWN_TOOL, SECRET) and key else f"relay-key-{provider}"
        kept.append(("authorization", f"Bearer {injected}"))
        return kept

    async def _upstream(self, provider: str, entry: Entry | None, request: UpstreamRequest,
                        now: int, rate_limited: bool = True) -> UpstreamResponse:
        latency = self.settings.upstream_latency_ms
        if latency and self.clock.mode != "manual":
            await asyncio.sleep(latency / 1000 / max(self.clock.rate, 1e-9))
        handler = self.upstreams.get(provider)
        if handler is not None:
            return await call_handler(handler, request)
        return self.simulated.answer(entry, provider, request, now, rate_limited=rate_limited)

    def _insufficient(self, team: Team, what: str, provider: str, estimated: int) -> dict[str, Any]:
        message = (f"{what} would cost ~${estimated / 1_000_000:.4f} on the relay's {provider} key and this team's "
                   f"balance is ${team.available_micro / 1_000_000:.4f}; add funds at {self.settings.topup_url} or "
                   f"use your own key for {provider}")
        fields = {"error": "insufficient_balance", "balance_micro": team.available_micro,
                  "estimated_cost_micro": estimated, "topup_url": self.settings.topup_url}
        if self.settings.error_envelope == "detail":
            return {"detail": {"error": "insufficient_balance", "message": message, **fields, "provider": provider,
                               "endpoint_id": what}}
        return {"detail": message, **fields}


def bound(team: Team, tool: Any, location: str) -> list[tuple[str, str]]:
    """A tool's bindings of one location (header or query) as (name, rendered value) pairs."""
    pairs = []
    for binding in tool.bindings:
        secret = team.org.secrets.get(binding.get("secret_id"))
        if secret is not None and binding.get("location", "header") == location:
            pairs.append((str(binding.get("name", "Authorization")),
                          str(binding.get("format", "{secret}")).format(secret=secret.value)))
    return pairs
