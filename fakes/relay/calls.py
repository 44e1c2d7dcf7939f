"""The relay's call pipeline: a call's target resolved, the credential ladder, the balance check
(402), saturation (503), the upstream (simulated at once, or registered and awaited with the
estimate held), billing, idempotent replays, the call record and the relay's headers. Plain
Python, no HTTP types: routes hand in a :class:`CallInput` and get a :class:`CallOutput`. Part of
:class:`fakes.relay.model.RelayModel`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from fakes.kernel.clock import Clock
from fakes.kernel.http import dumps
from fakes.kernel.verdicts import ClientRule

from . import billing, rules
from .catalogue import Entry
from .headers import Headers
from .plans import PlannedCalls
from .saturation import Saturation
from .teams import OWN_TOOL, RELAY_KEY, SECRET, Team
from .upstreams import (
    NOT_PARSED,
    Handler,
    SimulatedResponse,
    SimulatedUpstream,
    UpstreamRequest,
    UpstreamResponse,
    UpstreamTimeout,
    call_handler,
)

_HOP_HEADERS = frozenset({"host", "content-length", "transfer-encoding", "connection", "authorization"})
_RESPONSE_DROP = frozenset({"content-length", "transfer-encoding", "connection"})
RETRY_WINDOW_MS = 300_000


@dataclass(slots=True)
class CallInput:
    method: str
    target: str  # what follows /call/: a catalogue id or a full upstream URL
    query: str
    params: dict[str, str]
    headers: list[tuple[bytes, bytes]]  # as the ASGI scope has them (decoded only for a registered upstream)
    body: bytes
    token: str | None
    idempotency_key: str | None


@dataclass(slots=True)
class CallOutput:
    status: int
    headers: list[tuple[str, str]]
    body: bytes
    flags: Sequence[tuple[ClientRule, str]] = ()
    recorded: bool = False  # a call record was kept (the call was answered, not refused)

    def json(self) -> Any:
        return billing.parse_json(self.body)


class Refusal(Exception):
    """The relay's own refusal of a call: JSON with ``detail`` and the error header."""

    def __init__(self, status: int, body: dict[str, Any], headers: list[tuple[str, str]] | None = None) -> None:
        super().__init__(body.get("detail"))
        self.status, self.body, self.headers = status, body, headers or []


class CallPipeline(PlannedCalls):
    """The call part of the relay's model (the model sets these attributes)."""

    clock: Clock
    h: Headers
    teams: dict[str, Team]
    tokens: dict[str, str]
    idempotency: billing.IdempotencyStore
    saturation: Saturation
    simulated: SimulatedUpstream
    upstreams: dict[str, Handler]
    not_before_ms: dict[str, int]
    billed_posts: dict[str, dict[str, int]]

    def team_for_token(self, token: str | None) -> Team | None:
        team_id = self.tokens.get(token) if token else None
        return self.teams.get(team_id) if team_id else None

    def access(self, entry_id: str, team: Team | None) -> dict[str, Any] | None:
        """How a call of the entry would be served for this team (the real /access view)."""
        entry = self.entry(entry_id)
        if entry is None:
            return None
        if entry.get("candidates"):
            try:
                entry = self._choose_route(team or Team("", "", "", 0), entry)
            except Refusal:
                return {"tier": "none", "detail": "no provider of this capability is usable",
                        "estimated_cost_micro": None, "estimated_cost_usd": None}
        kind, _ = team.credential_for(entry["provider"]) if team else (RELAY_KEY, None)
        if kind != RELAY_KEY:
            return {"tier": "tool" if kind == OWN_TOOL else "credential", "detail": f"served with the team's {kind}",
                    "estimated_cost_micro": 0, "estimated_cost_usd": 0.0}
        if entry["cost"] is None:
            return {"tier": "none", "detail": "no published price and no own key: register a tool or store a "
                                              f"secret for {entry['provider']}",
                    "estimated_cost_micro": None, "estimated_cost_usd": None}
        micro = billing.estimate(entry["cost"], {})
        return {"tier": "platform", "detail": "served on the relay's key, billed from the team balance",
                "estimated_cost_micro": micro, "estimated_cost_usd": micro / 1_000_000}

    async def call(self, request: CallInput) -> CallOutput:
        if request.idempotency_key is not None:
            # treg's reading of the header: stripped, at most 200 characters, and a blank one is no key
            request.idempotency_key = request.idempotency_key.strip()[:billing.MAX_KEY_LENGTH] or None
        if request.method == "GET" and request.idempotency_key is None:
            answer = self.call_planned(request.target, request.query, request.token)
            if answer is not None:
                return CallOutput(*answer, (), True)
        call_id = self.next_call_id()
        team = self.team_for_token(request.token)
        flags: list[tuple[ClientRule, str]] = []
        try:
            if team is None:
                raise Refusal(401, {"detail": f"missing or unknown {self.h.token}: sign in and send the team's "
                                              f"token in {self.h.token}", "error": "unauthorized"})
            if self.not_before_ms or request.method == "POST":
                self._check_retry_rules(team, request, flags)
            entry, provider, upstream_path, routed = self._resolve(request)
            if request.idempotency_key is None:
                return await self._forward(call_id, team, request, entry, provider, upstream_path, routed, flags)
            return await self._idempotent(call_id, team, request, entry, provider, upstream_path, routed, flags)
        except Refusal as refusal:
            if refusal.status == 503 and team is not None:
                retry_after = int(refusal.body.get("retry_after_s", 0))
                self.not_before_ms[team.team_id] = self.clock.now_ms() + retry_after * 1000
            return self._refusal_output(call_id, refusal, flags)

    def _refusal_output(self, call_id: str, refusal: Refusal, flags: list[tuple[ClientRule, str]]) -> CallOutput:
        headers = [("content-type", "application/json"), (self.h.call_id, call_id), (self.h.error, "1"),
                   *refusal.headers]
        return CallOutput(refusal.status, headers, dumps(refusal.body), flags)

    def _check_retry_rules(self, team: Team, request: CallInput, flags: list[tuple[ClientRule, str]]) -> None:
        now = self.clock.now_ms()
        not_before = self.not_before_ms.get(team.team_id)
        if not_before is not None:
            if now < not_before:
                flags.append((rules.RETRY_BEFORE_RETRY_AFTER,
                              f"called {(not_before - now) / 1000:.1f} s before the Retry-After of the last 503"))
            else:
                del self.not_before_ms[team.team_id]
        if request.method == "POST" and request.idempotency_key is None:
            fp = billing.fingerprint(request.method, request.target, request.query, request.body)
            seen = self.billed_posts.get(team.team_id, {})
            at = seen.get(fp)
            if at is not None and now - at <= RETRY_WINDOW_MS:
                flags.append((rules.BILLED_POST_RETRY,
                              f"the same POST /call/{request.target[:80]} was billed {(now - at) / 1000:.0f} s ago "
                              "and is sent again without an Idempotency-Key"))

    def _resolve(self, request: CallInput) -> tuple[Entry | None, str, str, bool]:
        """(entry or None, provider, upstream path, routed) of the call's target, or a refusal."""
        target = request.target
        known = self._targets.get(target)
        if known is None:
            if target.lower().startswith(("http://", "https://", "http:/", "https:/")):
                return self._resolve_url(request)
            entry = self.entry(target)
            if entry is None:
                raise Refusal(404, {"detail": f"no catalogue entry {target!r}", "error": "unknown_endpoint",
                                    "hint": "search the catalogue: GET /catalog/search?q=<words>",
                                    "did_you_mean": [r["id"] for r in self.search(target, 3)["results"]]})
            required = tuple(name for name, spec in entry["input"]["queryParams"].items() if spec["required"])
            known = (entry, entry["provider"], entry["path"], bool(entry.get("candidates")), required)
            if len(self._targets) >= 4096:
                self._targets.clear()
            self._targets[target] = known
        entry, provider, path, routed, required = known
        params = request.params
        for name in required:
            if not params.get(name):
                raise Refusal(400, {"detail": f"{entry['id']} requires --query {name}=<value>",
                                    "error": "missing_parameter", "parameter": name})
        return entry, provider, path, routed

    def _resolve_url(self, request: CallInput) -> tuple[Entry | None, str, str, bool]:
        target = request.target
        try:
            parts = urlsplit(target if "://" in target else target.replace(":/", "://", 1))
            host = (parts.hostname or "").lower()
        except ValueError:
            raise Refusal(400, {"detail": f"not a valid upstream URL: {target[:200]!r}",
                                "error": "invalid_upstream_url"}) from None
        provider = self.provider_for_host(host)
        if provider is None:
            raise Refusal(404, {"detail": f"no catalogued provider owns the host {host!r}; the relay forwards "
                                          "only to the providers of its catalogue (GET /catalog/platforms)",
                                "error": "unknown_upstream_host", "host": host})
        path = parts.path or "/"
        return self.entry_for_route(provider, request.method, path), provider, path, False

    async def _idempotent(self, call_id: str, team: Team, request: CallInput, entry: Entry | None, provider: str,
                          upstream_path: str, routed: bool, flags: list[tuple[ClientRule, str]]) -> CallOutput:
        key = str(request.idempotency_key)
        fp = billing.fingerprint(request.method, request.target, request.query, request.body)
        while True:
            stored = self.idempotency.lookup(team.team_id, key, self.clock.now_ms())
            if stored is None:
                break
            if stored.fingerprint != fp:
                raise Refusal(422, {"detail": "this Idempotency-Key was used for a different request; use a new key "
                                              "for a new request", "error": "idempotency_key_reused"})
            if stored.complete:
                return self._replay(call_id, team, stored, flags)
            assert stored.done is not None
            await stored.done.wait()  # a concurrent retry: wait for the first call's answer
        stored = self.idempotency.begin(team.team_id, key, fp, self.clock.now_ms() + self.settings.idempotency_ttl_s
                                        * 1000)
        output: CallOutput | None = None
        try:
            output = await self._forward(call_id, team, request, entry, provider, upstream_path, routed, flags)
            return output
        except Refusal as refusal:
            output = self._refusal_output(call_id, refusal, [])
            raise
        finally:
            keep = output is not None and output.recorded and output.status < 500
            if keep and output is not None:
                stored.status, stored.body, stored.call_id = output.status, output.body, call_id
                stored.headers = [(k, v) for k, v in output.headers if k != self.h.call_id]
            self.idempotency.finish(team.team_id, key, stored, keep)

    def _replay(self, call_id: str, team: Team, stored: billing.StoredAnswer,
                flags: list[tuple[ClientRule, str]]) -> CallOutput:
        original = self.calls.get(stored.call_id) or {}
        self.calls.add(call_id, original.get("endpoint_id"), original.get("provider"), original.get("credential"),
                       stored.status, 0, team.team_id, self.clock.now_ms(), replay_of=stored.call_id)
        headers = [*stored.headers, (self.h.call_id, call_id), (self.h.replay, "true")]
        return CallOutput(stored.status, headers, stored.body, flags, True)

    def _choose_route(self, team: Team, entry: Entry) -> Entry:
        usable: list[tuple[int, int, str, Entry]] = []
        for candidate_id in entry["candidates"]:
            candidate = self.entry(candidate_id)
            if candidate is None:
                continue
            kind, _ = team.credential_for(candidate["provider"])
            if kind != RELAY_KEY:
                usable.append((0, 0, candidate_id, candidate))
            elif candidate["cost"] is not None:
                usable.append((1, int(candidate["cost"]["value"]), candidate_id, candidate))
        if not usable:
            raise Refusal(404, {"detail": f"{entry['id']}: no provider of this capability is usable: none has a "
                                          "published price and the team has no own key for any of "
                                          f"{', '.join(entry['candidates'])}", "error": "no_usable_provider"})
        return min(usable, key=lambda row: row[:3])[3]

    async def _forward(self, call_id: str, team: Team, request: CallInput, entry: Entry | None, provider: str,
                       upstream_path: str, routed: bool, flags: list[tuple[ClientRule, str]]) -> CallOutput:
        routed_id = None
        if routed and entry is not None:
            routed_id = entry["id"]
            entry = self._choose_route(team, entry)
            provider, upstream_path = entry["provider"], entry["path"]
        now = self.clock.now_ms()
        credential, key = team.credential_for(provider)
        price = entry["cost"] if entry is not None else None
        endpoint_id = entry["id"] if entry is not None else None
        label = endpoint_id or provider
        estimated = 0
        if credential == RELAY_KEY:
            if price is None:
                what = endpoint_id or f"{request.method} {upstream_path} on {provider}"
                raise Refusal(404, {"detail": f"{what} has no published price, so the relay will not call it on its "
                                              f"own key (it is refused, not served free).\n  use your own key: "
                                              f"register a tool or store a secret for provider {provider!r} "
                                              f"(POST /_fake/teams/{{id}}/tools or /secrets), or pick a priced "
                                              "alternative from GET /catalog/search", "error": "no_published_price",
                                    "provider": provider, "endpoint_id": endpoint_id})
            estimated = billing.estimate(price, request.params)
            if estimated > team.available_micro:
                raise Refusal(402, self._insufficient(team, label, provider, estimated))
        method = (entry["method"] if entry is not None and (routed_id is not None or request.target == entry["id"])
                  else request.method)
        # A simulated provider with nothing to wait for answers at once: no task switch can come
        # between the balance check and the charge, so the call needs no hold and is never in flight.
        at_once = provider not in self.upstreams and not (self.settings.upstream_latency_ms
                                                           and self.clock.mode != "manual")
        reason = self.saturation.admit_instant(now) if at_once else self.saturation.admit(now)
        if reason is not None:
            retry = self.saturation.retry_after_s
            raise Refusal(503, {"proxy_saturated": True, "detail": reason + f"; retry after {retry} s",
                                "retry_after_s": retry}, [("retry-after", str(retry))])
        if at_once:
            try:
                status, headers, body, parsed, miss = self.simulated.respond(
                    entry, provider, method, upstream_path, request.params, credential, now,
                    team.upstream_rate_limited)
            except UpstreamTimeout as exc:
                self.calls.add(call_id, endpoint_id, provider, credential, 504, 0, team.team_id, now, routed_id)
                raise Refusal(504, {"detail": f"upstream timed out: {exc}", "error": "upstream_timeout"}) from None
            if miss is None:
                if parsed is NOT_PARSED:
                    parsed = billing.parse_json(body)
                miss = billing.is_miss(status, parsed)
            elif routed_id is None and entry is not None and request.method == "GET" and request.target == entry["id"]:
                # the provider's plain answer to a catalogue id: the next identical call may use a plan
                self.remember_plan(request.target, request.query, request.params, entry, status, body, parsed,
                                   miss)
            cost = billing.charge(price, status, parsed, estimated, miss) if credential == RELAY_KEY else 0
            if cost:
                team.debit(call_id, min(cost, estimated), now, label)
        else:
            status, headers, body, miss, cost = await self._call_upstream(
                call_id, team, request, entry, provider, upstream_path, method, credential, key, price, estimated,
                now, label, endpoint_id, routed_id)
        return self._finish(call_id, team, request, entry, endpoint_id, provider, credential, routed_id, status,
                            headers, body, miss, cost, now, flags)

    async def _call_upstream(self, call_id: str, team: Team, request: CallInput, entry: Entry | None, provider: str,
                             upstream_path: str, method: str, credential: str, key: str | None,
                             price: dict[str, Any] | None, estimated: int, now: int, label: str,
                             endpoint_id: str | None, routed_id: str | None
                             ) -> tuple[int, list[tuple[str, str]], bytes, bool, int]:
        """A registered upstream, or a simulated one that takes time: the estimate is held meanwhile."""
        if estimated:
            team.hold(call_id, estimated, label)
        known = self.provider(provider)
        upstream_request = UpstreamRequest(
            method=method, host=known["host"] if known is not None else provider, path=upstream_path,
            query=request.query, params=request.params,
            headers=(self._upstream_headers(request.headers, provider, credential, key)
                     if provider in self.upstreams else []),
            body=request.body, credential=credential)
        try:
            response = await self._upstream(provider, entry, upstream_request, now, team.upstream_rate_limited)
        except UpstreamTimeout as exc:
            team.settle(call_id, 0, now, label)
            self.calls.add(call_id, endpoint_id, provider, credential, 504, 0, team.team_id, now, routed_id)
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
        return response.status, headers, response.body, miss, cost

    def _finish(self, call_id: str, team: Team, request: CallInput, entry: Entry | None, endpoint_id: str | None,
                provider: str, credential: str, routed_id: str | None, status: int, headers: list[tuple[str, str]],
                body: bytes, miss: bool, cost: int, now: int, flags: list[tuple[ClientRule, str]]) -> CallOutput:
        """Statistics, the call record and the relay's headers of an answered call."""
        if entry is not None and status < 500:
            stat = self.stats.get(endpoint_id)  # type: ignore[arg-type]
            if stat is None:
                stat = self.stats[entry["id"]] = [0, 0]
            stat[0] += 1
            if not miss and status < 400:
                stat[1] += 1
        self.calls.add(call_id, endpoint_id, provider, credential, status, cost, team.team_id, now, routed_id)
        if cost and request.method == "POST" and request.idempotency_key is None:
            fp = billing.fingerprint(request.method, request.target, request.query, request.body)
            seen = self.billed_posts.setdefault(team.team_id, {})
            if len(seen) > 1000:
                seen.clear()
            seen[fp] = now
        h = self.h
        headers.append((h.call_id, call_id))
        if credential == RELAY_KEY:
            headers.append((h.cost, str(cost)))
        if routed_id is not None:
            headers.append((h.served_by, provider))
        return CallOutput(status, headers, body, flags, True)

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

    def _upstream_headers(self, raw: list[tuple[bytes, bytes]], provider: str, credential: str,
                          key: str | None) -> list[tuple[str, str]]:
        """The caller's headers minus the relay's own and hop-by-hop ones, plus the credential."""
        headers = [(k.decode("latin-1").lower(), v.decode("latin-1")) for k, v in raw]
        kept = [(k, v) for k, v in headers
                if k not in _HOP_HEADERS and not k.startswith(self.h.lower_prefix) and k != "idempotency-key"]
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
