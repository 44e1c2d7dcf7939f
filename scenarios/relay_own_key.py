"""Relay: a team switches a provider to its own key.

First the provider is called on the relay's key: billed at the catalogue price, reported in the
cost header and in the call record (``credential: relay_key``). Then the team registers its own
key for that provider; the same call is served with it (rung one of the credential ladder): no
cost header, the balance unchanged, the call record says ``own_tool``. On the fake the key is
registered through the control plane; against the real relay register it first (``treg upload``)
and run with ``--credentials own_key_registered=yes``.
"""

from __future__ import annotations

from .runner import Run, Scenario

ENDPOINT = "firmdata.companies.enrich"
PARAMS = {"domain": "northwind.com"}


def flow(run: Run) -> None:
    prefix = run.credentials.get("header_prefix", "X-Proxy")
    created: dict[str, str] = {}

    def new_team() -> str:
        created.update(run.control("POST", "/_fake/teams", json={}))
        return created["token"]

    token = run.credential("token", create=new_team)
    headers = {f"{prefix}-Token": token}

    with run.step("on the relay's key the call is billed at the catalogue price"):
        price = int(run.request("GET", f"/catalog/endpoints/{ENDPOINT}").json()["endpoint"]["cost"]["value"])
        before = int(run.request("GET", "/balance", headers=headers).json()["balance_micro"])
        paid = run.request("GET", f"/call/{ENDPOINT}", headers=headers, params=PARAMS)
        run.check(paid.status_code == 200, "served", paid.text[:200])
        run.check(paid.headers.get(f"{prefix}-Cost-Micro") == str(price), "the cost header is the price",
                  paid.headers.get(f"{prefix}-Cost-Micro"))
        record = run.request("GET", f"/calls/{paid.headers[f'{prefix}-Call-Id']}", headers=headers).json()
        run.check(record["credential"] == "relay_key" and record["cost_micro"] == price,
                  "the call record says relay_key and the cost", record)
        after = int(run.request("GET", "/balance", headers=headers).json()["balance_micro"])
        run.check(after == before - price, "the balance paid the price", (before, after))

    with run.step("register the team's own key for the provider"):
        provider = record["provider"]
        run.credential("own_key_registered", create=lambda: str(run.control(
            "POST", f"/_fake/teams/{created['team_id']}/tools", json={"provider": provider, "key": "team-own-key"})))

    with run.step("the same call now runs on the team's own key, never metered"):
        own = run.request("GET", f"/call/{ENDPOINT}", headers=headers, params=PARAMS)
        run.check(own.status_code == 200, "served", own.text[:200])
        run.check(f"{prefix}-Cost-Micro" not in own.headers, "no cost header on an own-key call", dict(own.headers))
        record = run.request("GET", f"/calls/{own.headers[f'{prefix}-Call-Id']}", headers=headers).json()
        run.check(record["credential"] == "own_tool" and record["billed"] is False,
                  "the call record says own_tool, not billed", record)
        final = int(run.request("GET", "/balance", headers=headers).json()["balance_micro"])
        run.check(final == after, "the balance is unchanged", (after, final))


SCENARIO = Scenario(name="relay-own-key", service="relay",
                    summary="a provider switched to the team's own key: billed before, never metered after",
                    flow=flow)
