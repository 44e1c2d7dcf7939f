"""Access tokens, refresh tokens and the strings they are made of.

A token belongs to a member and an application. Tokens made through the control plane belong to
the member's built-in application (no OAuth client: ``client_id`` is None); tokens made by the
OAuth flow belong to a registered application and remember when the member authorized it.
Token strings are derived from the seed, the fake's reset epoch and a counter, so two fresh fakes
issue the same tokens and a reset never issues one again.
"""

from __future__ import annotations

import base64
import hashlib
import re
from dataclasses import dataclass
from typing import Any

from fakes.kernel.clock import MAX_EPOCH_MS
from fakes.kernel.statecheck import StateReader, refuse

MAX_TOKEN = 2_000        # LinkedIn: plan for tokens of at least 1,000 characters; ours have 66
MAX_SCOPE = 1_000
_SCOPE_SEPARATORS = re.compile(r"[,\s]+")


def scope_list(scope: str) -> list[str]:
    """The scopes of a scope string in order: LinkedIn writes them comma-separated, requests
    space-separated."""
    return [part for part in _SCOPE_SEPARATORS.split(scope) if part]


def scope_set(scope: str) -> frozenset[str]:
    return frozenset(scope_list(scope))


def mint(seed: int, epoch: int, kind: str, number: int) -> str:
    """A token-like string (``AQ`` + 64 URL-safe characters, as LinkedIn's tokens start with AQ).

    ``kind`` separates access tokens, refresh tokens and authorization codes; the historic access
    token identity (no kind) is kept so that tokens of existing states stay what they were."""
    label = "token" if kind == "access" else kind
    identity = f"{seed}|{label}|{number}" if epoch == 0 else f"{seed}|{epoch}|{label}|{number}"
    raw = hashlib.blake2b(identity.encode(), digest_size=48).digest()
    return "AQ" + base64.urlsafe_b64encode(raw).decode()


@dataclass
class Token:
    member_id: str
    application: str             # urn:li:developerApplication:N
    issued_ms: int
    expires_ms: int
    scope: str
    client_id: str | None = None  # None: a control-plane token of the member's built-in application
    authorized_ms: int | None = None  # when the member approved the application (OAuth tokens)
    revoked: bool = False

    def __post_init__(self) -> None:
        self.scopes = scope_set(self.scope)

    def to_state(self) -> dict[str, Any]:
        return {"member_id": self.member_id, "application": self.application, "issued_ms": self.issued_ms,
                "expires_ms": self.expires_ms, "scope": self.scope, "client_id": self.client_id,
                "authorized_ms": self.authorized_ms, "revoked": self.revoked}


@dataclass
class RefreshToken:
    """A programmatic refresh token: its lifetime is fixed when the member authorizes, refreshing
    only mints new access tokens."""

    member_id: str
    client_id: str
    scope: str
    issued_ms: int
    expires_ms: int
    authorized_ms: int
    revoked: bool = False

    def to_state(self) -> dict[str, Any]:
        return dict(vars(self))


TOKEN_FIELDS = ("member_id", "application", "issued_ms", "expires_ms", "scope", "client_id", "authorized_ms",
                "revoked")


def token_from_state(read: StateReader, members: dict[str, Any], clients: dict[str, Any]) -> Token:
    """An access token of an imported state; the OAuth fields are optional (older states lack them)."""
    read.only(TOKEN_FIELDS)
    member_id = read.text("member_id", max_length=64)
    if member_id not in members:
        refuse(read.where("member_id"), f"names no member of this state ({member_id!r})")
    client_id = read.text("client_id", max_length=100, nullable=True) if read.has("client_id") else None
    if client_id is not None and client_id not in clients:
        refuse(read.where("client_id"), f"names no application of this state ({client_id!r})")
    return Token(member_id=member_id, application=read.text("application", max_length=200),
                 issued_ms=read.integer("issued_ms", minimum=0, maximum=MAX_EPOCH_MS),
                 expires_ms=read.integer("expires_ms", minimum=0, maximum=2**62),
                 scope=read.text("scope", max_length=MAX_SCOPE), client_id=client_id,
                 authorized_ms=(read.integer("authorized_ms", minimum=0, maximum=MAX_EPOCH_MS, nullable=True)
                                if read.has("authorized_ms") else None),
                 revoked=read.boolean("revoked") if read.has("revoked") else False)


def refresh_token_from_state(read: StateReader, members: dict[str, Any], clients: dict[str, Any]) -> RefreshToken:
    read.only(("member_id", "client_id", "scope", "issued_ms", "expires_ms", "authorized_ms", "revoked"))
    member_id = read.text("member_id", max_length=64)
    if member_id not in members:
        refuse(read.where("member_id"), f"names no member of this state ({member_id!r})")
    client_id = read.text("client_id", max_length=100)
    if client_id not in clients:
        refuse(read.where("client_id"), f"names no application of this state ({client_id!r})")
    return RefreshToken(member_id=member_id, client_id=client_id, scope=read.text("scope", max_length=MAX_SCOPE),
                        issued_ms=read.integer("issued_ms", minimum=0, maximum=MAX_EPOCH_MS),
                        expires_ms=read.integer("expires_ms", minimum=0, maximum=2**62),
                        authorized_ms=read.integer("authorized_ms", minimum=0, maximum=MAX_EPOCH_MS),
                        revoked=read.boolean("revoked"))
