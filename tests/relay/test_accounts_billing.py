"""Money as treg handles it: top-ups through a (simulated) checkout the payer completes on the clock,
bonus tiers, the payment history, the billing portal, auto top-up after a charge, and referrals."""

from __future__ import annotations

import httpx
import pytest

from fakes.relay import RelayFake

from .accounts_support import CALL, DOMAIN, treg_fake
from .accounts_support import signed_in as _signed_in


@pytest.fixture
def fake() -> RelayFake:
    return treg_fake()


def _team(http: httpx.Client, email: str = "ada@northwind.com", name: str = "Northwind") -> dict[str, str]:
    made = http.post("/orgs", json={"name": name}, headers=_signed_in(http, email)).json()
    return {"X-Treg-Token": made["token"]}


def test_a_top_up_credits_the_balance_when_the_payer_completes_the_checkout(fake: RelayFake) -> None:
    with fake.client() as http:
        owner = _team(http)
        start = http.get("/billing", headers=owner).json()["balance_micro"]
        assert http.post("/billing/topup", json={"amount_usd": 5}, headers=owner).status_code == 422  # min $10
        opened = http.post("/billing/topup", json={"amount_usd": 50}, headers=owner).json()
        assert opened["amount_micro"] == 50_000_000 and opened["url"].endswith(f"/checkout/{opened['session_id']}")
        assert "Pay" in http.get(f"/checkout/{opened['session_id']}").text
        assert http.get("/billing", headers=owner).json()["balance_micro"] == start  # not paid yet
        assert http.post("/billing/portal", headers=owner).status_code == 409  # no customer before a payment
        assert "Payment received" in http.post(f"/checkout/{opened['session_id']}").text
        billing = http.get("/billing", headers=owner).json()
        assert billing["balance_micro"] == start + 50_000_000 + 2_500_000  # the 5% tier from $50
        assert billing["card_on_file"] is True and billing["topup"]["default_usd"] == 50
        history = http.get("/billing/history", headers=owner).json()["items"]
        assert [item["amount_micro"] for item in history] == [50_000_000]
        assert http.post("/billing/portal", headers=owner).json()["url"].startswith("http")
        kinds = {b["kind"] for b in http.get("/orgs/1/balance", headers=owner).json()["blocks"]}
        assert {"topup", "bonus"} <= kinds


def test_an_open_checkout_is_paid_on_the_clock_or_cancelled_through_the_control_plane(fake: RelayFake) -> None:
    with fake.client() as http:
        owner = _team(http)
        start = http.get("/billing", headers=owner).json()["balance_micro"]
        first = http.post("/billing/topup", json={"amount_usd": 10}, headers=owner).json()["session_id"]
        assert [c["status"] for c in http.get("/_fake/checkouts").json()] == ["open"]
        fake.advance(fake.model.settings.checkout_s)
        assert http.get("/billing", headers=owner).json()["balance_micro"] == start + 10_000_000
        second = http.post("/billing/topup", json={"amount_usd": 20}, headers=owner).json()["session_id"]
        assert http.post(f"/_fake/checkouts/{second}/cancel").json()["status"] == "cancelled"
        fake.advance(3600)
        assert http.get("/billing", headers=owner).json()["balance_micro"] == start + 10_000_000
        assert fake.pay_checkout(first)["status"] == "paid"  # paying twice changes nothing
        assert {c["session_id"]: c["status"] for c in fake.checkouts()} == {first: "paid", second: "cancelled"}


def test_auto_top_up_needs_consent_and_a_card_then_refills_after_a_charge(fake: RelayFake) -> None:
    with fake.client() as http:
        owner = _team(http)
        refused = http.post("/billing/autotopup", json={"enabled": True}, headers=owner)
        assert refused.status_code == 403 and refused.json()["error"] == "consent_required"
        balance = http.get("/billing", headers=owner).json()["balance_micro"]
        armed = http.post("/billing/autotopup", json={"enabled": True, "consent": True,
                                                      "threshold_usd": balance / 1e6, "amount_usd": 20},
                          headers=owner).json()
        assert armed["autotopup"]["enabled"] is True and "/checkout/" in armed["setup_url"]
        http.post(armed["setup_url"].split("testserver", 1)[-1])  # the card is saved, nothing charged
        assert http.get("/billing", headers=owner).json()["balance_micro"] == balance
        assert http.get(CALL, params=DOMAIN, headers=owner).headers["X-Treg-Cost-Micro"] == "10000"
        after = http.get("/billing", headers=owner).json()
        assert after["balance_micro"] == balance - 10_000 + 20_000_000
        assert after["autotopup"]["month_spend_micro"] == 20_000_000
        assert [i["auto"] for i in http.get("/billing/history", headers=owner).json()["items"]] == [True]
        http.post("/billing/autotopup", json={"enabled": False}, headers=owner)
        http.get(CALL, params=DOMAIN, headers=owner)
        assert http.get("/billing", headers=owner).json()["balance_micro"] == balance - 20_000 + 20_000_000


def test_a_referral_pays_both_teams_after_the_first_top_up_and_the_hold(fake: RelayFake) -> None:
    with fake.client() as http:
        ada = _team(http)
        code = http.post("/referrals/code", headers=ada).json()["code"]
        signed_in = _signed_in(http, "bo@contoso.com")
        http.get("/", params={"ref": code})  # the landing page parks the code in a cookie
        assert http.cookies.get("treg_ref") == code  # relay_name follows the header prefix
        bo = {"X-Treg-Token": http.post("/orgs", json={"name": "Contoso"}, headers=signed_in).json()["token"]}
        assert http.get("/referrals", headers=ada).json()["referrals"][0]["status"] == "signed_up"
        paid = http.post("/billing/topup", json={"amount_usd": 10}, headers=bo).json()["session_id"]
        fake.pay_checkout(paid)
        assert http.get("/referrals", headers=ada).json()["referrals"][0]["status"] == "qualified"
        before = http.get("/billing", headers=ada).json()["balance_micro"]
        fake.advance(7 * 86_400)
        summary = http.get("/referrals", headers=ada).json()
        assert summary["referrals"][0]["status"] == "paid" and summary["totals"]["earned_micro"] == 5_000_000
        assert http.get("/billing", headers=ada).json()["balance_micro"] == before + 5_000_000
