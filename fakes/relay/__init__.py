"""The call relay fake (docs/services/relay.md; the real relay is treg): one token in front of about
2,900 catalogued endpoints of about 60 providers, a prepaid balance in integer micro-USD, the
credential ladder, idempotency, saturation, a web firewall, simulated upstreams answered in process
(never the network), plain-text indexes and an MCP connector. See docs/services/relay.md.
"""

from __future__ import annotations

import json
import weakref
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from starlette.routing import BaseRoute

from fakes import registry
from fakes.kernel.errors import ControlError, ServiceError
from fakes.kernel.fake import Fake
from fakes.kernel.http import dumps

from . import control, openapi, routes, rules
from .accounts import billing as accounts_billing
from .accounts import connections, control_extras, ladder, logins
from .accounts.orgdata import CreditBlock
from .headers import Headers
from .model import RelayModel
from .records import MAX_CALL_RECORDS
from .settings import RelaySettings
from .upstreams import (
    AsgiUpstream,
    CannedUpstream,
    FakeUpstream,
    Handler,
    UpstreamRequest,
    UpstreamResponse,
    validate_canned,
)

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from fakes.kernel.benchops import BenchOperation

__all__ = ["RelayFake", "RelayModel", "RelaySettings", "UpstreamRequest", "UpstreamResponse"]

#: the benchmark's request: a priced catalogue call on the relay's key (its example input hits)
SAMPLE_ENDPOINT = "firmdata.companies.enrich"
RICH_BALANCE = 10**12


class RelayFake(Fake):
    name = "relay"
    title = "Call relay (treg lookalike): one token, a prepaid balance, about 2,900 endpoints"
    default_port = 8704
    settings_class = RelaySettings
    client_rules = rules.ALL
    #: the window of call records full: each call's record then pushes the oldest out
    bench_steady_requests = MAX_CALL_RECORDS + 1_000

    settings: RelaySettings
    model: RelayModel
    _auth_for: RelayModel | None = None
    _auth_token: str = ""
    _demo_for: RelayModel | None = None
    _demo: dict[str, str]

    def __init__(self, **kwargs: Any) -> None:
        self.mcp_server: MCPServer | None = None  # built on the first connector request (fakes/relay/mcp.py)
        super().__init__(**kwargs)

    # -- kernel hooks ---------------------------------------------------------------------------
    def create_model(self) -> RelayModel:
        fake = weakref.ref(self)  # the model outlives no fake; a weak reference keeps them apart for the GC
        return RelayModel(self.clock, self.settings, self.seed,
                          world_of=lambda: getattr(fake(), "world_id", None))

    def routes(self) -> list[BaseRoute]:
        return routes.routes()  # built once, shared by every fake and world

    def control_routes(self) -> list[BaseRoute]:
        return control.routes()

    def error_body(self, err: ServiceError) -> dict[str, Any]:
        """The relay's own errors: JSON with ``detail`` (and a machine-readable ``error``); a request
        FastAPI would refuse while reading it carries its list of problems as ``detail``."""
        extra = dict(err.extra)
        detail = extra.pop("detail", err.message)
        return {"detail": detail, "error": err.code or "error", **extra}

    def openapi_document(self) -> dict[str, Any]:
        return openapi.document(self.settings)

    def dashboard_panels(self) -> list[dict[str, Any]]:
        from .panel import panels  # imported when a browser first asks (fakes/kernel/dashboard)
        return panels(self)

    def demo_credentials(self) -> dict[str, str]:
        """A new team holding the free $1.00 (one per model)."""
        if self._demo_for is not self.model:
            team = self.model.create_team()
            self._demo = {"team_id": team.team_id, "token": team.token,
                          "balance": f"${team.balance_micro / 1_000_000:.2f} ({team.balance_micro} micro-USD)",
                          "header": f"{self.model.h.token}: {team.token}"}
            self._demo_for = self.model
        return dict(self._demo)

    def auth_headers(self) -> dict[str, str]:
        """A team with a large balance (so long benchmark and contract runs never hit 402)."""
        if self._auth_for is not self.model:
            self._auth_token = self.model.create_team(balance_micro=RICH_BALANCE, name="Benchmark team").token
            self._auth_for = self.model
        return {self.model.h.token: self._auth_token}

    def bench_operations(self) -> list[BenchOperation]:
        """Every public operation, timed by ``python -m scenarios bench --parts operations`` (see :mod:`.bench`)."""
        from .bench import bench_operations

        return bench_operations(self)

    def sample_request(self) -> tuple[str, str]:
        """A priced catalogue call on the relay's key, by the team of :meth:`auth_headers`, whose
        calls the simulated providers no longer rate-limit (a flag in that team's own state): a long
        run on a still clock measures the relay, not the provider's 429, while every other team keeps
        the per-minute limit."""
        headers = self.auth_headers()
        team = self.model.team_for_token(headers[self.model.h.token])
        assert team is not None
        team.upstream_rate_limited = False
        return ("GET", f"/call/{SAMPLE_ENDPOINT}?domain=northwind.com")

    def deliberate_5xx(self, status: int, headers: Mapping[str, str], body: bytes) -> bool:
        """The relay's documented 5xx: 503 while saturated (the switch or the thresholds), its own
        502/504 when an upstream fails or times out, and an upstream's own 5xx passed on verbatim
        (it carries the call id but not the relay's error header)."""
        lowered = {k.lower(): v for k, v in headers.items()}
        names = self.model.h
        if names.call_id.lower() not in lowered:
            return False
        if names.error.lower() not in lowered:
            return True  # the upstream's own answer, as the seed says: a bare 5xx comes only from there
        try:
            error = json.loads(body)
        except ValueError:
            return False
        if not isinstance(error, dict):
            return False
        return ((status == 503 and error.get("proxy_saturated") is True)
                or (status, error.get("error")) in ((502, "upstream_failed"), (504, "upstream_timeout")))

    # -- helpers for routes ---------------------------------------------------------------------
    def model_headers(self) -> Headers:
        return self.model.h

    def render(self, body: Any) -> bytes:
        return dumps(body)

    # -- control plane as Python ----------------------------------------------------------------
    def create_team(self, balance_micro: int | None = None, name: str | None = None, *,
                    upstream_rate_limited: bool = True) -> dict[str, Any]:
        """A team with a token; ``balance_micro`` defaults to the free $1.00. With
        ``upstream_rate_limited=False`` the simulated providers never answer this team's calls with
        their per-minute 429 (nor count them against the relay's key): for load tests."""
        team = self.model.create_team(balance_micro, name, upstream_rate_limited=upstream_rate_limited)
        return {"team_id": team.team_id, "token": team.token, "team_name": team.name,
                "balance_micro": team.balance_micro}

    def team_info(self, team_id: str) -> dict[str, Any]:
        team = self.model.team(team_id)
        return {**team.summary(), "ledger": team.ledger_rows()}

    def add_tool(self, team_id: str, provider: str, key: str) -> dict[str, Any]:
        """Register the team's own key for ``provider`` (rung 1 of the ladder; never billed): a tool
        named after the provider on its host, bound to a secret holding ``key``, as ``POST /tools`` makes."""
        team = self.model.team(team_id)
        self.model.known_provider(provider, status=409)
        known = self.model.provider(provider)
        assert known is not None
        ladder.control_tool(self.model.accounts, team, provider, known["host"], key)
        return {"team_id": team_id, "provider": provider, "kind": "own_tool"}

    def add_secret(self, team_id: str, provider: str, secret: str) -> dict[str, Any]:
        """Store a secret for ``provider`` (rung 2, injected through a virtual tool; never billed)."""
        team = self.model.team(team_id)
        self.model.known_provider(provider, status=409)
        ladder.control_secret(self.model.accounts, team, provider, secret)
        return {"team_id": team_id, "provider": provider, "kind": "secret"}

    def topup(self, team_id: str, amount_micro: int) -> dict[str, Any]:
        team = self.model.team(team_id)
        team.topup(amount_micro, self.clock.now_ms())
        team.org.blocks.append(CreditBlock(self.model.accounts.next("block"), "topup", amount_micro,
                                           self.clock.now_ms()))
        return team.summary()

    def register_upstream(self, provider: str, handler: Callable[[UpstreamRequest], Any] | None = None, *,
                          app: Any = None, responses: list[dict[str, Any]] | None = None) -> None:
        """Answer ``provider``'s calls with a Python callable (``UpstreamRequest`` -> ``UpstreamResponse``,
        sync or async), an ASGI ``app`` (e.g. another fake's ``.app``) or a canned ``responses`` table."""
        given = [x for x in (handler, app, responses) if x is not None]
        if len(given) != 1:
            raise ValueError("give exactly one of handler, app or responses")
        if responses is not None:
            self.register_canned_upstream(provider, responses)
        elif app is not None:
            self.model.register_upstream(provider, AsgiUpstream(app))
        else:
            assert handler is not None
            wrapped: Handler = handler
            self.model.register_upstream(provider, wrapped)

    def register_canned_upstream(self, provider: str, responses: Any) -> dict[str, Any]:
        try:
            rows = validate_canned(responses)
        except ValueError as exc:
            raise ControlError(400, str(exc), code="invalid_body") from None
        self.model.register_upstream(provider, CannedUpstream(rows), {"responses": rows})
        return {"provider": provider, "upstream": "responses", "rows": len(rows)}

    def use_fake_upstream(self, provider: str, fake_name: str) -> dict[str, Any]:
        """Answer ``provider`` with another fake served by the same ``fakes serve`` (in process)."""
        other = registry.live_fake(fake_name, self.world_id)  # in a world: the other fake's same world
        if other is None:
            raise ControlError(404, f"no fake {fake_name!r} is served by this process (live: "
                                    f"{', '.join(registry.LIVE_FAKES) or 'none'})", code="not_found")
        if other is self:
            raise ControlError(400, "the relay cannot be its own upstream", code="invalid_body")
        self.model.register_upstream(provider, FakeUpstream(fake_name, self.model.world_of), {"fake": fake_name})
        return {"provider": provider, "upstream": "fake", "fake": fake_name}

    def upstream_requests(self, provider: str | None = None) -> dict[str, Any]:
        """What the upstreams were sent, per provider (newest last): ``{"recording_simulated",
        "upstreams": {provider: [{call_id, at_ms, method, host, path, query, headers, body,
        body_base64, body_bytes, body_truncated, credential}]}}``. Registered upstreams are always
        logged; simulated providers while :meth:`record_simulated_upstreams` is on."""
        if provider is not None:
            self.model.known_provider(provider)
        return self.model.upstream_log.view(provider)

    def clear_upstream_requests(self, provider: str | None = None) -> dict[str, Any]:
        if provider is not None:
            self.model.known_provider(provider)
        self.model.upstream_log.clear(provider)
        return self.model.upstream_log.view(provider)

    def record_simulated_upstreams(self, on: bool = True) -> dict[str, Any]:
        """Log the simulated providers' requests too (the setting ``record_upstream_requests``)."""
        self.model.record_simulated_upstreams(on)
        return {"recording_simulated": on}

    def set_saturation(self, **changes: Any) -> dict[str, Any]:
        """``saturated`` (the switch), ``max_in_flight``, ``max_per_second``, ``retry_after_s``."""
        self.model.saturation.update(changes)
        return self.model.saturation.describe()

    def add_provider(self, **fields: Any) -> dict[str, Any]:
        """A new provider (``provider`` slug, optional ``host``); its calls are simulated until an
        upstream is registered for it."""
        return self.model.add_provider(fields)

    def add_entry(self, **fields: Any) -> dict[str, Any]:
        """A new catalogue entry (``id``, ``method``, ``path``, ``params``, ``cost`` or None, ``kind``)."""
        return self.model.add_entry(fields)

    # -- the browser and the mailbox of the account flows (nothing leaves the fake) ----------------
    def pending_logins(self) -> list[dict[str, Any]]:
        """CLI logins (``treg login``) waiting for the browser: id, pairing code, whether approved."""
        return control_extras.pending_logins(self.model.accounts)

    def approve_login(self, login_id: str, email: str, org: str | None = None) -> dict[str, Any]:
        """What the browser does for ``treg login``: sign in as ``email`` (registered if new) and
        approve the login with its pairing code; ``org`` (a slug) picks the team the CLI lands on."""
        try:
            return logins.approve_for(self.model.accounts, login_id, email, org)
        except ServiceError as exc:
            raise ControlError(exc.status, exc.message, code=exc.code or "error") from None

    def outbox(self) -> list[dict[str, Any]]:
        """The e-mails the relay would have sent: sign-in codes and invites (with both secrets)."""
        return control_extras.outbox(self.model.accounts)

    def checkouts(self) -> list[dict[str, Any]]:
        return control_extras.checkouts(self.model.accounts)

    def pay_checkout(self, session_id: str) -> dict[str, Any]:
        """The payer finishes a checkout: a top-up credits the balance (and its bonus), the card is saved."""
        try:
            return accounts_billing.pay(self.model.accounts, session_id)
        except ServiceError as exc:
            raise ControlError(exc.status, exc.message, code=exc.code or "error") from None

    def cancel_checkout(self, session_id: str) -> dict[str, Any]:
        try:
            return accounts_billing.cancel(self.model.accounts, session_id)
        except ServiceError as exc:
            raise ControlError(exc.status, exc.message, code=exc.code or "error") from None

    def consent(self, state: str, grant: bool = True) -> dict[str, Any]:
        """The user's answer on a provider's consent screen (what visiting ``consent_url`` does)."""
        acc = self.model.accounts
        if state not in acc.connects:
            raise ControlError(404, f"no pending connection {state!r}", code="not_found")
        status, headline, _ = connections.callback(acc, state, connections.consent_code(acc, state) if grant else "",
                                                   "" if grant else "access_denied")
        return {"state": state, "status": acc.connects[state].status, "page": headline, "page_status": status}
