"""Credentials the account surface issues, deterministic under the seed.

- Membership tokens (a user in a team; treg's per-org token and the dashboard's Default key): opaque
  ``<relay>_<24 hex>``, the same form the relay's team tokens always had.
- Identity tokens and browser sessions (treg ``domain/identity/session.py``): signed claims,
  ``<base64url(json)>.<base64url(hmac)>`` with ``uid``, ``tv`` (the user's token version: revoking
  bumps it), ``aud`` (``identity`` or ``session``), ``exp`` on the fake's clock, and optionally
  ``org`` (a team the token is pinned to). Clients may read the claims without the key, as treg's
  CLI does; only the fake can sign them.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from typing import Any

from .. import data

IDENTITY = "identity"
SESSION = "session"
CLI_TOKEN_TTL_S = 30 * 24 * 3600  # treg api.py CLI_TOKEN_TTL
SESSION_TTL_S = 14 * 24 * 3600


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Signer:
    __slots__ = ("key", "relay_name", "seed")

    def __init__(self, seed: int, relay_name: str) -> None:
        self.key = hashlib.blake2b(repr((seed, "signing key")).encode(), digest_size=32).digest()
        self.relay_name = relay_name
        self.seed = seed

    def opaque(self, kind: str, number: int) -> str:
        """A deterministic opaque token: membership tokens, invite codes, states, login ids."""
        return f"{self.relay_name}_{data.token_text(self.seed, kind, number)}"

    def sign(self, claims: dict[str, Any]) -> str:
        raw = json.dumps(claims, separators=(",", ":"), sort_keys=True).encode()
        return f"{_b64(raw)}.{_b64(hmac.new(self.key, raw, hashlib.sha256).digest())}"

    def make(self, user_id: int, token_version: int, now_ms: int, *, audience: str = IDENTITY,
             ttl_s: int | None = CLI_TOKEN_TTL_S, org: str | None = None) -> str:
        claims: dict[str, Any] = {"uid": user_id, "tv": token_version, "aud": audience}
        if ttl_s is not None:
            claims["exp"] = now_ms // 1000 + ttl_s
        if org:
            claims["org"] = org
        return self.sign(claims)

    def read(self, token: str, now_ms: int, audience: str = IDENTITY) -> dict[str, Any] | None:
        """The verified, unexpired claims of a token of this audience, else None."""
        if not token or "." not in token or len(token) > 4096:
            return None
        payload, _, signature = token.partition(".")
        try:
            raw = _unb64(payload)
            if not hmac.compare_digest(_unb64(signature), hmac.new(self.key, raw, hashlib.sha256).digest()):
                return None
            claims = json.loads(raw)
        except (ValueError, UnicodeDecodeError):
            return None
        if not isinstance(claims, dict) or claims.get("aud") != audience or not isinstance(claims.get("uid"), int):
            return None
        expires = claims.get("exp")
        if isinstance(expires, int) and expires * 1000 < now_ms:
            return None
        return claims
