"""The model's newer parts: watchlists, webhooks, filing history, merges and agent accounts.

A mixin of :class:`~fakes.filings.model.FilingsModel` (its state lives on the model, built in
:meth:`ModelExtras.init_extras`); each part's rules are in its own module, this is the glue that
needs the model's companies, filings and clock.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fakes.kernel.errors import ServiceError

from .agent import AgentAccount, Agents
from .catalogue.markdown import render_markdown
from .catalogue.records import FilingRecord, generated_record
from .history import MAX_VERSIONS, Version, history_rows, rerelease
from .keys import AGENT_ACCOUNT, ApiKey
from .merges import Merges
from .outbox import Outgoing
from .userdata import USER_ID_BASE
from .watchlist import Watchlists
from .webhookbook import WebhookBook

if TYPE_CHECKING:
    from fakes.kernel.clock import Clock

    from .catalogue.companies import CompanyCore
    from .catalogue.generator import Catalogue
    from .settings import FilingsSettings

OWNER_ACTIONS = ("confirm", "fund", "login", "block", "unblock")
PAYMENT_REQUIRED = ("This agent key's sandbox is used up: data calls need the owner's confirmation "
                    "(POST /agent/owner-confirmation/) or a card (POST /agent/checkout-link/).")


class ModelExtras:
    """What these parts need of the model (defined there)."""

    seed: int
    epoch: int
    settings: FilingsSettings
    clock: Clock
    keys: dict[str, ApiKey]
    filings: dict[int, FilingRecord]
    version: int

    @property
    def catalogue(self) -> Catalogue:
        raise NotImplementedError

    def now_s(self) -> int:
        raise NotImplementedError

    def core(self, company_id: int) -> CompanyCore | None:
        raise NotImplementedError

    def record(self, filing_id: int) -> FilingRecord:
        raise NotImplementedError

    def create_key(self, tier: str, quota: int | str | None = "default") -> ApiKey:
        raise NotImplementedError

    def visible_count(self) -> int:
        raise NotImplementedError

    def init_extras(self) -> None:
        settings = self.settings
        self.watchlists = Watchlists(settings.watchlist_limit)
        self.webhooks = WebhookBook(self.seed, self.epoch, settings)
        self.versions: dict[int, list[Version]] = {}
        self.merges = Merges()
        self.agents = Agents()

    # -- watchlists ----------------------------------------------------------------------------
    def watched(self, key: ApiKey) -> frozenset[int]:
        return self.watchlists.watched(key.key)

    # -- filings' history ----------------------------------------------------------------------
    def find_record(self, filing_id: int) -> FilingRecord | None:
        """A filing by id whether or not it is visible yet (for webhook payloads)."""
        if filing_id >= USER_ID_BASE:
            return self.filings.get(filing_id)
        if 1 <= filing_id <= self.catalogue.timeline.count_released_by(self.now_s()) + 1:
            return generated_record(self.catalogue, filing_id - 1)
        return None

    def markdown_text(self, record: FilingRecord) -> str:
        core = self.core(record.company_id)
        assert core is not None
        return render_markdown(record, core, self.seed)

    def history_of(self, filing_id: int) -> list[dict[str, Any]]:
        record = self.record(filing_id)
        return history_rows(record, self.versions.get(record.id, []), self.now_s(), self.settings.processing_delay_s)

    def rerelease(self, filing_id: int, body: dict[str, Any]) -> dict[str, Any]:
        """Re-release a user's filing now: a new version in its history, ``filing.updated`` sent."""
        record = self.filings.get(filing_id)
        if record is None or record.added_s > self.now_s():
            raise ServiceError(404, f"no user filing {filing_id} on the platform (generated filings are not "
                                    "re-released)", code="not_found")
        versions = self.versions.setdefault(record.id, [])
        if len(versions) >= MAX_VERSIONS:
            raise ServiceError(409, f"filing {filing_id} already has {MAX_VERSIONS} re-releases", code="conflict")
        now_s = self.now_s()
        changes = rerelease(record, body, now_s)
        versions.append(Version(now_s, changes))
        self.webhooks.updated(self, record, changes, now_s)
        self.version += 1
        return {"filing_id": record.id, "history_date": now_s, "changes": changes}

    # -- webhooks ------------------------------------------------------------------------------
    def catch_up(self) -> list[Outgoing]:
        """Apply what the clock passed (webhook events and retries); the attempts to send."""
        book = self.webhooks
        if book.hooks:
            book.catch_up(self, self.now_s())
            if book.outgoing:
                self.version += 1
        return book.take_outgoing() if book.outgoing else []

    def record_attempt(self, item: Outgoing, status: int | None, body: str | None,
                       duration_ms: int) -> None:
        self.webhooks.record(item.delivery, status, body, duration_ms)
        self.version += 1

    # -- merges --------------------------------------------------------------------------------
    def merge(self, body: dict[str, Any]) -> dict[str, Any]:
        def name_of(company_id: int) -> str | None:
            core = self.core(company_id)
            return None if core is None else core.name
        merge = self.merges.merge(body, self.now_s(), name_of)
        self.version += 1
        return merge.to_json()

    def reverse_merge(self, merge_id: int) -> dict[str, Any]:
        merge = self.merges.reverse(merge_id, self.now_s())
        self.version += 1
        return merge.to_json()

    # -- agent accounts ------------------------------------------------------------------------
    def sign_up(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        email, name = self.agents.sign_up(body)
        now_s = self.now_s()
        if email in self.agents.accounts:
            claim = self.agents.claim_for(self.seed, self.epoch, email, now_s)
            self.version += 1
            return 409, {"detail": "An account with this email already exists. The owner can approve a claim; "
                                   "poll POST /agent/key-claim/ with the claim_token.", "claim_token": claim.token}
        key = self.create_key("standard", None)
        key.agent = email
        self.agents.accounts[email] = AgentAccount(email, name, key.key, "sandbox", now_s)
        self.version += 1
        return 201, {"api_key": key.key, "state": "sandbox", "email": email, "agent_name": name,
                     "sandbox_calls": self.settings.agent_sandbox_calls,
                     "detail": "This key is shown once. It starts in a read-only sandbox."}

    def rotate_agent_key(self, account: AgentAccount) -> ApiKey:
        old = self.keys.pop(account.key)
        fresh = self.create_key("standard", None)
        fresh.agent, fresh.used, fresh.year = account.email, old.used, old.year
        account.key = fresh.key
        self.watchlists.rekey(old.key, fresh.key)
        for hook in self.webhooks.hooks.values():
            if hook.owner == old.key:
                hook.owner = fresh.key
        self.version += 1
        return fresh

    def agent_gate(self, key: ApiKey, feature: str | None, write: bool) -> None:
        """An agent key's account state allows this call (402 unfunded, 403 blocked or a write in
        the read-only sandbox)."""
        account = self.agents.accounts.get(key.agent or "")
        if account is None:
            return
        if account.state == "blocked":
            raise ServiceError(403, "This agent account is blocked.", code="permission_denied")
        if feature == AGENT_ACCOUNT:
            return
        if account.state == "sandbox":
            if write:
                raise ServiceError(403, "The sandbox is read-only: confirm the account or add a card to make "
                                        "changes.", code="permission_denied")
            if account.sandbox_used >= self.settings.agent_sandbox_calls:
                account.state = "unfunded"
                self.version += 1
        if account.state == "unfunded":
            raise ServiceError(402, PAYMENT_REQUIRED, code="payment_required", type="payment_required",
                               state="unfunded")

    def touch(self, key: ApiKey) -> None:
        """A call of ``key`` succeeded: a sandbox counts it."""
        if key.agent is not None:
            account = self.agents.accounts.get(key.agent)
            if account is not None and account.state == "sandbox":
                account.sandbox_used += 1

    def owner_action(self, email: str, action: str) -> dict[str, Any]:
        """The owner's side (control plane): confirm, fund, login, block, unblock."""
        account = self.agents.accounts.get(email.strip().lower())
        if account is None:
            raise ServiceError(404, f"no agent account for {email!r}", code="not_found")
        if action == "confirm":
            account.state = "funded" if account.state == "funded" else "active"
        elif action == "fund":
            account.state = "funded"
        elif action == "login":
            account.owner_logged_in = True
        elif action == "block":
            account.state = "blocked"
        elif action == "unblock":
            account.state = "active"
        else:
            raise ServiceError(400, "action must be confirm, fund, login, block or unblock", code="invalid_body")
        self.version += 1
        return {"email": account.email, "state": account.state, "owner_logged_in": account.owner_logged_in}

    def approve_claim(self, token: str) -> dict[str, Any]:
        claim = self.agents.claims.get(token)
        if claim is None:
            raise ServiceError(404, f"no claim {token!r}", code="not_found")
        claim.approved = True
        self.version += 1
        return {"claim_token": claim.token, "email": claim.email, "approved": True}
