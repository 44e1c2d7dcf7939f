"""What the account tests share: a relay with treg's own header names, and a user signed in by
the e-mailed code (the fake's outbox hands the code back as ``dev_code``)."""

from __future__ import annotations

import httpx

from fakes.relay import RelayFake

CALL = "/call/firmdata.companies.enrich"
DOMAIN = {"domain": "northwind.com"}


def treg_fake() -> RelayFake:
    return RelayFake(seed=0, header_prefix="X-Treg")


def signed_in(http: httpx.Client, email: str) -> dict[str, str]:
    """Sign ``email`` in with its e-mailed code; the session's header (the cookie is dropped)."""
    code = http.post("/auth/email/start", json={"email": email}).json()["dev_code"]
    token = http.post("/auth/email/verify", json={"email": email, "code": code}).json()["token"]
    http.cookies.clear()
    return {"X-Treg-Token": token}
