"""Authorization codes: single use, bound to the application, the member, the redirect URL and the
scopes approved, and valid for 30 minutes of virtual time ("the authorization code has a 30-minute
lifespan", LinkedIn's "Authorization Code Flow" page; the ``authorization_code_lifetime_s``
setting).

A used or expired code is kept for a day after its expiry, so that a replay is answered like the
real service answers an expired or mismatched code rather than as an unknown one; after that it is
forgotten (the store stays small however many logins a long test makes).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any

from fakes.kernel.clock import MAX_EPOCH_MS
from fakes.kernel.statecheck import StateReader, refuse

from .data import DAY_MS
from .tokens import MAX_SCOPE

KEEP_AFTER_EXPIRY_MS = DAY_MS


@dataclass
class AuthorizationCode:
    client_id: str
    member_id: str
    redirect_uri: str
    scope: str           # the approved scopes, comma-separated as LinkedIn writes them
    issued_ms: int       # the member's approval: the token's authorized_at
    expires_ms: int
    used: bool = False

    def to_state(self) -> dict[str, Any]:
        return dict(vars(self))


class Redemption(Enum):
    UNKNOWN = "unknown"        # never issued (or long forgotten)
    MISMATCH = "mismatch"      # another application or another redirect URL
    EXPIRED = "expired"
    USED = "used"


class AuthorizationCodes:
    def __init__(self) -> None:
        self.codes: dict[str, AuthorizationCode] = {}

    def add(self, value: str, code: AuthorizationCode, now_ms: int) -> None:
        self.prune(now_ms)
        self.codes[value] = code

    def prune(self, now_ms: int) -> None:
        if self.codes:
            stale = [value for value, code in self.codes.items() if code.expires_ms + KEEP_AFTER_EXPIRY_MS <= now_ms]
            for value in stale:
                del self.codes[value]

    def redeem(self, value: str, client_id: str, redirect_uri: str,
               now_ms: int) -> AuthorizationCode | Redemption:
        """The code, now used, or why it cannot be exchanged (a refused code stays as it was)."""
        code = self.codes.get(value)
        if code is None:
            return Redemption.UNKNOWN
        if code.used:
            return Redemption.USED
        if now_ms >= code.expires_ms:
            return Redemption.EXPIRED
        if code.client_id != client_id or code.redirect_uri != redirect_uri:
            return Redemption.MISMATCH
        code.used = True
        return code

    def to_state(self) -> dict[str, Any]:
        return {value: code.to_state() for value, code in self.codes.items()}

    def load_state(self, read: StateReader, members: dict[str, Any], clients: dict[str, Any]) -> None:
        for value in read.value:
            if not isinstance(value, str) or not 1 <= len(value) <= 200:
                refuse(read.path, "holds a code that is not a string of 1 to 200 characters")
            item = read.object(value).only(("client_id", "member_id", "redirect_uri", "scope", "issued_ms",
                                            "expires_ms", "used"))
            client_id, member_id = item.text("client_id", max_length=100), item.text("member_id", max_length=64)
            if client_id not in clients:
                refuse(item.where("client_id"), f"names no application of this state ({client_id!r})")
            if member_id not in members:
                refuse(item.where("member_id"), f"names no member of this state ({member_id!r})")
            self.codes[value] = AuthorizationCode(
                client_id=client_id, member_id=member_id, redirect_uri=item.text("redirect_uri", max_length=2_000),
                scope=item.text("scope", max_length=MAX_SCOPE),
                issued_ms=item.integer("issued_ms", minimum=0, maximum=MAX_EPOCH_MS),
                expires_ms=item.integer("expires_ms", minimum=0, maximum=2**62), used=item.boolean("used"))
