"""The relay's call pipeline: who calls (a member's token, or an identity token in the team its org
header names), their tags (``X-Treg-Meta``) and the team's preflight rules, idempotent replays,
what the target resolves to (:mod:`fakes.relay.resolve`), the team's and member's rules (deny rules,
the daily call cap), one attempt (:mod:`fakes.relay.attempt`) or a routed capability's several
(:mod:`fakes.relay.routed`), the call record (attributed to the member) and the relay's headers.
Plain Python, no HTTP types: routes hand in a :class:`CallInput` and get a :class:`CallOutput`
(both in :mod:`fakes.relay.callio`, re-exported here). Part of :class:`fakes.relay.model.RelayModel`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from starlette.requests import cookie_parser

from fakes.kernel.errors import ServiceError
from fakes.kernel.http import dumps
from fakes.kernel.verdicts import ClientRule

from . import billing, callguard, resolve, routed, rules
from .accounts.keys import require_tool_use
from .accounts.people import norm_client
from .attempt import Attempt, Attempts
from .callio import CallInput, CallOutput
from .errors import Refusal
from .records import Who
from .teams import OWN_TOOL, RELAY_KEY, Membership, Team

if TYPE_CHECKING:
    from .accounts.identity import Accounts

RETRY_WINDOW_MS = 300_000
_SCOPE_SEPARATOR = "\x1f"
__all__ = ["CallInput", "CallOutput", "CallPipeline", "Refusal"]


class CallPipeline(Attempts):
    """The call part of the relay's model (the model sets these attributes)."""

    accounts: Accounts
    idempotency: billing.IdempotencyStore
    billed_posts: dict[str, dict[str, int]]

    def team_for_token(self, token: str | None) -> Team | None:
        member = self.by_token.get(token) if token else None
        return member.team if member is not None else None

    def access(self, entry_id: str, team: Team | None) -> dict[str, Any] | None:
        """How a call of the entry would be served for this team (the real /access view)."""
        entry = self.entry(entry_id)
        if entry is None:
            return None
        if entry.get("candidates"):
            ranked = routed.candidates(self, team or Team("", "", "", 0), entry, [], [])
            if not ranked:
                return {"tier": "none", "detail": "no provider of this capability is usable",
                        "estimated_cost_micro": None, "estimated_cost_usd": None}
            entry = ranked[0][0]
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
        if request.try_plan and request.method == "GET" and request.idempotency_key is None:
            answer = self.call_planned(request.target, request.query, request.token)
            if answer is not None:
                status, limits, call_id, cost, body = answer
                return CallOutput(status, self.planned_headers(limits, call_id, cost), body, (), True)
        call_id = self.next_call_id()
        flags: list[tuple[ClientRule, str]] = []
        team: Team | None = None
        try:
            member = self._caller(request)
            team = member.team
            if self.not_before_ms or request.method == "POST":
                self._check_retry_rules(team, request, flags)
            tags = callguard.parse_meta(request.header(self.h.meta.lower()), member)
            callguard.check_tag_preflight(team, tags, self.clock.now_ms())
            if request.idempotency_key is None:
                return await self._dispatch(call_id, member, request, tags, flags)
            return await self._idempotent(call_id, member, request, tags, flags)
        except Refusal as refusal:
            if refusal.status == 503 and team is not None:
                retry_after = int(refusal.body.get("retry_after_s", 0))
                self.not_before_ms[team.team_id] = self.clock.now_ms() + retry_after * 1000
            return self._refusal_output(call_id, refusal, flags)

    def _caller(self, request: CallInput) -> Membership:
        token = request.token
        member = self.by_token.get(token) if token else None
        if member is not None:
            return member
        cookie = None if token else self._session_cookie(request)
        if (token and "." in token) or cookie:
            # an identity token or a browser session (treg ``require_member``): the team comes from the org
            # header (or the token's own claim); 400 without one, 403 for a team not one's own
            try:
                return self.accounts.require_member(token, cookie, request.header(self.h.org.lower()), calling=True)
            except ServiceError as exc:
                raise Refusal(exc.status, {"detail": exc.message, "error": exc.code or "unauthorized"}) from None
        raise Refusal(401, {"detail": f"missing or unknown {self.h.token}: sign in and send the team's token in "
                                      f"{self.h.token}", "error": "unauthorized"})

    def _session_cookie(self, request: CallInput) -> str | None:
        """The browser session's cookie (``<relay>_session``), read only when no token came."""
        raw = request.header("cookie")
        if not raw:
            return None
        return cookie_parser(raw).get(f"{self.settings.relay_name}_session") or None

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

    async def _dispatch(self, call_id: str, member: Membership, request: CallInput, tags: dict[str, str],
                        flags: list[tuple[ClientRule, str]]) -> CallOutput:
        target = resolve.resolve(self, request, member)
        now = self.clock.now_ms()
        if target.tool is not None:
            require_tool_use(member, target.tool)
        if member.team.org.deny:
            known = self.provider(target.provider) if target.provider else None
            host = target.tool.host if target.tool is not None else (known["host"] if known else "")
            callguard.check_deny(member, host, target.path, request.method,
                                 target.tool.project_id if target.tool is not None else None)
        if member.daily_call_cap >= 0:
            callguard.check_member_cap(self, member, now)
        if target.routed:
            assert target.entry is not None
            result, wrapped, spent = await routed.call_routed(self, call_id, member, request, target.entry, tags,
                                                              request.headers_named())
            return self._finish_routed(call_id, member, request, target.entry, result, wrapped, spent, tags, flags)
        result = await self.attempt(call_id, member, request, target, tags)
        return self._finish(call_id, member, request, result, tags, flags)

    def _who(self, member: Membership, request: CallInput, tags: dict[str, str]) -> Who:
        client = norm_client(request.header(self.h.client.lower()))
        if not client and not tags and request.method == "GET":
            return member.who
        return (member.email, client, tags or None, request.method)

    def _finish(self, call_id: str, member: Membership, request: CallInput, result: Attempt, tags: dict[str, str],
                flags: list[tuple[ClientRule, str]]) -> CallOutput:
        """Statistics, the call record and the relay's headers of an answered call."""
        entry, status, cost = result.entry, result.status, result.cost
        now = self.clock.now_ms()
        if entry is not None and status < 500:
            stat = self.stats.get(entry["id"])
            if stat is None:
                stat = self.stats[entry["id"]] = [0, 0]
            stat[0] += 1
            if not result.miss and status < 400:
                stat[1] += 1
        self._record(call_id, member, request, result, cost, tags, now, None)
        h = self.h
        headers = [*result.headers, (h.call_id, call_id)]
        if result.credential == RELAY_KEY:
            headers.append((h.cost, str(cost)))
        if result.task is not None:
            headers += self._async_headers(result)
        return CallOutput(status, headers, result.body, flags, True)

    def _async_headers(self, result: Attempt) -> list[tuple[str, str]]:
        """An asynchronous submission's hold and treg's static descriptor of how to follow it (what
        ``treg call --await`` reads from ``X-Treg-Async``; package ``routers/call.py``
        ``_attach_async_descriptor``)."""
        assert result.entry is not None
        descriptor = result.entry.get("async") or {}
        return [(self.h.reserved, str(result.reserved)), (self.h.async_task, dumps(descriptor).decode())]

    def _finish_routed(self, call_id: str, member: Membership, request: CallInput, entry: Any, result: Attempt,
                       wrapped: dict[str, Any], spent: int, tags: dict[str, str],
                       flags: list[tuple[ClientRule, str]]) -> CallOutput:
        now = self.clock.now_ms()
        meta = wrapped["_treg"]
        status = result.status if meta["outcome"] in ("hit", "pending", "rejected") else 200
        served = result.entry["id"] if result.entry is not None else entry["id"]
        self._record(call_id, member, request, result, spent, tags, now, entry["id"], served)
        h = self.h
        headers = [("content-type", "application/json"), (h.call_id, call_id),
                   (h.tried, ",".join(t["provider"] for t in meta["tried"])), (h.outcome, meta["outcome"])]
        if meta["served_by"]:
            headers.append((h.served_by, meta["served_by"]))
        if any(t["outcome"] != "skipped" for t in meta["tried"]) and (result.credential == RELAY_KEY or spent):
            headers.append((h.cost, str(spent)))
        if result.task is not None:
            headers += self._async_headers(result)
        return CallOutput(status, headers, dumps(wrapped), flags, True)

    def _record(self, call_id: str, member: Membership, request: CallInput, result: Attempt, cost: int,
                tags: dict[str, str], now: int, routed_id: str | None, served: str | None = None) -> None:
        team = member.team
        endpoint_id = served or (result.entry["id"] if result.entry is not None else None)
        provider = result.provider or (request.target.partition("/")[0] if result.entry is None else None)
        self.calls.add(call_id, endpoint_id, provider, result.credential, result.status, cost, team.team_id, now,
                       routed_id, who=self._who(member, request, tags))
        if tags:
            callguard.record_tags(team, tags, cost, now)
        if cost and request.method == "POST" and request.idempotency_key is None:
            fp = billing.fingerprint(request.method, request.target, request.query, request.body)
            seen = self.billed_posts.setdefault(team.team_id, {})
            if len(seen) > 1000:
                seen.clear()
            seen[fp] = now

    async def _idempotent(self, call_id: str, member: Membership, request: CallInput, tags: dict[str, str],
                          flags: list[tuple[ClientRule, str]]) -> CallOutput:
        team = member.team
        primary = tags.get(team.org.primary_dim, "")
        key = str(request.idempotency_key)
        scoped = f"{primary}{_SCOPE_SEPARATOR}{key}" if primary else key  # treg _scoped_idempotency_key
        fp = billing.fingerprint(request.method, request.target, request.query, request.body)
        while True:
            stored = self.idempotency.lookup(team.team_id, scoped, self.clock.now_ms())
            if stored is None:
                break
            if stored.fingerprint != fp:
                raise Refusal(422, {"detail": f"Idempotency-Key {key!r} was already used for a different request. "
                                              "Use a new key, or repeat the original request exactly.",
                                    "error": "idempotency_key_reused"})
            if stored.complete:
                return self._replay(call_id, member, request, stored, tags, flags)
            assert stored.done is not None
            await stored.done.wait()  # a concurrent retry: wait for the first call's answer
        stored = self.idempotency.begin(team.team_id, scoped, fp,
                                        self.clock.now_ms() + self.settings.idempotency_ttl_s * 1000)
        output: CallOutput | None = None
        try:
            output = await self._dispatch(call_id, member, request, tags, flags)
            return output
        except Refusal as refusal:
            output = self._refusal_output(call_id, refusal, [])
            raise
        finally:
            keep = output is not None and output.recorded and output.status < 500
            if keep and output is not None:
                stored.status, stored.body, stored.call_id = output.status, output.body, call_id
                stored.headers = [(k, v) for k, v in output.headers if k != self.h.call_id]
            self.idempotency.finish(team.team_id, scoped, stored, keep)

    def _replay(self, call_id: str, member: Membership, request: CallInput, stored: billing.StoredAnswer,
                tags: dict[str, str], flags: list[tuple[ClientRule, str]]) -> CallOutput:
        original = self.calls.get(stored.call_id) or {}
        self.calls.add(call_id, original.get("endpoint_id"), original.get("provider"), original.get("credential"),
                       stored.status, 0, member.team.team_id, self.clock.now_ms(), replay_of=stored.call_id,
                       who=self._who(member, request, tags))
        headers = [*stored.headers, (self.h.call_id, call_id), (self.h.replay, "true")]
        return CallOutput(stored.status, headers, stored.body, flags, True)
