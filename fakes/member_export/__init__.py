"""Member data export fake: a LinkedIn DMA portability API lookalike (docs/services/member-export.md).

Consent starts archiving and the per-domain snapshot builds; snapshot pages end with a 404
"No data found"; the changelog keeps 28 days of the member's actions, queried with an inclusive
``startTime``. See README.md, "Services", for settings and control-plane bodies.
"""

from __future__ import annotations

from typing import Any

from starlette.routing import BaseRoute

from fakes.kernel.benchops import BenchOperation
from fakes.kernel.errors import ServiceError
from fakes.kernel.fake import Fake

from .bench import bench_operations
from .control import control_routes
from .domains import DOMAINS
from .model import SERVICE_ERROR_GENERIC, MemberExportModel
from .oauth_routes import oauth_routes
from .openapi import openapi_document
from .page_cache import RenderedPages
from .paging import pending
from .routes import service_routes
from .rules import RULES, STOPPED_AT_TOTAL
from .settings import MemberExportSettings

__all__ = ["MemberExportFake", "MemberExportModel", "MemberExportSettings"]


class MemberExportFake(Fake):
    name = "member-export"
    title = "Member data export API"
    state_required_fields = ("counters", "members", "tokens")
    default_port = 8701
    settings_class = MemberExportSettings
    client_rules = RULES
    # the journal's redactions beyond the kernel's (client_secret, access_token, refresh_token):
    # OAuth introspection's token; the authorization code in forms and redirects (JSON "code" is an error code)
    secret_fields, secret_form_fields = ("token",), ("code",)

    settings: MemberExportSettings
    model: MemberExportModel
    _auth_for: MemberExportModel | None = None
    _rendered: RenderedPages | None = None
    _auth_headers: dict[str, str]

    @property
    def rendered_pages(self) -> RenderedPages:
        """Snapshot pages that cannot change yet, as bytes (page_cache.py); made on first use."""
        if self._rendered is None:
            self._rendered = RenderedPages()
        return self._rendered

    # -- kernel hooks -------------------------------------------------------------------------
    def settle_verdicts(self) -> None:
        """A client that stopped paging at ``paging.total`` and did nothing since (paging.py)."""
        for detail, offence in pending(iter(self.model.members.values()), self.model.judged_stops):
            self.verdict_log.record(STOPPED_AT_TOTAL, detail, offence)

    def create_model(self) -> MemberExportModel:
        return MemberExportModel(self.clock, self.settings, self.seed, self.epoch)

    def routes(self) -> list[BaseRoute]:
        return [*service_routes(), *oauth_routes()]

    def control_routes(self) -> list[BaseRoute]:
        return control_routes()

    def error_body(self, err: ServiceError) -> dict[str, Any]:
        """``{"status", "serviceErrorCode", "code"?, "message"}``, the service's own error shape;
        the OAuth endpoints' ``{"error", "error_description"}``."""
        oauth = err.extra.get("oauth_error")
        if oauth is not None:
            return {"error": oauth, "error_description": err.message}
        body: dict[str, Any] = {
            "status": err.status,
            "serviceErrorCode": err.extra.get("service_error_code", SERVICE_ERROR_GENERIC),
        }
        if err.code:
            body["code"] = err.code.upper()  # kernel codes (not_found, ...) in the service's spelling
        body["message"] = err.message
        return body

    def openapi_document(self) -> dict[str, Any]:
        return openapi_document(self.settings, self.title)

    def dashboard_panels(self) -> list[dict[str, Any]]:
        from .panel import panels  # imported when a browser first asks (fakes/kernel/dashboard)
        return panels(self)

    def demo_credentials(self) -> dict[str, str]:
        """One EU member who has consented and whose domains are all built already."""
        member_id, token = self._ready_member()
        return {
            "member_id": member_id,
            "access_token": token,
            "headers": f"Authorization: Bearer {token}; "
                       f"{self.settings.version_header}: {self.settings.accepted_version}",
        }

    def auth_headers(self) -> dict[str, str]:
        """Headers of a ready member's client, made once per model (reset/import replace it)."""
        if self._auth_for is not self.model:
            _, token = self._ready_member()
            self._auth_headers = {"Authorization": f"Bearer {token}",
                                  self.settings.version_header: self.settings.accepted_version}
            self._auth_for = self.model
        return dict(self._auth_headers)

    def bench_operations(self) -> list[BenchOperation]:
        """Every public operation, OAuth included (see :mod:`.bench`)."""
        return bench_operations(self)

    def sample_request(self) -> tuple[str, str]:
        self.auth_headers()
        return ("GET", "/rest/memberSnapshotData?q=criteria&domain=INBOX&start=0")

    def _ready_member(self) -> tuple[str, str]:
        created = self.create_member(name="Erika Mustermann", region="DE", build_times=dict.fromkeys(DOMAINS, 0))
        return created["id"], self.consent(created["id"])["access_token"]

    # -- control plane as Python --------------------------------------------------------------
    def create_member(self, *, region: Any = None, name: Any = None, sizes: Any = None,
                      build_times: Any = None) -> dict[str, Any]:
        """A member with a token; ``sizes``/``build_times`` map domains to counts/seconds."""
        return self.model.create_member(region=region, name=name, sizes=sizes, build_times=build_times)

    def member_info(self, member_id: str) -> dict[str, Any]:
        return self.model.member_info(member_id)

    def consent(self, member_id: str, *, expires_in: Any = None) -> dict[str, Any]:
        """Consent (idempotent for archiving) plus a new token, as re-consenting does for real."""
        return self.model.consent(member_id, expires_in=expires_in)

    def act(self, member_id: str, action: Any, /, **details: Any) -> dict[str, Any]:
        """The member acts now: ``send_message``, ``receive_message``, ``comment``, ``react``, ..."""
        return self.model.act(member_id, action, details)

    def issue_token(self, member_id: str, *, expires_in: Any = None, scope: Any = None,
                    client_id: Any = None) -> dict[str, Any]:
        """A token of the member's built-in application, or of the registered ``client_id``."""
        return self.model.issue_token(member_id, expires_in=expires_in, scope=scope, client_id=client_id)

    # -- OAuth (see docs/services/member-export.md, "OAuth") ----------------------------------
    def register_application(self, **fields: Any) -> dict[str, Any]:
        """A developer application: ``redirect_uris`` (required), ``name``, ``scopes``, ``products``,
        ``client_id``, ``client_secret``, ``refresh_tokens``; the answer holds its credentials."""
        return self.model.register_application(fields)

    def application_info(self, client_id: str) -> dict[str, Any]:
        return self.model.application(client_id).describe()

    def sign_in(self, member_id: str | None) -> dict[str, Any]:
        """The member the authorization page takes as signed in (None: the page offers a picker)."""
        return self.model.sign_in(member_id)

    def authorize(self, client_id: str, member_id: str, *, scope: Any = None, redirect_uri: Any = None,
                  state: Any = None) -> dict[str, Any]:
        """The member approves ``client_id`` at once: ``{"code", "redirect_uri", "location"}``."""
        return self.model.authorize(client_id, member_id, scope=scope, redirect_uri=redirect_uri, state=state)

    def revoke(self, member_id: str, client_id: str | None = None) -> dict[str, Any]:
        """The member removes the application (all applications) in their settings: tokens revoked."""
        return self.model.revoke(member_id, client_id)
