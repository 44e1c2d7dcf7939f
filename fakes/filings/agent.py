"""Accounts an AI agent signs up for itself (``/agent/...``), and their owners' part.

``POST /agent/signup/`` makes an account for an email and returns its key: the account starts in a
read-only ``sandbox`` of ``agent_sandbox_calls`` data calls; then it is ``unfunded`` and data calls
answer 402 until the owner confirms (``active``: the free plan) or adds a card (``funded``:
pay-as-you-go, no yearly limit). An email that already has an account answers 409 with a
``claim_token``; ``POST /agent/key-claim/`` answers 202 until the owner approves the claim, then the
key once (later: 410). The owner's side is the control plane (``/_fake/agents/...``): confirm,
fund, approve a claim, log in (after which the agent may not rotate the key), block.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any

from fakes.kernel.errors import ServiceError
from fakes.kernel.statecheck import StateReader, refuse

from .catalogue.arith import stable_hash
from .catalogue.records import iso_s

STATES = ("sandbox", "unfunded", "funded", "active", "blocked")
#: ASCII on purpose: the same pattern in the OpenAPI document means the same to a JSON Schema engine
EMAIL = re.compile(r"^[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}$")
AGENT_NAME = re.compile(r"^[A-Za-z0-9 _-]{1,64}$")
CLAIM_SALT = 0xC1A1
CHECKOUT_SALT = 0xC4EC
CLAIM_TTL_S = 24 * 3600
CHECKOUT_TTL_S = 24 * 3600
MAX_EPOCH_S = 253_402_300_799
DAILY_CAP = "50.00"
CYCLE_CAP = "500.00"


def _bad(message: str) -> ServiceError:
    return ServiceError(400, message, code="invalid_body")


@dataclass
class AgentAccount:
    email: str
    agent_name: str
    key: str  # the key it authenticates with now
    state: str
    created_s: int
    sandbox_used: int = 0
    confirmation_sent_s: int | None = None
    owner_logged_in: bool = False
    checkout_url: str | None = None
    checkout_expires_s: int | None = None

    def status_json(self, sandbox_calls: int, now_s: int) -> dict[str, Any]:
        link = None
        if self.checkout_url is not None and self.checkout_expires_s is not None and self.checkout_expires_s > now_s:
            link = {"url": self.checkout_url, "expires_at": iso_s(self.checkout_expires_s)}
        return {"state": self.state, "email": self.email, "agent_name": self.agent_name,
                "sandbox_calls_remaining": max(0, sandbox_calls - self.sandbox_used) if self.state == "sandbox" else 0,
                "owner_confirmation_sent_at": None if self.confirmation_sent_s is None
                else iso_s(self.confirmation_sent_s),
                "owner_logged_in": self.owner_logged_in,
                "spend_caps": {"daily": DAILY_CAP, "cycle": CYCLE_CAP, "currency": "EUR"} if self.state == "funded"
                else None, "checkout_link": link}


@dataclass
class Claim:
    token: str
    email: str
    created_s: int
    approved: bool = False
    claimed: bool = False


class Agents:
    def __init__(self) -> None:
        self.accounts: dict[str, AgentAccount] = {}  # by email (lower case)
        self.claims: dict[str, Claim] = {}
        self.claim_seq = 0
        self.checkout_seq = 0

    def by_key(self, key: str) -> AgentAccount | None:
        for account in self.accounts.values():
            if account.key == key:
                return account
        return None

    def sign_up(self, body: dict[str, Any]) -> tuple[str, str]:
        """(email, agent name) of a valid signup body; 400 otherwise."""
        email, name = body.get("email"), body.get("agent_name")
        if not isinstance(email, str) or not EMAIL.fullmatch(email) or len(email) > 254:
            raise _bad("email: Enter a valid email address.")
        if not isinstance(name, str) or not AGENT_NAME.fullmatch(name):
            raise _bad("agent_name: 1-64 characters: letters, digits, space, _ or -.")
        return email.lower(), name

    def claim_for(self, seed: int, epoch: int, email: str, now_s: int) -> Claim:
        self.claim_seq += 1
        token = f"clm_{stable_hash(seed, CLAIM_SALT, epoch, self.claim_seq):016x}"
        claim = Claim(token, email, now_s)
        self.claims[token] = claim
        return claim

    def claim(self, body: dict[str, Any], now_s: int) -> tuple[int, dict[str, Any]]:
        token = body.get("claim_token")
        if not isinstance(token, str) or not token:
            raise _bad("claim_token: This field is required.")
        claim = self.claims.get(token)
        if claim is None:
            raise ServiceError(404, "Unknown claim token.", code="not_found")
        if claim.claimed or now_s > claim.created_s + CLAIM_TTL_S:
            raise ServiceError(410, "This claim was already used or has expired; sign up again for a new one.",
                               code="gone")
        if not claim.approved:
            return 202, {"status": "pending", "detail": "Waiting for the account owner to approve this claim.",
                         "expires_at": iso_s(claim.created_s + CLAIM_TTL_S)}
        claim.claimed = True
        account = self.accounts[claim.email]
        return 200, {"status": "approved", "api_key": account.key, "email": account.email,
                     "state": account.state}

    def checkout(self, seed: int, epoch: int, account: AgentAccount, now_s: int) -> tuple[int, dict[str, Any]]:
        if account.state == "funded":
            raise ServiceError(409, "This account already has a card on file.", code="conflict")
        if account.checkout_url is not None and (account.checkout_expires_s or 0) > now_s:
            return 200, {"url": account.checkout_url, "expires_at": iso_s(account.checkout_expires_s or 0),
                         "reused": True}
        self.checkout_seq += 1
        account.checkout_url = ("https://checkout.stripe.com/c/pay/cs_test_"
                                f"{stable_hash(seed, CHECKOUT_SALT, epoch, self.checkout_seq):016x}")
        account.checkout_expires_s = now_s + CHECKOUT_TTL_S
        return 201, {"url": account.checkout_url, "expires_at": iso_s(account.checkout_expires_s), "reused": False}

    # -- state ---------------------------------------------------------------------------------
    def to_state(self) -> dict[str, Any]:
        return {"accounts": [asdict(a) for a in self.accounts.values()],
                "claims": [asdict(c) for c in self.claims.values()],
                "claim_seq": self.claim_seq, "checkout_seq": self.checkout_seq}

    @classmethod
    def read(cls, read: StateReader, agent_keys: dict[str, str]) -> Agents:
        """``agent_keys``: each agent key of model.keys -> the email it names."""
        found = cls()
        read.only(("accounts", "claims", "claim_seq", "checkout_seq"))
        for item in read.objects("accounts"):
            item.only(("email", "agent_name", "key", "state", "created_s", "sandbox_used", "confirmation_sent_s",
                       "owner_logged_in", "checkout_url", "checkout_expires_s"))
            email = item.text("email", max_length=254, pattern=EMAIL.pattern)
            key = item.text("key", max_length=200)
            if agent_keys.get(key) != email or email in found.accounts:
                refuse(item.where("key"), "must be an agent key of model.keys naming this account, once")
            name = item.text("agent_name", max_length=64, pattern=AGENT_NAME.pattern)
            optional = {n: None if item.raw(n) is None else item.integer(n, minimum=0, maximum=MAX_EPOCH_S)
                        for n in ("confirmation_sent_s", "checkout_expires_s")}
            url = None if item.raw("checkout_url") is None else item.text("checkout_url", max_length=200)
            found.accounts[email] = AgentAccount(
                email, name, key, item.choice("state", STATES), item.integer("created_s", minimum=0,
                                                                             maximum=MAX_EPOCH_S),
                item.integer("sandbox_used", minimum=0, maximum=2**40), optional["confirmation_sent_s"],
                item.boolean("owner_logged_in"), url, optional["checkout_expires_s"])
        if set(agent_keys.values()) - set(found.accounts):
            refuse(read.where("accounts"), "must hold an account for every agent key of model.keys")
        for item in read.objects("claims"):
            item.only(("token", "email", "created_s", "approved", "claimed"))
            token, email = item.text("token", max_length=100), item.text("email", max_length=254)
            if email not in found.accounts:
                refuse(item.where("email"), "names no agent account")
            found.claims[token] = Claim(token, email, item.integer("created_s", minimum=0, maximum=MAX_EPOCH_S),
                                        item.boolean("approved"), item.boolean("claimed"))
        found.claim_seq = read.integer("claim_seq", minimum=len(found.claims), maximum=2**40)
        found.checkout_seq = read.integer("checkout_seq", minimum=0, maximum=2**40)
        return found
